// End-to-end latency of POST /v1/routes/optimize for 50 stops and 3 vehicles on the Liechtenstein map,
// through a real `serve` process (road matrix, solver in the worker pool, one geometry per route, JSON),
// one request at a time; then the same instances phase by phase in this process (matrix, solve,
// geometries) to show where the time goes. Target: p95 ≤ 300 ms. The machine's 2 cores are shared with
// other work: figures are noisy.
// Usage: node bench/optimize/run.mjs [--requests 40]   (needs `npm run build` and local PostgreSQL)
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { createKey, createTeam } from '../../dist/auth/admin.js';
import { parsePermissionList } from '../../dist/auth/permissions.js';
import { closePool } from '../../dist/compute/pool.js';
import { loadConfig } from '../../dist/config.js';
import { connect } from '../../dist/db/client.js';
import { migrate } from '../../dist/db/migrate.js';
import { ensureDefaultMap } from '../../dist/map/build.js';
import { readGraphFiles, readManifest, readShapeFiles } from '../../dist/map/map-dir.js';
import { nodePositionsE7, toDegrees } from '../../dist/map/graphs/road-graph.js';
import { projectRoot } from '../../dist/lib/paths.js';
import { loadMap, matrix, route } from '../../dist/engine/engine.js';
import { SEARCHES, solvePlan } from '../../dist/api/optimize/routes.js';
import { indexLocations, toProblem, travelOf } from '../../dist/api/optimize/problem.js';
import { optimizeBodySchema } from '../../dist/api/optimize/schema.js';
import { timeFrame } from '../../dist/api/optimize/time-frame.js';

const { values: opts } = parseArgs({ options: { requests: { type: 'string', default: '40' } } });
const REQUESTS = Number(opts.requests);
const WARMUP = 3;
const adminUrl = process.env.WAYMARK_BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const dbName = 'waymark_bench_optimize';
const dbUrl = adminUrl.replace(/\/[^/]*$/, `/${dbName}`);
const log = (msg) => process.stderr.write(`[bench/optimize] ${msg}\n`);

function stats(ms) {
  const s = [...ms].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)];
  return {
    n: s.length,
    p50: +q(0.5).toFixed(1),
    p95: +q(0.95).toFixed(1),
    max: +s[s.length - 1].toFixed(1),
    mean: +(s.reduce((a, b) => a + b, 0) / s.length).toFixed(1),
  };
}

function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Main-network road positions of the car graph in the Rhine valley (reachable both ways). */
async function roadPositions(mapDir) {
  const manifest = await readManifest(mapDir);
  const g = await readGraphFiles(mapDir, 'driving-car', manifest.profiles['driving-car'], await readShapeFiles(mapDir));
  const nodeCoords = toDegrees(nodePositionsE7(g));
  const out = [];
  for (let v = 0; v < g.nodeCount; v++) {
    const latitude = +nodeCoords[2 * v].toFixed(6),
      longitude = +nodeCoords[2 * v + 1].toFixed(6);
    if (latitude < 47.05 || latitude > 47.25 || longitude < 9.47 || longitude > 9.56) continue;
    if (g.mainNet[v] !== 1) continue;
    out.push({ latitude, longitude });
  }
  return out;
}

const day = '2031-03-04';
const hhmm = (minutes) => `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}:00`;

/** Instance k: 50 stops and 3 vehicles, plain or with windows, service, capacities and skills. */
function instance(positions, k, full) {
  const rand = rng(1000 + k);
  const pick = () => positions[Math.floor(rand() * positions.length)];
  const hours = [`${day}T08:00:00+01:00`, `${day}T18:00:00+01:00`];
  // Two round trips and one open route.
  const vehicles = [0, 1, 2].map((i) => {
    const start = pick();
    return {
      id: `van-${i + 1}`,
      start,
      ...(i < 2 ? { end: start } : {}),
      ...(full ? { time_window: hours, capacity: 30, ...(i === 0 ? { skills: ['fridge'] } : {}) } : {}),
    };
  });
  const stops = Array.from({ length: 50 }, (_, i) => {
    const stop = { ...pick(), id: `stop-${i}` };
    if (!full) return stop;
    const open = 8 * 60 + Math.floor(rand() * 8) * 60;
    return {
      ...stop,
      service: 120 + Math.floor(rand() * 5) * 60,
      demand: 1 + Math.floor(rand() * 2),
      ...(rand() < 0.4 ? { time_windows: [[`${day}T${hhmm(open)}+01:00`, `${day}T${hhmm(open + 120)}+01:00`]] } : {}),
      ...(rand() < 0.1 ? { skills: ['fridge'] } : {}),
    };
  });
  return { vehicles, stops };
}

