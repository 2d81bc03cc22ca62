import { teamAttributes, type AttributeRow } from '../attributes/definitions.js';
import { effectiveLimits, reservePoiSlots } from '../../auth/plans.js';
import type { Sql } from '../../db/client.js';
import type { SearchQuery } from '../../engine/geocoder/search.js';
import { searchMapMany } from '../../geocoding/address.js';
import { notifyGeocoding } from '../../geocoding/runner.js';
import { looksLikeHouseNumber, words } from '../../map/geocoder/search-text.js';
import { CrashLoopError, PermanentJobError, type JobDefinition } from '../../jobs/runner.js';
import { CsvError, readRecords, type CsvCursor, type CsvRecord } from './csv.js';
import { attributeColumns, matchAttribute, openImportFile, type ImportFile } from './header.js';
import { planColumns, validateRow, type ColumnPlan, type PoiInput, type RowAddress } from './rows.js';
import {
  categoryIdsFor,
  createStringAttributes,
  failImport,
  IMPORT_JOB,
  importFile,
  importNextLine,
  insertImportedPois,
  lockImport,
  recordBatch,
  startImport,
  teamPlan,
  type ImportError,
  type ImportRow,
} from './store.js';

const BATCH_SIZE = 500;
const MAX_ERRORS = 100;

/** The job that processes uploads; registered on every job runner. `mapDir`: the map rows given by address are placed on (none: such rows fail). */
export function importJob(sql: Sql, mapDir?: string): [string, JobDefinition<{ import_id: string }>] {
  return [
    IMPORT_JOB,
    {
      concurrency: 2,
      run: ({ job, signal, progress }) => processImport(sql, job.payload.import_id, signal, progress, mapDir),
      onFailure: async (job, error) => {
        // Internal errors are not shown to the client; file errors are, and so is a crash loop, at the
        // line it kept dying on (the first row of the batch that never committed).
        let line = 1;
        let reason = 'could not be processed because of an internal error';
        if (error instanceof FileUnreadable) [line, reason] = [error.line, error.message];
        else if (error instanceof CrashLoopError) {
          line = (await importNextLine(sql, job.payload.import_id)) ?? 2;
          reason = `processing was set aside: the process importing it stopped ${error.crashes} times in a row before it could commit the rows from this line on (killed, out of memory or crashed)`;
        }
        await failImport(sql, job.payload.import_id, [{ line, message: `file: ${reason}` }], MAX_ERRORS);
      },
    },
  ];
}

/** The stored file cannot be parsed (it passed the upload checks, so this means it was damaged). */
class FileUnreadable extends PermanentJobError {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(message);
  }
}

/**
 * Processes an import from its checkpoint in batches, each one transaction that inserts the POIs,
 * takes their slots of the team's POI limit and moves the checkpoint. A batch commits only if the
 * checkpoint is still where this worker read it, so two workers can never both import a batch.
 */
export async function processImport(sql: Sql, importId: string, signal?: AbortSignal, progress?: (tx: Sql) => Promise<void>, mapDir?: string): Promise<void> {
  const imp = await startImport(sql, importId);
  if (!imp) return; // finished already, or its team is gone
  const content = await importFile(sql, importId);
  if (!content) throw new FileUnreadable('is missing', 1);
  const unreadable = (err: unknown) => (err instanceof CsvError ? new FileUnreadable(err.message, err.line ?? 1) : err);
  let file: ImportFile;
  try {
    file = openImportFile(content);
  } catch (err) {
    throw unreadable(err);
  }
  const plan = planColumns(file.columns, await ensureAttributes(sql, imp.team_id, file.columns, imp.create_missing_attributes));
  let at: Checkpoint = { row: imp.next_row, cursor: imp.next_offset === null ? file.body : { offset: imp.next_offset, line: imp.next_line! } };
  // Rows are read batch by batch from the checkpoint, so no batch holds the event loop for long.
  const prepare = async (cursor: CsvCursor) => {
    let read: ReturnType<typeof readRecords>;
    try {
      read = readRecords(file.text, file.delimiter, cursor, BATCH_SIZE);
    } catch (err) {
      throw unreadable(err);
    }
    return { read, checked: await placeByAddress(validateBatch(read.records, plan), mapDir) };
  };
  let batch = prepare(at.cursor);
  for (;;) {
    signal?.throwIfAborted();
    const { read, checked } = await batch;
    // The next batch is read and placed by address (in the compute threads) while this one commits; it is
    // thrown away if this one turns out to be the last or another worker moved the checkpoint.
    const more = read.records.length === BATCH_SIZE && at.row + read.records.length < imp.total_rows;
    if (more) {
      batch = prepare(read.next);
      batch.catch(() => {}); // awaited on the next round; not an unhandled rejection if there is none
    }
    const moved = await commitBatch(sql, imp, checked, read.records.length, at, read.next, progress);
    if (moved === null) return; // another worker got here first
    notifyGeocoding(sql); // the new POIs are pending
    if (moved.row >= imp.total_rows || !more) return;
    at = moved;
  }
}

interface Checkpoint {
  row: number;
  cursor: CsvCursor;
}

/** The team's attributes, after creating missing ones as strings when asked (race-safe). */
async function ensureAttributes(sql: Sql, teamId: string, columns: string[], createMissing: boolean): Promise<AttributeRow[]> {
  const attrs = await teamAttributes(sql, teamId);
  const missing = attributeColumns(columns, attrs).filter((c) => !matchAttribute(attrs, c));
  if (!createMissing || !missing.length) return attrs;
  await createStringAttributes(sql, teamId, missing);
  return teamAttributes(sql, teamId);
}

