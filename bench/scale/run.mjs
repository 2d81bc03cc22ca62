// Scale bench: how the map build and the routing service behave as the country grows. Generates (or
// reuses) a synthetic country, builds its map through the CLI, serves it with 2 workers, drives five
// routing workloads over HTTP one request at a time, and writes bench/results/scale-<label>.json, then
// prints the table across every scale-*.json with the 32x32 targets marked.
//
//   npm run bench:scale -- --tiles 32x32 [--seed 1] [--origin 45.0,5.0] [--cache /tmp/waymark-scale] [--keep]
//   npm run bench:scale -- --osm FILE.osm.pbf [--label NAME] [--keep]
//   npm run bench:scale -- --table            (only print the table of the recorded results)
//
// Options: --map DIR serves an existing map instead of building one (no build figures); --avoid-radius M
// (default 50, the spec's); --ready-timeout S (default 300); --build-timeout S (generation and build,
// each; default 7200); --rand-seed N (default 1). Needs `npm run build`, osmium-tool (for --tiles) and
// PostgreSQL on 127.0.0.1:5432 (WAYMARK_BENCH_ADMIN_URL overrides).
// Every point is found by asking the server (a random point it snaps is a road point), never by reading
// the map files: the map format changes, the HTTP contract does not.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
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
  freePort,
  growRoadPool,
  hwmBytes,
  inBox,
  lastPoint,
  log,
  manifestBox,
  measuredLine,
  meters,
  noteError,
  pickOne,
  rng,
  routeBody,
  rssBytes,
  rssSampler,
  runChild,
  sample,
  spawnServer,
  stats,
  stopActiveChildren,
  synthCountry,
  treeRssBytes,
  waitForGeocoding as waitForGeocodingOf,
  waitForRoutes,
} from './lib.mjs';
import { checkTargets, formatTable, readResults } from './table.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const resultsDir = join(root, 'bench/results');
const PROFILES = ['driving-car', 'driving-hgv', 'cycling-regular', 'foot-walking'];

const { values: opt } = parseArgs({
  options: {
    tiles: { type: 'string' },
    osm: { type: 'string' },
    seed: { type: 'string', default: '1' },
    origin: { type: 'string' },
    cache: { type: 'string', default: '/tmp/waymark-scale' },
    label: { type: 'string' },
    map: { type: 'string' },
    keep: { type: 'boolean', default: false },
    'avoid-radius': { type: 'string', default: '50' },
    'ready-timeout': { type: 'string', default: '300' },
    'build-timeout': { type: 'string', default: '7200' },
    'rand-seed': { type: 'string', default: '1' },
    table: { type: 'boolean', default: false },
  },
});

if (opt.table) {
  console.log(formatTable(readResults(resultsDir)));
  process.exit(0);
}
if (!opt.tiles === !opt.osm && !opt.map) {
  console.error(
    'usage: npm run bench:scale -- --tiles RxC [--seed N] [--origin LAT,LON] | --osm FILE.osm.pbf [--label NAME]  [--cache DIR] [--keep] [--map DIR]\n       npm run bench:scale -- --table',
  );
  process.exit(2);
}
if (opt.tiles && !/^\d+x\d+$/.test(opt.tiles)) {
  console.error(`--tiles must look like 32x32, not '${opt.tiles}'`);
  process.exit(2);
}
const AVOID_RADIUS = Number(opt['avoid-radius']);
const READY_TIMEOUT_MS = Number(opt['ready-timeout']) * 1000;
const CHILD_TIMEOUT_MS = Number(opt['build-timeout']) * 1000;
const rand = rng(Number(opt['rand-seed']));
const adminUrl = process.env.WAYMARK_BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const dbName = 'waymark_bench_scale';
const dbUrl = adminUrl.replace(/\/[^/]*$/, `/${dbName}`);
const cache = resolve(opt.cache);
mkdirSync(cache, { recursive: true });

// A seed or origin other than the default is another country: it gets its own cache file and row.
const { variant } = synthCountry({ tiles: opt.tiles, seed: opt.seed, origin: opt.origin, cache });
const label = opt.label ?? (opt.tiles ? `${opt.tiles}${variant}` : basename(opt.osm ?? opt.map).replace(/\.osm\.pbf$/, ''));

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
    note: 'cores shared with other work: timings are noisy',
  },
  git: { commit: gitOut(['rev-parse', '--short', 'HEAD']), dirty: !!gitOut(['status', '--porcelain', '--untracked-files=no']) },
  osm: null,
  build: null,
  map: null,
  serve: null,
  discovery: null,
  workloads: {},
  errors_total: null,
  met: null,
};