function startServer(env) {
  const child = spawn(process.execPath, [join(projectRoot, 'bin/waymark.js'), 'serve'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${out}`)));
    child.stdout.on('data', (c) => {
      out += c;
      const port = /waymark listening on http:\/\/localhost:(\d+)/.exec(out)?.[1];
      if (port) {
        child.stdout.resume();
        resolve({ child, port });
      }
    });
  });
}

// ---- set-up ----------------------------------------------------------------------------------------------
const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
await admin.unsafe(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
await admin.unsafe(`CREATE DATABASE ${dbName}`);
await admin.end();
const sql = connect(dbUrl, 2);
await migrate(sql);
const team = await createTeam(sql, { name: 'bench', plan: 'enterprise' });
const { key } = await createKey(sql, { teamId: team.id, name: 'bench', permissions: parsePermissionList('all') });
const mapDir = await ensureDefaultMap(loadConfig(process.env).dataDir);
const positions = await roadPositions(mapDir);
log(`${positions.length} road positions; starting serve`);
const server = await startServer({ DATABASE_URL: dbUrl, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', WAYMARK_JOBS: 'off', WAYMARK_MAP: mapDir });
const url = `http://127.0.0.1:${server.port}/v1/routes/optimize`;

async function post(body) {
  const t = performance.now();
  const res = await fetch(url, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const json = await res.json();
  const ms = performance.now() - t;
  if (res.status !== 200) throw new Error(`${res.status}: ${JSON.stringify(json)}`);
  return { ms, data: json.data };
}

// ---- end to end ------------------------------------------------------------------------------------------
const endToEnd = {};
for (const full of [false, true]) {
  const name = full ? 'windows+service+capacity+skills' : 'plain';
  for (let k = 0; k < WARMUP; k++) await post(instance(positions, 10_000 + k, full));
  const ms = [],
    assigned = [];
  for (let k = 0; k < REQUESTS; k++) {
    const r = await post(instance(positions, k, full));
    ms.push(r.ms);
    assigned.push(r.data.summary.assigned);
  }
  endToEnd[name] = { ...stats(ms), assigned_min: Math.min(...assigned), assigned_mean: +(assigned.reduce((a, b) => a + b, 0) / assigned.length).toFixed(1) };
  log(`${name}: p50 ${endToEnd[name].p50} ms, p95 ${endToEnd[name].p95} ms, max ${endToEnd[name].max} ms; assigned ≥ ${endToEnd[name].assigned_min}/50`);
}
server.child.removeAllListeners('exit');
server.child.kill();
await sql.end();

// ---- phases, in this process ------------------------------------------------------------------------------
await loadMap(mapDir);
const phases = { matrix: [], solve: [], geometry: [], iterations: [] };
for (let k = 0; k < REQUESTS; k++) {
  const raw = instance(positions, k, true);
  const body = optimizeBodySchema.parse(JSON.parse(JSON.stringify(raw)));
  const located = (l) => ({ poiId: null, latitude: l.latitude, longitude: l.longitude });
  const ix = indexLocations(
    body.vehicles.map((v) => ({ start: located(v.start), end: v.end ? located(v.end) : null })),
    body.stops.map(located),
  );
  let t = performance.now();
  const m = await matrix({ profile: 'driving-car', points: ix.points });
  phases.matrix.push(performance.now() - t);
  const problem = toProblem(body, ix, travelOf(m), timeFrame(body, Object.keys(raw), 0));
  t = performance.now();
  const solution = await solvePlan(problem);
  phases.solve.push(performance.now() - t);
  phases.iterations.push(solution.iterations);
  t = performance.now();
  await Promise.all(
    solution.routes.map((r) => {
      const v = problem.vehicles[r.vehicle];
      const at = [v.start, ...r.jobs.map((j) => problem.jobs[j].location), ...(v.end == null ? [] : [v.end])];
      return route({ profile: 'driving-car', waypoints: at.map((p) => ix.points[p]) });
    }),
  );
  phases.geometry.push(performance.now() - t);
}
await closePool();
const phaseStats = Object.fromEntries(Object.entries(phases).map(([k, v]) => [k, stats(v)]));
log(
  `phases (windows instance): matrix p50 ${phaseStats.matrix.p50} ms, solve p50 ${phaseStats.solve.p50} ms (iterations p50 ${phaseStats.iterations.p50}), geometries p50 ${phaseStats.geometry.p50} ms`,
);

const summary = {
  machine: { cores: availableParallelism(), node: process.version, note: '2 cores shared with other work: figures are noisy' },
  stops: 50,
  vehicles: 3,
  requests: REQUESTS,
  sequential: true,
  searches: SEARCHES,
  end_to_end_ms: endToEnd,
  phases_ms: phaseStats,
  target: { p95_ms_max: 300 },
};
console.log(JSON.stringify(summary, null, 2));
mkdirSync(join(projectRoot, 'bench/results'), { recursive: true });
writeFileSync(join(projectRoot, 'bench/results/optimize.json'), JSON.stringify(summary, null, 2));
process.exit(0);
