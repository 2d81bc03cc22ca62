import type { Sql } from '../db/client.js';
import { newId, timestamp } from '../ids.js';
import { enqueueJob } from '../jobs/queue.js';

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
  const [row] = await sql<ImportRow[]>`SELECT * FROM imports WHERE team_id = ${teamId} AND id = ${id}`;
  return row;
}

export async function listImports(sql: Sql, teamId: string, cursor: string | null, limit: number): Promise<ImportRow[]> {
  return sql<ImportRow[]>`
    SELECT * FROM imports WHERE team_id = ${teamId} AND (${cursor}::text IS NULL OR id > ${cursor})
    ORDER BY id LIMIT ${limit}`;
}
