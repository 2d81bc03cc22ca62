import type { Logger } from 'pino';
import type { Sql } from './db/client.js';
import { importJob } from './api/imports/processor.js';
import { optimizationJob } from './api/optimizations/job.js';
import { JobRunner, type RunnerOptions } from './jobs/runner.js';

/** A runner with the job kinds of the service registered, started. Optimizations need the road map
 *  loaded in this process: `mapDir` says it is, else another process takes them; imports place rows
 *  given by address on it. */
export async function startJobRunner(sql: Sql, log: Logger, opts: Omit<RunnerOptions, 'log'> & { mapDir?: string } = {}): Promise<JobRunner> {
  const { mapDir, ...rest } = opts;
  const runner = new JobRunner(sql, { log: log.child({ component: 'jobs' }), ...rest });
  runner.register(...importJob(sql, mapDir));
  if (mapDir !== undefined) runner.register(...optimizationJob(sql));
  await runner.start();
  return runner;
}
