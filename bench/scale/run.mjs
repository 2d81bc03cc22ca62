// Scale bench: how the map build and the routing service behave as the country grows, on more than one
// country. Generates (or reuses) a synthetic country, builds its map through the CLI, serves it with 2
// workers and drives its routing workloads over HTTP ((a) far routes, (b) 500 avoided POIs, (c) optimize,
// (d) 10 waypoints, (e) each profile, (f) (a)'s pairs with steps and encoded lines, (g) with route options:
// alternatives, exclude, curb, bearing — each beside (a)), one request at a time, each over a kept-alive
// connection and over a new connection per request (timed from send to the last byte of the answer). The
// first request of each workload is also sent to a server that has just said ready (GET /ready 200) and
// reported alone: the workload's typical item (at the median of its timed run), so that it is compared with
// the median as what being first costs. With --peer osrm, OSRM 6.0.0 (CH and MLD, car) answers the same far routes and 10-waypoint
// routes through the same client. Writes bench/results/scale-<label>.json, then prints the tables across
// every scale-*.json with the issue's targets marked per country and connection mode.
//
//   npm run bench:scale -- --tiles 32x32 [--seed 1] [--origin 45.0,5.0] [--peer osrm] [--cache /tmp/waymark-scale] [--keep]
//   npm run bench:scale -- --countries all [--peer osrm]      (the three countries of COUNTRIES, one after another)
//   npm run bench:scale -- --countries 4x4,6x6-s5-o40.0_-4.0  (any countries named as their labels: RxC[-sSEED][-oLAT_LON])
//   npm run bench:scale -- --osm FILE.osm.pbf [--label NAME] [--peer osrm] [--keep]
//   npm run bench:scale -- --table            (only print the tables of the recorded results)
//
// Options: --osrm-from FILE (without --peer) takes OSRM's figures from an earlier result file of the same map
// where it asked the same routes, marked with that run; --map DIR serves an existing map instead of building one (its build figures are those of the
// recorded run that built DIR, marked with that run; --peer osrm then needs --osm, the extract it was built
// from); --avoid-radius M (default 50, the spec's); --ready-timeout S (default 300); --build-timeout S
// (generation, build and OSRM's preprocessing, each; default 7200); --rand-seed N (default 1); --first-starts N (fresh starts per workload for its first request, the median reported; default 3); --osrm DIR
// the OSRM build folder (default /tmp/osrm-bin/build, from `bash ../shared/peers/osrm/build.sh
// /tmp/osrm-bin`). OSRM's data (osrm-extract with its car.lua, then osrm-contract for CH and osrm-partition
// + osrm-customize for MLD, niced) is cached in <cache>/osrm-<X> beside the map <cache>/map-<X>, and a
// --map run on that map reuses it whatever its --label. Needs `npm run build`, osmium-tool (for --tiles)
// and PostgreSQL on 127.0.0.1:5432 (WAYMARK_BENCH_ADMIN_URL overrides).
//
// Serving again on kept maps (--keep), without rebuilding ours or OSRM's data:
//   npm run bench:scale -- --map /tmp/waymark-scale/map-32x32 --osm /tmp/waymark-scale/c32x32.osm.pbf --label 32x32 --peer osrm
//
// Every point is found by asking the server (a random point it snaps is a road point), never by reading
// the map files: the map format changes, the HTTP contract does not.
//
// OSRM's small replies on a kept-alive connection wait for the client's delayed ACK (~40 ms,
// ../shared/peers/osrm/README.md): its kept-alive column is slower than OSRM is, and the new-connection
// column is the fair comparison; OSRM's own logged time per request is kept beside both.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { transparentHugePages } from '../../dist/lib/host.js';
import {
  ADMIN_URL,
  benchDatabaseUrl,
  along,
  boxDiagonal,
  boxOf,
  call,
  classify,
  closeConnections,
  createBenchDatabase,
  dropBenchDatabase,
  destination,
  distanceToLine,
  errorText,
  firstAfterReady,
  firstRatio,
  freePort,
  growRoadPool,
  hwmBytes,
  inBox,
  lastPoint,
  log,
  MODES,
  manifestBox,
  measuredLine,
  meters,
  noteError,
  pickOne,
  prepareOsrm,
  rng,
  routeBody,
  rssBytes,
  rssSampler,
  runChild,
  sample,
  spawnServer,
  startOsrmRouted,
  stats,
  stopActiveChildren,
  stopChild,
  synthCountry,
  timeInModes,
  treeRssBytes,
  waitForGeocoding as waitForGeocodingOf,
  waitForReady,
  waitForRoutes,
} from './lib.mjs';
import { checkTargets, formatTable, readResults } from './table.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const resultsDir = join(root, 'bench/results');
const PROFILES = ['driving-car', 'driving-hgv', 'cycling-regular', 'foot-walking'];

/**
 * The countries `--countries all` runs: the two the bench has measured since the country-scale work (square,
 * and taller than wide at another seed and origin) and one wider than tall, at a third seed and origin, so
 * that a target met is met on a class of maps and not on one the code was tuned on.
 */
const COUNTRIES = ['32x32', '28x36-s3-o50.0_10.0', '24x42-s11-o40.0_-4.0'];

const { values: opt } = parseArgs({
  options: {
    tiles: { type: 'string' },
    osm: { type: 'string' },
    seed: { type: 'string', default: '1' },
    origin: { type: 'string' },
    countries: { type: 'string' },
    peer: { type: 'string' },
    osrm: { type: 'string', default: '/tmp/osrm-bin/build' },
    'osrm-from': { type: 'string' },
    cache: { type: 'string', default: '/tmp/waymark-scale' },
    label: { type: 'string' },
    map: { type: 'string' },
    keep: { type: 'boolean', default: false },
    'avoid-radius': { type: 'string', default: '50' },
    'ready-timeout': { type: 'string', default: '300' },
    'build-timeout': { type: 'string', default: '7200' },
    'rand-seed': { type: 'string', default: '1' },
    'first-starts': { type: 'string', default: '3' },
    table: { type: 'boolean', default: false },
  },
});

const usage = () => {
  console.error(
    'usage: npm run bench:scale -- --tiles RxC [--seed N] [--origin LAT,LON] | --countries all|RxC[-sN][-oLAT_LON],… | --osm FILE.osm.pbf [--label NAME]  [--peer osrm] [--cache DIR] [--keep] [--map DIR]\n       npm run bench:scale -- --table',
  );
  process.exit(2);
};
if (opt.table) {
  console.log(formatTable(readResults(resultsDir)));
  process.exit(0);
}
if (opt.peer && opt.peer !== 'osrm') {
  console.error(`--peer: only osrm is known, not '${opt.peer}'`);
  process.exit(2);
}

/** A country named as its label: RxC, then -sSEED and -oLAT_LON when not the defaults (synthCountry's variant). */
function countryOf(name) {
  const m = /^(\d+x\d+)(?:-s(\d+))?(?:-o(-?\d+(?:\.\d+)?)_(-?\d+(?:\.\d+)?))?$/.exec(name);
  if (!m) {
    console.error(`--countries: '${name}' is not all nor RxC[-sSEED][-oLAT_LON] (e.g. 28x36-s3-o50.0_10.0)`);
    process.exit(2);
  }
  return { tiles: m[1], seed: m[2] ?? '1', origin: m[3] == null ? null : `${m[3]},${m[4]}` };
}

