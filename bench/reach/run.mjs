// Reachability bench: the matrix, isochrone, POIs-by-travel-time and detour endpoints (docs/reachability.md)
// through a real `waymark serve` (all four profiles, 2 workers), beside OSRM 6.0.0's /table on the same
// road points, the same client, one request at a time; each workload over a kept-alive connection and over
// a new connection per request. Times run from sending the request to the last byte of the answer.
// Writes bench/results/reach-<label>.json and prints the table with the targets.
//
//   npm run bench:reach -- --map liechtenstein
//   npm run bench:reach -- --map synth:32x32 [--seed 1] [--origin 45.0,5.0]
//   npm run bench:reach -- --map DIR --osm FILE.osm.pbf --label NAME     (a built map and its extract)
//
// Options: --requests N timed requests per workload and connection mode (default 100, after 5 warm-up);
// --pois N team POIs on the map's roads (default 10000); --osrm DIR the OSRM build folder (default
// /tmp/osrm-bin/build, from `bash ../shared/peers/osrm/build.sh /tmp/osrm-bin`); --no-osrm; --cache DIR
// (maps and OSRM data, default /tmp/waymark-reach; synthetic extracts are shared with bench/scale in
// /tmp/waymark-scale); --rand-seed N. The map, the extract and the OSRM data are built niced on first
// use and kept in the cache. Needs `npm run build` and PostgreSQL on 127.0.0.1:5432
// (WAYMARK_BENCH_ADMIN_URL overrides). Road points are found by asking the server (bench/scale's way).
//
// OSRM: osrm-extract with its own profiles/car.lua, osrm-contract (CH), osrm-routed --algorithm ch. Its
// small replies on a reused connection wait for the client's delayed ACK (~40 ms, ../shared/peers/osrm):
// the new-connection column is the fair one for it; its own logged time is kept too.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  ADMIN_URL,
  benchDatabaseUrl,
  boxOf,
  call,
  closeConnections,
  createBenchDatabase,
  dropBenchDatabase,
  errorText,
  freePort,
  growRoadPool,
  MODES,
  manifestBox,
  prepareOsrm,
  measuredLine,
  along,
  meters,
  pickOne,
  rng,
  routeBody,
  rssBytes,
  runChild,
  sample,
  spawnServer,
  startOsrmRouted,
  stats,
  stopActiveChildren,
  stopChild,
  synthCountry,
  timeInModes,
  waitForGeocoding,
  waitForRoutes,
} from '../scale/lib.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const resultsDir = join(root, 'bench/results');
const log = (msg) => process.stderr.write(`[bench/reach] ${msg}\n`);

const { values: opt } = parseArgs({
  options: {
    map: { type: 'string', default: 'liechtenstein' },
    osm: { type: 'string' },
    label: { type: 'string' },
    seed: { type: 'string', default: '1' },
    origin: { type: 'string' },
    cache: { type: 'string', default: '/tmp/waymark-reach' },
    'synth-cache': { type: 'string', default: '/tmp/waymark-scale' },
    osrm: { type: 'string', default: '/tmp/osrm-bin/build' },
    'no-osrm': { type: 'boolean', default: false },
    requests: { type: 'string', default: '100' },
    warmup: { type: 'string', default: '5' },
    pois: { type: 'string', default: '10000' },
    'rand-seed': { type: 'string', default: '1' },
    'build-timeout': { type: 'string', default: '7200' },
  },
});

const REQUESTS = Number(opt.requests);
const WARMUP = Number(opt.warmup);
const POIS = Number(opt.pois);
const BUILD_TIMEOUT_MS = Number(opt['build-timeout']) * 1000;
const rand = rng(Number(opt['rand-seed']));
const cache = resolve(opt.cache);
mkdirSync(cache, { recursive: true });
const dbName = 'waymark_bench_reach';
const dbUrl = benchDatabaseUrl(dbName);
const LI_EXTRACT = join(root, '../shared/data/osm/liechtenstein.osm.pbf');