let stage = 'setup';
let server = null; // { child, pid, exit, stderrTail }
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

// ---- 3. database and server -------------------------------------------------------------------------------
async function prepareDatabase() {
  // Enterprise: no rate limit or POI limit gets in the way of ~3,000 POIs and ~1,000 routes.
  const db = await createBenchDatabase({
    adminUrl,
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
}

async function stopServer() {
  if (!server || server.exit) return;
  server.child.kill('SIGTERM');
  for (let i = 0; i < 100 && !server.exit; i++) await sleep(100);
  if (!server.exit) {
    log('server still running 10 s after SIGTERM: SIGKILL');
    server.child.kill('SIGKILL');
    for (let i = 0; i < 50 && !server.exit; i++) await sleep(100);
  }
}

// ---- HTTP helpers -----------------------------------------------------------------------------------------
let base = '';
let apiKey = '';
const post = (path, body) => call(base, apiKey, 'POST', path, body);
/** Answers that are not the engine's verdict while points are being looked for (5xx, timeouts). */
const discovery = { probes: 0, errors: 0, error_samples: [] };
const discoveryError = (r) => noteError(discovery, r);

/** Road points for `profile` in `box` (lib.mjs growRoadPool), asked of this run's server. */
const growPool = (pool, profile, box, want, maxProbes) =>
  growRoadPool({ post, rand, pool, profile, box, want, maxProbes, discovery, assertAlive: assertServerAlive });

// ---- 5. the workloads -------------------------------------------------------------------------------------
/**
 * Runs `warmup` then `items` one at a time. Latency statistics cover every answer the engine gave (200,
 * and the 422s not connected / blocked); anything else is an error, warm-up included.
 */
async function measure(name, items, send, { warmup = [], allowBlocked = false, keepAnswers = false } = {}) {
  const out = { requests: items.length, warmup: warmup.length, ok: 0, not_connected: 0, blocked: 0, errors: 0, error_samples: [] };
  const all = [],
    okMs = [];
  const record = (r, counted) => {
    const c = classify(r);
    const kind = c.kind === 'blocked' && !allowBlocked ? 'error' : c.kind;
    if (kind === 'ok' || kind === 'not_connected' || kind === 'blocked') {
      if (!counted) return c;
      out[kind]++;
      all.push(r.ms);
      if (kind === 'ok') okMs.push(r.ms);
    } else {
      out.errors++;
      if (out.error_samples.length < 5) out.error_samples.push(errorText(r));
    }
    return c;
  };
  for (const item of warmup) {
    record(await send(item), false);
    assertServerAlive();
  }
  let lastLog = performance.now();
  const answers = [];
  for (let i = 0; i < items.length; i++) {
    const r = await send(items[i]);
    assertServerAlive();
    const c = record(r, true);
    // Only the workloads that check their answers keep them (a kept far route is megabytes of arrays).
    if (keepAnswers) answers.push({ item: items[i], r, c });
    if (performance.now() - lastLog > 5000) {
      lastLog = performance.now();
      log(`  ${name}: ${i + 1}/${items.length}`);
    }
  }
  out.ms = stats(all);
  out.ms_ok = stats(okMs);
  log(
    `  ${name}: p50 ${out.ms.p50} ms, p95 ${out.ms.p95} ms, max ${out.ms.max} ms; 200 ${out.ok}, not connected ${out.not_connected}${allowBlocked ? `, blocked ${out.blocked}` : ''}, errors ${out.errors}${out.error_samples.length ? ` (${out.error_samples[0]})` : ''}`,
  );
  return { out, answers };
}

const km = (m) => +(m / 1000).toFixed(1);
const summaryKm = (ds) => ({ min_km: km(Math.min(...ds)), mean_km: km(ds.reduce((a, b) => a + b, 0) / ds.length), max_km: km(Math.max(...ds)) });

/** (a) 2 waypoints ≥ 60 % of the map's diagonal apart (great circle). */
async function workloadA(pool, diagonal) {
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
  const { out } = await measure('(a)', items, (w) => post('/v1/routes', routeBody(w)), { warmup: Array.from({ length: 5 }, draw) });
  return {
    ...out,
    description: '2 waypoints, driving-car, great-circle ≥ 60 % of the map diagonal',
    distinct_pairs_available: far.length,
    ...summaryKm(items.map(([p, q]) => meters(p, q))),
  };
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
      }
    }
    log(`  route ${i + 1}: ${r.blockers} blockers kept, ${r.blockers_moved} moved clear`);
  }
  await waitForGeocoding();

  const body = (r) => routeBody([r.A, r.B], 'driving-car', { category_id: r.category_id, radius: R });
  const items = Array.from({ length: REQUESTS }, (_, k) => routes[k % routes.length]);
  log(`(b) ${REQUESTS} car routes avoiding ${POIS} POIs each (radius ${R} m) over ${routes.length} routes`);
  const { out, answers } = await measure('(b)', items, (r) => post('/v1/routes', body(r)), { warmup: routes, allowBlocked: true, keepAnswers: true });
  const avoidedCounts = answers.filter((a) => a.c.kind === 'ok').map((a) => a.r.json.data.avoided?.count);
  for (const [i, r] of routes.entries()) {
    const ms = stats(answers.filter((a) => a.item === r).map((a) => a.r.ms));
    log(`  (b) route ${i + 1}: p50 ${ms.p50} ms, p95 ${ms.p95} ms, max ${ms.max} ms`);
  }
  return {
    ...out,
    description: `2 waypoints 100–145 km apart (great circle), driving-car, avoid {category_id, radius: ${R}} selecting ${POIS} POIs 30–80 m sideways of the plain route; 1 in ${BLOCK_EVERY} closes the route itself where a detour was found to exist`,
    avoid_radius_m: R,
    avoided_count_min: avoidedCounts.length ? Math.min(...avoidedCounts) : null,
    avoided_count_max: avoidedCounts.length ? Math.max(...avoidedCounts) : null,
    setup,
    routes: routes.map((r, i) => {
      const mine = answers.filter((a) => a.item === r);
      const oks = mine.filter((a) => a.c.kind === 'ok');
      return {
        straight_km: r.straight_km,
        plain_km: r.plain_km,
        pois: r.slots.length,
        blockers: r.blockers,
        blockers_moved_clear: r.blockers_moved,
        ok: oks.length,
        blocked: mine.filter((a) => a.c.kind === 'blocked').length,
        avoiding_km: oks.length ? km(oks[0].r.json.data.distance) : null,
        category: `bench-avoid-${i + 1}`,
        ms: stats(mine.map((a) => a.r.ms)),
      };
    }),
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
  const { out, answers } = await measure('(c)', items, (b) => post('/v1/routes/optimize', b), { warmup: regions.slice(0, 3).map(instance), keepAnswers: true });
  const assigned = answers.filter((a) => a.c.kind === 'ok').map((a) => a.r.json.data.summary.assigned);
  return {
    ...out,
    description: 'POST /v1/routes/optimize, driving-car, 50 stops + 3 vehicles (2 round trips, 1 open) drawn from road points of a ~30 km square',
    regions: regions.map((r) => ({ center: r.center, road_points: r.points.length })),
    assigned_min: assigned.length ? Math.min(...assigned) : null,
  };
}

