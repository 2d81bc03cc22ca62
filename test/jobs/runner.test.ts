import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Sql } from '../../src/db/client.js';
import { enqueueJob } from '../../src/jobs/queue.js';
import { JobRunner, PermanentJobError, type JobDefinition } from '../../src/jobs/runner.js';
import { TEST_DATABASE_URL } from '../support/app.js';

let sql: Sql;
const runners: JobRunner[] = [];
let seq = 0;

beforeAll(() => {
  sql = connect(TEST_DATABASE_URL, 4);
});
afterAll(async () => {
  await Promise.all(runners.map((r) => r.stop(1000)));
  await sql.end();
});

async function runner(kind: string, def: JobDefinition<any>, leaseMs = 30_000): Promise<JobRunner> {
  const r = new JobRunner(sql, { log: pino({ level: 'silent' }), pollMs: 50, leaseMs }).register(kind, def);
  runners.push(r);
  await r.start();
  return r;
}

const kind = () => `test-${process.pid}-${++seq}`;
const until = async (check: () => boolean | Promise<boolean>, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((done) => setTimeout(done, 20));
  }
};
const jobRow = async (id: string) => (await sql`SELECT status, attempts, last_error FROM jobs WHERE id = ${id}`)[0];

describe('JobRunner', () => {
  it('runs an enqueued job once with its payload and deletes it', async () => {
    const k = kind();
    const seen: unknown[] = [];
    await runner(k, { run: async ({ job }) => void seen.push(job.payload) });
    const id = (await enqueueJob(sql, k, { n: 1 }))!;
    await until(() => seen.length === 1);
    await until(async () => !(await jobRow(id)));
    expect(seen).toEqual([{ n: 1 }]);
  });

  it('retries a failing job with attempts, then fails it for good and calls onFailure once', async () => {
    const k = kind();
    const attempts: number[] = [];
    const failures: string[] = [];
    await runner(k, {
      run: async ({ job }) => {
        attempts.push(job.attempts);
        throw new Error(`boom ${job.attempts}`);
      },
      retryDelayMs: () => 10,
      onFailure: async (_job, err) => void failures.push((err as Error).message),
    });
    const id = (await enqueueJob(sql, k, {}, { maxAttempts: 3 }))!;
    await until(() => failures.length === 1);
    expect(attempts).toEqual([1, 2, 3]);
    expect(failures).toEqual(['boom 3']);
    expect(await jobRow(id)).toEqual({ status: 'failed', attempts: 3, last_error: 'boom 3' });
  });

  it('does not retry a PermanentJobError', async () => {
    const k = kind();
    let runs = 0;
    const failed: string[] = [];
    await runner(k, {
      run: async () => {
        runs++;
        throw new PermanentJobError('unreadable');
      },
      onFailure: async (job) => void failed.push(job.id),
    });
    const id = (await enqueueJob(sql, k, {}))!;
    await until(() => failed.length === 1);
    expect(runs).toBe(1);
    expect(failed).toEqual([id]);
  });

  it('keeps one queued job per dedupe key', async () => {
    const k = kind();
    const a = await enqueueJob(sql, k, {}, { dedupeKey: 'team-1' });
    const b = await enqueueJob(sql, k, {}, { dedupeKey: 'team-1' });
    const c = await enqueueJob(sql, k, {}, { dedupeKey: 'team-2' });
    expect(a).toMatch(/^[0-9A-Z]{26}$/);
    expect(b).toBeNull();
    expect(c).not.toBeNull();
    await sql`DELETE FROM jobs WHERE kind = ${k}`;
  });

  it('gives a running job back on stop without spending an attempt, and another runner finishes it', async () => {
    const k = kind();
    let started = false;
    const first = await runner(k, {
      run: async ({ signal }) => {
        started = true;
        await new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
      },
    });
    const id = (await enqueueJob(sql, k, {}))!;
    await until(() => started);
    await first.stop();
    expect(await jobRow(id)).toMatchObject({ status: 'queued', attempts: 0 });
    const done: number[] = [];
    await runner(k, { run: async ({ job }) => void done.push(job.attempts) });
    await until(() => done.length === 1);
    expect(done).toEqual([1]);
  });

  it('takes over a job whose worker stopped renewing its lease, and never runs a job in two places', async () => {
    const k = kind();
    const id = (await enqueueJob(sql, k, {}))!;
    // a worker that claimed the job and died: its lease ran out
    await sql`UPDATE jobs SET status = 'running', attempts = 1, locked_by = 'dead', locked_until = now() - interval '1 second' WHERE id = ${id}`;
    const runs: number[] = [];
    const def: JobDefinition = {
      run: async ({ job }) => {
        runs.push(job.attempts);
        await new Promise((done) => setTimeout(done, 300));
      },
    };
    await runner(k, def, 200);
    await runner(k, def, 200);
    await until(async () => !(await jobRow(id)));
    expect(runs).toEqual([2]);
  });

  it('takes a job held by a dead worker of this host back at once, as a crash and not an attempt', async () => {
    const { hostname } = await import('node:os');
    const { spawnSync } = await import('node:child_process');
    const k = kind();
    const id = (await enqueueJob(sql, k, {}))!;
    const deadPid = spawnSync(process.execPath, ['-e', '']).pid!;
    // Its lease has an hour to run: only the pid tells the worker is gone.
    await sql`UPDATE jobs SET status = 'running', locked_by = ${`${hostname()}:${deadPid}:dead00`}, locked_until = now() + interval '1 hour' WHERE id = ${id}`;
    const seen: Array<{ attempts: number; crashes: number }> = [];
    await runner(k, { run: async ({ job }) => void seen.push({ attempts: job.attempts, crashes: job.crashes }) });
    await until(() => seen.length === 1, 5000);
    expect(seen).toEqual([{ attempts: 1, crashes: 1 }]);
  });

  it('does not spend an attempt on a database that does not answer', async () => {
    const k = kind();
    const seen: number[] = [];
    await runner(k, {
      run: async ({ job }) => {
        seen.push(job.attempts);
        if (seen.length === 1) throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
      },
    });
    const id = (await enqueueJob(sql, k, {}, { maxAttempts: 1 }))!;
    await until(async () => !(await jobRow(id)), 5000);
    expect(seen).toEqual([1, 1]);
  });
});