/** What --map names: the extract, the label and where the built map lives. */
function mapSource() {
  const m = /^synth:(\d+x\d+)$/.exec(opt.map);
  if (m) {
    const s = synthCountry({ tiles: m[1], seed: opt.seed, origin: opt.origin, cache: resolve(opt['synth-cache']) });
    const label = opt.label ?? `synth-${m[1]}${s.variant}`;
    return { kind: 'synth', tiles: m[1], synth: s, osm: s.out, label, mapDir: join(cache, `map-${label}`) };
  }
  if (opt.map === 'liechtenstein') return { kind: 'osm', osm: LI_EXTRACT, label: opt.label ?? 'liechtenstein', mapDir: join(cache, 'map-liechtenstein') };
  if (opt.map.endsWith('.osm.pbf')) {
    const label =
      opt.label ??
      opt.map
        .split('/')
        .pop()
        .replace(/\.osm\.pbf$/, '');
    return { kind: 'osm', osm: resolve(opt.map), label, mapDir: join(cache, `map-${label}`) };
  }
  if (existsSync(join(opt.map, 'manifest.json'))) {
    return { kind: 'dir', osm: opt.osm ? resolve(opt.osm) : null, label: opt.label ?? opt.map.split('/').pop(), mapDir: resolve(opt.map) };
  }
  console.error(`--map: liechtenstein, synth:RxC, FILE.osm.pbf or a built map folder, not '${opt.map}'`);
  process.exit(2);
}
const source = mapSource();
const label = source.label;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const secs = (ms) => +(ms / 1000).toFixed(2);
const km = (m) => +(m / 1000).toFixed(1);
const git = (args) => {
  try {
    return execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim();
  } catch {
    return null;
  }
};

// ---- targets (the issue): p95 in ms, per workload ----------------------------------------------------------
const TARGETS = { matrix56_30km: 15, matrix56_any: 30, matrix100_any: 80, isochrone_car_30min: 60, pois_by_time: 25, detours: 50 };

const result = {
  label,
  map_source: opt.map,
  status: 'running',
  failed_stage: null,
  error: null,
  started_at: new Date().toISOString(),
  finished_at: null,
  machine: {
    cpus: cpus().length,
    cpu_model: cpus()[0]?.model ?? null,
    total_memory_bytes: totalmem(),
    node: process.version,
    loadavg_start: loadavg().map((x) => +x.toFixed(2)),
    note: 'cores shared with other work: timings are noisy',
  },
  git: null,
  method: {
    client: 'node:http (bench/scale/lib.mjs call), one request at a time; time from send to the last byte',
    modes: { keepalive: 'one kept-alive connection', new_connection: 'a new TCP connection per request (connect included), closed after' },
    requests_per_mode: REQUESTS,
    warmup_per_mode: WARMUP,
    waymark_workers: 2,
    osrm: 'osrm-routed 6.0.0 --algorithm ch, car.lua of the OSRM build, /table/v1/driving with annotations=duration,distance',
  },
  map: null,
  osrm: null,
  serve: null,
  pool: null,
  pois: null,
  workloads: {},
  targets_p95_ms: TARGETS,
  met: null,
};

let stage = 'setup';
let server = null;
let osrm = null; // { child, exit, logged: [ms…], stderrTail }
let sql = null;
let dbCreated = false;
let base = '';
let apiKey = '';
let osrmBase = '';

function assertServerAlive() {
  if (server?.exit) throw new Error(`waymark serve exited (${JSON.stringify(server.exit)}); its output ends with:\n${server.stderrTail.trim()}`);
  if (osrm?.exit) throw new Error(`osrm-routed exited (${JSON.stringify(osrm.exit)}); its output ends with:\n${osrm.tail.trim()}`);
}

