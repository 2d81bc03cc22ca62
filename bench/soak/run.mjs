// Soak: mixed traffic for --minutes through the shipped proxy (Debian's nginx with deploy/nginx.conf,
// scripts/nginx-proxy.mjs) in front of --processes `waymark serve` on one PostgreSQL database of its own,
// with each serve process's RSS sampled every minute. The traffic is a closed loop of
// --connections keep-alive clients: POI writes and reads, POIs by distance, routes, matrices, isochrones,
// address searches, vector tiles, and a rate-limited team that runs into its limit (429s). Every sample
// is written to bench/results/soak-<map>.json as it is taken, so a soak cut short keeps its minutes.
// "Flat after warm-up" is read from the samples: the RSS growth from the end of the warm-up (a fifth of
// the run, at least one minute) to the last sample, per process.
// Usage: npm run build && node bench/soak/run.mjs [--minutes 60] [--map DIR] [--processes 2]
//          [--connections 16] [--warmup-minutes N] [--out soak-NAME.json]
// (without --map: the bundled Liechtenstein extract's map, built under data/ if it is not there yet).
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { createKey, createTeam } from '../../dist/auth/admin.js';
import { parsePermissionList } from '../../dist/auth/permissions.js';
import { connect } from '../../dist/db/client.js';
import { migrate } from '../../dist/db/migrate.js';
import { ensureDefaultMap } from '../../dist/map/build.js';
import { readManifest } from '../../dist/map/map-dir.js';
import { hasNginx, startProxy } from '../../scripts/nginx-proxy.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { values: opts } = parseArgs({
  options: {
    minutes: { type: 'string', default: '60' },
    map: { type: 'string' },
    processes: { type: 'string', default: '2' },
    connections: { type: 'string', default: '16' },
    'warmup-minutes': { type: 'string' },
    out: { type: 'string' },
    'admin-url': { type: 'string', default: process.env.WAYMARK_TEST_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
  },
});
if (!hasNginx) {
  console.error("the soak needs Debian's nginx (/usr/sbin/nginx): apt-get install nginx");
  process.exit(2);
}
const minutes = Number(opts.minutes);
const warmupMinutes = Number(opts['warmup-minutes'] ?? Math.max(1, Math.round(minutes / 5)));
const mapDir = opts.map ?? (await ensureDefaultMap(join(root, 'data')));
const manifest = await readManifest(mapDir);
const mapName = opts.map ? basename(opts.map) : 'liechtenstein';
const outFile = join(root, 'bench', 'results', opts.out ?? `soak-${mapName}.json`);
const log = (...a) => console.error(new Date().toISOString().slice(11, 19), ...a);

// A database of the soak's own, dropped at the end.
const dbName = `waymark_soak_${process.pid}`;
const admin = postgres(opts['admin-url'], { max: 1, onnotice: () => {} });
await admin.unsafe(`CREATE DATABASE ${dbName}`);
const dbUrl = opts['admin-url'].replace(/\/[^/]*$/, `/${dbName}`);
const sql = connect(dbUrl, 2);
await migrate(sql);
const team = await createTeam(sql, { name: 'soak', plan: 'enterprise' });
const { key } = await createKey(sql, { teamId: team.id, name: 'soak', permissions: parsePermissionList('all') });
const limited = await createTeam(sql, { name: 'soak limited', plan: 'pro', rateLimit: 600 });
const { key: limitedKey } = await createKey(sql, { teamId: limited.id, name: 'soak', permissions: parsePermissionList('all') });

/** `waymark serve` as a child, resolved with its port once it listens. */
function serve() {
  const child = spawn(process.execPath, [join(root, 'bin', 'waymark.js'), 'serve'], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', DATABASE_URL: dbUrl, WAYMARK_MAP: mapDir, WAYMARK_TRUSTED_PROXIES: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr.on('data', (c) => (output += c));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}:\n${output}`)));
    child.stdout.on('data', (c) => {
      output += c;
      const m = /waymark listening on http:\/\/localhost:(\d+)/.exec(output);
      if (m) resolve({ child, port: Number(m[1]), output: () => output });
    });
  });
}

log(`map ${mapDir}; ${opts.processes} serve processes; ${opts.connections} connections; ${minutes} min (warm-up ${warmupMinutes})`);
const servers = await Promise.all(Array.from({ length: Number(opts.processes) }, serve));
const proxy = await startProxy(servers.map((s) => `127.0.0.1:${s.port}`));
const base = `http://127.0.0.1:${proxy.port}`;

