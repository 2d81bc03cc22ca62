// HTTP throughput and latency: the authenticated POI read and a distance-filtered list over 100,000 POIs,
// beside a bare uWS hello-world, all driven by the same autocannon settings in one run.
// Usage: node bench/http/run.mjs [--duration 10] [--connections 50]   (needs `npm run build` and local PostgreSQL)
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import postgres from 'postgres';
import { createKey, createTeam } from '../../dist/auth/admin.js';
import { parsePermissionList } from '../../dist/auth/permissions.js';
import { connect } from '../../dist/db/client.js';
import { migrate } from '../../dist/db/migrate.js';
import { projectRoot } from '../../dist/lib/paths.js';

const { values: opts } = parseArgs({
  options: { duration: { type: 'string', default: '10' }, connections: { type: 'string', default: '50' }, pois: { type: 'string', default: '100000' } },
});
const duration = Number(opts.duration);
const connections = Number(opts.connections);
const poiCount = Number(opts.pois);
const listLightConnections = 10;
const adminUrl = process.env.WAYMARK_BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const dbName = 'waymark_bench_http';
const dbUrl = adminUrl.replace(/\/[^/]*$/, `/${dbName}`);
const log = (msg) => process.stderr.write(`[bench/http] ${msg}\n`);

function startProcess(args, env, ready) {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.on('exit', (code) => reject(new Error(`${args.join(' ')} exited ${code}: ${out}`)));
    child.stdout.on('data', (c) => {
      out += c;
      const port = ready(out);
      if (port) {
        child.stdout.resume();
        resolve({ child, port });
      }
    });
  });
}

async function load(title, url, requests, conns = connections) {
  // Every row is measured in the steady state: 2 s of the same load first (JIT, the POI JSON each
  // process keeps, the database's buffers), not counted.
  log(`${title}: warming up for 2s, then ${conns} connections for ${duration}s`);
  await autocannon({ url, connections: conns, duration: 2, pipelining: 1, requests });
  const result = await autocannon({ url, connections: conns, duration, pipelining: 1, requests });
  const r = {
    title,
    connections: conns,
    requests_per_s: Math.round(result.requests.average),
    latency_p50_ms: result.latency.p50,
    latency_p99_ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
  log(`  ${r.requests_per_s} req/s, p50 ${r.latency_p50_ms} ms, p99 ${r.latency_p99_ms} ms, non-2xx ${r.non2xx}`);
  return r;
}

const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
await admin.unsafe(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
await admin.unsafe(`CREATE DATABASE ${dbName}`);
await admin.end();
const sql = connect(dbUrl, 2);
await migrate(sql);
// A pro team with a high override: the limiter and usage counting run as for any paying team.
const team = await createTeam(sql, { name: 'bench', plan: 'pro', rateLimit: 100_000_000, poiLimit: 10_000_000 });
const { key } = await createKey(sql, { teamId: team.id, name: 'bench', permissions: parsePermissionList('all') });
log(`seeding ${poiCount} POIs over Liechtenstein`);
await sql`
  INSERT INTO pois (id, team_id, name, latitude, longitude, geocode_pending)
  SELECT upper(lpad(to_hex(g), 26, '0')), ${team.id}, 'poi ' || g, 47.05 + random() * 0.2, 9.47 + random() * 0.16, false
  FROM generate_series(1, ${poiCount}) g`;
await sql`UPDATE teams SET poi_count = ${poiCount} WHERE id = ${team.id}`;
// Autovacuum would get there on its own: the steady state of a table, with its visibility map set.
await sql`VACUUM ANALYZE pois`;
const ids = (await sql`SELECT id FROM pois WHERE team_id = ${team.id} ORDER BY random() LIMIT 1000`).map((r) => r.id);
// ULIDs use Crockford base32; the seeded ids are hex (a subset of its alphabet) padded to 26.

const hello = await startProcess([join(projectRoot, 'bench/http/hello.mjs')], {}, (out) => /"port":(\d+)/.exec(out)?.[1]);
const server = await startProcess(
  [join(projectRoot, 'bin/waymark.js'), 'serve'],
  { DATABASE_URL: dbUrl, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn', WAYMARK_JOBS: 'off' },
  (out) => /waymark listening on http:\/\/localhost:(\d+)/.exec(out)?.[1],
);
const headers = { 'x-api-key': key };
let i = 0;
const pick = () => ids[i++ % ids.length];

const results = [];
results.push(await load('uWS hello-world', `http://127.0.0.1:${hello.port}/`));
results.push(
  await load('GET /v1/pois/{id}', `http://127.0.0.1:${server.port}`, [
    { method: 'GET', headers, setupRequest: (req) => ({ ...req, path: `/v1/pois/${pick()}` }) },
  ]),
);
const nearby = [
  {
    method: 'GET',
    headers,
    setupRequest: (req) => ({
      ...req,
      path: `/v1/pois?latitude=${(47.07 + Math.random() * 0.16).toFixed(5)}&longitude=${(9.49 + Math.random() * 0.12).toFixed(5)}&distance=500`,
    }),
  },
];
// The first distance list of a team builds the process's index of its POI positions (~0.3 s for
// 100,000; the lists meanwhile are answered by SQL): inside the warm-up.
results.push(await load('GET /v1/pois?latitude&longitude&distance=500', `http://127.0.0.1:${server.port}`, nearby));
// The same list under a lighter load: its latency when the machine is not saturated.
results.push(await load('GET /v1/pois?latitude&longitude&distance=500', `http://127.0.0.1:${server.port}`, nearby, listLightConnections));

hello.child.kill();
server.child.kill();
await sql.end();

const [bare, read, list, listLight] = results;
const summary = {
  machine: { cores: (await import('node:os')).availableParallelism(), node: process.version },
  pois: poiCount,
  connections,
  duration_s: duration,
  results,
  ratio_read_to_bare: +(read.requests_per_s / bare.requests_per_s).toFixed(3),
  ratio_list_to_bare: +(list.requests_per_s / bare.requests_per_s).toFixed(3),
  targets: { read_ratio_min: 0.2, read_p99_ms_max: 5, list_p99_ms_max: 15 },
  met: {
    read_ratio: read.requests_per_s / bare.requests_per_s >= 0.2,
    read_p99: read.latency_p99_ms < 5,
    [`list_p99_at_${connections}_connections`]: list.latency_p99_ms < 15,
    [`list_p99_at_${listLightConnections}_connections`]: listLight.latency_p99_ms < 15,
  },
};
console.log('\nHTTP benchmark (same machine, same load generator, one run)');
console.table(
  results.map((r) => ({
    endpoint: r.title,
    connections: r.connections,
    'req/s': r.requests_per_s,
    'p50 ms': r.latency_p50_ms,
    'p99 ms': r.latency_p99_ms,
    'non-2xx': r.non2xx,
  })),
);
console.log(`POI read / bare uWS: ${summary.ratio_read_to_bare} (target ≥ 0.2); distance list / bare: ${summary.ratio_list_to_bare}`);
console.log('targets met:', summary.met);
mkdirSync(join(projectRoot, 'bench/results'), { recursive: true });
writeFileSync(join(projectRoot, 'bench/results/http.json'), JSON.stringify(summary, null, 2));
process.exit(0);