// Several countries: this script once per country, one after another (each builds, serves and frees its
// map before the next), then the tables of every recorded result.
if (opt.countries) {
  if (opt.tiles || opt.osm || opt.map || opt.label) usage();
  const names = opt.countries === 'all' ? COUNTRIES : opt.countries.split(',');
  const countries = names.map(countryOf);
  const passOn = ['peer', 'osrm', 'cache', 'avoid-radius', 'ready-timeout', 'build-timeout', 'rand-seed', 'first-starts'].flatMap((k) =>
    opt[k] === undefined ? [] : [`--${k}`, opt[k]],
  );
  if (opt.keep) passOn.push('--keep');
  const failed = [];
  for (const c of countries) {
    const args = [fileURLToPath(import.meta.url), '--tiles', c.tiles, '--seed', c.seed, ...(c.origin ? ['--origin', c.origin] : []), ...passOn];
    log(`country ${c.tiles} seed ${c.seed}${c.origin ? ` origin ${c.origin}` : ''}: node ${args.join(' ')}`);
    const code = await new Promise((res) => spawn(process.execPath, args, { stdio: ['ignore', 2, 2] }).on('exit', (x, sig) => res(x ?? sig)));
    if (code !== 0) failed.push(`${c.tiles} seed ${c.seed} (exit ${code})`);
  }
  console.log(formatTable(readResults(resultsDir)));
  if (failed.length) log(`failed: ${failed.join(', ')}`);
  process.exit(failed.length ? 1 : 0);
}

if (!opt.tiles === !opt.osm && !opt.map) usage();
if (opt.tiles && !/^\d+x\d+$/.test(opt.tiles)) {
  console.error(`--tiles must look like 32x32, not '${opt.tiles}'`);
  process.exit(2);
}
const AVOID_RADIUS = Number(opt['avoid-radius']);
const FIRST_STARTS = Number(opt['first-starts']);
const READY_TIMEOUT_MS = Number(opt['ready-timeout']) * 1000;
const CHILD_TIMEOUT_MS = Number(opt['build-timeout']) * 1000;
const rand = rng(Number(opt['rand-seed']));
const cache = resolve(opt.cache);
mkdirSync(cache, { recursive: true });

// A seed or origin other than the default is another country: it gets its own cache file and row.
const { variant } = synthCountry({ tiles: opt.tiles, seed: opt.seed, origin: opt.origin, cache });
const label = opt.label ?? (opt.tiles ? `${opt.tiles}${variant}` : basename(opt.osm ?? opt.map).replace(/\.osm\.pbf$/, ''));
// One database per country: runs of two countries at once (on a host with the room) leave each other's alone.
const dbName = `waymark_bench_scale_${label.toLowerCase().replace(/[^a-z0-9]+/g, '_')}`.slice(0, 63);
const dbUrl = benchDatabaseUrl(dbName);

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const secs = (ms) => +(ms / 1000).toFixed(2);
const gitOut = (args) => {
  try {
    return execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim();
  } catch {
    return null;
  }
};

const result = {
  label,
  tiles: opt.tiles ?? null,
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
    // The kernel's transparent huge pages mode: with `madvise` (Debian's default) the map's memory is
    // faulted in 4 KiB pages, which sets most of a load's time on a virtual machine (docs/operations.md).
    transparent_hugepages: transparentHugePages(),
    note: 'cores shared with other work: timings are noisy',
  },
  // Results written by runs before this one (another country's) are not the code.
  git: { commit: gitOut(['rev-parse', '--short', 'HEAD']), dirty: !!gitOut(['status', '--porcelain', '--untracked-files=no', '--', '.', ':!bench/results']) },
  method: {
    client: 'node:http (bench/scale/lib.mjs call), one request at a time; time from send to the last byte of the answer',
    modes: {
      keepalive: 'one kept-alive connection',
      new_connection: 'a new TCP connection per request (connect included), closed after',
    },
    warmup: 'none: every timed request counts, after the setup requests (road points, POIs) of the same server',
    first:
      'each workload (and each profile of e) on a server started anew (--first-starts times, the median start reported, every start in first.starts): its first request once GET /ready answers 200, on a new connection, then the same again on that kept-alive connection; the item asked is the typical one (typical_item: at the median of the timed run over new connections); ratio = first / the workload’s new-connection median; ratio_to_after_idle = first / the median of the same item sent three times on the warm server, each on a new connection after 500 ms without a request (after_idle)',
    waymark_workers: 2,
    osrm:
      opt.peer === 'osrm' ? 'osrm-routed 6.0.0 --algorithm ch and mld, car.lua of the OSRM build, /route/v1/driving?overview=full&geometries=geojson' : null,
  },
  osm: null,
  build: null,
  map: null,
  serve: null,
  discovery: null,
  workloads: {},
  osrm: null,
  errors_total: null,
  met: null,
};

let stage = 'setup';
let server = null; // { child, pid, exit, stderrTail }
let osrm = null; // the osrm-routed running now (startOsrmRouted)
let sql = null;
let builtMapDir = null;
let dbCreated = false;
// ---- 1. the extract -----------------------------------------------------------------------------------------
async function extract() {
  if (opt.osm) return resolve(opt.osm);
  const { out, partial, args, scratch } = synthCountry({ tiles: opt.tiles, seed: opt.seed, origin: opt.origin, cache });
  if (existsSync(out)) {
    log(`reusing ${out}`);
    return out;
  }
  log(`generating the ${opt.tiles} country: node ${args.join(' ')}`);
  const t = performance.now();
  const code = await runChild(process.execPath, args, `generating the ${opt.tiles} country`, CHILD_TIMEOUT_MS, log).done;
  if (code !== 0) throw new Error(`synth-country exited ${code}`);
  renameSync(partial, out);
  rmSync(scratch, { force: true });
  log(`generated ${out} in ${secs(performance.now() - t)} s`);
  return out;
}

// ---- 2. the map build -------------------------------------------------------------------------------------
function duBytes(path) {
  return Number(execFileSync('du', ['-sb', path], { encoding: 'utf8' }).split('\t')[0]);
}

async function buildMap(osmFile, outDir) {
  rmSync(outDir, { recursive: true, force: true });
  const timeFile = join(cache, `.time-${label}.txt`);
  rmSync(timeFile, { force: true });
  log(`building the map: node bin/waymark.js map build --osm ${osmFile} --out ${outDir}`);
  const t = performance.now();
  // GNU time reports the largest single process; the sampler adds up processes that run side by side.
  const { child, done } = runChild(
    '/usr/bin/time',
    ['-o', timeFile, '-f', '%e %M', process.execPath, join(root, 'bin/waymark.js'), 'map', 'build', '--osm', osmFile, '--out', outDir],
    'building the map',
    CHILD_TIMEOUT_MS,
    log,
  );
  builtMapDir = outDir;
  const sampler = rssSampler(child.pid, { excludeRoot: true });
  const code = await done;
  const wallMs = performance.now() - t;
  const treePeak = sampler.stop();
  const [elapsed, maxKb] = existsSync(timeFile) ? readFileSync(timeFile, 'utf8').trim().split('\n').pop().split(' ').map(Number) : [null, null];
  rmSync(timeFile, { force: true });
  result.build = {
    exit_code: code,
    wall_s: secs(wallMs),
    time_elapsed_s: elapsed,
    peak_rss_bytes: Math.max(treePeak, (maxKb ?? 0) * 1024),
    peak_rss_largest_process_bytes: maxKb == null ? null : maxKb * 1024,
    peak_rss_tree_sampled_bytes: treePeak,
  };
  if (code !== 0) throw new Error(`map build exited ${code}`);
  log(`map built in ${result.build.wall_s} s, peak RSS ${(result.build.peak_rss_bytes / 1e9).toFixed(2)} GB`);
}