// ---- 1. the map -------------------------------------------------------------------------------------------
/** Runs a long command niced (it shares the cores with other work), in its own process group. */
async function niced(cmd, args, what, opts = {}) {
  log(`${what}: nice -n 19 ${cmd} ${args.join(' ')}`);
  const t = performance.now();
  const code = await runChild('nice', ['-n', '19', cmd, ...args], what, BUILD_TIMEOUT_MS, log, opts).done;
  if (code !== 0) throw new Error(`${what} exited ${code}`);
  log(`${what}: done in ${secs(performance.now() - t)} s`);
  return secs(performance.now() - t);
}

async function ensureExtract() {
  if (source.kind !== 'synth' || existsSync(source.osm)) return;
  const s = source.synth;
  mkdirSync(dirname(s.out), { recursive: true });
  await niced(process.execPath, s.args, `generating the ${source.tiles} country`);
  renameSync(s.partial, s.out);
  rmSync(s.scratch, { force: true });
}

async function ensureMap() {
  const manifestFile = join(source.mapDir, 'manifest.json');
  const { MAP_FORMAT_VERSION } = await import('../../dist/map/map-files.js');
  if (existsSync(manifestFile)) {
    const format = JSON.parse(readFileSync(manifestFile, 'utf8')).formatVersion;
    if (format === MAP_FORMAT_VERSION || source.kind === 'dir') {
      log(`reusing the map ${source.mapDir}`);
      return { built_now: false };
    }
    log(`the map ${source.mapDir} is format ${format}, this build reads ${MAP_FORMAT_VERSION}: building it again`);
    rmSync(source.mapDir, { recursive: true, force: true });
  }
  // Built under another name and renamed: an interrupted build must not leave a map to reuse.
  const partial = `${source.mapDir}.partial`;
  rmSync(partial, { recursive: true, force: true });
  const wall = await niced(process.execPath, [join(root, 'bin/waymark.js'), 'map', 'build', '--osm', source.osm, '--out', partial], 'building the map');
  renameSync(partial, source.mapDir);
  return { built_now: true, build_wall_s_niced: wall };
}

// ---- 2. OSRM ----------------------------------------------------------------------------------------------
const osrmBin = resolve(opt.osrm);

/** osrm-routed on the CH data (bench/scale/lib.mjs); its log lines carry its own time per request. */
async function startOsrm() {
  osrm = await startOsrmRouted({
    bin: osrmBin,
    dir: result.osrm.dir,
    algorithm: 'ch',
    probePath: '/nearest/v1/driving/9.52,47.14',
    logged: /\/table\//,
    extraArgs: ['--max-table-size', '1000'],
    say: log,
  });
  osrmBase = osrm.base;
  return { ready_s: osrm.ready_s };
}

// ---- 3. requests ------------------------------------------------------------------------------------------
const ours = (method, path, body, mode) => call(base, apiKey, method, path, body, { newConnection: mode === 'new_connection' });
const theirs = (path, mode) => call(osrmBase, '', 'GET', path, undefined, { newConnection: mode === 'new_connection' });
const pt = (p) => ({ latitude: p.latitude, longitude: p.longitude });
const osrmTable = (points) => `/table/v1/driving/${points.map((p) => `${p.longitude},${p.latitude}`).join(';')}?annotations=duration,distance`;

/**
 * Runs `send(item, mode)` over warm-up then `items`, one at a time, in each mode (lib.mjs timeInModes).
 * Times of 2xx answers only; anything else is counted as an error (with samples). `check(r, item)` throws
 * when a 2xx answer is not the one asked for, else returns a figure kept for the first answers.
 */
function measure(name, items, send, check = () => null) {
  const judge = (r, item) => {
    if (r.status < 200 || r.status >= 300) return { kind: 'error', why: errorText(r) };
    try {
      return { kind: 'ok', seen: check(r, item) };
    } catch (err) {
      return { kind: 'error', why: `${r.status}, but the answer is not what was asked for: ${err.message}` };
    }
  };
  return timeInModes({ name, items, send, judge, warmup: WARMUP, assertAlive: assertServerAlive, say: log });
}

