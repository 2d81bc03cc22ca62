import type { Logger } from 'pino';
import type { Sql } from '../db/client.js';
import { importJob } from '../imports/processor.js';
import { JobRunner, type RunnerOptions } from './runner.js';

/** A runner with every job kind of the service registered, started. */
export async function startJobRunner(sql: Sql, log: Logger, opts: Omit<RunnerOptions, 'log'> = {}): Promise<JobRunner> {
  const runner = new JobRunner(sql, { log: log.child({ component: 'jobs' }), ...opts });
  runner.register(...importJob(sql));
  await runner.start();
  return runner;
}
