// Address-only CSV import (issue 32): 50,000 rows without coordinates, each the address of one of the
// Liechtenstein extract's own address points (its addr:street, addr:housenumber, addr:postcode, addr:city
// tags, read from the .osm.pbf, never from our search), repeated and shuffled; half as free text in an
// `address` column ("Städtle 38, 9490 Vaduz", "Städtle 38 Vaduz", …), half as `street,housenumber,
// postcode,city` columns. Timed from the upload to `completed` through a real `waymark serve` (HTTP API,
// its job runner, 2 compute threads), then checked: every row imported (none a row error) and each POI
// within 100 m of an address point (a building: of its box) of the extract carrying the row's address (house precision: the
// import fails a row naming a house that search finds only as a street).
//
//   npm run bench:imports:addresses -- [--extract PBF] [--map DIR] [--rows 50000] [--runs 1] [--rand-seed 1]
//
// --extract: the .osm.pbf (default: the bundled Liechtenstein extract); --map: a map built from it (checked
// by the extract's hash; default: built under data/test-maps when missing). Writes bench/results/imports-addresses.json. Target: ≤ 30 s, every row placed. Needs `npm run
// build` and PostgreSQL on 127.0.0.1:5432 (WAYMARK_BENCH_ADMIN_URL). The 2 cores are shared: noisy.
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ensureMap, sha256File } from '../../dist/map/build.js';
import { readManifest } from '../../dist/map/map-dir.js';
import { NODES, RELATIONS, readOsmPbfSync, WAYS } from '../../dist/map/osm/osm-pbf.js';
import {
  ADMIN_URL,
  benchDatabaseUrl,
  createBenchDatabase,
  dropBenchDatabase,
  freePort,
  meters,
  rng,
  spawnServer,
  stopActiveChildren,
  waitForReady,
} from '../scale/lib.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const say = (msg) => process.stderr.write(`[bench/imports:addresses] ${msg}\n`);
const { values: opt } = parseArgs({
  options: {
    extract: { type: 'string' },
    map: { type: 'string' },
    rows: { type: 'string', default: '50000' },
    runs: { type: 'string', default: '1' },
    'rand-seed': { type: 'string', default: '1' },
  },
});
const ROWS = Number(opt.rows);
const RUNS = Number(opt.runs);
const TARGET_MS = 30_000;
const NEAR_M = 100;
const rand = rng(Number(opt['rand-seed']));
const dbName = 'waymark_bench_import_addresses';

const extract = resolve(opt.extract ?? join(root, 'osm', 'liechtenstein.osm.pbf'));
const mapDir = opt.map ? resolve(opt.map) : await ensureMap(join(root, 'data', 'test-maps'), extract);
if ((await readManifest(mapDir)).source.sha256 !== (await sha256File(extract))) throw new Error(`${mapDir} was not built from ${extract}`);

/**
 * The extract's address points that name a street: nodes at their position, ways (buildings) at the mean
 * of their nodes. Objects with a number but neither addr:street nor addr:place cannot be written as an
 * address and are left out (counted); addr:place ones are written with the place as the street.
 */