function mapFigures(dir) {
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
  const total = duBytes(dir);
  const profiles = {};
  let inProfiles = 0;
  for (const [name, meta] of Object.entries(manifest.profiles ?? {})) {
    const sub = join(dir, name);
    const bytes = existsSync(sub) ? duBytes(sub) : 0;
    inProfiles += bytes;
    profiles[name] = { nodes: meta.nodes ?? null, edges: meta.edges ?? null, bytes, bytes_per_node: meta.nodes ? +(bytes / meta.nodes).toFixed(1) : null };
  }
  // Whatever lies outside the profile folders (manifest, geocoder, any shared arrays) serves every profile.
  const shared = total - inProfiles;
  const carNodes = profiles['driving-car']?.nodes;
  const box = manifestBox(manifest);
  return {
    dir,
    bytes: total,
    format_version: manifest.formatVersion ?? null,
    profiles,
    shared_bytes: shared,
    shared_bytes_per_car_node: carNodes ? +(shared / carNodes).toFixed(1) : null,
    box,
    diagonal_m: box ? Math.round(boxDiagonal(box)) : null,
  };
}

/** The label a map was built under (<cache>/map-<label>): its OSRM data is <cache>/osrm-<label>, whatever this run is labelled. */
const mapLabel = (dir) => basename(dir).replace(/^map-/, '');

/**
 * The build (and OSRM preprocessing) figures of the recorded run that built `dir`, for a run that only serves
 * it (--map): the table then keeps the country's build figures, marked with the run they come from.
 */
function builtBefore(dir) {
  const r = readResults(resultsDir)
    .filter((x) => x.map?.dir === dir && x.build?.wall_s != null)
    .sort((x, y) => String(y.started_at).localeCompare(String(x.started_at)))[0];
  if (!r) return null;
  const run = `${r.label} @ ${r.git?.commit ?? '?'} ${r.started_at?.slice(0, 16) ?? ''}`;
  const osrmSeconds = Object.keys(r.osrm?.seconds ?? {}).length ? { ...r.osrm.seconds, run } : r.osrm?.seconds_of_run;
  return { build: { run, ...r.build }, osrm: r.osrm ? { dir: r.osrm.dir, seconds: osrmSeconds } : null };
}

// ---- 3. database and server -------------------------------------------------------------------------------
async function prepareDatabase() {
  // Enterprise: no rate limit or POI limit gets in the way of ~3,000 POIs and ~1,000 routes.
  const db = await createBenchDatabase({
    adminUrl: ADMIN_URL,
    dbName,
    team: 'bench-scale',
    onCreated: () => {
      dbCreated = true;
    },
  });
  sql = db.sql;
  return db.key;
}

function assertServerAlive() {
  if (server?.exit) {
    throw new Error(
      `the server exited (code ${server.exit.code}, signal ${server.exit.signal}); its stderr ends with:\n${server.stderrTail.trim() || '(nothing)'}`,
    );
  }
  if (osrm?.exit) throw new Error(`osrm-routed exited (${JSON.stringify(osrm.exit)}); its output ends with:\n${osrm.tail.trim()}`);
}

let base = '';
let apiKey = '';

/** `waymark serve` on the map; resolves once GET /ready answers 200, with the milliseconds that took. */
async function startServer(mapDir) {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  const t0 = performance.now();
  server = spawnServer({ port, mapDir, dbUrl });
  return { t0, readyMs: () => waitForReady({ base, t0, timeoutMs: READY_TIMEOUT_MS, server, assertAlive: assertServerAlive }) };
}

async function stopServer() {
  await stopChild(server);
  // A stopped server is forgotten (its exit is no failure); one that would not stop is left to cleanup.
  if (server?.exit) server = null;
  else if (server) log('the server did not exit after SIGTERM and SIGKILL');
  closeConnections();
}

// ---- HTTP helpers -----------------------------------------------------------------------------------------
const send = (method, path, body, mode = 'keepalive') => call(base, apiKey, method, path, body, { newConnection: mode === 'new_connection' });
const post = (path, body) => send('POST', path, body);
/** Answers that are not the engine's verdict while points are being looked for (5xx, timeouts). */
const discovery = { probes: 0, errors: 0, error_samples: [] };
const discoveryError = (r) => noteError(discovery, r);

/** Road points for `profile` in `box` (lib.mjs growRoadPool), asked of this run's server. */
const growPool = (pool, profile, box, want, maxProbes) =>
  growRoadPool({ post, rand, pool, profile, box, want, maxProbes, discovery, assertAlive: assertServerAlive });

// ---- 5. the workloads -------------------------------------------------------------------------------------
/**
 * What an answer of ours means: 200, and the 422s not connected (and blocked, where the workload allows it)
 * are the engine's verdicts and are timed; anything else is an error.
 */
const judgeOurs =
  (allowBlocked = false) =>
  (r) => {
    const c = classify(r);
    if (c.kind === 'ok' || c.kind === 'not_connected' || (c.kind === 'blocked' && allowBlocked)) return { kind: c.kind };
    return { kind: 'error', why: errorText(r) };
  };

const km = (m) => +(m / 1000).toFixed(1);
const summaryKm = (ds) => ({ min_km: km(Math.min(...ds)), mean_km: km(ds.reduce((a, b) => a + b, 0) / ds.length), max_km: km(Math.max(...ds)) });
/** OSRM's route between the same waypoints with the whole line as GeoJSON: what ours answers. */
const osrmRoute = (w) => `/route/v1/driving/${w.map((p) => `${p.longitude},${p.latitude}`).join(';')}?overview=full&geometries=geojson`;

/**
 * Every workload is set up on the setup server and comes back as what to send: { name, items,
 * send(item, mode), judge, info (kept in the results), osrmPath?(item) (the same question to OSRM),
 * keep?(answers) (figures from the timed answers, read after the clock) }. It is then timed in both
 * connection modes, and its first item is sent again to a server just started.
 */

/** (a) 2 waypoints ≥ 60 % of the map's diagonal apart (great circle). */
function workloadA(pool, diagonal) {
  const minD = 0.6 * diagonal;
  const far = [];
  for (let i = 0; i < pool.length; i++) for (let j = i + 1; j < pool.length; j++) if (meters(pool[i], pool[j]) >= minD) far.push([i, j]);
  if (!far.length) throw new Error(`no two of the ${pool.length} road points are ≥ ${km(minD)} km apart (60 % of the ${km(diagonal)} km diagonal)`);
  const draw = () => {
    const [i, j] = pickOne(rand, far);
    return rand() < 0.5 ? [pool[i], pool[j]] : [pool[j], pool[i]];
  };
  const items = Array.from({ length: 200 }, draw);
  log(`(a) 200 plain car routes between road points ≥ ${km(minD)} km apart (${far.length} such pairs in the pool)`);
  return {
    name: '(a)',
    items,
    send: (w, mode) => send('POST', '/v1/routes', routeBody(w), mode),
    judge: judgeOurs(),
    osrmPath: osrmRoute,
    keep: routeLengths,
    info: {
      description: '2 waypoints, driving-car, great-circle ≥ 60 % of the map diagonal',
      distinct_pairs_available: far.length,
      ...summaryKm(items.map(([p, q]) => meters(p, q))),
    },
  };
}

/**
 * (f) (a)'s routes with turn-by-turn steps (`steps: true`) and with the line as `polyline6`: what steps
 * cost beside the plain route (issue 31: p95 ≤ 1.3 ×), and how much smaller the encoded answer is
 * (≤ 0.35 × the GeoJSON body). One workload per variant, the same pairs as (a).
 */
function workloadF(farItems) {
  if (!farItems) return { skipped: '(a) was not set up' };
  const variant = (name, extra, description) => ({
    name,
    items: farItems,
    send: (w, mode) => send('POST', '/v1/routes', { ...routeBody(w), ...extra }, mode),
    judge: judgeOurs(),
    keep: bodyBytes,
    info: { description },
  });
  return {
    steps: variant('(f) steps', { steps: true }, "(a)'s pairs with steps: true (GeoJSON lines)"),
    polyline6: variant('(f) polyline6', { geometry_format: 'polyline6' }, "(a)'s pairs with geometry_format: polyline6, no steps"),
    geojson: variant('(f) geojson', {}, "(a)'s pairs as (a) asks them, for the body sizes beside polyline6"),
  };
}

