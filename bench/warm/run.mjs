// The first request of each kind after `serve` says it is ready, against the median of the same request
// asked again: does the warm-up before ready (engine.ts, loadMap; warm-up.ts) leave nothing for the first
// client to pay? Liechtenstein's map (the bundled extract), 2 compute threads, a fresh process per start,
// sequential requests over one kept-alive connection timed to the last byte (bench/scale/lib.mjs, call).
// Kinds: a route avoiding 500 POIs, a plain route, a 10×10 matrix, an isochrone, a reverse lookup, a search.
//
//   node bench/warm/run.mjs [--starts 3] [--repeat 20]      (after npm run build; PostgreSQL on 127.0.0.1)
//
// Writes bench/results/warm-liechtenstein.json.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { createKey, createTeam } from '../../dist/auth/admin.js';
import { parsePermissionList } from '../../dist/auth/permissions.js';
import { connect } from '../../dist/db/client.js';
import { migrate } from '../../dist/db/migrate.js';
import { DEFAULT_EXTRACT, ensureMap } from '../../dist/map/build.js';
import { call, closeConnections, rng, stats } from '../scale/lib.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { values: opt } = parseArgs({ options: { starts: { type: 'string', default: '3' }, repeat: { type: 'string', default: '20' } } });
const STARTS = Number(opt.starts);
const REPEAT = Number(opt.repeat);
const say = (m) => process.stderr.write(`[bench/warm] ${m}\n`);

const ADMIN = 'postgres://postgres@127.0.0.1:5432/postgres';
const DB = `waymark_bench_warm_${process.pid}`;
const admin = postgres(ADMIN, { max: 1, onnotice: () => {} });
await admin.unsafe(`CREATE DATABASE ${DB}`);
const url = ADMIN.replace(/\/[^/]*$/, `/${DB}`);
const sql = connect(url, 2);
await migrate(sql);
const team = await createTeam(sql, { name: 'bench warm', plan: 'enterprise' });
const { key } = await createKey(sql, { teamId: team.id, name: 'bench', permissions: parsePermissionList('all') });
const mapDir = await ensureMap(join(root, 'data', 'test-maps'), DEFAULT_EXTRACT);

const VADUZ = { latitude: 47.1393, longitude: 9.5215 };
const BALZERS = { latitude: 47.0666, longitude: 9.503 };
const SCHAAN = { latitude: 47.165, longitude: 9.5093 };
const rand = rng(33);

