import type { Logger } from 'pino';
import { type Sql, retryable } from '../db/client.js';
import { asConnectionError, isDatabaseUnavailable } from '../db/errors.js';
import { JOBS_CHANNEL } from './queue.js';
import { isDeadHere, newRunnerId, retireRunnerId, thisHostPattern } from './runner-ids.js';
import { backgroundError, countBackgroundError } from '../lib/background-errors.js';

export interface Job<P = Record<string, unknown>> {
  id: string;
  kind: string;
  payload: P;
  /** This attempt's number, from 1: errors the job raised before, plus one. */
  attempts: number;
  maxAttempts: number;
  /** Claims in a row whose runner died before the job made progress (see `JobContext.progress`). */
  crashes: number;
}

export interface JobContext<P> {
  job: Job<P>;
  /** Aborted when the runner stops or the lease was lost: stop at the next safe point by throwing
   *  (`signal.throwIfAborted()`); the job is then given back without spending an attempt. */
  signal: AbortSignal;
  log: Logger;
  /** Tells the runner the job has made progress: its runner dying from now on is not held against it
   *  (a job set aside for crash loops is one that never gets this far). Pass the transaction that
   *  commits the work, so that the work and this record commit together. */
  progress(tx?: Sql): Promise<void>;
}

export interface JobDefinition<P = Record<string, unknown>> {
  /** Does the work. Returning completes the job (its row is deleted); throwing retries it later.
   *  A job may run again after a crash, so handlers must be idempotent (checkpoint as they go). */
  run(ctx: JobContext<P>): Promise<void>;
  /** Called once when the job is failed for good: attempts used up, a `PermanentJobError`, or set
   *  aside after crash loops (a `CrashLoopError`, whose message says so in words for the user). */
  onFailure?(job: Job<P>, error: unknown): Promise<void>;
  /** Jobs of this kind run at once in one process; default 1. */
  concurrency?: number;
  /** Delay before retry number `attempt + 1`; default exponential from 1 s, at most 60 s. */
  retryDelayMs?(attempt: number): number;
}

/** Thrown by a handler for an error that retrying cannot fix. */
export class PermanentJobError extends Error {}

/** The job was set aside: its process died every time it ran, before it got anywhere. */
export class CrashLoopError extends PermanentJobError {
  constructor(readonly crashes: number) {
    super(
      `set aside: the process running it stopped ${crashes} times in a row before it made any progress (killed, out of memory or crashed), so it is not tried again`,
    );
  }
}

export interface RunnerOptions {
  log: Logger;
  /** Poll interval; NOTIFY on enqueue wakes the runner sooner. Default 200 ms. */
  pollMs?: number;
  /** Lease of a claimed job, renewed every third of it; a job whose runner died is claimed again once
   *  its lease has run out (at once when that runner was on this host). Default 30 s. */
  leaseMs?: number;
  /** Deaths of its runner in a row, without progress, after which a job is set aside. Default 5. */
  maxCrashes?: number;
}

interface Running {
  job: Job;
  controller: AbortController;
  /** Renews the lease while the handler runs. */
  beat: NodeJS.Timeout;
  done: Promise<void>;
}

const defaultDelay = (attempt: number) => Math.min(1000 * 2 ** (attempt - 1), 60_000);
/** A database that does not answer is not the job's fault: retried this soon, the attempt not counted. */
const UNAVAILABLE_RETRY_MS = 1000;
/** How often this host's dead runners are looked for (each look is one small query). */
const DEAD_SWEEP_MS = 1000;

/**
 * Runs durable jobs from the `jobs` table. Any number of runners (processes) may run side by side:
 * claims use FOR UPDATE SKIP LOCKED, so each job runs in one place at a time.
 *
 * A process that dies (kill -9, OOM, a crash, a reboot) does not count against the jobs it was running:
 * they are claimed again (at once when it ran on this host, else when their lease runs out) and resume
 * from their checkpoint. Only errors a job raises use its attempts. A job whose process dies
 * `maxCrashes` times in a row before it makes any progress is the likely cause and is set aside.
 */
export class JobRunner {
  readonly runnerId = newRunnerId();
  private readonly defs = new Map<string, JobDefinition<any>>();
  private readonly running = new Map<string, Running>();
  private readonly pollMs: number;
  private readonly leaseMs: number;
  private readonly maxCrashes: number;
  private readonly log: Logger;
  private timer: NodeJS.Timeout | undefined;
  private unlisten: (() => Promise<void>) | undefined;
  private ticking: Promise<void> | undefined;
  private again = false;
  private stopping = false;
  private lastSweep = 0;

