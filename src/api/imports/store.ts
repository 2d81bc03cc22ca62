// The imports resource's SQL: the uploads and their jobs, and the processor's batches.
import type { PlanName } from '../../auth/plans.js';
import { type Sql, retryable } from '../../db/client.js';
import { newId, timestamp } from '../../lib/ids.js';
import { enqueueJob } from '../../jobs/queue.js';
import type { PoiInput } from './rows.js';

/** Job kind that processes one import; payload `{import_id}`. */
export const IMPORT_JOB = 'import';

export type ImportStatus = 'queued' | 'processing' | 'completed' | 'failed';

export interface ImportError {
  line: number;
  message: string;
}

export interface ImportRow {
  id: string;
  team_id: string;
  status: ImportStatus;
  filename: string;
  columns: string[];
  create_missing_attributes: boolean;
  total_rows: number;
  processed_rows: number;
  created: number;
  failed: number;
  limit_reached: boolean;
  errors: ImportError[];
  next_row: number;
  next_offset: number | null;
  next_line: number | null;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
}

export const importJson = (r: ImportRow) => ({
  id: r.id,
  status: r.status,
  filename: r.filename,
  columns: r.columns,
  total_rows: r.total_rows,
  processed_rows: r.processed_rows,
  created: r.created,
  failed: r.failed,
  limit_reached: r.limit_reached,
  errors: r.errors,
  created_at: timestamp(r.created_at),
  started_at: timestamp(r.started_at),
  finished_at: timestamp(r.finished_at),
});

export interface NewImport {
  teamId: string;
  filename: string;
  columns: string[];
  totalRows: number;
  createMissingAttributes: boolean;
  content: Uint8Array;
}

/** Stores the import, its file and its job in one transaction: once this returns, the import will be processed. */
export async function createImport(sql: Sql, input: NewImport): Promise<ImportRow> {
  const id = newId();
  return sql.begin(async (tx) => {
    const [row] = await tx<ImportRow[]>`
      INSERT INTO imports (id, team_id, filename, columns, total_rows, create_missing_attributes)
      VALUES (${id}, ${input.teamId}, ${input.filename}, ${input.columns}::text[], ${input.totalRows}, ${input.createMissingAttributes})
      RETURNING *`;
    await tx`INSERT INTO import_files (import_id, content) VALUES (${id}, ${Buffer.from(input.content.buffer, input.content.byteOffset, input.content.byteLength)})`;
    await enqueueJob(tx as unknown as Sql, IMPORT_JOB, { import_id: id });
    return row;
  }) as Promise<ImportRow>;
}

export async function fetchImport(sql: Sql, teamId: string, id: string): Promise<ImportRow | undefined> {
  const [row] = await retryable(sql<ImportRow[]>`SELECT * FROM imports WHERE team_id = ${teamId} AND id = ${id}`);
  return row;
}

export async function listImports(sql: Sql, teamId: string, cursor: string | null, limit: number): Promise<ImportRow[]> {
  return retryable(sql<ImportRow[]>`
    SELECT * FROM imports WHERE team_id = ${teamId} AND (${cursor}::text IS NULL OR id > ${cursor})
    ORDER BY id LIMIT ${limit}`);
}

// ---- the processor's reads and writes (processor.ts); `tx` is the batch's transaction ----

/** Marks a queued or processing import processing; undefined when it is finished or its team is gone. */
export async function startImport(sql: Sql, id: string): Promise<ImportRow | undefined> {
  const [row] = await sql<ImportRow[]>`
    UPDATE imports SET status = 'processing', started_at = coalesce(started_at, now())
    WHERE id = ${id} AND status IN ('queued', 'processing') RETURNING *`;
  return row;
}

/** The uploaded file, until the import finishes. */
export async function importFile(sql: Sql, id: string): Promise<Buffer | undefined> {
  const [stored] = await retryable(sql<{ content: Buffer }[]>`SELECT content FROM import_files WHERE import_id = ${id}`);
  return stored?.content;
}

/** The line the next batch starts at (null before the first batch; undefined when the import is gone). */
export async function importNextLine(sql: Sql, id: string): Promise<number | null | undefined> {
  const [at] = await retryable(sql<{ next_line: number | null }[]>`SELECT next_line FROM imports WHERE id = ${id}`);
  return at?.next_line;
}

/** Marks a queued or processing import failed, adding `entry` to its errors while they are fewer than `maxErrors`, and drops its file. */
export async function failImport(sql: Sql, id: string, entry: ImportError[], maxErrors: number): Promise<void> {
  await sql.begin(async (tx) => {
    await tx`
      UPDATE imports SET status = 'failed', finished_at = now(),
        errors = CASE WHEN jsonb_array_length(errors) < ${maxErrors} THEN errors || ${tx.json(entry as never)}::jsonb ELSE errors END
      WHERE id = ${id} AND status IN ('queued', 'processing')`;
    await tx`DELETE FROM import_files WHERE import_id = ${id}`;
  });
}