/** (g) (a)'s pairs with issue 36's route options, each beside (a)'s plain route: 3 alternatives (target p95
 *  ≤ 3 × plain), motorways excluded, arrival at the curb, a bearing at the start. */
function workloadG(farItems) {
  if (!farItems) return { skipped: '(a) was not set up' };
  const variant = (name, make, description) => ({
    name,
    items: farItems,
    send: (w, mode) => send('POST', '/v1/routes', make(w), mode),
    judge: judgeOurs(),
    keep: (answers) => ({ ...bodyBytes(answers), ...(name === '(g) alternatives' ? alternativesFound(answers) : {}) }),
    info: { description },
  });
  const at = (p, extra) => ({ ...p, ...extra });
  return {
    alternatives: variant('(g) alternatives', (w) => ({ ...routeBody(w), alternatives: 3 }), "(a)'s pairs with alternatives: 3"),
    exclude: variant('(g) exclude', (w) => ({ ...routeBody(w), exclude: ['motorway'] }), "(a)'s pairs with exclude: ['motorway']"),
    curb: variant('(g) curb', (w) => routeBody([w[0], at(w[1], { approach: 'curb' })]), "(a)'s pairs arriving at the curb (approach: curb at the destination)"),
    bearing: variant(
      '(g) bearing',
      (w) => routeBody([at(w[0], { bearing: { value: 90, range: 90 } }), w[1]]),
      "(a)'s pairs leaving eastwards (bearing 90 ± 90 at the start)",
    ),
  };
}

/** How many alternatives the answers carried, per route answered. */
function alternativesFound(answers) {
  const ok = answers.filter((a) => a.kind === 'ok');
  const n = ok.reduce((sum, a) => sum + (a.r.json?.data?.alternatives?.length ?? 0), 0);
  return { alternatives_per_route: ok.length ? +(n / ok.length).toFixed(2) : null };
}

/** Each (g) variant's p95 over (a)'s, per connection mode. */
function optionRatios(a, variants) {
  return Object.fromEntries(Object.entries(variants).map(([name, v]) => [name, p95Ratio(v, a)]));
}

/** `x`'s p95 over `base`'s, per connection mode (null where either has none). */
function p95Ratio(x, base) {
  return Object.fromEntries(
    MODES.map((mode) => {
      const a = x?.[mode]?.ms?.p95,
        b = base?.[mode]?.ms?.p95;
      return [mode, a != null && b ? +(a / b).toFixed(2) : null];
    }),
  );
}

/** The median answer body (bytes) of the kept-alive answers. */
function bodyBytes(answers) {
  const sizes = answers
    .filter((a) => a.mode === 'keepalive' && a.kind === 'ok')
    .map((a) => a.r.bytes)
    .sort((x, y) => x - y);
  return { median_body_bytes: sizes.length ? sizes[Math.floor(sizes.length / 2)] : null };
}

/** Route lengths (km) of the first kept-alive answers: the same pairs asked of OSRM should come out alike. */
function routeLengths(answers) {
  const first = answers.filter((a) => a.mode === 'keepalive' && a.kind === 'ok').slice(0, 5);
  return { first_route_km: first.map((a) => km(a.r.json.data?.distance ?? a.r.json.routes?.[0]?.distance)) };
}

/** Rule 1 of POST /v1/routes: the waypoints' box grown by 10 % of its diagonal, 1–10 km (avoid-area.ts). */
function selectionBox(points, shrinkM) {
  const b = boxOf(points);
  const margin = Math.min(10_000, Math.max(1_000, boxDiagonal(b) / 10)) - shrinkM;
  const dLat = margin / 111_195;
  const dLon = dLat / Math.cos(((Math.max(Math.abs(b.south), Math.abs(b.north)) + dLat) * Math.PI) / 180);
  return { south: b.south - dLat, north: b.north + dLat, west: b.west - dLon, east: b.east + dLon };
}

/**
 * (b) 100–145 km routes with 500 avoided POIs along each. 500 slots spread along the plain route (away
 * from its ends, inside the selection box); at each a POI 30–80 m sideways. Most are placed clear of the
 * route (≥ radius + 5 m from every point of it: they close side roads, crossings, the other carriageway);
 * one slot in 20 is a blocker, 30 m to radius − 10 m off the road, whose circle closes the route itself.
 * A blocker is kept only when, together with everything kept so far, a route still exists (asked with
 * avoid.poi_ids before the timed run), else it is moved clear: so a detour exists and the timed requests
 * take the engine's blocked search rather than its plain-route shortcut. One category per route, so that
 * no route picks up another's POIs.
 */
