import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { Sql } from '../db/client.js';
import { JOBS_CHANNEL } from './queue.js';

export interface Job<P = Record<string, unknown>> {
  id: string;
  kind: string;
  payload: P;
  /** This attempt's number, from 1. */
  attempts: number;
  maxAttempts: number;
}

export interface JobContext<P> {
  job: Job<P>;
  /** Aborted when the runner stops or the lease was lost: stop at the next safe point by throwing
   *  (`signal.throwIfAborted()`); the job is then given back without spending an attempt. */
  signal: AbortSignal;
  log: Logger;
}

export interface JobDefinition<P = Record<string, unknown>> {
  /** Does the work. Returning completes the job (its row is deleted); throwing retries it later.
   *  A job may run again after a crash, so handlers must be idempotent (checkpoint as they go). */
  run(ctx: JobContext<P>): Promise<void>;
  /** Called once when the job is failed for good: attempts used up, or a `PermanentJobError`. */
  onFailure?(job: Job<P>, error: unknown): Promise<void>;
  /** Jobs of this kind run at once in one process; default 1. */
  concurrency?: number;
  /** Delay before retry number `attempt + 1`; default exponential from 1 s, at most 60 s. */
  retryDelayMs?(attempt: number): number;
}

/** Thrown by a handler for an error that retrying cannot fix. */
export class PermanentJobError extends Error {}

export interface RunnerOptions {
  log: Logger;
  /** Poll interval; NOTIFY on enqueue wakes the runner sooner. Default 200 ms. */
  pollMs?: number;
  /** Lease of a claimed job, renewed every third of it; a job whose worker died is claimed again once
   *  its lease has run out. Default 30 s. */
  leaseMs?: number;
}

interface Running {
  job: Job;
  controller: AbortController;
  /** Renews the lease while the handler runs. */
  beat: NodeJS.Timeout;
  done: Promise<void>;
}

const defaultDelay = (attempt: number) => Math.min(1000 * 2 ** (attempt - 1), 60_000);

/**
 * Runs durable jobs from the `jobs` table. Any number of runners (processes) may run side by side:
 * claims use FOR UPDATE SKIP LOCKED, so each job runs in one place at a time.
 */
export class JobRunner {
  readonly workerId = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  private readonly defs = new Map<string, JobDefinition<any>>();
  private readonly running = new Map<string, Running>();
  private readonly pollMs: number;
  private readonly leaseMs: number;
  private readonly log: Logger;
  private timer: NodeJS.Timeout | undefined;
  private unlisten: (() => Promise<void>) | undefined;
  private ticking: Promise<void> | undefined;
  private again = false;
  private stopping = false;

  constructor(private readonly sql: Sql, opts: RunnerOptions) {
    this.log = opts.log;
    this.pollMs = opts.pollMs ?? 200;
    this.leaseMs = opts.leaseMs ?? 30_000;
  }

  register<P>(kind: string, def: JobDefinition<P>): this {
    if (this.defs.has(kind)) throw new Error(`job kind '${kind}' is already registered`);
    this.defs.set(kind, def);
    return this;
  }

  async start(): Promise<void> {
    const sub = await this.sql.listen(JOBS_CHANNEL, (kind) => {
      if (this.defs.has(kind)) this.wake();
    });
    this.unlisten = () => sub.unlisten();
    this.timer = setInterval(() => this.wake(), this.pollMs);
    this.wake();
  }

  /** Stops claiming, asks running handlers to stop and waits for them (up to `graceMs`); jobs they
   *  give back are claimed by another runner at once. */
  async stop(graceMs = 10_000): Promise<void> {
    this.stopping = true;
    clearInterval(this.timer);
    await this.unlisten?.().catch(() => {});
    await this.ticking; // a job claimed meanwhile is given back
    for (const r of this.running.values()) r.controller.abort(new Error('runner stopping'));
    const all = Promise.allSettled([...this.running.values()].map((r) => r.done));
    await Promise.race([all, new Promise((done) => setTimeout(done, graceMs).unref())]);
    // A handler still running past the grace period loses its lease: its heartbeat must not keep
    // the process alive, nor query a database the caller is about to close.
    for (const r of this.running.values()) clearInterval(r.beat);
  }

  /** Claims what it can now. Safe to call any time; overlapping calls fold into one more round. */
  wake(): void {
    if (this.stopping) return;
    if (this.ticking) {
      this.again = true;
      return;
    }
    this.ticking = this.claimRound()
      .catch((err) => this.log.error({ err }, 'job claim failed'))
      .finally(() => {
        this.ticking = undefined;
        if (this.again && !this.stopping) {
          this.again = false;
          this.wake();
        }
      });
  }

  private freeKinds(): string[] {
    const busy = new Map<string, number>();
    for (const r of this.running.values()) busy.set(r.job.kind, (busy.get(r.job.kind) ?? 0) + 1);
    return [...this.defs].filter(([kind, def]) => (busy.get(kind) ?? 0) < (def.concurrency ?? 1)).map(([kind]) => kind);
  }