/** Creates the named attributes as strings; names the team already has are left as they are (race-safe). */
export async function createStringAttributes(sql: Sql, teamId: string, names: string[]): Promise<void> {
  await sql`
    INSERT INTO attributes (id, team_id, name, type)
    SELECT u.id, ${teamId}, u.name, 'string' FROM unnest(${names.map(() => newId())}::text[], ${names}::text[]) AS u(id, name)
    ON CONFLICT (team_id, name) DO NOTHING`;
}

/** Locks the import's row for a batch: where its checkpoint is, its status and how many errors it holds. */
export async function lockImport(tx: Sql, id: string) {
  const [cur] = await tx<{ next_row: number; status: string; error_count: number }[]>`
    SELECT next_row, status, jsonb_array_length(errors) AS error_count FROM imports WHERE id = ${id} FOR UPDATE`;
  return cur;
}

/** The team's plan and its own POI limit, if any. */
export async function teamPlan(tx: Sql, teamId: string) {
  const [team] = await tx<{ plan: PlanName; poi_limit: number | null }[]>`SELECT plan, poi_limit FROM teams WHERE id = ${teamId}`;
  return team;
}

/** Ids of the named categories, creating missing ones. Names go in sorted so concurrent batches take
 *  the unique-index locks in the same order and cannot deadlock. */
export async function categoryIdsFor(tx: Sql, teamId: string, names: (string | null)[]): Promise<Map<string, string>> {
  const wanted = [...new Set(names.filter((n): n is string => n !== null))].sort();
  const ids = new Map<string, string>();
  if (!wanted.length) return ids;
  await tx`
    INSERT INTO categories (id, team_id, name)
    SELECT u.id, ${teamId}, u.name FROM unnest(${wanted.map(() => newId())}::text[], ${wanted}::text[]) WITH ORDINALITY AS u(id, name, ord)
    ORDER BY u.ord
    ON CONFLICT (team_id, name) DO NOTHING`;
  const rows = await tx<{ id: string; name: string }[]>`SELECT id, name FROM categories WHERE team_id = ${teamId} AND name = ANY(${wanted}::text[])`;
  for (const r of rows) ids.set(r.name, r.id);
  return ids;
}

/** Inserts the batch's POIs, pending geocoding, with the ids of their categories (by name). */
export async function insertImportedPois(tx: Sql, imp: ImportRow, pois: PoiInput[], categoryIds: Map<string, string>): Promise<void> {
  await tx`
    INSERT INTO pois (id, team_id, name, latitude, longitude, category_id, attrs, import_id, geocode_pending)
    SELECT u.id, ${imp.team_id}, u.name, u.latitude, u.longitude, u.category_id, u.attrs::jsonb, ${imp.id}, true
    FROM unnest(
      ${pois.map(() => newId())}::text[], ${pois.map((p) => p.name)}::text[],
      ${pois.map((p) => p.latitude)}::float8[], ${pois.map((p) => p.longitude)}::float8[],
      ${pois.map((p) => (p.category === null ? null : categoryIds.get(p.category)!))}::text[],
      ${pois.map((p) => JSON.stringify(p.attrs))}::text[]
    ) AS u(id, name, latitude, longitude, category_id, attrs)`;
}

/** What a committed batch moves: the checkpoint (row, and the file offset and line after it) and the counts. */
export interface BatchOutcome {
  nextRow: number;
  nextOffset: number;
  nextLine: number;
  processed: number;
  created: number;
  failed: number;
  errors: ImportError[];
  limitReached: boolean;
  /** The last batch: the import is completed and its file dropped. */
  done: boolean;
}

export async function recordBatch(tx: Sql, id: string, b: BatchOutcome): Promise<void> {
  await tx`
    UPDATE imports SET
      next_row = ${b.nextRow},
      next_offset = ${b.nextOffset},
      next_line = ${b.nextLine},
      processed_rows = processed_rows + ${b.processed},
      created = created + ${b.created},
      failed = failed + ${b.failed},
      errors = errors || ${tx.json(b.errors as never)}::jsonb,
      limit_reached = limit_reached OR ${b.limitReached},
      status = CASE WHEN ${b.done} THEN 'completed' ELSE status END,
      finished_at = CASE WHEN ${b.done} THEN now() ELSE finished_at END
    WHERE id = ${id}`;
  if (b.done) await tx`DELETE FROM import_files WHERE import_id = ${id}`;
}
