import { type Sql, retryable } from '../../db/client.js';
import { newId, timestamp } from '../../lib/ids.js';
import { enqueueJob } from '../../jobs/queue.js';
import type { SearchState } from '../../engine/vrp/slices.js';
import type { ResolvedLocation } from '../locations.js';
import type { ResolvedShipment, ResolvedVehicle } from '../optimize/problem.js';
import type { TimeFrame } from '../optimize/time-frame.js';

/** Job kind that runs one optimization; payload `{optimization_id}`. */
export const OPTIMIZATION_JOB = 'optimization';

export type OptimizationStatus = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';

export interface Progress {
  phase: 'queued' | 'matrix' | 'solving' | 'routes' | 'done';
  percent: number;
}

/** The best plan so far, as the sliced search left it. */
export type Checkpoint = SearchState;

export interface StoredLocations {
  vehicles: ResolvedVehicle[];
  stops: ResolvedLocation[];
  shipments?: ResolvedShipment[];
  /** Stops taken from POIs (`stops: {pois}`): one far from a road or cut off is unassigned, not a failure. */
  fromPois?: boolean;
  /** Why a stop cannot be served, by stop index, as found at submission (its attributes). */
  unservable?: Record<number, string>;
}

/** What lists show: no body, plan or checkpoint (megabytes for a large job). */
export interface OptimizationSummaryRow {
  id: string;
  team_id: string;
  status: OptimizationStatus;
  stop_count: number;
  vehicle_count: number;
  time_budget: number;
  progress: Progress;
  runs: number;
  error: { message: string; errors?: Record<string, string[]> } | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

export interface OptimizationRow extends OptimizationSummaryRow {
  /** The validated body as JSON (datetimes as sent). */
  body: Record<string, unknown>;
  locations: StoredLocations;
  frame: TimeFrame;
  checkpoint: Checkpoint | null;
  result: Record<string, unknown> | null;
}

/** The resource; the plan only in full (`GET /v1/optimizations/{id}`), not in lists. */
export const optimizationJson = (r: OptimizationSummaryRow & { result?: unknown }, withResult: boolean) => ({
  id: r.id,
  status: r.status,
  progress: r.progress,
  time_budget: r.time_budget,
  stops: r.stop_count,
  vehicles: r.vehicle_count,
  runs: r.runs,
  error: r.error,
  created_at: timestamp(r.created_at),
  started_at: timestamp(r.started_at),
  finished_at: timestamp(r.finished_at),
  ...(withResult ? { result: r.result } : {}),
});

export interface NewOptimization {
  teamId: string;
  body: Record<string, unknown>;
  locations: StoredLocations;
  frame: TimeFrame;
  timeBudget: number;
}

/** Stores the optimization with its job in one transaction: once this returns, it will run. */
export async function createOptimization(sql: Sql, input: NewOptimization): Promise<OptimizationRow> {
  const id = newId();
  return sql.begin(async (tx) => {
    const [row] = await tx<OptimizationRow[]>`
      INSERT INTO optimizations (id, team_id, body, locations, frame, time_budget)
      VALUES (${id}, ${input.teamId}, ${tx.json(input.body as never)}, ${tx.json(input.locations as never)},
        ${tx.json(input.frame as never)}, ${input.timeBudget})
      RETURNING *, ${counts(tx as unknown as Sql)}`;
    await enqueueJob(tx as unknown as Sql, OPTIMIZATION_JOB, { optimization_id: id });
    return row;
  }) as Promise<OptimizationRow>;
}

// A shipment is two stops of the plan, as in its summary.
const counts = (sql: Sql) =>
  sql`jsonb_array_length(body->'stops') + 2 * coalesce(jsonb_array_length(body->'shipments'), 0) AS stop_count, jsonb_array_length(body->'vehicles') AS vehicle_count`;

export async function fetchOptimization(sql: Sql, teamId: string, id: string): Promise<OptimizationRow | undefined> {
  const [row] = await retryable(sql<OptimizationRow[]>`SELECT *, ${counts(sql)} FROM optimizations WHERE team_id = ${teamId} AND id = ${id}`);
  return row;
}

export async function listOptimizations(sql: Sql, teamId: string, cursor: string | null, limit: number): Promise<OptimizationSummaryRow[]> {
  return retryable(sql<OptimizationSummaryRow[]>`
    SELECT id, team_id, status, progress, time_budget, runs, error, created_at, started_at, finished_at, ${counts(sql)}
    FROM optimizations WHERE team_id = ${teamId} AND (${cursor}::text IS NULL OR id > ${cursor})
    ORDER BY id LIMIT ${limit}`);
}

/** Cancels a queued or running optimization; undefined when it is not the team's, the row as it is otherwise. */
export async function cancelOptimization(sql: Sql, teamId: string, id: string): Promise<OptimizationRow | undefined> {
  const [row] = await sql<OptimizationRow[]>`
    UPDATE optimizations SET status = 'cancelled', finished_at = now(), checkpoint = NULL
    WHERE team_id = ${teamId} AND id = ${id} AND status IN ('queued', 'running') RETURNING *, ${counts(sql)}`;
  return row ?? fetchOptimization(sql, teamId, id);
}

// ---- the job's writes (job.ts) ----

/** Marks a queued or running optimization running, one run more; undefined when it is cancelled, finished, or its team gone. */
export async function startOptimizationRun(sql: Sql, id: string): Promise<OptimizationRow | undefined> {
  const [row] = await sql<OptimizationRow[]>`
    UPDATE optimizations SET status = 'running', started_at = coalesce(started_at, now()), runs = runs + 1
    WHERE id = ${id} AND status IN ('queued', 'running') RETURNING *`;
  return row;
}

/**
 * Stores the progress (and the checkpoint, when given) of a running optimization; false when it is no
 * longer running. With a checkpoint, `alongCheckpoint` runs in the same transaction (the job's own progress).
 */
export async function saveProgress(
  sql: Sql,
  id: string,
  progress: Progress,
  checkpoint: Checkpoint | undefined,
  alongCheckpoint: (tx: Sql) => Promise<void>,
): Promise<boolean> {
  const [still] = await sql.begin(async (tx) => {
    const rows = await tx`
      UPDATE optimizations SET progress = ${tx.json(progress as never)}
        ${checkpoint ? tx`, checkpoint = ${tx.json(checkpoint as never)}` : tx``}
      WHERE id = ${id} AND status = 'running' RETURNING id`;
    if (checkpoint && rows.length) await alongCheckpoint(tx as unknown as Sql);
    return rows;
  });
  return still !== undefined;
}

/** Stores the plan of a running optimization and marks it completed. */
export async function completeOptimization(sql: Sql, id: string, result: unknown): Promise<void> {
  const done: Progress = { phase: 'done', percent: 100 };
  await sql`
    UPDATE optimizations SET status = 'completed', result = ${JSON.stringify(result)}::text::json, progress = ${sql.json(done as never)},
      checkpoint = NULL, finished_at = now()
    WHERE id = ${id} AND status = 'running'`;
}

/** Marks a queued or running optimization failed with `body` as its error. */
export async function failOptimization(sql: Sql, id: string, body: Record<string, unknown>): Promise<void> {
  await sql`
    UPDATE optimizations SET status = 'failed', error = ${JSON.stringify(body)}::text::json, finished_at = now(), checkpoint = NULL
    WHERE id = ${id} AND status IN ('queued', 'running')`;
}