  constructor(
    private readonly sql: Sql,
    opts: RunnerOptions,
  ) {
    this.log = opts.log;
    this.pollMs = opts.pollMs ?? 200;
    this.leaseMs = opts.leaseMs ?? 30_000;
    this.maxCrashes = opts.maxCrashes ?? 5;
  }

  register<P>(kind: string, def: JobDefinition<P>): this {
    if (this.defs.has(kind)) throw new Error(`job kind '${kind}' is already registered`);
    this.defs.set(kind, def);
    return this;
  }

  async start(): Promise<void> {
    const sub = await this.sql.listen(JOBS_CHANNEL, (kind) => {
      // An empty payload comes after the listening connection was lost: look for missed jobs.
      if (this.defs.has(kind) || kind === '') this.wake();
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
    await this.unlisten?.().catch((err) => backgroundError('job-runner-unlisten', err, { runner: this.runnerId }));
    await this.ticking; // a job claimed meanwhile is given back
    for (const r of this.running.values()) r.controller.abort(new Error('runner stopping'));
    const all = Promise.allSettled([...this.running.values()].map((r) => r.done));
    await Promise.race([all, new Promise((done) => setTimeout(done, graceMs).unref())]);
    // A handler still running past the grace period loses its lease: its heartbeat must not keep
    // the process alive, nor query a database the caller is about to close.
    for (const r of this.running.values()) clearInterval(r.beat);
    retireRunnerId(this.runnerId);
  }

  /** Claims what it can now. Safe to call any time; overlapping calls fold into one more round. */
  wake(): void {
    if (this.stopping) return;
    if (this.ticking) {
      this.again = true;
      return;
    }
    this.ticking = this.claimRound()
      .catch((err) => {
        countBackgroundError('job-claim');
        return isDatabaseUnavailable(err)
          ? this.log.warn({ err: asConnectionError(err) }, 'job claim failed: database unavailable')
          : this.log.error({ err }, 'job claim failed');
      })
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
    if (performance.now() - this.lastSweep >= DEAD_SWEEP_MS) {
      this.lastSweep = performance.now();
      await this.releaseDeadHere();
    }
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

  /** Ends the leases of jobs held by runners of this host that are gone, so they are claimed now. */
  private async releaseDeadHere(): Promise<void> {
    const held = await retryable(this.sql<{ id: string; locked_by: string }[]>`
      SELECT id, locked_by FROM jobs
      WHERE status = 'running' AND locked_until >= now() AND locked_by LIKE ${thisHostPattern()} AND locked_by <> ${this.runnerId}`);
    const dead = held.filter((h) => isDeadHere(h.locked_by));
    if (!dead.length) return;
    this.log.info({ jobs: dead.map((d) => d.id), runners: [...new Set(dead.map((d) => d.locked_by))] }, 'taking over the jobs of a dead runner of this host');
    await this.sql`
      UPDATE jobs SET locked_until = now() - interval '1 millisecond'
      FROM unnest(${dead.map((d) => d.id)}::text[], ${dead.map((d) => d.locked_by)}::text[]) AS d(id, locked_by)
      WHERE jobs.id = d.id AND jobs.locked_by = d.locked_by AND jobs.status = 'running'`;
  }

  private async claim(kinds: string[]): Promise<Job | undefined> {
    // A job claimed while 'running' is taken over from a runner that died: a crash, not an attempt.
    const [row] = await this.sql<{ id: string; kind: string; payload: any; attempts: number; max_attempts: number; crashes: number }[]>`
      UPDATE jobs j SET status = 'running', locked_by = ${this.runnerId},
        locked_until = now() + ${this.leaseMs} * interval '1 millisecond', updated_at = now(),
        crashes = j.crashes + CASE WHEN j.status = 'running' THEN 1 ELSE 0 END
      FROM (
        SELECT id FROM jobs
        WHERE kind = ANY(${kinds}::text[]) AND run_at <= now()
          AND (status = 'queued' OR (status = 'running' AND locked_until < now()))
        ORDER BY run_at, id LIMIT 1 FOR UPDATE SKIP LOCKED
      ) c
      WHERE j.id = c.id
      RETURNING j.id, j.kind, j.payload, j.attempts, j.max_attempts, j.crashes`;
    if (!row) return undefined;
    return { id: row.id, kind: row.kind, payload: row.payload, attempts: row.attempts + 1, maxAttempts: row.max_attempts, crashes: row.crashes };
  }

  private execute(job: Job): void {
    const controller = new AbortController();
    const def = this.defs.get(job.kind)!;
    const log = this.log.child({ job: job.id, kind: job.kind, attempt: job.attempts, crashes: job.crashes });
    const beat = setInterval(() => void this.heartbeat(job, controller, log), Math.max(this.leaseMs / 3, 50));
    const entry: Running = { job, controller, beat, done: Promise.resolve() };
    this.running.set(job.id, entry);
    const progress = async (tx?: Sql) => {
      if (job.crashes === 0) return;
      await (tx ?? this.sql)`UPDATE jobs SET crashes = 0 WHERE id = ${job.id} AND locked_by = ${this.runnerId} AND crashes > 0`;
      // In a transaction it counts only if that commits, which is not known here: the next progress
      // says it again (a no-op once it has).
      if (!tx) job.crashes = 0;
    };
    entry.done = (async () => {
      try {
        if (job.crashes >= this.maxCrashes) throw new CrashLoopError(job.crashes);
        if (job.crashes > 0) log.warn('resuming a job whose runner died');
        await def.run({ job, signal: controller.signal, log, progress });
        await this.sql`DELETE FROM jobs WHERE id = ${job.id} AND locked_by = ${this.runnerId}`;
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
      if (isDatabaseUnavailable(err)) {
        // Not the job's doing either: try again soon, without using an attempt.
        log.warn({ err: asConnectionError(err) }, 'job interrupted: database unavailable; will retry');
        await this.sql`
          UPDATE jobs SET status = 'queued', run_at = now() + ${UNAVAILABLE_RETRY_MS} * interval '1 millisecond',
            locked_by = NULL, locked_until = NULL, updated_at = now()
          WHERE id = ${job.id} AND locked_by = ${this.runnerId}`;
        return;
      }
      const final = err instanceof PermanentJobError || job.attempts >= job.maxAttempts;
      if (!final) {
        const delay = (def.retryDelayMs ?? defaultDelay)(job.attempts);
        log.warn({ err, retryInMs: delay }, 'job failed; will retry');
        await this.sql`
          UPDATE jobs SET status = 'queued', attempts = ${job.attempts}, run_at = now() + ${delay} * interval '1 millisecond',
            last_error = ${message}, locked_by = NULL, locked_until = NULL, updated_at = now()
          WHERE id = ${job.id} AND locked_by = ${this.runnerId}`;
        return;
      }
      if (err instanceof CrashLoopError) log.error({ crashes: job.crashes }, 'job set aside: its runner died every time it ran');
      else log.error({ err }, 'job failed for good');
      const rows = await this.sql`
        UPDATE jobs SET status = 'failed', attempts = ${err instanceof CrashLoopError ? job.attempts - 1 : job.attempts},
          last_error = ${message}, locked_by = NULL, locked_until = NULL, updated_at = now()
        WHERE id = ${job.id} AND locked_by = ${this.runnerId} RETURNING id`;
      if (rows.length) await def.onFailure?.(job, err);
    } catch (settleErr) {
      // The lease runs out and another claim settles it.
      log.error({ err: asConnectionError(settleErr) }, 'could not record the job failure');
    }
  }

  private async giveBack(job: Job): Promise<void> {
    await this.sql`
      UPDATE jobs SET status = 'queued', run_at = now(), locked_by = NULL, locked_until = NULL, updated_at = now()
      WHERE id = ${job.id} AND locked_by = ${this.runnerId}`;
    await retryable(this.sql`SELECT pg_notify(${JOBS_CHANNEL}, ${job.kind})`);
  }

  private async heartbeat(job: Job, controller: AbortController, log: Logger): Promise<void> {
    try {
      const rows = await this.sql`
        UPDATE jobs SET locked_until = now() + ${this.leaseMs} * interval '1 millisecond'
        WHERE id = ${job.id} AND locked_by = ${this.runnerId} AND status = 'running' RETURNING id`;
      if (!rows.length && !controller.signal.aborted) {
        log.warn('job lease lost; stopping the handler');
        controller.abort(new Error('lease lost'));
      }
    } catch (err) {
      log.warn({ err: asConnectionError(err) }, 'job heartbeat failed');
    }
  }
}
