import type { AttributeRow } from '../attributes/definitions.js';
import { CsvError, decodeCsv, detectDelimiter, readRecords, START, type CsvCursor, type CsvRecord, type Delimiter } from './csv.js';

export const MAX_FILE_BYTES = 10 * 1024 * 1024;
export const MAX_ROWS = 50_000;

const POI_COLUMNS = new Set(['name', 'latitude', 'longitude', 'category']);
/** Columns that place a row by its address instead of coordinates (geocoded against the map). */
export const ADDRESS_COLUMNS = ['address', 'street', 'housenumber', 'postcode', 'city', 'country'] as const;
export type AddressColumn = (typeof ADDRESS_COLUMNS)[number];
const ATTRIBUTE_NAME = /^[A-Za-z0-9_]{1,255}$/;
const RESERVED_ATTRIBUTE_NAMES = new Set(['limit', 'cursor']);

/** The address columns of a file: those named so that are no attribute of the team (an attribute keeps its column, as before addresses). */
export const addressColumns = (columns: string[], attrs: AttributeRow[]): AddressColumn[] =>
  ADDRESS_COLUMNS.filter((c) => columns.includes(c) && !matchAttribute(attrs, c));

/** Columns that carry attribute values (every column but the POI's own and its address). */
export const attributeColumns = (columns: string[], attrs: AttributeRow[]) => {
  const address = new Set<string>(addressColumns(columns, attrs));
  return columns.filter((c) => !POI_COLUMNS.has(c) && !address.has(c));
};

/** Header names are case-insensitive, attribute names are not: an exact match wins, else the oldest
 *  attribute whose name matches ignoring case. */
export function matchAttribute(attrs: AttributeRow[], column: string): AttributeRow | undefined {
  return attrs.find((a) => a.name === column) ?? attrs.find((a) => a.name.toLowerCase() === column);
}

/** Trimmed, lowercased names; rejects empty, duplicate and missing required columns. */
export function headerColumns(header: CsvRecord | undefined): string[] {
  if (!header) throw new CsvError('is empty: the first line must be the header (name, latitude, longitude or address, …)');
  const columns = header.fields.map((f) => f.trim().toLowerCase());
  const empty = columns.indexOf('');
  if (empty >= 0) throw new CsvError(`has an empty column name in the header (column ${empty + 1})`, header.line);
  const duplicates = [...new Set(columns.filter((c, i) => columns.indexOf(c) !== i))];
  if (duplicates.length) throw new CsvError(`has duplicate columns: ${duplicates.join(', ')}`, header.line);
  // Coordinates, or an address to find them by.
  const placed = ADDRESS_COLUMNS.some((c) => columns.includes(c));
  const missing = ['name', ...(placed ? [] : ['latitude', 'longitude'])].filter((c) => !columns.includes(c));
  if (missing.length) {
    const or = missing.includes('latitude') ? ' (or an address: address, or street, housenumber, postcode, city, country)' : '';
    throw new CsvError(`is missing the required columns: ${missing.join(', ')}${or} (the first line must be the header)`, header.line);
  }
  return columns;
}

/** Attribute columns that match no attribute of the team; with `createMissing` they must be valid names. */
export function checkAttributeColumns(columns: string[], attrs: AttributeRow[], createMissing: boolean): void {
  const unknown = attributeColumns(columns, attrs).filter((c) => !matchAttribute(attrs, c));
  if (!unknown.length) return;
  if (!createMissing) {
    throw new CsvError(
      `has unknown columns: ${unknown.join(', ')} (no attributes with these names; send create_missing_attributes=true to create them as string attributes)`,
    );
  }
  const invalid = unknown.filter((c) => !ATTRIBUTE_NAME.test(c) || RESERVED_ATTRIBUTE_NAMES.has(c));
  if (invalid.length) {
    throw new CsvError(
      `has columns that cannot become attributes: ${invalid.join(', ')} (attribute names are letters, numbers and underscores; limit and cursor are reserved)`,
    );
  }
}

/** A decoded file whose header has been read and checked; rows are read from `body` on. */
export interface ImportFile {
  text: string;
  delimiter: Delimiter;
  columns: string[];
  body: CsvCursor;
}

export function openImportFile(bytes: Uint8Array): ImportFile {
  const text = decodeCsv(bytes);
  const delimiter = detectDelimiter(text);
  const { records, next } = readRecords(text, delimiter, START, 1);
  return { text, delimiter, columns: headerColumns(records[0]), body: next };
}

/** Rows should not hold the event loop for long: counting a 10 MB file yields every this many. */
const COUNT_SLICE = 5000;

/** Data rows, counting at most `limit` + 1; reading them all also finds unterminated quotes. */
export async function countRows(file: ImportFile, limit: number): Promise<number> {
  let count = 0;
  let cursor = file.body;
  while (count <= limit && cursor.offset < file.text.length) {
    const { records, next } = readRecords(file.text, file.delimiter, cursor, Math.min(COUNT_SLICE, limit + 1 - count));
    count += records.length;
    cursor = next;
    await new Promise((done) => setImmediate(done));
  }
  return count;
}

/** The checks made at upload, before anything is stored: size, encoding, header, columns, row count. */
export async function inspectUpload(bytes: Uint8Array, attrs: AttributeRow[], createMissing: boolean): Promise<{ columns: string[]; totalRows: number }> {
  if (bytes.byteLength > MAX_FILE_BYTES) throw new CsvError('may not be larger than 10 MB');
  const file = openImportFile(bytes);
  checkAttributeColumns(file.columns, attrs, createMissing);
  const totalRows = await countRows(file, MAX_ROWS);
  if (totalRows === 0) throw new CsvError('has no data rows: only a header');
  if (totalRows > MAX_ROWS) throw new CsvError(`has more than ${MAX_ROWS} rows`);
  return { columns: file.columns, totalRows };
}