// Points inside the map's data, for routes, searches and tiles.
const [west, south, east, north] = manifest.tiles?.bounds ?? [9.47, 47.05, 9.63, 47.27];
const inset = (lo, hi) => lo + (hi - lo) * (0.2 + 0.6 * Math.random());
const pick = (xs) => xs[Math.floor(Math.random() * xs.length)];
const point = () => ({ latitude: Number(inset(south, north).toFixed(5)), longitude: Number(inset(west, east).toFixed(5)) });
const tile = (z) => {
  const { latitude, longitude } = point();
  const n = 2 ** z,
    s = Math.sin((latitude * Math.PI) / 180);
  return `/tiles/${z}/${Math.floor(((longitude + 180) / 360) * n)}/${Math.floor((0.5 - Math.log((1 + s) / (1 - s)) / (4 * Math.PI)) * n)}.mvt`;
};
// Points on roads (snapped with /v1/nearest): random points of the box are often too far from a road to
// route from (422), which would make the routing part of the mix mostly cheap refusals.
const roadPoints = [];
for (let i = 0; i < 1000 && roadPoints.length < 200; i++) {
  const p = point();
  const res = await fetch(`${base}/v1/nearest?latitude=${p.latitude}&longitude=${p.longitude}`, { headers: { 'X-API-KEY': key } });
  const body = await res.json();
  if (res.status === 200 && body.data[0] && body.data[0].distance < 100) roadPoints.push(body.data[0].location);
}
if (roadPoints.length < 10) throw new Error(`only ${roadPoints.length} points on roads found in the map's box`);
const onRoad = () => pick(roadPoints);
const WORDS = ['Vaduz', 'Schaan', 'Balzers', 'Triesen', 'Eschen', 'Ruggell', 'Mauren', 'Landstrasse', 'Kirchstrasse', 'Bahnhof'];
const created = [];

/** The mix: [weight, name, request]. */
const MIX = [
  [12, 'poi create', () => ({ method: 'POST', path: '/v1/pois', body: { name: `soak ${created.length}`, ...point() } })],
  [12, 'poi read', () => (created.length ? { method: 'GET', path: `/v1/pois/${pick(created)}` } : { method: 'GET', path: '/v1/pois?limit=10' })],
  [
    8,
    'poi update',
    () => (created.length ? { method: 'PUT', path: `/v1/pois/${pick(created)}`, body: { name: `soak moved ${Date.now()}`, ...point() } } : undefined),
  ],
  [8, 'pois near', () => ({ method: 'GET', path: `/v1/pois?latitude=${point().latitude}&longitude=${point().longitude}&distance=2000&limit=20` })],
  [18, 'route', () => ({ method: 'POST', path: '/v1/routes', body: { waypoints: [onRoad(), onRoad()] } })],
  [4, 'matrix', () => ({ method: 'POST', path: '/v1/matrix', body: { sources: Array.from({ length: 6 }, onRoad) } })],
  [2, 'isochrone', () => ({ method: 'POST', path: '/v1/isochrones', body: { locations: [onRoad()], range: [600] } })],
  [10, 'search', () => ({ method: 'GET', path: `/v1/geo/search?q=${encodeURIComponent(pick(WORDS))}&limit=5` })],
  [4, 'reverse', () => ({ method: 'GET', path: `/v1/geo/reverse?latitude=${point().latitude}&longitude=${point().longitude}` })],
  [16, 'tile', () => ({ method: 'GET', path: tile(10 + Math.floor(Math.random() * 5)), headers: { 'Accept-Encoding': 'gzip' } })],
  [6, 'rate limited', () => ({ method: 'GET', path: '/v1/categories', key: limitedKey })],
];
const totalWeight = MIX.reduce((s, [w]) => s + w, 0);
const choose = () => {
  let r = Math.random() * totalWeight;
  for (const entry of MIX) if ((r -= entry[0]) < 0) return entry;
  return MIX[0];
};