  private async claimRound(): Promise<void> {
    while (!this.stopping) {
      const kinds = this.freeKinds();
      if (!kinds.length) return;
      const job = await this.claim(kinds);
      if (!job) return;
      if (this.stopping) {
        await this.giveBack(job);
        return;
      }
      this.execute(job);
    }
  }

  private async claim(kinds: string[]): Promise<(Job & { lastError: string | null }) | undefined> {
    const [row] = await this.sql<{ id: string; kind: string; payload: any; attempts: number; max_attempts: number; last_error: string | null }[]>`
      UPDATE jobs j SET status = 'running', attempts = j.attempts + 1, locked_by = ${this.workerId},
        locked_until = now() + ${this.leaseMs} * interval '1 millisecond', updated_at = now()
      FROM (
        SELECT id FROM jobs
        WHERE kind = ANY(${kinds}::text[]) AND run_at <= now()
          AND (status = 'queued' OR (status = 'running' AND locked_until < now()))
        ORDER BY run_at, id LIMIT 1 FOR UPDATE SKIP LOCKED
      ) c
      WHERE j.id = c.id
      RETURNING j.id, j.kind, j.payload, j.attempts, j.max_attempts, j.last_error`;
    if (!row) return undefined;
    return { id: row.id, kind: row.kind, payload: row.payload, attempts: row.attempts, maxAttempts: row.max_attempts, lastError: row.last_error };
  }

  private execute(job: Job & { lastError: string | null }): void {
    const controller = new AbortController();
    const def = this.defs.get(job.kind)!;
    const log = this.log.child({ job: job.id, kind: job.kind, attempt: job.attempts });
    const beat = setInterval(() => void this.heartbeat(job, controller, log), Math.max(this.leaseMs / 3, 50));
    const entry: Running = { job, controller, beat, done: Promise.resolve() };
    this.running.set(job.id, entry);
    entry.done = (async () => {
      try {
        // Claimed again after its workers died mid-run as often as it may be tried: do not run it once more.
        if (job.attempts > job.maxAttempts) throw new PermanentJobError(`gave up after ${job.maxAttempts} attempts; last error: ${job.lastError ?? 'worker stopped'}`);
        await def.run({ job, signal: controller.signal, log });
        await this.sql`DELETE FROM jobs WHERE id = ${job.id} AND locked_by = ${this.workerId}`;
      } catch (err) {
        await this.settleFailure(job, def, controller.signal, err, log);
      } finally {
        clearInterval(beat);
        this.running.delete(job.id);
      }
      this.wake();
    })();
  }

  private async settleFailure(job: Job, def: JobDefinition<any>, signal: AbortSignal, err: unknown, log: Logger): Promise<void> {
    try {
      if (signal.aborted) {
        // Stopped or lease lost: not the job's fault. A lost lease means someone else owns it now.
        if (this.stopping) await this.giveBack(job);
        return;
      }
      const message = err instanceof Error ? err.message : String(err);
      const final = err instanceof PermanentJobError || job.attempts >= job.maxAttempts;
      if (!final) {
        const delay = (def.retryDelayMs ?? defaultDelay)(job.attempts);
        log.warn({ err, retryInMs: delay }, 'job failed; will retry');
        await this.sql`
          UPDATE jobs SET status = 'queued', run_at = now() + ${delay} * interval '1 millisecond', last_error = ${message},
            locked_by = NULL, locked_until = NULL, updated_at = now()
          WHERE id = ${job.id} AND locked_by = ${this.workerId}`;
        return;
      }
      log.error({ err }, 'job failed for good');
      const rows = await this.sql`
        UPDATE jobs SET status = 'failed', last_error = ${message}, locked_by = NULL, locked_until = NULL, updated_at = now()
        WHERE id = ${job.id} AND locked_by = ${this.workerId} RETURNING id`;
      if (rows.length) await def.onFailure?.(job, err);
    } catch (settleErr) {
      // The lease runs out and another claim settles it.
      log.error({ err: settleErr }, 'could not record the job failure');
    }
  }

  private async giveBack(job: Job): Promise<void> {
    await this.sql`
      UPDATE jobs SET status = 'queued', attempts = greatest(attempts - 1, 0), run_at = now(), locked_by = NULL, locked_until = NULL, updated_at = now()
      WHERE id = ${job.id} AND locked_by = ${this.workerId}`;
    await this.sql`SELECT pg_notify(${JOBS_CHANNEL}, ${job.kind})`;
  }

  private async heartbeat(job: Job, controller: AbortController, log: Logger): Promise<void> {
    try {
      const rows = await this.sql`
        UPDATE jobs SET locked_until = now() + ${this.leaseMs} * interval '1 millisecond'
        WHERE id = ${job.id} AND locked_by = ${this.workerId} AND status = 'running' RETURNING id`;
      if (!rows.length && !controller.signal.aborted) {
        log.warn('job lease lost; stopping the handler');
        controller.abort(new Error('lease lost'));
      }
    } catch (err) {
      log.warn({ err }, 'job heartbeat failed');
    }
  }
}