interface Validated {
  pois: { line: number; poi: PoiInput; address?: RowAddress }[];
  errors: ImportError[];
  invalidRows: number;
}

function validateBatch(batch: CsvRecord[], plan: ColumnPlan): Validated {
  const out: Validated = { pois: [], errors: [], invalidRows: 0 };
  for (const record of batch) {
    const result = validateRow(record.fields, plan);
    if ('poi' in result) out.pois.push({ line: record.line, ...result });
    else {
      out.invalidRows++;
      for (const message of result.errors) out.errors.push({ line: record.line, message });
    }
  }
  return out;
}

/** The search a row's address asks, and whether the row names a house (then a street or a place is not enough). */
function addressQuery(a: RowAddress): { query: SearchQuery; house: boolean; text: string } {
  if (a.address !== undefined) {
    // A number in free text is a house number unless the place found has it as its postcode (checked after).
    return { query: { text: a.address, limit: 1 }, house: words(a.address).some(looksLikeHouseNumber), text: a.address };
  }
  const text = [[a.street, a.housenumber].filter(Boolean).join(' '), [a.postcode, a.city].filter(Boolean).join(' '), a.country].filter(Boolean).join(', ');
  const { street, housenumber, postcode, city, country } = a;
  return { query: { structured: { street, housenumber, postcode, city, country }, limit: 1 }, house: housenumber !== undefined, text };
}

/**
 * Gives the rows placed by their address the position the map's search finds, in one pool task per
 * batch; a row it cannot place (nothing found, not every part found, or only the street or the place
 * where the row names a house) becomes a row error at its line.
 */
async function placeByAddress(checked: Validated, mapDir: string | undefined): Promise<Validated> {
  const wanted = checked.pois.filter((p) => p.address);
  if (!wanted.length) return checked;
  const asked = wanted.map((p) => addressQuery(p.address!));
  const hits = mapDir ? await searchMapMany(asked.map((a) => a.query)) : null;
  const failed = new Map<number, string>();
  wanted.forEach((p, i) => {
    const { house, text } = asked[i];
    const hit = hits?.[i][0];
    const postcodeOnly =
      hit &&
      p.address!.address !== undefined &&
      words(text)
        .filter(looksLikeHouseNumber)
        .every((w) => w === hit.address.zipcode);
    if (!hits) failed.set(p.line, 'address: cannot be placed: no map is loaded');
    else if (!hit) failed.set(p.line, `address: no place found for "${text}"`);
    else if (house && !postcodeOnly && hit.kind !== 'address') {
      failed.set(p.line, `address: "${text}" found only as the ${hit.kind} ${hit.address.display_name ?? hit.name}, not the house`);
    } else if (!hit.complete) failed.set(p.line, `address: no place matches every part of "${text}" (nearest: ${hit.address.display_name ?? hit.name})`);
    else {
      p.poi.latitude = hit.lat;
      p.poi.longitude = hit.lon;
    }
  });
  const errors = [...checked.errors, ...[...failed].map(([line, message]) => ({ line, message }))].sort((a, b) => a.line - b.line);
  return { pois: checked.pois.filter((p) => !failed.has(p.line)), errors, invalidRows: checked.invalidRows + failed.size };
}

/** Commits one batch of `rows` rows; returns the new checkpoint, or null when the checkpoint moved under us. */
async function commitBatch(
  sql: Sql,
  imp: ImportRow,
  checked: Validated,
  rows: number,
  at: Checkpoint,
  after: CsvCursor,
  progress?: (tx: Sql) => Promise<void>,
): Promise<Checkpoint | null> {
  const total = imp.total_rows;
  return sql.begin(async (tx) => {
    const t = tx as unknown as Sql;
    const cur = await lockImport(t, imp.id);
    if (cur?.status !== 'processing' || cur.next_row !== at.row) return null;

    const team = await teamPlan(t, imp.team_id);
    const limit = effectiveLimits(team.plan, null, team.poi_limit).poiLimit;
    const granted = checked.pois.length ? await reservePoiSlots(t, imp.team_id, checked.pois.length, limit) : 0;
    const created = checked.pois.slice(0, granted);
    // Only the categories of rows that are imported: one named only by rows past the limit is not made.
    const categoryIds = await categoryIdsFor(
      t,
      imp.team_id,
      created.map((p) => p.poi.category),
    );
    if (created.length)
      await insertImportedPois(
        t,
        imp,
        created.map((c) => c.poi),
        categoryIds,
      );

    const errors = checked.errors;
    let end = at.row + rows;
    let failed = checked.invalidRows;
    const limitReached = granted < checked.pois.length;
    if (limitReached) {
      // The limit stops the import: the rest of this batch and every later row is not imported.
      const first = checked.pois[granted];
      const skipped = checked.pois.length - granted + Math.max(0, total - end);
      errors.push({ line: first.line, message: `limit: the team reached its limit of ${limit} POIs; ${skipped} rows from this line on were not imported` });
      failed += skipped;
      end = Math.max(total, end);
    }
    const room = Math.max(0, MAX_ERRORS - cur.error_count);
    // a short batch is the end of the file
    const done = end >= total || rows < BATCH_SIZE;
    await recordBatch(t, imp.id, {
      nextRow: end,
      nextOffset: after.offset,
      nextLine: after.line,
      processed: end - at.row,
      created: created.length,
      failed,
      errors: errors.slice(0, room),
      limitReached,
      done,
    });
    // The job's record of progress commits with the batch: a death just after cannot be taken for one before.
    await progress?.(t);
    return { row: end, cursor: after };
  }) as Promise<Checkpoint | null>;
}