async function workloadB(pool, POIS = 500, ROUTES = 5, REQUESTS = 100) {
  const R = AVOID_RADIUS;
  const BLOCK_EVERY = 20;
  const pairs = [];
  for (let i = 0; i < pool.length; i++)
    for (let j = i + 1; j < pool.length; j++) {
      const d = meters(pool[i], pool[j]);
      if (d >= 100_000 && d <= 145_000) pairs.push([pool[i], pool[j]]);
    }
  if (!pairs.length) return { skipped: 'no two road points 100–145 km apart: the map is too small' };
  const clearOffset = [Math.max(30, R + 5), Math.max(80, R + 30)];
  const blockOffset = [Math.min(30, R / 2), Math.max(Math.min(30, R / 2), R - 10)];
  /** A position for a slot: scan the fine points from `from` for one whose sideways POI is of the kind. */
  const place = (eligible, line, from, to, kind) => {
    for (let i = from; i < Math.min(to, eligible.length); i++) {
      const { point, heading } = eligible[i];
      for (let attempt = 0; attempt < 3; attempt++) {
        const [lo, hi] = kind === 'clear' ? clearOffset : blockOffset;
        const p = destination(point, heading + ((rand() < 0.5 ? -1 : 1) * Math.PI) / 2, lo + rand() * (hi - lo));
        const d = distanceToLine(p, line);
        if (kind === 'clear' ? d >= R + 5 : d <= R - 5) return p;
      }
    }
    return null;
  };

  const routes = [];
  let tries = 0;
  for (const [A, B] of sample(rand, pairs, pairs.length)) {
    if (routes.length >= ROUTES || tries >= 40) break;
    // Routes sharing an end would avoid near-identical corridors: keep them apart.
    if (routes.some((r) => meters(r.A, A) < 5000 || meters(r.B, B) < 5000)) continue;
    tries++;
    const plain = await post('/v1/routes', routeBody([A, B]));
    assertServerAlive();
    const c = classify(plain);
    if (c.kind === 'error') discoveryError(plain);
    if (c.kind !== 'ok') continue;
    const line = measuredLine(plain.json.data.geometry.coordinates);
    const box = selectionBox([A, B], 300);
    const endGap = R + 1500; // POIs near a waypoint are skipped, not avoided
    const eligible = [];
    for (let s = endGap; s <= line.length - endGap; s += 20) {
      const p = along(line, s);
      if (inBox(p.point, box)) eligible.push(p);
    }
    if (eligible.length < POIS) continue;
    const slots = [];
    for (let k = 0; k < POIS; k++) {
      const from = Math.floor((k * eligible.length) / POIS),
        to = Math.floor(((k + 1) * eligible.length) / POIS);
      const kind = k % BLOCK_EVERY === BLOCK_EVERY / 2 ? 'block' : 'clear';
      const at = place(eligible, line, from, to, kind);
      if (at) slots.push({ kind, at, from, to });
    }
    if (slots.length < POIS) continue;
    routes.push({ A, B, line, eligible, straight_km: km(meters(A, B)), plain_km: km(plain.json.data.distance), slots });
  }
  if (!routes.length) return { skipped: 'no 100–145 km pair had a plain route with room for the POIs' };

  log(`(b) creating ${routes.length} × ${POIS} POIs along ${routes.map((r) => `${r.plain_km} km`).join(', ')} routes`);
  const setup = { poi_creates: 0, poi_moves: 0, blocker_checks: 0, errors: 0, error_samples: [] };
  const setupError = (x) => {
    setup.errors++;
    if (setup.error_samples.length < 5) setup.error_samples.push(errorText(x));
  };
  const coords = (p) => ({ latitude: +p.latitude.toFixed(6), longitude: +p.longitude.toFixed(6) });
  for (const [i, r] of routes.entries()) {
    const cat = await post('/v1/categories', { name: `bench-avoid-${i + 1}` });
    if (cat.status !== 201) throw new Error(`creating category bench-avoid-${i + 1}: ${errorText(cat)}`);
    r.category_id = cat.json.data.id;
    // Four at a time: quicker than one by one, light enough not to matter to anything else.
    for (let k = 0; k < r.slots.length; k += 4) {
      const batch = r.slots.slice(k, k + 4);
      const rs = await Promise.all(batch.map((s, n) => post('/v1/pois', { name: `avoid ${i + 1}.${k + n}`, ...coords(s.at), category_id: r.category_id })));
      rs.forEach((x, n) => {
        setup.poi_creates++;
        if (x.status === 201) batch[n].id = x.json.data.id;
        else setupError(x);
      });
    }
    assertServerAlive();
    const kept = r.slots.filter((s) => s.kind === 'clear' && s.id).map((s) => s.id);
    r.blockers = 0;
    r.blockers_moved = 0;
    for (const s of r.slots.filter((x) => x.kind === 'block' && x.id)) {
      setup.blocker_checks++;
      const t = await post('/v1/routes', routeBody([r.A, r.B], 'driving-car', { poi_ids: [...kept, s.id], radius: R }));
      assertServerAlive();
      const c = classify(t);
      if (c.kind === 'ok') {
        kept.push(s.id);
        r.blockers++;
        continue;
      }
      if (c.kind === 'error') setupError(t);
      const at = place(r.eligible, r.line, s.from, s.to, 'clear');
      if (!at) continue; // stays a blocker in the category; the timed run will show what it does
      const moved = await call(base, apiKey, 'PUT', `/v1/pois/${s.id}`, coords(at));
      setup.poi_moves++;
      if (moved.status !== 200) setupError(moved);
      else {
        kept.push(s.id);
        r.blockers_moved++;
        s.at = at;
      }
    }
    log(`  route ${i + 1}: ${r.blockers} blockers kept, ${r.blockers_moved} moved clear`);
  }
  await waitForGeocoding();
  // The questions themselves, for looking into one in process (the POIs live only in this run's database).
  const cases = routes.map((r) => ({ A: r.A, B: r.B, radius: R, pois: r.slots.filter((s) => s.id).map((s) => s.at) }));
  writeFileSync(join(cache, `b-${label}.json`), `${JSON.stringify(cases)}\n`);

  const body = (r) => routeBody([r.A, r.B], 'driving-car', { category_id: r.category_id, radius: R });
  const items = Array.from({ length: REQUESTS }, (_, k) => routes[k % routes.length]);
  log(`(b) ${REQUESTS} car routes avoiding ${POIS} POIs each (radius ${R} m) over ${routes.length} routes`);
  return {
    name: '(b)',
    items,
    send: (r, mode) => send('POST', '/v1/routes', body(r), mode),
    judge: judgeOurs(true),
    info: {
      description: `2 waypoints 100–145 km apart (great circle), driving-car, avoid {category_id, radius: ${R}} selecting ${POIS} POIs 30–80 m sideways of the plain route; 1 in ${BLOCK_EVERY} closes the route itself where a detour was found to exist`,
      avoid_radius_m: R,
      setup,
    },
    keep: (answers) => {
      const avoidedCounts = answers.filter((a) => a.kind === 'ok').map((a) => a.r.json.data.avoided?.count);
      for (const [i, r] of routes.entries()) {
        const ms = stats(answers.filter((a) => a.item === r && a.mode === 'keepalive').map((a) => a.r.ms));
        log(`  (b) route ${i + 1}, kept-alive: p50 ${ms.p50} ms, p95 ${ms.p95} ms, max ${ms.max} ms`);
      }
      return {
        avoided_count_min: avoidedCounts.length ? Math.min(...avoidedCounts) : null,
        avoided_count_max: avoidedCounts.length ? Math.max(...avoidedCounts) : null,
        routes: routes.map((r, i) => {
          const mine = answers.filter((a) => a.item === r);
          const oks = mine.filter((a) => a.kind === 'ok');
          return {
            straight_km: r.straight_km,
            plain_km: r.plain_km,
            pois: r.slots.length,
            blockers: r.blockers,
            blockers_moved_clear: r.blockers_moved,
            ok: oks.length,
            blocked: mine.filter((a) => a.kind === 'blocked').length,
            avoiding_km: oks.length ? km(oks[0].r.json.data.distance) : null,
            category: `bench-avoid-${i + 1}`,
            ms: Object.fromEntries(MODES.map((mode) => [mode, stats(mine.filter((a) => a.mode === mode).map((a) => a.r.ms))])),
          };
        }),
      };
    },
  };
}

const waitForGeocoding = () => waitForGeocodingOf(sql);

/** (c) 50 stops and 3 vehicles (two round trips, one open) among road points of a ~30 km square. */
async function workloadC(pool, bounds, REGIONS = 4, PER_REGION = 10) {
  const regions = [];
  for (let attempt = 0; attempt < 12 && regions.length < REGIONS; attempt++) {
    const center = pickOne(rand, pool);
    if (regions.some((r) => meters(r.center, center) < 20_000)) continue;
    const dLat = 15_000 / 111_195,
      dLon = dLat / Math.cos((center.latitude * Math.PI) / 180);
    const box = {
      south: Math.max(bounds.south, center.latitude - dLat),
      north: Math.min(bounds.north, center.latitude + dLat),
      west: Math.max(bounds.west, center.longitude - dLon),
      east: Math.min(bounds.east, center.longitude + dLon),
    };
    const points = await growPool([center], 'driving-car', box, 70, 700);
    if (points.length >= 53) regions.push({ center, points });
    else log(`  (c) region at ${center.latitude},${center.longitude}: only ${points.length} road points, trying another`);
  }
  if (!regions.length) throw new Error('no ~30 km region with 53 road points for the optimize workload');
  const instance = (region) => {
    const pts = sample(rand, region.points, 53);
    return {
      vehicles: [0, 1, 2].map((i) => ({ id: `van-${i + 1}`, start: pts[i], ...(i < 2 ? { end: pts[i] } : {}) })),
      stops: pts.slice(3).map((p, i) => ({ id: `stop-${i}`, latitude: p.latitude, longitude: p.longitude })),
    };
  };
  const items = regions.flatMap((r) => Array.from({ length: PER_REGION }, () => instance(r)));
  while (items.length < REGIONS * PER_REGION) items.push(instance(pickOne(rand, regions)));
  log(`(c) ${items.length} optimize requests, 50 stops and 3 vehicles, over ${regions.length} regions of ~30 km`);
  return {
    name: '(c)',
    items,
    send: (b, mode) => send('POST', '/v1/routes/optimize', b, mode),
    judge: judgeOurs(),
    info: {
      description: 'POST /v1/routes/optimize, driving-car, 50 stops + 3 vehicles (2 round trips, 1 open) drawn from road points of a ~30 km square',
      regions: regions.map((r) => ({ center: r.center, road_points: r.points.length })),
    },
    keep: (answers) => {
      const assigned = answers.filter((a) => a.kind === 'ok').map((a) => a.r.json.data.summary.assigned);
      return { assigned_min: assigned.length ? Math.min(...assigned) : null };
    },
  };
}