/** The same items through OSRM, with its own logged time per request beside ours. */
async function measureOsrm(name, items, path) {
  if (!osrm) return null;
  const before = osrm.logged.length;
  const out = await measure(
    `OSRM ${name}`,
    items,
    (item, mode) => theirs(path(item), mode),
    (r) => nullCells(r.json?.durations),
  );
  await sleep(300); // its log is written after the answer
  // Warm-up and timed requests of both modes, in order: keep the timed ones.
  const logged = osrm.logged.slice(before);
  const per = WARMUP + items.length;
  if (logged.length === 2 * per) {
    out.keepalive.osrm_logged_ms = stats(logged.slice(WARMUP, per));
    out.new_connection.osrm_logged_ms = stats(logged.slice(per + WARMUP));
  }
  return out;
}

const nullCells = (rows) => (Array.isArray(rows) ? rows.flat().filter((v) => v == null).length : null);

/** Durations of one matrix from each side, cell by cell: how far the two engines' answers are apart. */
async function agreement(points) {
  if (!osrm) return null;
  const a = await ours('POST', '/v1/matrix', { profile: 'driving-car', sources: points.map(pt) });
  const b = await theirs(osrmTable(points));
  if (a.status !== 200 || b.status !== 200) return { error: `ours ${errorText(a)}; OSRM ${errorText(b)}` };
  const ratios = [];
  const da = a.json.data.durations,
    db = b.json.durations;
  for (let i = 0; i < points.length; i++)
    for (let j = 0; j < points.length; j++) if (i !== j && da[i][j] > 60 && db[i][j] > 60) ratios.push(da[i][j] / db[i][j]);
  ratios.sort((x, y) => x - y);
  const q = (p) => +ratios[Math.min(ratios.length - 1, Math.floor(p * ratios.length))].toFixed(3);
  return ratios.length ? { cells: ratios.length, ours_over_osrm_duration: { p5: q(0.05), p50: q(0.5), p95: q(0.95) } } : null;
}

// ---- 4. the setup on the server --------------------------------------------------------------------------
const discovery = { probes: 0, errors: 0, error_samples: [] };
const post = (path, body) => ours('POST', path, body, 'keepalive');
const grow = (pool, box, want, maxProbes) =>
  growRoadPool({ post, rand, pool, profile: 'driving-car', box, want, maxProbes, discovery, assertAlive: assertServerAlive, say: log });

/** A square around `c` whose diagonal is `diag` meters: any two points in it are at most that far apart. */
function squareAround(c, diag, bounds) {
  const half = diag / 2 / Math.SQRT2;
  const dLat = half / 111_195,
    dLon = dLat / Math.cos((c.latitude * Math.PI) / 180);
  return {
    south: Math.max(bounds.south, c.latitude - dLat),
    north: Math.min(bounds.north, c.latitude + dLat),
    west: Math.max(bounds.west, c.longitude - dLon),
    east: Math.min(bounds.east, c.longitude + dLon),
  };
}

/**
 * `count` POIs on the map's roads in one category: points along the geometries of routes between random
 * road points (a route's line is road), uploaded as one CSV file to POST /v1/imports (creating them one by
 * one takes minutes on a loaded machine), then given their addresses by the background geocoding.
 */
