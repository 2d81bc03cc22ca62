import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { api, makeTeam, startTestApp, type TestTeam } from '../support/app.js';
import { importCsv, simpleRows, upload, waitForImport } from './support.js';

let app: App & { url: string };
let team: TestTeam;

beforeAll(async () => {
  app = await startTestApp();
  team = await makeTeam(app);
  for (const [name, type] of [
    ['rating', 'number'],
    ['open', 'boolean'],
    ['note', 'string'],
  ]) {
    expect((await api(app, 'POST', '/v1/attributes', { key: team.key, body: { name, type } })).status).toBe(201);
  }
});
afterAll(() => app.close());

const poisOf = (importId: string) =>
  app.sql<{ name: string; latitude: number; longitude: number; category: string | null; attrs: Record<string, unknown>; geocoding: boolean }[]>`
    SELECT p.name, p.latitude, p.longitude, c.name AS category,
      -- inserted pending; the background geocoder may have done them already
      (p.geocode_pending OR p.geocoded_at IS NOT NULL) AS geocoding,
      coalesce((SELECT jsonb_object_agg(a.name, e.value) FROM jsonb_each(p.attrs) e JOIN attributes a ON a.id = e.key), '{}') AS attrs
    FROM pois p LEFT JOIN categories c ON c.id = p.category_id WHERE p.import_id = ${importId} ORDER BY p.id`;