/** (d) 10 waypoints across the map: one from each cell of a 2 × 5 grid over the road points' extent,
 *  visited in a serpentine order. */
function workloadD(pool) {
  const b = boxOf(pool);
  const wide =
    meters({ latitude: b.south, longitude: b.west }, { latitude: b.south, longitude: b.east }) >=
    meters({ latitude: b.south, longitude: b.west }, { latitude: b.north, longitude: b.west });
  const [rows, cols] = wide ? [2, 5] : [5, 2];
  const cells = [];
  for (let r = 0; r < rows; r++) {
    const order = [...Array(cols).keys()];
    if (r % 2) order.reverse();
    for (const c of order) {
      const cell = {
        south: b.south + ((b.north - b.south) * r) / rows,
        north: b.south + ((b.north - b.south) * (r + 1)) / rows,
        west: b.west + ((b.east - b.west) * c) / cols,
        east: b.west + ((b.east - b.west) * (c + 1)) / cols,
      };
      let members = pool.filter((p) => inBox(p, cell));
      if (!members.length) {
        // An empty cell (sea, a gap between tiles): the road points nearest its centre stand in.
        const mid = { latitude: (cell.south + cell.north) / 2, longitude: (cell.west + cell.east) / 2 };
        members = [...pool].sort((p, q) => meters(p, mid) - meters(q, mid)).slice(0, 3);
      }
      cells.push(members);
    }
  }
  const items = Array.from({ length: 100 }, () => cells.map((m) => pickOne(rand, m)));
  log(`(d) 100 car routes through 10 waypoints spread over the map (${rows} × ${cols} cells)`);
  const spans = items.map((w) => w.slice(1).reduce((a, p, i) => a + meters(w[i], p), 0));
  return {
    name: '(d)',
    items,
    send: (w, mode) => send('POST', '/v1/routes', routeBody(w), mode),
    judge: judgeOurs(),
    osrmPath: osrmRoute,
    keep: routeLengths,
    info: {
      description: `10 waypoints, driving-car, one per cell of a ${rows} × ${cols} grid over the road extent, serpentine`,
      straight_line_sum: summaryKm(spans),
    },
  };
}

/**
 * (e) every profile: 20 plain routes each (car and hgv: any two road points; bike and foot: 5–30 km).
 * The pairs are found by asking the server with that profile until neither waypoint is too far from a
 * road it may use, so in the timed run only 200 or 422 not connected are acceptable. One workload per
 * profile; a profile without enough pairs comes back as { failed }.
 */
async function workloadE(pool, bounds) {
  const per = {};
  for (const profile of PROFILES) {
    const pairs = [];
    let attempts = 0,
      failures = 0,
      lastFailure = null;
    // A profile that errs every time (not served, a crashing kernel) is given up after a few errors.
    while (pairs.length < 20 && attempts < 400 && failures < 5) {
      attempts++;
      const P = pickOne(rand, pool);
      let Q;
      if (profile.startsWith('driving')) Q = pickOne(rand, pool);
      else {
        Q = destination(P, rand() * 2 * Math.PI, 5000 + rand() * 25_000);
        if (!inBox(Q, bounds)) continue;
      }
      discovery.probes++;
      const r = await post('/v1/routes', routeBody([P, Q], profile));
      assertServerAlive();
      const c = classify(r);
      if (c.kind === 'ok') pairs.push([P, lastPoint(r)]);
      else if (c.kind === 'not_connected') pairs.push([P, Q]);
      else if (c.kind === 'error') {
        discoveryError(r);
        failures++;
        lastFailure = errorText(r);
      }
    }
    if (pairs.length < 20) {
      const why = `only ${pairs.length} usable waypoint pairs after ${attempts} tries${lastFailure ? `; last error ${lastFailure}` : ''}`;
      log(`  (e) ${profile}: ${why}`);
      per[profile] = { failed: why, errors: 1, error_samples: lastFailure ? [lastFailure] : [] };
      continue;
    }
    per[profile] = {
      name: `(e) ${profile}`,
      items: pairs,
      send: (w, mode) => send('POST', '/v1/routes', routeBody(w, profile), mode),
      judge: judgeOurs(),
      info: summaryKm(pairs.map(([p, q]) => meters(p, q))),
    };
  }
  return per;
}

// ---- timing -------------------------------------------------------------------------------------------------
/** A workload in both connection modes on the running server; what `keep` makes of the answers is added. */
async function timeWorkload(w) {
  const answers = [];
  const newConnectionMs = new Map(); // item → ms of its answer on a new connection, when ok
  const timed = await timeInModes({
    name: w.name,
    items: w.items,
    send: w.send,
    judge: w.judge,
    onAnswer: (item, r, v, mode) => {
      if (w.keep) answers.push({ item, r, kind: v.kind, mode });
      if (mode === 'new_connection' && v.kind === 'ok') newConnectionMs.set(item, r.ms);
    },
    assertAlive: assertServerAlive,
  });
  w.typical = typicalItem(w.items, newConnectionMs);
  return { ...timed, typical_item: w.typical, ...(w.keep ? w.keep(answers) : {}) };
}

/**
 * The item a server just started is asked first, and after a pause on the warm one (afterIdle): the one at
 * the median of the timed run over new connections. Item 0 was asked before: the first request then
 * measured which item came first as much as being first (32x32: (b)'s item 0 took 49.6 ms asked again on
 * the fresh server, 19.4 after a pause on a warm one, against the workload's median of 9.9). Asked at the
 * median, first ÷ median is what being first costs. { index, new_connection_ms } (index 0 when none was ok).
 */
function typicalItem(items, newConnectionMs) {
  const ok = items.map((item, index) => ({ index, ms: newConnectionMs.get(item) })).filter((x) => x.ms !== undefined);
  if (!ok.length) return { index: 0, new_connection_ms: null };
  ok.sort((x, y) => x.ms - y.ms);
  const mid = ok[(ok.length - 1) >> 1];
  return { index: mid.index, new_connection_ms: +mid.ms.toFixed(1) };
}
const typicalOf = (w) => w.items[w.typical?.index ?? 0];

/** Pause before each request of `afterIdle`: longer than the readiness poll's 50 ms before a first request. */
const IDLE_MS = 500;
/** `w`'s typical item on a new connection, three times, each after IDLE_MS without a request. */
async function afterIdle(w) {
  const ms = [];
  for (let k = 0; k < 3; k++) {
    await new Promise((res) => setTimeout(res, IDLE_MS));
    const r = await w.send(typicalOf(w), 'new_connection');
    assertServerAlive();
    ms.push(+r.ms.toFixed(1));
  }
  const median_ms = [...ms].sort((x, y) => x - y)[1];
  log(`  ${w.name}: its typical item after ${IDLE_MS} ms idle, on a warm server: ${ms.join(', ')} ms`);
  return { idle_ms: IDLE_MS, ms, median_ms };
}

/** A server started anew for each workload: its typical item once /ready says 200 (lib.mjs firstAfterReady). */
async function firstOnFreshServer(w, mapDir) {
  const { readyMs } = await startServer(mapDir);
  const ready = await readyMs();
  try {
    const first = await firstAfterReady({ name: w.name, item: typicalOf(w), send: w.send, judge: w.judge, assertAlive: assertServerAlive });
    return { ...first, ready_s: secs(ready) };
  } finally {
    await stopServer();
  }
}