async function createPois(pool, count) {
  const t = performance.now();
  const points = [];
  const perRoute = 100;
  let routes = 0;
  while (points.length < count && routes < count) {
    const [A, B] = sample(rand, pool, 2);
    routes++;
    const r = await post('/v1/routes', routeBody([A, B]));
    if (r.status !== 200) continue;
    const line = measuredLine(r.json.data.geometry.coordinates);
    if (line.length < 100) continue;
    for (let k = 0; k < perRoute && points.length < count; k++) points.push(along(line, rand() * line.length).point);
  }
  // Ten categories of a tenth each: the detours rank one (the endpoint measures at most 2,000 POIs within
  // reach of a route, and on a small map all 10,000 are); the other workloads see every POI of the team.
  const CATEGORIES = 10;
  const csv = `name,latitude,longitude,category\n${points.map((p, i) => `reach ${i},${p.latitude.toFixed(6)},${p.longitude.toFixed(6)},bench-reach-${i % CATEGORIES}`).join('\n')}\n`;
  log(`importing ${points.length} POIs along ${routes} routes (${(csv.length / 1e6).toFixed(2)} MB of CSV)`);
  const form = new FormData();
  form.append('file', new Blob([csv], { type: 'text/csv' }), 'reach.csv');
  const res = await fetch(`${base}/v1/imports`, { method: 'POST', headers: { 'x-api-key': apiKey }, body: form });
  const accepted = await res.json();
  if (res.status !== 202) throw new Error(`the import answered ${res.status}: ${JSON.stringify(accepted).slice(0, 300)}`);
  let job;
  for (;;) {
    const r = await call(base, apiKey, 'GET', `/v1/imports/${accepted.data.id}`);
    job = r.json?.data;
    if (!job || job.status === 'completed' || job.status === 'failed') break;
    await sleep(100);
  }
  if (job?.status !== 'completed') throw new Error(`the import ended ${job?.status}: ${JSON.stringify(job).slice(0, 300)}`);
  const cats = await call(base, apiKey, 'GET', '/v1/categories?limit=100');
  const categoryId = cats.json?.data?.find((c) => c.name === 'bench-reach-0')?.id;
  if (!categoryId) throw new Error(`no category bench-reach-0 after the import: ${errorText(cats)}`);
  const setup = {
    category_id: categoryId,
    category_pois: Math.ceil(points.length / CATEGORIES),
    requested: count,
    created: job.created,
    routes,
    import_s: secs(performance.now() - t),
  };
  await waitForGeocoding(sql, log);
  setup.ready_s = secs(performance.now() - t);
  log(`  ${setup.created} POIs imported in ${setup.import_s} s (${setup.ready_s} s with geocoding)`);
  return setup;
}

// ---- 5. the workloads -------------------------------------------------------------------------------------
const matrixBody = (points) => ({ profile: 'driving-car', sources: points.map(pt) });
const expect = (ok, what) => {
  if (!ok) throw new Error(what);
};
const matrixCheck = (r, points) => {
  const d = r.json?.data?.durations;
  expect(Array.isArray(d) && d.length === points.length && d.every((row) => row.length === points.length), `no ${points.length} × ${points.length} durations`);
  expect(r.json.data.distances?.length === points.length, 'no distances');
  return nullCells(d);
};
const spread = (sets) => {
  let max = 0,
    sum = 0,
    n = 0;
  for (const s of sets)
    for (let i = 0; i < s.length; i++)
      for (let j = i + 1; j < s.length; j++) {
        const d = meters(s[i], s[j]);
        max = Math.max(max, d);
        sum += d;
        n++;
      }
  return { max_km: km(max), mean_km: km(sum / n) };
};

async function matrixWorkload(name, description, sets) {
  log(`${name}: ${description}`);
  const w = { description, points: sets[0].length, point_sets: sets.length, straight_line: spread(sets) };
  w.ours = await measure(name, sets, (s, mode) => ours('POST', '/v1/matrix', matrixBody(s), mode), matrixCheck);
  w.osrm = await measureOsrm(name, sets, osrmTable);
  w.agreement = await agreement(sets[0]);
  return w;
}