describe('POST /v1/imports', () => {
  it('imports a file: 202 queued at once, then completed with typed attributes and created categories', async () => {
    const csv = [
      'Latitude,NAME,longitude,Category,Rating,open,note',
      '52.52,Brandenburger Tor,13.3777,Sights,4.8,yes,',
      '48.8584,Eiffel Tower,2.2945,Sights,,no,iron',
      '41.8902,Colosseum,12.4922,Ruins,4.7,1,',
      '',
    ].join('\n');
    const res = await upload(app, team.key, csv, { filename: 'landmarks.csv' });
    expect(res.status).toBe(202);
    const queued = res.body.data;
    expect(queued).toMatchObject({
      status: 'queued',
      filename: 'landmarks.csv',
      columns: ['latitude', 'name', 'longitude', 'category', 'rating', 'open', 'note'],
      total_rows: 3,
      processed_rows: 0,
      created: 0,
      failed: 0,
      limit_reached: false,
      errors: [],
      started_at: null,
      finished_at: null,
    });
    expect(queued.id).toMatch(/^[0-9A-Z]{26}$/);
    expect(queued.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);

    const done = await waitForImport(app, team.key, queued.id);
    expect(done).toMatchObject({ status: 'completed', total_rows: 3, processed_rows: 3, created: 3, failed: 0, errors: [] });
    expect(done.started_at).toMatch(/Z$/);
    expect(done.finished_at).toMatch(/Z$/);
    expect(await poisOf(queued.id)).toEqual([
      { name: 'Brandenburger Tor', latitude: 52.52, longitude: 13.3777, category: 'Sights', attrs: { rating: 4.8, open: true }, geocoding: true },
      { name: 'Eiffel Tower', latitude: 48.8584, longitude: 2.2945, category: 'Sights', attrs: { open: false, note: 'iron' }, geocoding: true },
      { name: 'Colosseum', latitude: 41.8902, longitude: 12.4922, category: 'Ruins', attrs: { rating: 4.7, open: true }, geocoding: true },
    ]);
    const cats = await api(app, 'GET', '/v1/categories', { key: team.key });
    expect(cats.body.data.map((c: { name: string }) => c.name).sort()).toEqual(['Ruins', 'Sights']);
    // the file is not kept once the import is done
    expect(await app.sql`SELECT 1 FROM import_files WHERE import_id = ${queued.id}`).toHaveLength(0);
  });

  it('reads semicolon files with a BOM, CRLF line ends and quoted fields holding delimiters, quotes and line breaks', async () => {
    const csv =
      '\uFEFFname;latitude;longitude;note\r\n' +
      '"Café; ""Zur Post""";50.1;8.6;"first line\r\nsecond line"\r\n' +
      'Bad comma;50,1;8.6;\r\n' +
      '"A, B";-33.8568;151.2153;plain\r\n';
    const done = await importCsv(app, team.key, csv);
    expect(done).toMatchObject({ status: 'completed', columns: ['name', 'latitude', 'longitude', 'note'], total_rows: 3, created: 2, failed: 1 });
    // the quoted line break puts the second record on line 4
    expect(done.errors).toEqual([{ line: 4, message: 'latitude: must be a number with a dot as the decimal separator' }]);
    expect(await poisOf(done.id)).toEqual([
      expect.objectContaining({ name: 'Café; "Zur Post"', latitude: 50.1, longitude: 8.6, attrs: { note: 'first line\r\nsecond line' } }),
      expect.objectContaining({ name: 'A, B', latitude: -33.8568, attrs: { note: 'plain' } }),
    ]);
  });

  it('skips invalid rows and reports every error kind with its line and column', async () => {
    const long = 'x'.repeat(256);
    const csv = [
      'name,latitude,longitude,rating,open',
      'ok 1,10,10,3,true', //               2
      'bad number,abc,10,,', //             3
      'bad lat,-90.5,10,,', //              4
      'bad lon,10,180.01,,', //             5
      `${long},10,10,,`, //                 6
      'bad rating,10,10,five,', //          7
      'bad bool,10,10,,maybe', //           8
      'ok 2,10,10,,YES', //                 9
      'ok 3,10,10,,False', //               10
      'ok 4,10,10,,0', //                   11
      ',10,10,,', //                        12
      'too many,1,2,3,true,extra', //       13
      `${'y'.repeat(255)},90,-180,-1e3,no`, // 14
    ].join('\n');
    const done = await importCsv(app, team.key, csv);
    expect(done).toMatchObject({ status: 'completed', total_rows: 13, processed_rows: 13, created: 5, failed: 8, limit_reached: false });
    expect(done.errors).toEqual([
      { line: 3, message: 'latitude: must be a number with a dot as the decimal separator' },
      { line: 4, message: 'latitude: must be between -90 and 90' },
      { line: 5, message: 'longitude: must be between -180 and 180' },
      { line: 6, message: 'name: may not be longer than 255 characters' },
      { line: 7, message: 'rating: must be a number' },
      { line: 8, message: 'open: must be a boolean (true, false, 1, 0, yes, no)' },
      { line: 12, message: 'name: is required' },
      { line: 13, message: 'row: has 6 values but the header has 5 columns (quote values that contain the delimiter)' },
    ]);
    const pois = await poisOf(done.id);
    expect(pois.map((p) => [p.name.slice(0, 5), p.attrs])).toEqual([
      ['ok 1', { rating: 3, open: true }],
      ['ok 2', { open: true }],
      ['ok 3', { open: false }],
      ['ok 4', { open: false }],
      ['yyyyy', { rating: -1000, open: false }],
    ]);
  });

  it('keeps at most 100 errors while counting every failed row', async () => {
    const lines = ['name,latitude,longitude'];
    for (let i = 0; i < 150; i++) lines.push(`row ${i},100,0`);
    lines.push('fine,1,1');
    const done = await importCsv(app, team.key, lines.join('\n'));
    expect(done).toMatchObject({ total_rows: 151, created: 1, failed: 150 });
    expect(done.errors).toHaveLength(100);
    expect(done.errors[99]).toEqual({ line: 101, message: 'latitude: must be between -90 and 90' });
  });

  it('rejects unknown columns unless create_missing_attributes is true, then creates them as strings', async () => {
    const csv = 'name,latitude,longitude,Wheelchair,rating\nRamp,1,2,limited,2\nStairs,1,2,,\n';
    const rejected = await upload(app, team.key, csv);
    expect(rejected.status).toBe(422);
    expect(rejected.body.errors.file[0]).toMatch(/^has unknown columns: wheelchair/);
    const off = await upload(app, team.key, csv, { fields: { create_missing_attributes: 'no' } });
    expect(off.status).toBe(422);

    const done = await importCsv(app, team.key, csv, { fields: { create_missing_attributes: 'true' } });
    expect(done).toMatchObject({ status: 'completed', created: 2, failed: 0 });
    const attrs = await api(app, 'GET', '/v1/attributes?limit=100', { key: team.key });
    expect(attrs.body.data.find((a: { name: string }) => a.name === 'wheelchair')).toMatchObject({ type: 'string' });
    expect((await poisOf(done.id))[0].attrs).toEqual({ wheelchair: 'limited', rating: 2 });

    const bad = await upload(app, team.key, csv, { fields: { create_missing_attributes: 'maybe' } });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual({ create_missing_attributes: ['must be a boolean (true, false, 1, 0, yes, no)'] });
  });

  it('rejects files that fail the upload checks with 422 under errors.file, storing nothing', async () => {
    const before = await app.sql`SELECT count(*)::int AS n FROM imports WHERE team_id = ${team.teamId}`;
    const cases: [string | Uint8Array, RegExp][] = [
      ['', /^is empty/],
      ['\n\n', /^is empty/],
      ['name,latitude,longitude\n', /^has no data rows/],
      ['name,latitude,longitude\n\n,,\n , ,\n', /^has no data rows/],
      ['Berlin,52.5,13.4\nParis,48.8,2.3\n', /^is missing the required columns: name, latitude, longitude/],
      ['name,lat,lng\nx,1,2\n', /^is missing the required columns: latitude, longitude/],
      ['name,latitude,longitude,LATITUDE\nx,1,2,3\n', /^has duplicate columns: latitude/],
      ['name,latitude,longitude\n"x,1,2\n', /^has an unterminated quoted field starting at line 2/],
      [new Uint8Array([0x6e, 0x61, 0x6d, 0x65, 0xff, 0x0a]), /^must be UTF-8 encoded/],
      [simpleRows(50_001), /^has more than 50000 rows/],
    ];
    for (const [content, message] of cases) {
      const res = await upload(app, team.key, content);
      expect(res.status, String(message)).toBe(422);
      expect(Object.keys(res.body.errors)).toEqual(['file']);
      expect(res.body.errors.file[0]).toMatch(message);
      expect(res.body.message).toBe(`file: ${res.body.errors.file[0]}`);
    }
    const missing = await upload(app, team.key, '', { noFile: true, fields: { create_missing_attributes: 'true' } });
    expect(missing.status).toBe(422);
    expect(missing.body.errors).toEqual({ file: ['is required'] });
    const after = await app.sql`SELECT count(*)::int AS n FROM imports WHERE team_id = ${team.teamId}`;
    expect(after[0].n).toBe(before[0].n);
  });

  it('accepts exactly 50,000 rows', async () => {
    const res = await upload(app, team.key, simpleRows(50_000));
    expect(res.status).toBe(202);
    expect(res.body.data.total_rows).toBe(50_000);
    const done = await waitForImport(app, team.key, res.body.data.id);
    expect(done).toMatchObject({ status: 'completed', created: 50_000, failed: 0, processed_rows: 50_000 });
  });

  it('accepts a file of exactly 10 MB (10,485,760 bytes), and not one byte more', async () => {
    const header = 'name,latitude,longitude\n';
    const rows = 50_000;
    const body = 10 * 1024 * 1024 - header.length;
    const base = Math.floor(body / rows); // bytes a row; the first `extra` rows one more
    const extra = body - base * rows;
    const file = header + Array.from({ length: rows }, (_, i) => `${'n'.repeat(base - 5 + (i < extra ? 1 : 0))},1,2\n`).join('');
    expect(Buffer.byteLength(file)).toBe(10 * 1024 * 1024);
    const exact = await upload(app, team.key, file);
    expect(exact.status).toBe(202);
    expect(exact.body.data.total_rows).toBe(rows);
    const oneMore = `${header}n${file.slice(header.length)}`; // the first name one character longer
    expect(Buffer.byteLength(oneMore)).toBe(10 * 1024 * 1024 + 1);
    const over = await upload(app, team.key, oneMore);
    expect(over.status).toBe(422);
    expect(over.body.errors).toEqual({ file: ['may not be larger than 10 MB'] });
  });

  it('answers 422 for a file over 10 MB inside the body limit and 413 beyond it', async () => {
    const row = 'padded name,1,2\n';
    const header = 'name,latitude,longitude\n';
    const justOver = header + row.repeat(Math.ceil((10 * 1024 * 1024 + 1024 - header.length) / row.length));
    const over = await upload(app, team.key, justOver);
    expect(over.status).toBe(422);
    expect(over.body.errors).toEqual({ file: ['may not be larger than 10 MB'] });
    const huge = header + row.repeat(Math.ceil((11 * 1024 * 1024) / row.length));
    const tooLarge = await upload(app, team.key, huge);
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body.message).toMatch(/exceeds the limit/);
  });

  it('rejects other fields and a body that is not multipart', async () => {
    const extra = await upload(app, team.key, simpleRows(1), { fields: { createMissing: '1' } });
    expect(extra.status).toBe(422);
    expect(extra.body.errors).toEqual({ createMissing: ['is not an accepted field'] });
    const text = await upload(app, team.key, '', { noFile: true, fields: { file: 'name,latitude,longitude' } });
    expect(text.body.errors).toEqual({ file: ['must be sent as a file part'] });
    const json = await api(app, 'POST', '/v1/imports', { key: team.key, body: { file: 'x' } });
    expect(json.status).toBe(400);
  });

  it('answers 400 for a form cut off inside the file part, and keeps serving', async () => {
    const cut = '--XX\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\nContent-Type: text/csv\r\n\r\nname,latitude,longitude\r\na,1,2';
    const res = await fetch(`${app.url}/v1/imports`, {
      method: 'POST',
      headers: { 'X-API-KEY': team.key, 'Content-Type': 'multipart/form-data; boundary=XX' },
      body: cut,
    });
    expect(res.status).toBe(400);
    expect((await res.json()).message).toMatch(/malformed/);
    expect((await api(app, 'GET', '/health')).status).toBe(200);
  });

  it('runs imports of one team side by side, creating each new category once', async () => {
    const busy = await makeTeam(app);
    const file = (tag: string) => {
      const lines = ['name,latitude,longitude,category'];
      for (let i = 0; i < 1200; i++) lines.push(`${tag} ${i},1,1,shared ${i % 10}`);
      return lines.join('\n');
    };
    const results = await Promise.all(['a', 'b', 'c'].map((tag) => importCsv(app, busy.key, file(tag))));
    for (const r of results) expect(r).toMatchObject({ status: 'completed', created: 1200, failed: 0 });
    const [stats] = await app.sql`
      SELECT (SELECT count(*)::int FROM categories WHERE team_id = ${busy.teamId}) AS categories,
        (SELECT count(*)::int FROM pois WHERE team_id = ${busy.teamId} AND category_id IS NOT NULL) AS pois`;
    expect(stats).toEqual({ categories: 10, pois: 3600 });
  });

  it('stops creating at the team POI limit: the rest count as failed and limit_reached is true', async () => {
    const limited = await makeTeam(app, { poiLimit: 700 });
    expect((await api(app, 'POST', '/v1/pois', { key: limited.key, body: { name: 'first', latitude: 1, longitude: 1 } })).status).toBe(201);
    const lines = ['name,latitude,longitude'];
    for (let i = 0; i < 1200; i++) lines.push(i === 5 ? 'broken,x,1' : `p${i},1,1`);
    const done = await importCsv(app, limited.key, lines.join('\n'));
    expect(done).toMatchObject({ status: 'completed', total_rows: 1200, processed_rows: 1200, created: 699, failed: 501, limit_reached: true });
    // 1 invalid row on line 7; the 700th valid row (line 702) is the first one over the limit
    expect(done.errors).toEqual([
      { line: 7, message: 'latitude: must be a number with a dot as the decimal separator' },
      { line: 702, message: 'limit: the team reached its limit of 700 POIs; 500 rows from this line on were not imported' },
    ]);
    const [count] =
      await app.sql`SELECT count(*)::int AS pois, (SELECT poi_count FROM teams WHERE id = ${limited.teamId}) AS counted FROM pois WHERE team_id = ${limited.teamId}`;
    expect(count).toEqual({ pois: 700, counted: 700 });
    const blocked = await api(app, 'POST', '/v1/pois', { key: limited.key, body: { name: 'one more', latitude: 1, longitude: 1 } });
    expect(blocked.status).toBe(403);
  });

  it('creates no category that only rows past the POI limit name', async () => {
    const limited = await makeTeam(app, { poiLimit: 2 });
    const done = await importCsv(app, limited.key, 'name,latitude,longitude,category\na,1,1,Kept\nb,1,1,Kept\nc,1,1,Never\n');
    expect(done).toMatchObject({ status: 'completed', created: 2, failed: 1, limit_reached: true });
    const categories = await api(app, 'GET', '/v1/categories', { key: limited.key });
    expect(categories.body.data.map((c: { name: string }) => c.name)).toEqual(['Kept']);
  });
});