/** (d) 10 waypoints across the map: one from each cell of a 2 × 5 grid over the road points' extent,
 *  visited in a serpentine order. */
async function workloadD(pool) {
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
  const draw = () => cells.map((m) => pickOne(rand, m));
  const items = Array.from({ length: 100 }, draw);
  log(`(d) 100 car routes through 10 waypoints spread over the map (${rows} × ${cols} cells)`);
  const { out } = await measure('(d)', items, (w) => post('/v1/routes', routeBody(w)), { warmup: Array.from({ length: 5 }, draw) });
  const spans = items.map((w) => w.slice(1).reduce((a, p, i) => a + meters(w[i], p), 0));
  return {
    ...out,
    description: `10 waypoints, driving-car, one per cell of a ${rows} × ${cols} grid over the road extent, serpentine`,
    straight_line_sum: summaryKm(spans),
  };
}

/**
 * (e) every profile: 20 plain routes each (car and hgv: any two road points; bike and foot: 5–30 km).
 * The pairs are found by asking the server with that profile until neither waypoint is too far from a
 * road it may use, so in the timed run only 200 or 422 not connected are acceptable.
 */
async function workloadE(pool, bounds) {
  const per = {};
  for (const profile of PROFILES) {
    const pairs = [];
    let attempts = 0,
      failures = 0,
      lastFailure = null;
    // A profile that errs every time (not served, a crashing kernel) is given up after a few errors.
    while (pairs.length < 22 && attempts < 400 && failures < 5) {
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
    if (pairs.length < 22) {
      const why = `only ${pairs.length} usable waypoint pairs after ${attempts} tries${lastFailure ? `; last error ${lastFailure}` : ''}`;
      log(`  (e) ${profile}: ${why}`);
      per[profile] = { failed: why, requests: 0, ok: 0, not_connected: 0, errors: 1, error_samples: lastFailure ? [lastFailure] : [] };
      continue;
    }
    log(`(e) ${profile}: 20 plain routes`);
    const { out } = await measure(`(e) ${profile}`, pairs.slice(2), (w) => post('/v1/routes', routeBody(w, profile)), { warmup: pairs.slice(0, 2) });
    per[profile] = { ...out, ...summaryKm(pairs.slice(2).map(([p, q]) => meters(p, q))) };
  }
  const sum = (k) => Object.values(per).reduce((a, x) => a + x[k], 0);
  return {
    description: '20 plain routes per profile; car and hgv between any two road points, bike and foot 5–30 km apart',
    profiles: per,
    ok: sum('ok'),
    not_connected: sum('not_connected'),
    errors: sum('errors'),
  };
}

// ---- the run ----------------------------------------------------------------------------------------------
async function run() {
  stage = 'extract';
  const osmFile = opt.map ? null : await extract();
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
    log(`serving the existing map ${mapDir} (no build figures)`);
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

  stage = 'database';
  apiKey = await prepareDatabase();

  stage = 'serve';
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  log(`starting serve on 127.0.0.1:${port} (WAYMARK_WORKERS=2)`);
  const t0 = performance.now();
  server = spawnServer({ port, mapDir, dbUrl });
  const serveSampler = rssSampler(server.pid, { everyMs: 500 });
  const ready = await waitForRoutes({ post, rand, bounds, t0, timeoutMs: READY_TIMEOUT_MS, server, assertAlive: assertServerAlive });
  const anchors = ready.anchors;
  result.serve = { workers: 2, ready_s: secs(ready.ready_ms) };
  result.serve.engine_first_answer_s = secs(ready.engine_first_ms);
  result.serve.ready_probes_after_engine_answered = ready.engine_tries;
  log(
    `ready in ${result.serve.ready_s} s (the engine first answered at ${result.serve.engine_first_answer_s} s); RSS ${(rssBytes(server.pid) / 1e9).toFixed(2)} GB`,
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
  const workloads = {
    a: () => workloadA(pool, result.map.diagonal_m),
    b: () => workloadB(pool),
    c: () => workloadC(pool, bounds),
    d: () => workloadD(pool),
    e: () => workloadE(pool, bounds),
  };
  for (const [name, fn] of Object.entries(workloads)) {
    stage = `workload ${name}`;
    try {
      result.workloads[name] = await fn();
    } catch (err) {
      assertServerAlive();
      log(`  (${name}) failed: ${err.message}`);
      result.workloads[name] = { failed: err.message, errors: 1, error_samples: [err.message] };
    }
  }

  stage = 'memory';
  assertServerAlive();
  Object.assign(result.serve, {
    rss_bytes: rssBytes(server.pid),
    hwm_bytes: hwmBytes(server.pid),
    tree_rss_bytes: treeRssBytes(server.pid),
    peak_tree_rss_sampled_bytes: serveSampler.stop(),
  });
  log(`serving RSS ${(result.serve.rss_bytes / 1e9).toFixed(2)} GB (peak ${(result.serve.hwm_bytes / 1e9).toFixed(2)} GB)`);

  const w = result.workloads;
  result.errors_total = discovery.errors + (w.b?.setup?.errors ?? 0) + ['a', 'b', 'c', 'd', 'e'].reduce((a, k) => a + (w[k]?.errors ?? 0), 0);
  result.status = 'ok';
}

async function cleanup() {
  await stopActiveChildren();
  closeConnections();
  await stopServer().catch((err) => log(`stopping the server: ${err.message}`));
  if (sql) await sql.end({ timeout: 5 }).catch(() => {});
  if (dbCreated) await dropBenchDatabase(adminUrl, dbName);
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
