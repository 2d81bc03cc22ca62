import { type Sql, retryable } from '../db/client.js';
import { newId } from '../lib/ids.js';

/** Channel on which enqueuers announce new jobs, so idle runners claim them at once instead of at the next poll. */
export const JOBS_CHANNEL = 'waymark_jobs';

export interface EnqueueOptions {
  /** Earliest start; default now. */
  runAt?: Date;
  /** Errors the job may raise before it is failed for good; default 5. A worker that dies does not
   *  use one (see JobRunner: a job whose workers keep dying before it progresses is set aside instead). */
  maxAttempts?: number;
  /** At most one queued or running job per (kind, dedupeKey): a second enqueue is a no-op. */
  dedupeKey?: string;
}

/**
 * Adds a job. Pass a transaction to make the job part of it: it becomes visible (and the NOTIFY is
 * delivered) only when the transaction commits. Returns the job id, or null when `dedupeKey` matched
 * an existing queued or running job.
 */
export async function enqueueJob(sql: Sql, kind: string, payload: Record<string, unknown>, opts: EnqueueOptions = {}): Promise<string | null> {
  const id = newId();
  const rows = await sql`
    INSERT INTO jobs (id, kind, payload, dedupe_key, max_attempts, run_at)
    VALUES (${id}, ${kind}, ${sql.json(payload as never)}, ${opts.dedupeKey ?? null}, ${opts.maxAttempts ?? 5}, coalesce(${opts.runAt ?? null}::timestamptz, now()))
    ON CONFLICT (kind, dedupe_key) WHERE dedupe_key IS NOT NULL AND status IN ('queued', 'running') DO NOTHING
    RETURNING id`;
  if (!rows.length) return null;
  await retryable(sql`SELECT pg_notify(${JOBS_CHANNEL}, ${kind})`);
  return id;
}