/** `serve` on the map; resolves once it prints its listening line (it listens after the warm-up). */
function serve() {
  const started = performance.now();
  const child = spawn(process.execPath, [join(root, 'bin', 'waymark.js'), 'serve'], {
    env: { ...process.env, DATABASE_URL: url, WAYMARK_MAP: mapDir, WAYMARK_WORKERS: '2', WAYMARK_JOBS: 'off', PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stderr.on('data', (c) => (out += c));
  return new Promise((ok, fail) => {
    child.on('exit', (code) => fail(new Error(`serve exited ${code}: ${out}`)));
    child.stdout.on('data', (c) => {
      out += c;
      const m = /listening on http:\/\/localhost:(\d+)/.exec(out);
      if (m) ok({ child, base: `http://127.0.0.1:${m[1]}`, readyMs: performance.now() - started });
    });
  });
}

// The eleven municipalities' centres but one: each on a road.
const matrixPoints = [
  VADUZ,
  SCHAAN,
  BALZERS,
  { latitude: 47.107, longitude: 9.528 },
  { latitude: 47.212, longitude: 9.522 },
  { latitude: 47.218, longitude: 9.543 },
  { latitude: 47.238, longitude: 9.527 },
  { latitude: 47.118, longitude: 9.543 },
  { latitude: 47.22, longitude: 9.509 },
  { latitude: 47.185, longitude: 9.545 },
];
const kinds = {
  'route, 500 avoided POIs': (b) => call(b, key, 'POST', '/v1/routes', { waypoints: [VADUZ, BALZERS], avoid: { radius: 10 } }),
  'route, plain': (b) => call(b, key, 'POST', '/v1/routes', { waypoints: [SCHAAN, BALZERS] }),
  'matrix 10×10': (b) => call(b, key, 'POST', '/v1/matrix', { profile: 'driving-car', sources: matrixPoints, destinations: matrixPoints }),
  isochrone: (b) => call(b, key, 'POST', '/v1/isochrones', { locations: [VADUZ], range: [600] }),
  'reverse geocode': (b) => call(b, key, 'GET', `/v1/geo/reverse?latitude=${SCHAAN.latitude}&longitude=${SCHAAN.longitude}`),
  search: (b) => call(b, key, 'GET', '/v1/geo/search?q=Landstrasse'),
};

const starts = [];
try {
  // The POIs to avoid, once: 500 spread over the waypoints' box.
  {
    const s = await serve();
    for (let i = 0; i < 500; i++) {
      // Spread over the box the route selects its avoided POIs in (the waypoints' box grown by 1 km);
      // 10 m circles leave a way through.
      const p = { latitude: 47.06 + rand() * 0.085, longitude: 9.493 + rand() * 0.04 };
      const r = await call(s.base, key, 'POST', '/v1/pois', { name: `avoid ${i}`, ...p });
      if (r.status !== 201) throw new Error(`POST /v1/pois: ${r.status} ${r.message}`);
    }
    s.child.kill('SIGTERM');
    await new Promise((r) => s.child.once('exit', r));
    closeConnections();
  }
  for (let n = 0; n < STARTS; n++) {
    const s = await serve();
    const ready = await call(s.base, key, 'GET', '/ready');
    if (ready.status !== 200) throw new Error(`/ready ${ready.status}`);
    // The machine's load when this start began (the bench host is shared: say how busy it was).
    const load = +(await import('node:os')).loadavg()[0].toFixed(1);
    const result = { ready_ms: Math.round(s.readyMs), warm_up_ms: ready.json.map.warm_up.ms, load_average_1m: load, kinds: {} };
    // The first of each kind right after ready, in this order; then the repeats.
    for (const [kind, ask] of Object.entries(kinds)) {
      const r = await ask(s.base);
      const avoided = r.json?.data?.avoided ?? r.json?.avoided;
      if (kind.includes('avoided') && r.status === 200 && avoided?.count !== 500) throw new Error(`${avoided?.count} POIs avoided, not 500`);
      if (r.status !== 200) throw new Error(`${kind}: ${r.status} ${r.message} ${JSON.stringify(r.json)?.slice(0, 300)}`);
      result.kinds[kind] = { first_ms: +r.ms.toFixed(1) };
    }
    for (const [kind, ask] of Object.entries(kinds)) {
      const times = [];
      for (let i = 0; i < REPEAT; i++) times.push((await ask(s.base)).ms);
      const st = stats(times);
      Object.assign(result.kinds[kind], { median_ms: st.p50, p95_ms: st.p95, first_over_median: +(result.kinds[kind].first_ms / st.p50).toFixed(2) });
    }
    say(`start ${n + 1}: ready ${result.ready_ms} ms (warm-up ${result.warm_up_ms} ms), load average ${load}`);
    for (const [kind, k] of Object.entries(result.kinds))
      say(`  ${kind.padEnd(24)} first ${String(k.first_ms).padStart(7)} ms, median ${String(k.median_ms).padStart(6)} ms (×${k.first_over_median})`);
    starts.push(result);
    s.child.kill('SIGTERM');
    await new Promise((r) => s.child.once('exit', r));
    closeConnections();
  }
} finally {
  await sql.end({ timeout: 1 });
  await admin.unsafe(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
  await admin.end();
}

const worst = Object.fromEntries(Object.keys(kinds).map((k) => [k, Math.max(...starts.map((s) => s.kinds[k].first_over_median))]));
const out = {
  bench: 'warm',
  map: 'liechtenstein (bundled extract)',
  host: `${(await import('node:os')).cpus()[0]?.model ?? 'unknown'}, ${(await import('node:os')).cpus().length} cores (shared)`,
  compute_threads: 2,
  timing:
    'sequential, one kept-alive connection, send to last byte; first = the first request of its kind after the listening line (the process listens after the warm-up)',
  repeat: REPEAT,
  starts,
  worst_first_over_median: worst,
  command: 'node bench/warm/run.mjs',
  at: new Date().toISOString(),
};
writeFileSync(join(root, 'bench', 'results', 'warm-liechtenstein.json'), `${JSON.stringify(out, null, 2)}\n`);
say(`worst first/median over ${STARTS} starts: ${JSON.stringify(worst)}`);