function addressPoints(path) {
  const points = [];
  const ways = [];
  let unnamed = 0;
  // The names of the extract's places and administrative areas: an addr:city naming none of them (a town
  // across a border the extract cuts, "Balzers (FL)") is a city the map cannot know, so its rows leave it out.
  const cities = new Set();
  // A house of an associatedStreet relation is on the relation's street, whatever its own addr:street says
  // (Nominatim looks at the relation first; Bergstrasse 8 in Triesenberg is a house of Haberacherstrasse's).
  const associated = new Map();
  let relationStreet = 0;
  for (const block of readOsmPbfSync(path, RELATIONS)) {
    for (const r of block.relations) {
      if (r.tags.boundary === 'administrative' && r.tags.name) cities.add(r.tags.name);
      if (r.tags.type === 'associatedStreet' && r.tags.name)
        for (const m of r.members) if (m.role === 'house') associated.set(`${m.type}${m.ref}`, r.tags.name);
    }
  }
  const take = (tags, member) => {
    if (!tags['addr:housenumber']) return null;
    let street = tags['addr:street'] || tags['addr:place'] || '';
    const relation = associated.get(member);
    if (relation && relation !== street) [street, relationStreet] = [relation, relationStreet + 1];
    if (!street) unnamed++;
    return { street, housenumber: tags['addr:housenumber'], postcode: tags['addr:postcode'] ?? '', city: tags['addr:city'] ?? '' };
  };
  for (const block of readOsmPbfSync(path, WAYS)) {
    for (const w of block.ways) {
      const a = take(w.tags, `way${w.id}`);
      if (a) ways.push({ ...a, refs: w.refs });
    }
  }
  const wanted = new Map(ways.flatMap((w) => w.refs.map((r) => [r, null])));
  for (const block of readOsmPbfSync(path, NODES)) {
    for (const n of block.nodes) {
      if (wanted.has(n.id)) wanted.set(n.id, n);
      if (n.tags?.place && n.tags.name) cities.add(n.tags.name);
      const a = n.tags && take(n.tags, `node${n.id}`);
      if (a) points.push({ ...a, latitude: n.lat, longitude: n.lon });
    }
  }
  for (const w of ways) {
    const ns = [...new Set(w.refs)].map((r) => wanted.get(r)).filter(Boolean);
    if (!ns.length) continue;
    const { refs, ...a } = w;
    // A building is where any of it is: its box, for the distance check.
    const lats = ns.map((n) => n.lat),
      lons = ns.map((n) => n.lon);
    const box = { south: Math.min(...lats), north: Math.max(...lats), west: Math.min(...lons), east: Math.max(...lons) };
    points.push({ ...a, latitude: (box.south + box.north) / 2, longitude: (box.west + box.east) / 2, box });
  }
  // A number list ("23;25", "76, 76a, 76b") is an address per number, as Nominatim reads it.
  const split = points.flatMap((p) =>
    p.housenumber
      .split(/\s*[;,]\s*/)
      .filter(Boolean)
      .map((housenumber) => ({ ...p, housenumber })),
  );
  let unknownCity = 0;
  for (const p of split) {
    if (p.city && !cities.has(p.city)) {
      p.city = '';
      unknownCity++;
    }
  }
  return { points: split.filter((p) => p.street), numberOnly: split.filter((p) => !p.street), unnamed, unknownCity, relationStreet };
}