async function run() {
  result.git = { commit: git(['rev-parse', '--short', 'HEAD']), dirty: !!git(['status', '--porcelain', '--untracked-files=no']) };
  stage = 'extract';
  await ensureExtract();
  stage = 'map';
  const built = await ensureMap();
  const manifest = JSON.parse(readFileSync(join(source.mapDir, 'manifest.json'), 'utf8'));
  const bounds = manifestBox(manifest);
  if (!bounds) throw new Error('the manifest has no grid box: cannot tell where to look for road points');
  result.map = {
    dir: source.mapDir,
    osm: source.osm,
    format_version: manifest.formatVersion ?? null,
    car_nodes: manifest.profiles?.['driving-car']?.nodes ?? null,
    profiles: Object.keys(manifest.profiles ?? {}),
    box: bounds,
    ...built,
  };

  stage = 'osrm';
  if (!opt['no-osrm']) {
    result.osrm = await prepareOsrm({
      bin: osrmBin,
      osm: source.osm,
      dir: join(cache, `osrm-${label}`),
      algorithms: ['ch'],
      timeoutMs: BUILD_TIMEOUT_MS,
      say: log,
    });
  }

  stage = 'database';
  const db = await createBenchDatabase({
    adminUrl: ADMIN_URL,
    dbName,
    team: 'bench-reach',
    onCreated: () => {
      dbCreated = true;
    },
  });
  sql = db.sql;
  apiKey = db.key;

  stage = 'serve';
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  log(`starting waymark serve on ${base} (WAYMARK_WORKERS=2, map ${source.mapDir})`);
  const t0 = performance.now();
  server = spawnServer({ port, mapDir: source.mapDir, dbUrl, workers: 2 });
  const ready = await waitForRoutes({ post, rand, bounds, t0, timeoutMs: 600_000, server, assertAlive: assertServerAlive });
  result.serve = { ready_s: secs(ready.ready_ms), rss_at_ready_bytes: rssBytes(server.pid) };
  log(`ready in ${result.serve.ready_s} s`);
  if (!opt['no-osrm']) Object.assign(result.osrm, await startOsrm());

  stage = 'road points';
  const pool = await grow([...ready.anchors], bounds, 400, 8000);
  if (pool.length < 120) throw new Error(`only ${pool.length} road points found in ${discovery.probes} probes`);
  const roadBox = boxOf(pool);
  // Regions for the 30 km matrices: squares of 30 km diagonal around road points, grown to 70 points each.
  const regions = [];
  for (let attempt = 0; attempt < 20 && regions.length < 6; attempt++) {
    const c = pickOne(rand, pool);
    if (regions.some((r) => meters(r.center, c) < 10_000) && attempt < 10) continue;
    const box = squareAround(c, 30_000, bounds);
    const pts = await grow(
      [c, ...pool.filter((p) => p.latitude >= box.south && p.latitude <= box.north && p.longitude >= box.west && p.longitude <= box.east)],
      box,
      70,
      1500,
    );
    if (pts.length >= 56) regions.push({ center: c, points: pts });
  }
  if (!regions.length) throw new Error('no 30 km square with 56 road points');
  result.pool = {
    road_points: pool.length,
    box: roadBox,
    regions_30km: regions.length,
    probes: discovery.probes,
    errors: discovery.errors,
    error_samples: discovery.error_samples,
  };
  log(`${pool.length} road points, ${regions.length} regions of 30 km (${discovery.probes} probes)`);

  stage = 'pois';
  result.pois = await createPois(pool, POIS);

  stage = 'workloads';
  const N = REQUESTS + WARMUP;
  const W = result.workloads;
  const setsOf = (k, from) => Array.from({ length: N }, () => sample(rand, typeof from === 'function' ? from() : from, k));
  W.matrix56_30km = await matrixWorkload(
    'matrix56_30km',
    'POST /v1/matrix, driving-car, 56 sources (all-to-all), points of a 30 km-diagonal square',
    setsOf(56, () => pickOne(rand, regions).points),
  );
  W.matrix56_any = await matrixWorkload('matrix56_any', 'POST /v1/matrix, driving-car, 56 sources (all-to-all) anywhere on the map', setsOf(56, pool));
  W.matrix100_any = await matrixWorkload('matrix100_any', 'POST /v1/matrix, driving-car, 100 sources (all-to-all) anywhere on the map', setsOf(100, pool));

  const spots = Array.from({ length: N }, () => pickOne(rand, pool));
  log('isochrone_car_30min');
  W.isochrone_car_30min = {
    description: 'POST /v1/isochrones, driving-car, one location, range [1800]',
    ours: await measure(
      'isochrone_car_30min',
      spots,
      (p, mode) => ours('POST', '/v1/isochrones', { profile: 'driving-car', locations: [pt(p)], range: [1800] }, mode),
      (r) => {
        const f = r.json?.data?.features?.[0];
        expect(r.json?.data?.type === 'FeatureCollection' && f?.geometry?.coordinates, 'no FeatureCollection with a polygon');
        return { area_km2: +(f.properties.area / 1e6).toFixed(1), geojson_bytes: JSON.stringify(f.geometry).length };
      },
    ),
  };

  log('pois_by_time');
  W.pois_by_time = {
    description: 'GET /v1/pois?latitude&longitude&profile=driving-car&max_travel_time=900, first page',
    ours: await measure(
      'pois_by_time',
      spots,
      (p, mode) => ours('GET', `/v1/pois?latitude=${p.latitude}&longitude=${p.longitude}&profile=driving-car&max_travel_time=900`, undefined, mode),
      (r) => {
        const list = r.json?.data;
        expect(Array.isArray(list), 'no list');
        expect(
          list.every((p) => typeof p.travel_time === 'number' && p.travel_time <= 900),
          'POIs without travel_time ≤ 900 (max_travel_time not applied)',
        );
        return { pois: list.length, max_travel_time: list.length ? list[list.length - 1].travel_time : null };
      },
    ),
  };

  // Detours: pairs of road points ~100 km apart (80–120 km), else the farthest pairs the map has.
  const pairs = [];
  for (let i = 0; i < pool.length; i++) for (let j = i + 1; j < pool.length; j++) pairs.push([pool[i], pool[j], meters(pool[i], pool[j])]);
  let far = pairs.filter((p) => p[2] >= 80_000 && p[2] <= 120_000);
  if (far.length < 10) far = pairs.sort((a, b) => b[2] - a[2]).slice(0, 20);
  const legs = Array.from({ length: N }, () => pickOne(rand, far));
  const detourBody = ([A, B]) => ({
    profile: 'driving-car',
    waypoints: [pt(A), pt(B)],
    pois: { category_id: result.pois.category_id },
    max_detour: 900,
    limit: 10,
  });
  log(`detours: ${far.length} pairs, ${km(Math.min(...legs.map((l) => l[2])))}–${km(Math.max(...legs.map((l) => l[2])))} km apart`);
  W.detours = {
    description: `POST /v1/routes/detours, driving-car, 2 waypoints ${km(Math.min(...legs.map((l) => l[2])))}–${km(Math.max(...legs.map((l) => l[2])))} km apart (straight line), pois: one category of ${result.pois.category_pois} POIs (of the team's ${result.pois.created}), max_detour 900, limit 10`,
    ours: await measure(
      'detours',
      legs,
      (l, mode) => ours('POST', '/v1/routes/detours', detourBody(l), mode),
      (r) => {
        const d = r.json?.data;
        expect(d?.route && Array.isArray(d.pois), 'no route and pois');
        return { route_km: km(d.route.distance), pois: d.pois.length, best_detour_s: d.pois[0]?.detour_duration ?? null };
      },
    ),
  };

  // The same with every POI of the team selected: on a map smaller than the detour's reach that is more
  // than the endpoint measures (MAX_DETOUR_CANDIDATES); what it answers is kept.
  const all = await post('/v1/routes/detours', { ...detourBody(legs[0]), pois: {} });
  W.detours.all_team_pois_probe = {
    status: all.status,
    ms: +all.ms.toFixed(1),
    answer: all.status === 200 ? `${all.json.data.pois.length} POIs` : errorText(all),
  };
  log(`  detours with all ${result.pois.created} POIs selected: ${W.detours.all_team_pois_probe.answer} in ${W.detours.all_team_pois_probe.ms} ms`);

  stage = 'memory';
  assertServerAlive();
  result.serve.rss_end_bytes = rssBytes(server.pid);
  if (osrm) result.osrm.rss_end_bytes = rssBytes(osrm.pid);
  result.status = 'ok';
}

