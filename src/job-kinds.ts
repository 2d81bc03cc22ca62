import type { Logger } from 'pino';
import type { Sql } from './db/client.js';
import { importJob } from './api/imports/processor.js';
import { optimizationJob } from './api/optimizations/job.js';
import { JobRunner, type JobDefinition, type RunnerOptions } from './jobs/runner.js';
import { pinGeneration } from './compute/pool.js';

/** A job answers from one map from its first compute task to its last, as a request does: a swap while it
 *  runs leaves it on the map it started on (which stays loaded until it ends). */
const pinned = <P>([kind, def]: [string, JobDefinition<P>]): [string, JobDefinition<P>] => [kind, { ...def, run: (ctx) => pinGeneration(() => def.run(ctx)) }];

/** A runner with the job kinds of the service registered, started. Optimizations need the road map
 *  loaded in this process: `mapDir` says it is, else another process takes them; imports place rows
 *  given by address on it. */
export async function startJobRunner(sql: Sql, log: Logger, opts: Omit<RunnerOptions, 'log'> & { mapDir?: string } = {}): Promise<JobRunner> {
  const { mapDir, ...rest } = opts;
  const runner = new JobRunner(sql, { log: log.child({ component: 'jobs' }), ...rest });
  runner.register(...pinned(importJob(sql, mapDir)));
  if (mapDir !== undefined) runner.register(...pinned(optimizationJob(sql)));
  await runner.start();
  return runner;
}