describe('GET /v1/imports', () => {
  it('lists the team imports by id in cursor pages and shows one; other teams see 404', async () => {
    const other = await makeTeam(app);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await importCsv(app, other.key, simpleRows(2, `list${i}`))).id);
    const first = await api(app, 'GET', '/v1/imports?limit=2', { key: other.key });
    expect(first.status).toBe(200);
    expect(first.body.data.map((d: { id: string }) => d.id)).toEqual(ids.slice(0, 2));
    expect(first.body.next).toBe(ids[1]);
    const second = await api(app, 'GET', `/v1/imports?limit=2&cursor=${first.body.next}`, { key: other.key });
    expect(second.body).toMatchObject({ data: [expect.objectContaining({ id: ids[2], status: 'completed' })], next: null });
    const one = await api(app, 'GET', `/v1/imports/${ids[0].toLowerCase()}`, { key: other.key });
    expect(one.body.data).toMatchObject({ id: ids[0], created: 2 });
    expect((await api(app, 'GET', `/v1/imports/${ids[0]}`, { key: team.key })).status).toBe(404);
    expect((await api(app, 'GET', '/v1/imports/nope', { key: team.key })).body).toEqual({ message: 'Import not found.' });
    expect((await api(app, 'GET', '/v1/imports?cursor=bad', { key: team.key })).status).toBe(422);
  });

  it('needs read-pois to read and create-pois to upload', async () => {
    const reader = await team.keyWith('read-pois');
    const writer = await team.keyWith('create-pois');
    expect((await api(app, 'GET', '/v1/imports', { key: reader })).status).toBe(200);
    expect((await upload(app, reader, simpleRows(1))).body).toEqual({ message: "This API key lacks the 'create-pois' permission." });
    expect((await api(app, 'GET', '/v1/imports', { key: writer })).status).toBe(403);
    expect((await upload(app, writer, simpleRows(1))).status).toBe(202);
  });
});