// ---- 6. the table -----------------------------------------------------------------------------------------
const cell = (m) => (m?.ms?.n ? `${m.ms.p50} / ${m.ms.p95}` : m ? `✗ ${m.errors} err` : '—');
function verdict(name, w) {
  const t = TARGETS[name];
  const p95s = MODES.map((mode) => w.ours?.[mode]?.ms?.p95);
  const bad = MODES.some((mode) => w.ours?.[mode]?.errors);
  if (p95s.some((x) => x == null) || bad) return { target_p95_ms: t, met: false, why: 'errors or no answers' };
  return { target_p95_ms: t, met: p95s.every((x) => x <= t), p95_keepalive: p95s[0], p95_new_connection: p95s[1] };
}

function table() {
  const rows = [
    [
      'workload',
      'ours keep-alive p50 / p95',
      'ours new conn p50 / p95',
      'OSRM keep-alive p50 / p95',
      'OSRM new conn p50 / p95',
      'OSRM own log p50',
      'target p95',
      'met',
    ],
  ];
  for (const [name, w] of Object.entries(result.workloads)) {
    const v = result.met?.[name];
    rows.push([
      name,
      cell(w.ours?.keepalive),
      cell(w.ours?.new_connection),
      w.osrm ? cell(w.osrm.keepalive) : '—',
      w.osrm ? cell(w.osrm.new_connection) : '—',
      w.osrm?.new_connection?.osrm_logged_ms ? String(w.osrm.new_connection.osrm_logged_ms.p50) : '—',
      `≤ ${TARGETS[name]} ms`,
      v ? (v.met ? '✓' : '✗') : '?',
    ]);
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows
    .map((r, k) => `${r.map((c, i) => c.padEnd(widths[i])).join(' │ ')}${k === 0 ? `\n${widths.map((w) => '─'.repeat(w)).join('─┼─')}` : ''}`)
    .join('\n');
}

async function cleanup() {
  await stopActiveChildren();
  closeConnections();
  await stopChild(server).catch(() => {});
  await stopChild(osrm).catch(() => {});
  if (sql) await sql.end({ timeout: 5 }).catch(() => {});
  if (dbCreated) await dropBenchDatabase(ADMIN_URL, dbName, log);
}

let interrupted = false;
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.once(sig, () => {
    interrupted = true;
    log(`${sig}: cleaning up`);
    cleanup().finally(() => process.exit(130));
  });
}

const started = performance.now();
try {
  await run();
} catch (err) {
  result.status = 'failed';
  result.failed_stage = stage;
  result.error = err?.message ?? String(err);
  log(`FAILED at ${stage}: ${result.error}`);
}
if (!interrupted) {
  await cleanup();
  result.finished_at = new Date().toISOString();
  result.duration_s = secs(performance.now() - started);
  result.machine.loadavg_end = loadavg().map((x) => +x.toFixed(2));
  result.met = Object.fromEntries(Object.entries(result.workloads).map(([name, w]) => [name, verdict(name, w)]));
  mkdirSync(resultsDir, { recursive: true });
  const file = join(resultsDir, `reach-${label}.json`);
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  log(`wrote ${file}`);
  console.log(`reach on ${label} (p50 / p95 ms, time to the last byte; one request at a time)\n${table()}`);
  process.exit(result.status === 'ok' ? 0 : 1);
}