// Per minute: statuses by kind, latencies, failures without an answer.
let window = { statuses: {}, latencies: [], failures: 0 };
const totals = { requests: 0, statuses: {}, failures: 0, byKind: {} };
let stopped = false;
async function client() {
  while (!stopped) {
    const [, kind, make] = choose();
    const req = make();
    if (!req) continue;
    const started = performance.now();
    try {
      const res = await fetch(`${base}${req.path}`, {
        method: req.method,
        headers: { 'X-API-KEY': req.key ?? key, ...(req.body ? { 'Content-Type': 'application/json' } : {}), ...req.headers },
        body: req.body ? JSON.stringify(req.body) : undefined,
        signal: AbortSignal.timeout(60_000),
      });
      const text = await res.arrayBuffer();
      if (kind === 'poi create' && res.status === 201 && created.length < 5000) created.push(JSON.parse(Buffer.from(text).toString()).data.id);
      const s = String(res.status);
      window.statuses[s] = (window.statuses[s] ?? 0) + 1;
      totals.statuses[s] = (totals.statuses[s] ?? 0) + 1;
      (totals.byKind[kind] ??= {})[s] = (totals.byKind[kind][s] ?? 0) + 1;
    } catch (err) {
      window.failures++;
      totals.failures++;
      (totals.byKind[kind] ??= {}).failed = (totals.byKind[kind].failed ?? 0) + 1;
      if (totals.failures <= 5) log(`${kind}: ${err.cause?.code ?? err.message}`);
    }
    window.latencies.push(performance.now() - started);
    totals.requests++;
  }
}

const rssMb = (pid) => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 102.4) / 10 : null;
};
const quantile = (xs, q) => {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor(q * s.length))] * 10) / 10;
};
const samples = [];
const started = Date.now();
function sample() {
  const w = window;
  window = { statuses: {}, latencies: [], failures: 0 };
  samples.push({
    minute: Math.round((Date.now() - started) / 6000) / 10,
    rssMb: servers.map((s) => rssMb(s.child.pid)),
    requests: w.latencies.length,
    statuses: w.statuses,
    failures: w.failures,
    p50Ms: quantile(w.latencies, 0.5),
    p99Ms: quantile(w.latencies, 0.99),
  });
  const last = samples.at(-1);
  log(
    `minute ${last.minute}: RSS ${last.rssMb.join(', ')} MB; ${last.requests} requests, p50 ${last.p50Ms} ms, p99 ${last.p99Ms} ms; ${JSON.stringify(last.statuses)}`,
  );
  write();
}

function summary() {
  const after = samples.filter((s) => s.minute >= warmupMinutes);
  const first = after[0],
    last = samples.at(-1);
  return {
    requests: totals.requests,
    statuses: totals.statuses,
    failures: totals.failures,
    fiveHundreds: Object.entries(totals.statuses)
      .filter(([s]) => Number(s) >= 500)
      .reduce((n, [, c]) => n + c, 0),
    byKind: totals.byKind,
    // Per process: RSS at the end of the warm-up, at the end, and the growth between (MB).
    rssAfterWarmupMb: first?.rssMb ?? null,
    rssLastMb: last?.rssMb ?? null,
    rssGrowthAfterWarmupMb: first && last ? last.rssMb.map((r, i) => Math.round((r - first.rssMb[i]) * 10) / 10) : null,
  };
}

function write() {
  mkdirSync(dirname(outFile), { recursive: true });
  writeFileSync(
    outFile,
    `${JSON.stringify(
      {
        date: new Date(started).toISOString(),
        map: mapName,
        mapDir,
        minutes,
        warmupMinutes,
        processes: servers.length,
        connections: Number(opts.connections),
        proxy: 'Debian nginx with deploy/nginx.conf',
        mix: MIX.map(([w, kind]) => ({ kind, weight: w })),
        command: `node bench/soak/run.mjs ${process.argv.slice(2).join(' ')}`.trim(),
        samples,
        summary: summary(),
      },
      null,
      1,
    )}\n`,
  );
}

sample();
const clients = Array.from({ length: Number(opts.connections) }, client);
const ticker = setInterval(sample, 60_000);
await new Promise((resolve) => setTimeout(resolve, minutes * 60_000));
clearInterval(ticker);
stopped = true;
await Promise.all(clients);
sample();

await proxy.stop();
for (const s of servers) {
  s.child.removeAllListeners('exit');
  s.child.kill('SIGTERM');
}
await Promise.all(servers.map((s) => new Promise((resolve) => (s.child.exitCode !== null ? resolve() : s.child.once('exit', resolve)))));
await sql.end();
await admin.unsafe(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
await admin.end();
const s = summary();
log(
  `${s.requests} requests, ${s.fiveHundreds} × 5xx, ${s.failures} without an answer; RSS growth after warm-up ${JSON.stringify(s.rssGrowthAfterWarmupMb)} MB -> ${outFile}`,
);
