import { describe, expect, it } from 'vitest';
import { CsvError, decodeCsv, detectDelimiter, readRecords, START, type Delimiter } from '../../src/api/imports/csv.js';
import { countRows, headerColumns, inspectUpload, openImportFile } from '../../src/api/imports/header.js';
import { planColumns, validateRow } from '../../src/api/imports/rows.js';
import type { AttributeRow } from '../../src/api/attributes/definitions.js';

const parseCsv = (text: string, delimiter: Delimiter) => readRecords(text, delimiter, START, Infinity).records;
const attr = (name: string, type: AttributeRow['type'], id = name.toUpperCase()): AttributeRow => ({
  id,
  team_id: 'T',
  name,
  type,
  created_at: new Date(),
  updated_at: new Date(),
});

describe('CSV parsing', () => {
  it('handles RFC 4180 quoting: delimiters, line breaks and doubled quotes, with the start line of each record', () => {
    const text = 'name,note\r\n"Café, ""Zur Post""","two\r\nlines"\r\nplain,x\r\n"a\nb\nc",y\nlast,"z"';
    const records = parseCsv(text, ',');
    expect(records).toEqual([
      { line: 1, fields: ['name', 'note'] },
      { line: 2, fields: ['Café, "Zur Post"', 'two\r\nlines'] },
      { line: 4, fields: ['plain', 'x'] },
      { line: 5, fields: ['a\nb\nc', 'y'] },
      { line: 8, fields: ['last', 'z'] },
    ]);
  });

  it('skips blank lines and delimiter-only lines but keeps counting physical lines', () => {
    const records = parseCsv('a;b\n\n;\nx;y\n\n', ';');
    expect(records).toEqual([
      { line: 1, fields: ['a', 'b'] },
      { line: 4, fields: ['x', 'y'] },
    ]);
  });

  it('keeps empty trailing fields', () => {
    expect(parseCsv('a,b,\n', ',')).toEqual([{ line: 1, fields: ['a', 'b', ''] }]);
  });

  it('detects the delimiter from the header line only', () => {
    expect(detectDelimiter('name;latitude;longitude\n"a,b,c,d",1,2')).toBe(';');
    expect(detectDelimiter('name,latitude,longitude\n"a;b;c;d";1;2')).toBe(',');
    expect(detectDelimiter('name;note,x;y,z\n')).toBe(',');
  });

  it('rejects an unterminated quote with its line, and text that is not UTF-8', () => {
    expect(() => parseCsv('a,b\n1,"open\n\n', ',')).toThrow(/unterminated quoted field starting at line 2/);
    expect(() => decodeCsv(new Uint8Array([0x61, 0xff, 0x62]))).toThrow(CsvError);
  });

  it('strips a UTF-8 BOM', () => {
    const bytes = new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode('Name,Latitude,LONGITUDE\nx,1,2\n')]);
    const file = openImportFile(bytes);
    expect(file.columns).toEqual(['name', 'latitude', 'longitude']);
    expect(readRecords(file.text, file.delimiter, file.body, 10).records).toEqual([{ line: 2, fields: ['x', '1', '2'] }]);
  });

  it('reads in slices from a cursor with the same records and lines as one pass', () => {
    const text = 'h1,h2\n"a\nb",1\n\nc,2\r\n"d""",3\ne,4';
    const whole = parseCsv(text, ',');
    const sliced = [];
    let cursor = { offset: 0, line: 1 };
    for (;;) {
      const { records, next } = readRecords(text, ',', cursor, 2);
      if (!records.length) break;
      sliced.push(...records);
      cursor = next;
    }
    expect(sliced).toEqual(whole);
    expect(whole.map((r) => r.line)).toEqual([1, 2, 5, 6, 7]);
  });

  it('counts rows up to one past the limit', async () => {
    const file = openImportFile(new TextEncoder().encode(`name,latitude,longitude\n${'x,1,2\n'.repeat(12_000)}`));
    expect(await countRows(file, 50_000)).toBe(12_000);
    expect(await countRows(file, 7_000)).toBe(7_001);
  });
});

describe('header checks', () => {
  const header = (line: string) => headerColumns(parseCsv(line, ',')[0]);

  it('trims and lowercases, in any order', () => {
    expect(header(' Longitude ,NAME, latitude,Category')).toEqual(['longitude', 'name', 'latitude', 'category']);
  });

  it('names missing, duplicate and empty columns', () => {
    expect(() => header('name,lat,lon')).toThrow('is missing the required columns: latitude, longitude');
    expect(() => header('name,latitude,longitude,Name')).toThrow('has duplicate columns: name');
    expect(() => header('name,latitude,,longitude')).toThrow('empty column name in the header (column 3)');
    expect(() => headerColumns(undefined)).toThrow(/is empty/);
  });

  it('checks unknown columns against the attributes, with and without creating them', async () => {
    const bytes = new TextEncoder().encode('name,latitude,longitude,Color,opening hours\nx,1,2,red,9-5\n');
    await expect(inspectUpload(bytes, [attr('color', 'string')], false)).rejects.toThrow(/unknown columns: opening hours/);
    await expect(inspectUpload(bytes, [], true)).rejects.toThrow(/cannot become attributes: opening hours/);
    const ok = new TextEncoder().encode('name,latitude,longitude,Color\nx,1,2,red\n');
    expect(await inspectUpload(ok, [attr('Color', 'string')], false)).toEqual({ columns: ['name', 'latitude', 'longitude', 'color'], totalRows: 1 });
  });
});

describe('row validation', () => {
  const columns = ['name', 'latitude', 'longitude', 'category', 'rating', 'open', 'note'];
  const plan = planColumns(columns, [attr('rating', 'number', 'R'), attr('open', 'boolean', 'O'), attr('note', 'string', 'N')]);

  it('types attribute values by the attribute and skips empty cells', () => {
    expect(validateRow([' Museum ', '52.5', '-13.25', ' Art ', '4.5', 'Yes', ''], plan)).toEqual({
      poi: { name: 'Museum', latitude: 52.5, longitude: -13.25, category: 'Art', attrs: { R: 4.5, O: true } },
    });
    expect(validateRow(['x', '0', '0', '', '', '0', 'n'], plan)).toEqual({
      poi: { name: 'x', latitude: 0, longitude: 0, category: null, attrs: { O: false, N: 'n' } },
    });
  });

  it('names the column in every error', () => {
    const errors = (fields: string[]) => ('errors' in validateRow(fields, plan) ? (validateRow(fields, plan) as { errors: string[] }).errors : []);
    expect(errors(['', '91', '52,5', '', 'five', 'maybe', ''])).toEqual([
      'name: is required',
      'latitude: must be between -90 and 90',
      'longitude: must be a number with a dot as the decimal separator',
      'rating: must be a number',
      'open: must be a boolean (true, false, 1, 0, yes, no)',
    ]);
    expect(errors(['a'.repeat(256), '', '-181', '', '', '', ''])).toEqual([
      'name: may not be longer than 255 characters',
      'latitude: is required',
      'longitude: must be between -180 and 180',
    ]);
    expect(errors(['a\u0000b', '1', '2', 'c\u0000', '', '', 'n\u0000'])).toEqual([
      'name: may not contain NUL characters',
      'category: may not contain NUL characters',
      'note: may not contain NUL characters',
    ]);
    expect(errors(['a', '1', '2', '', '', '', '', 'extra'])).toEqual([expect.stringMatching(/^row: has 8 values but the header has 7 columns/)]);
  });
});
