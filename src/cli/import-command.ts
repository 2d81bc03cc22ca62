import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Logger } from 'pino';
import { type Sql, retryable } from '../db/client.js';
import { CsvError } from '../api/imports/csv.js';
import { MAX_FILE_BYTES } from '../api/imports/header.js';
import { fetchImport, importJson, type ImportRow } from '../api/imports/store.js';
import { submitImport } from '../api/imports/submit.js';
import { startJobRunner } from '../job-kinds.js';
import { output } from './args.js';

const POLL_MS = 200;

export interface ImportOptions {
  team: string;
  createMissingAttributes?: boolean;
  json?: boolean;
}

/** `waymark import FILE --team ID [--create-missing-attributes]`: the upload path of the API, then the
 *  import is processed here (or by any other worker) while a progress bar runs on stderr. */
export async function importCommand(sql: Sql, log: Logger, path: string, values: ImportOptions, leaseMs: number): Promise<void> {
  const teamId = values.team;
  const size = (await stat(path).catch(() => undefined))?.size;
  if (size === undefined) throw new Error(`${path}: no such file`);
  if (size > MAX_FILE_BYTES) throw new Error(`${path}: may not be larger than 10 MB`);
  if (!(await retryable(sql`SELECT 1 FROM teams WHERE id = ${teamId}`)).length) throw new Error(`team ${teamId} not found`);
  let row: ImportRow;
  try {
    row = await submitImport(sql, {
      teamId,
      filename: basename(path),
      bytes: await readFile(path),
      createMissingAttributes: Boolean(values.createMissingAttributes),
    });
  } catch (err) {
    if (err instanceof CsvError) throw new Error(`${path}: file ${err.message}`);
    throw err;
  }
  const runner = await startJobRunner(sql, log, { leaseMs });
  const bar = progressBar();
  try {
    while (row.status === 'queued' || row.status === 'processing') {
      bar.draw(row);
      await new Promise((done) => setTimeout(done, POLL_MS));
      row = (await fetchImport(sql, teamId, row.id))!;
    }
    bar.draw(row);
    bar.end();
  } finally {
    await runner.stop();
  }
  if (row.status === 'failed') process.exitCode = 1;
  const errors = row.errors
    .slice(0, 10)
    .map((e) => `\n  line ${e.line}: ${e.message}`)
    .join('');
  const more = row.errors.length > 10 ? `\n  … ${row.errors.length - 10} more errors (GET /v1/imports/${row.id})` : '';
  output(
    values.json,
    importJson(row),
    `import ${row.id} ${row.status}: ${row.created} POIs created, ${row.failed} rows failed of ${row.total_rows}` +
      `${row.limit_reached ? ' (the team POI limit was reached)' : ''}${errors}${more}`,
  );
}

/** A bar redrawn in place on a terminal; elsewhere a line at most every 2 s. */
function progressBar() {
  const tty = process.stderr.isTTY;
  let last = 0;
  return {
    draw(row: ImportRow) {
      const now = Date.now();
      if (!tty && now - last < 2000 && row.status !== 'completed' && row.status !== 'failed') return;
      last = now;
      const share = row.total_rows ? row.processed_rows / row.total_rows : 0;
      const width = 30;
      const filled = Math.round(share * width);
      const text =
        `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${String(Math.floor(share * 100)).padStart(3)}%  ` +
        `${row.processed_rows}/${row.total_rows} rows  ${row.created} created  ${row.failed} failed  ${row.status}`;
      process.stderr.write(tty ? `\r${text}\x1b[K` : `${text}\n`);
    },
    end() {
      if (tty) process.stderr.write('\n');
    },
  };
}