/** The same items through OSRM, started anew per workload: first after ready, both modes, its own log. */
async function timeOsrm(algorithm, w, probe) {
  osrm = await startOsrmRouted({
    bin: resolve(opt.osrm),
    dir: result.osrm.dir,
    algorithm,
    probePath: `/nearest/v1/driving/${probe.longitude},${probe.latitude}`,
    logged: /\/route\/v1\//,
  });
  const theirs = (item, mode) => call(osrm.base, '', 'GET', w.osrmPath(item), undefined, { newConnection: mode === 'new_connection' });
  // Judged by status: a far route's whole line is megabytes of JSON, not parsed between timed requests.
  const judge = (r) => {
    if (r.status === 200) return { kind: 'ok' };
    if (r.status === 400 && /NoRoute/.test(r.json?.code ?? '')) return { kind: 'not_connected' };
    return { kind: 'error', why: errorText(r) };
  };
  try {
    const name = `OSRM ${algorithm} ${w.name}`;
    const first = await firstAfterReady({ name, item: typicalOf(w), send: theirs, judge, assertAlive: assertServerAlive });
    const logFrom = osrm.logged.length;
    const answers = [];
    const timed = await timeInModes({
      name,
      items: w.items,
      send: theirs,
      judge,
      onAnswer: (item, r, v, mode) => answers.push({ item, r, kind: v.kind, mode }),
      assertAlive: assertServerAlive,
    });
    await sleep(300); // its log line is written after the answer
    const logged = osrm.logged.slice(logFrom);
    const n = w.items.length;
    if (logged.length === 2 * n) {
      timed.keepalive.osrm_logged_ms = stats(logged.slice(0, n));
      timed.new_connection.osrm_logged_ms = stats(logged.slice(n));
    }
    return { ready_s: osrm.ready_s, rss_bytes: rssBytes(osrm.pid), first: { ...first, ready_s: osrm.ready_s }, ...timed, ...routeLengths(answers) };
  } finally {
    await stopChild(osrm);
    osrm = null;
    closeConnections();
  }
}

/** Ours over OSRM CH's p95 in each mode (the issue's target: ≤ 0.4 for far routes, ≤ 1 for 10 waypoints). */
function osrmRatios(w) {
  return p95Ratio(w, w.osrm?.ch);
}

/** (f)'s figures beside (a)'s: steps' p95 over the plain route's (≤ 1.3) and polyline6's body over GeoJSON's (≤ 0.35). */
function stepRatios(a, v) {
  return {
    steps_over_plain_p95: p95Ratio(v.steps, a),
    // (a) is the run's first pass over these pairs, colder than the variants: the same pairs asked plainly
    // among the variants (geojson) is the stricter baseline.
    steps_over_geojson_p95: p95Ratio(v.steps, v.geojson),
    polyline6_over_geojson_body:
      v.polyline6?.median_body_bytes && v.geojson?.median_body_bytes ? +(v.polyline6.median_body_bytes / v.geojson.median_body_bytes).toFixed(3) : null,
  };
}