const quote = (s) => (/[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);
// Free text as people write it: with and without the postcode, with and without commas.
// Each form says which parts it gives: a row is right at any address point with those parts.
const FORMS = [
  (a) => ({ text: [`${a.street} ${a.housenumber}`, [a.postcode, a.city].filter(Boolean).join(' ')].filter(Boolean).join(', '), postcode: true, city: true }),
  (a) => ({ text: [`${a.street} ${a.housenumber}`, a.city || a.postcode].filter(Boolean).join(' '), postcode: !a.city, city: true }),
  (a) => ({ text: [`${a.street} ${a.housenumber}`, a.city || a.postcode].filter(Boolean).join(', '), postcode: !a.city, city: true }),
];

/** ROWS rows: the points in a shuffled order, repeated; even rows free text, odd rows the columns. */
function csvFile(points) {
  const order = [];
  while (order.length < ROWS) {
    const round = points.map((_, i) => i);
    for (let i = round.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [round[i], round[j]] = [round[j], round[i]];
    }
    order.push(...round.slice(0, ROWS - order.length));
  }
  const lines = ['name,address,street,housenumber,postcode,city'];
  const rows = order.map((p, i) => {
    const a = points[p];
    const structured = i % 2 === 1;
    const form = structured ? { postcode: true, city: true } : FORMS[(i >> 1) % FORMS.length](a);
    lines.push(structured ? `r${i},,${quote(a.street)},${quote(a.housenumber)},${quote(a.postcode)},${quote(a.city)}` : `r${i},${quote(form.text)},,,,`);
    return { point: p, structured, postcode: form.postcode, city: form.city };
  });
  return { csv: `${lines.join('\n')}\n`, rows };
}

/** CPU time of a process, all its threads (user + system), from /proc: what the run cost whatever else the host ran. */
function serverCpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const key = (a) => `${a.street}\u0000${a.housenumber}\u0000${a.postcode}\u0000${a.city}`;

let server = null;
let bench = null;
const results = [];
try {
  say(`map ${mapDir}, extract ${extract}`);
  const { points, numberOnly, unnamed, unknownCity, relationStreet } = addressPoints(extract);
  // Where each address is: an address the extract gives two objects (a node and its building) is right at either.
  // An address without postcode and city ("Landstrasse 80": five villages have one) is right at any of them.
  const places = new Map();
  for (const p of points) places.set(key(p), [...(places.get(key(p)) ?? []), p]);
  const byHouse = new Map();
  for (const p of points) byHouse.set(`${p.street}\u0000${p.housenumber}`, [...(byHouse.get(`${p.street}\u0000${p.housenumber}`) ?? []), p]);
  // A row the data leaves without postcode and city ("Landstrasse 40": five villages have a Landstrasse)
  // is also right at a house of that number with no street of its own, which takes the nearest street.
  const byNumber = new Map();
  for (const p of numberOnly) byNumber.set(p.housenumber, [...(byNumber.get(p.housenumber) ?? []), p]);
  const candidates = (a, row) => {
    const same = byHouse
      .get(`${a.street}\u0000${a.housenumber}`)
      .filter((p) => (!row.postcode || !a.postcode || p.postcode === a.postcode) && (!row.city || !a.city || p.city === a.city));
    return a.postcode || a.city ? same : [...same, ...(byNumber.get(a.housenumber) ?? [])];
  };
  const distance = (p, poi) =>
    p.box
      ? meters(
          { latitude: Math.min(Math.max(poi.latitude, p.box.south), p.box.north), longitude: Math.min(Math.max(poi.longitude, p.box.west), p.box.east) },
          poi,
        )
      : meters(p, poi);
  const { csv, rows } = csvFile(points);
  say(
    `${points.length} address points with a street (${places.size} distinct addresses; ${unnamed} with a number but no street left out; ${unknownCity} name a city that is no place or area of the extract, written without it; ${relationStreet} on their associatedStreet relation's street) → ${ROWS} rows, ${(csv.length / 1e6).toFixed(2)} MB`,
  );

  bench = await createBenchDatabase({ adminUrl: ADMIN_URL, dbName, team: 'bench imports addresses' });
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const t0 = performance.now();
  server = spawnServer({ port, mapDir, dbUrl: benchDatabaseUrl(dbName), workers: 2, tag: 'serve' });
  await waitForReady({ base, t0, timeoutMs: 120_000, server, assertAlive: () => {} });
  say(`server ready after ${((performance.now() - t0) / 1000).toFixed(1)} s`);

  for (let run = 1; run <= RUNS; run++) {
    const form = new FormData();
    form.append('file', new Blob([csv], { type: 'text/csv' }), 'addresses.csv');
    const cpu0 = serverCpuMs(server.pid);
    const start = performance.now();
    const res = await fetch(`${base}/v1/imports`, { method: 'POST', headers: { 'x-api-key': bench.key }, body: form });
    const accepted = await res.json();
    if (res.status !== 202) throw new Error(`upload answered ${res.status}: ${JSON.stringify(accepted)}`);
    const uploaded = performance.now();
    let data;
    let lastSaid = 0;
    for (;;) {
      if (server.exit) throw new Error(`serve exited (${JSON.stringify(server.exit)}): ${server.stderrTail}`);
      data = (await (await fetch(`${base}/v1/imports/${accepted.data.id}`, { headers: { 'x-api-key': bench.key } })).json()).data;
      if (data.status === 'completed' || data.status === 'failed') break;
      const now = performance.now();
      if (now - lastSaid > 2000) {
        say(
          `  run ${run}: ${data.created + data.failed}/${ROWS} rows after ${((now - start) / 1000).toFixed(1)} s (${data.created ?? 0} created, ${data.failed ?? 0} failed)`,
        );
        lastSaid = now;
      }
      await new Promise((done) => setTimeout(done, 25));
    }
    const completed = performance.now();
    const cpuMs = serverCpuMs(server.pid) - cpu0;
    const totalMs = Math.round(completed - start);
    say(
      `  run ${run}: ${data.status} after ${(totalMs / 1000).toFixed(2)} s (serve's CPU ${(cpuMs / 1000).toFixed(1)} s, all threads): ${data.created} created, ${data.failed} failed`,
    );

    // Every row against the extract: imported, and near an address point with the row's address.
    const pois = await bench.sql`SELECT name, latitude, longitude FROM pois WHERE import_id = ${accepted.data.id}`;
    const placed = new Map(pois.map((p) => [p.name, p]));
    const missing = [];
    const far = [];
    let worst = 0;
    rows.forEach((r, i) => {
      const a = points[r.point];
      const poi = placed.get(`r${i}`);
      if (!poi) return missing.push({ row: i, line: i + 2, structured: r.structured, address: a });
      const d = Math.min(...candidates(a, r).map((p) => distance(p, poi)));
      worst = Math.max(worst, d);
      if (d > NEAR_M) far.push({ row: i, structured: r.structured, address: a, meters: Math.round(d) });
    });
    const distinct = (list) => [...new Map(list.map((m) => [`${m.structured}${key(m.address)}`, m])).values()];
    const r = {
      run,
      upload_ms: Math.round(uploaded - start),
      total_ms: totalMs,
      rows_per_s: Math.round(ROWS / (totalMs / 1000)),
      serve_cpu_ms: cpuMs,
      status: data.status,
      created: data.created,
      failed: data.failed,
      rows_not_placed: missing.length,
      rows_placed_elsewhere: far.length,
      worst_distance_m: Math.round(worst),
      not_placed_examples: distinct(missing)
        .slice(0, 20)
        .map((m) => ({ line: m.line, form: m.structured ? 'columns' : 'text', ...m.address, error: data.errors?.find((e) => e.line === m.line)?.message })),
      placed_elsewhere_examples: distinct(far)
        .slice(0, 20)
        .map((m) => ({ form: m.structured ? 'columns' : 'text', ...m.address, meters: m.meters })),
    };
    say(
      `  run ${run}: ${ROWS - missing.length - far.length}/${ROWS} rows at their address (${missing.length} not placed, ${far.length} more than ${NEAR_M} m off; farthest ${r.worst_distance_m} m)`,
    );
    for (const m of r.not_placed_examples)
      say(`    not placed: ${m.form} ${m.street} ${m.housenumber}, ${m.postcode} ${m.city}: ${m.error ?? '(error past the first 100)'}`);
    for (const m of r.placed_elsewhere_examples) say(`    ${m.meters} m off: ${m.form} ${m.street} ${m.housenumber}, ${m.postcode} ${m.city}`);
    // The server geocodes the new POIs in the background (their address objects); the next run starts after.
    for (;;) {
      const [{ pending }] = await bench.sql`SELECT count(*)::int AS pending FROM pois WHERE geocode_pending`;
      if (pending === 0) break;
      await new Promise((done) => setTimeout(done, 100));
    }
    r.all_geocoded_ms = Math.round(performance.now() - start);
    say(`  run ${run}: every POI's address object geocoded after ${(r.all_geocoded_ms / 1000).toFixed(1)} s`);
    results.push(r);
  }

  const median = [...results].sort((a, b) => a.total_ms - b.total_ms)[Math.floor(results.length / 2)];
  const summary = {
    benchmark: 'imports-addresses',
    map: mapDir,
    extract,
    rows: ROWS,
    file_bytes: Buffer.byteLength(csv),
    address_points: points.length,
    distinct_addresses: places.size,
    left_out_without_street: unnamed,
    city_not_in_extract_left_out: unknownCity,
    street_from_associated_street_relation: relationStreet,
    forms: 'even rows free text (3 forms), odd rows street,housenumber,postcode,city columns',
    target: `≤ ${TARGET_MS / 1000} s from upload to completed, every row placed within ${NEAR_M} m of its address point`,
    median_total_ms: median.total_ms,
    median_rows_per_s: median.rows_per_s,
    median_serve_cpu_ms: [...results].sort((a, b) => a.serve_cpu_ms - b.serve_cpu_ms)[Math.floor(results.length / 2)].serve_cpu_ms,
    meets_target: results.every((r) => r.total_ms <= TARGET_MS && r.rows_not_placed === 0 && r.rows_placed_elsewhere === 0),
    runs: results,
    host: { cpus: cpus().length, loadavg_1m_at_end: +loadavg()[0].toFixed(2) },
    note: 'one `waymark serve` (API, in-process job runner, 2 compute threads) and local PostgreSQL on a 2-core machine shared with other work; figures are noisy',
    measured_at: new Date().toISOString(),
  };
  const out = join(root, 'bench', 'results', 'imports-addresses.json');
  writeFileSync(out, `${JSON.stringify(summary, null, 2)}\n`);
  say(`median ${median.total_ms} ms (${median.rows_per_s} rows/s); wrote ${out}`);
} finally {
  if (server && !server.exit) server.child.kill('SIGTERM');
  await stopActiveChildren();
  if (bench) await bench.sql.end({ timeout: 5 });
  await dropBenchDatabase(ADMIN_URL, dbName, say);
}