// ---- the run ----------------------------------------------------------------------------------------------
async function run() {
  stage = 'extract';
  const osmFile = opt.map ? (opt.osm ? resolve(opt.osm) : null) : await extract();
  if (osmFile) {
    result.osm = {
      file: osmFile,
      bytes: statSync(osmFile).size,
      ...(opt.tiles ? { tiles: opt.tiles, seed: Number(opt.seed), origin: opt.origin ?? '45.0,5.0 (default)' } : {}),
    };
  }

  stage = 'build';
  let mapDir;
  if (opt.map) {
    mapDir = resolve(opt.map);
    result.build = builtBefore(mapDir)?.build ?? null;
    log(`serving the existing map ${mapDir} (${result.build ? `build figures of the run of ${result.build.run}` : 'no build figures'})`);
  } else {
    mapDir = join(cache, `map-${label}`);
    await buildMap(osmFile, mapDir);
  }
  result.map = mapFigures(mapDir);
  log(
    `map ${(result.map.bytes / 1e6).toFixed(0)} MB; car ${result.map.profiles['driving-car']?.nodes} nodes; ${Object.entries(result.map.profiles)
      .map(([k, v]) => `${k} ${v.bytes_per_node} B/node`)
      .join(', ')}; shared ${result.map.shared_bytes_per_car_node} B/car node`,
  );
  if (!result.map.box) throw new Error('the manifest has no grid box for the car profile: cannot tell where to look for road points');
  const bounds = result.map.box;

  if (opt.peer === 'osrm') {
    stage = 'osrm data';
    result.osrm = await prepareOsrm({
      bin: resolve(opt.osrm),
      osm: osmFile,
      dir: join(cache, `osrm-${mapLabel(mapDir)}`),
      algorithms: ['ch', 'mld'],
      timeoutMs: CHILD_TIMEOUT_MS,
    });
    // Data reused from the run that built it: that run's preprocessing times.
    const before = opt.map && builtBefore(mapDir)?.osrm;
    if (!Object.keys(result.osrm.seconds).length && before?.dir === result.osrm.dir && before.seconds) result.osrm.seconds_of_run = before.seconds;
  }

  stage = 'database';
  apiKey = await prepareDatabase();

  stage = 'serve';
  log('starting serve (WAYMARK_WORKERS=2)');
  const { t0, readyMs } = await startServer(mapDir);
  const serveSampler = rssSampler(server.pid, { everyMs: 500 });
  const ready = await waitForRoutes({ post, rand, bounds, t0, timeoutMs: READY_TIMEOUT_MS, server, assertAlive: assertServerAlive });
  const anchors = ready.anchors;
  result.serve = { workers: 2, ready_s: secs(ready.ready_ms), ready_endpoint_s: secs(await readyMs()) };
  result.serve.engine_first_answer_s = secs(ready.engine_first_ms);
  result.serve.ready_probes_after_engine_answered = ready.engine_tries;
  log(
    `ready in ${result.serve.ready_s} s (the engine first answered at ${result.serve.engine_first_answer_s} s, /ready 200 at ${result.serve.ready_endpoint_s} s); RSS ${(rssBytes(server.pid) / 1e9).toFixed(2)} GB`,
  );
  result.serve.rss_at_ready_bytes = rssBytes(server.pid);

  stage = 'discovery';
  log('finding road points (random points of the map box that the server routes to from a known one)');
  const pool = await growPool([...anchors], 'driving-car', bounds, 300, 6000);
  if (pool.length < 50) throw new Error(`only ${pool.length} road points found in ${discovery.probes} probes`);
  const roadBox = boxOf(pool);
  result.discovery = discovery;
  discovery.car_road_points = pool.length;
  discovery.road_points_box = roadBox;
  log(`  ${pool.length} road points after ${discovery.probes} probes`);

  // A workload that cannot be set up is one error in the results, and the others still run; a dead
  // server ends the bench.
  const setups = {
    a: () => workloadA(pool, result.map.diagonal_m),
    b: () => workloadB(pool),
    c: () => workloadC(pool, bounds),
    d: () => workloadD(pool),
    e: () => workloadE(pool, bounds),
    // (a)'s pairs: the same routes asked with steps and an encoded line.
    f: () => workloadF(jobs.find(([key]) => key === 'a')?.[2].items),
    // (a)'s pairs again: route options.
    g: () => workloadG(jobs.find(([key]) => key === 'a')?.[2].items),
  };
  /** What to time: [key, profile or null, workload]. */
  const jobs = [];
  const W = result.workloads;
  for (const [key, setup] of Object.entries(setups)) {
    stage = `workload ${key} setup`;
    try {
      const w = await setup();
      if (key === 'e') {
        W.e = { description: '20 plain routes per profile; car and hgv between any two road points, bike and foot 5–30 km apart', profiles: {} };
        for (const [profile, p] of Object.entries(w)) {
          if (p.failed) W.e.profiles[profile] = p;
          else jobs.push(['e', profile, p]);
        }
      } else if (key === 'f' && !w.skipped) {
        W.f = { description: "(a)'s far routes with steps, and with polyline6 lines", variants: {} };
        for (const [variant, v] of Object.entries(w)) jobs.push(['f', variant, v]);
      } else if (key === 'g' && !w.skipped) {
        W.g = { description: "(a)'s far routes with route options (issue 36)", variants: {} };
        for (const [variant, v] of Object.entries(w)) jobs.push(['g', variant, v]);
      } else if (w.skipped) W[key] = { skipped: w.skipped };
      else jobs.push([key, null, w]);
    } catch (err) {
      assertServerAlive();
      log(`  (${key}) failed: ${err.message}`);
      W[key] = { failed: err.message, errors: 1, error_samples: [err.message] };
    }
  }
  const slot = (key, sub) => (key === 'e' ? W.e.profiles[sub] : key === 'f' ? W.f.variants[sub] : key === 'g' ? W.g.variants[sub] : W[key]);

  for (const [key, profile, w] of jobs) {
    stage = `workload ${profile ?? key}`;
    const timed = await timeWorkload(w);
    if (key === 'e') W.e.profiles[profile] = { ...w.info, ...timed };
    else if (key === 'f') W.f.variants[profile] = { ...w.info, ...timed };
    else if (key === 'g') W.g.variants[profile] = { ...w.info, ...timed };
    else W[key] = { ...w.info, ...timed };
  }
  // The same first item on this warm server after a pause, as a first request after ready follows one: any
  // request after a pause costs more than one of a back-to-back run (32x32, a loaded host: a bicycle route
  // 2.9–3.5 ms after 400 ms idle against 1.5–1.7 back to back, the same route on the same warm server), which
  // a fresh process cannot help. Set beside the first request, it tells what is left that a fresh process pays.
  for (const [key, profile, w] of jobs.filter(([k]) => k !== 'f' && k !== 'g')) {
    stage = `after idle ${profile ?? key}`;
    slot(key, profile).after_idle = await afterIdle(w);
  }
  if (W.f?.variants && W.a?.keepalive) W.f.ratios = stepRatios(W.a, W.f.variants);
  if (W.g?.variants && W.a?.keepalive) W.g.over_plain_p95 = optionRatios(W.a, W.g.variants);
  if (W.g?.variants && W.f?.variants?.geojson?.keepalive) W.g.over_geojson_p95 = optionRatios(W.f.variants.geojson, W.g.variants);

  stage = 'memory';
  assertServerAlive();
  Object.assign(result.serve, {
    rss_bytes: rssBytes(server.pid),
    hwm_bytes: hwmBytes(server.pid),
    tree_rss_bytes: treeRssBytes(server.pid),
    peak_tree_rss_sampled_bytes: serveSampler.stop(),
  });
  log(`serving RSS ${(result.serve.rss_bytes / 1e9).toFixed(2)} GB (peak ${(result.serve.hwm_bytes / 1e9).toFixed(2)} GB)`);
  await stopServer();

  // The first request of each workload on a server that has just said ready: what a client meets after a
  // deploy, which the timed runs above (after the setup's requests) do not show.
  result.serve.fresh_starts_ready_s = [];
  // (f) and (g) ask (a)'s first question again, with steps, another line format or options: not restarted for.
  for (const [key, profile, w] of jobs.filter(([k]) => k !== 'f' && k !== 'g')) {
    stage = `first request ${profile ?? key}`;
    // One first request is one sample, and a few milliseconds of anything else on the host decide it: the
    // median of FIRST_STARTS fresh starts, each start's kept.
    const starts = [];
    for (let k = 0; k < FIRST_STARTS; k++) starts.push(await firstOnFreshServer(w, mapDir));
    result.serve.fresh_starts_ready_s.push(...starts.map((x) => x.ready_s));
    const first = { ...[...starts].sort((x, y) => x.ms - y.ms)[(starts.length - 1) >> 1], starts };
    const s = slot(key, profile);
    s.first = {
      ...first,
      ratio_to_median: firstRatio(first, s),
      ratio_to_after_idle: s.after_idle?.median_ms ? +(first.ms / s.after_idle.median_ms).toFixed(2) : null,
    };
  }

  if (opt.peer === 'osrm') {
    for (const algorithm of ['ch', 'mld']) {
      for (const [key, , w] of jobs.filter(([, , x]) => x.osrmPath)) {
        stage = `OSRM ${algorithm} ${key}`;
        W[key].osrm ??= {};
        W[key].osrm[algorithm] = await timeOsrm(algorithm, w, pool[0]);
      }
    }
    for (const key of ['a', 'd']) if (W[key]?.osrm) W[key].ours_over_osrm_ch_p95 = osrmRatios(W[key]);
  } else if (opt['osrm-from']) {
    // OSRM's figures of an earlier run on the same map, taken only where that run asked the same routes
    // (the same first five route lengths: the pairs come from the map and --rand-seed), and marked with it.
    stage = 'OSRM from an earlier run';
    const before = JSON.parse(readFileSync(resolve(opt['osrm-from']), 'utf8'));
    const run = `${before.label} @ ${before.git?.commit ?? '?'} ${before.started_at?.slice(0, 16) ?? ''}`;
    for (const key of ['a', 'd']) {
      const theirs = before.workloads?.[key]?.osrm;
      const same = JSON.stringify(before.workloads?.[key]?.first_route_km) === JSON.stringify(W[key]?.first_route_km);
      if (!theirs || !same) {
        log(`  (${key}): OSRM's figures of ${run} not taken: ${theirs ? 'that run asked other routes' : 'it has none'}`);
        continue;
      }
      W[key].osrm = { ...theirs, from_run: run };
      W[key].ours_over_osrm_ch_p95 = osrmRatios(W[key]);
    }
    if (W.a?.osrm || W.d?.osrm) result.osrm = { ...before.osrm, from_run: run };
  }

  const modeErrors = (x) => MODES.reduce((a, mode) => a + (x?.[mode]?.errors ?? 0), 0) + (x?.first?.kind === 'error' ? 1 : 0) + (x?.failed ? 1 : 0);
  result.errors_total =
    discovery.errors +
    (W.b?.setup?.errors ?? 0) +
    ['a', 'b', 'c', 'd'].reduce((a, k) => a + modeErrors(W[k]), 0) +
    Object.values(W.e?.profiles ?? {}).reduce((a, p) => a + modeErrors(p), 0) +
    (W.e?.failed ? 1 : 0) +
    Object.values(W.f?.variants ?? {}).reduce((a, v) => a + modeErrors(v), 0) +
    Object.values(W.g?.variants ?? {}).reduce((a, v) => a + modeErrors(v), 0);
  result.status = 'ok';
}

async function cleanup() {
  await stopActiveChildren();
  closeConnections();
  await stopServer().catch((err) => log(`stopping the server: ${err.message}`));
  await stopChild(osrm).catch(() => {});
  if (sql) await sql.end({ timeout: 5 }).catch(() => {});
  if (dbCreated) await dropBenchDatabase(ADMIN_URL, dbName);
  if (builtMapDir && !opt.keep) rmSync(builtMapDir, { recursive: true, force: true });
  else if (builtMapDir) log(`map kept in ${builtMapDir}`);
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
  result.met = checkTargets(result);
  mkdirSync(resultsDir, { recursive: true });
  const file = join(resultsDir, `scale-${label}.json`);
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  log(`wrote ${file}`);
  console.log(formatTable(readResults(resultsDir)));
  process.exit(result.status === 'ok' ? 0 : 1);
}
