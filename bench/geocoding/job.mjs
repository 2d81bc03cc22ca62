// End-to-end geocoding through the background job: 10,000 pending POIs inserted in bulk, timed until none
// is pending (claim, pool lookups, place upserts, one write per batch), for one worker process and for two
// side by side; then the latency of single POIs woken by NOTIFY. Needs PostgreSQL
// (BENCH_ADMIN_URL, default postgres://postgres@127.0.0.1:5432/postgres); uses a scratch database.
// Figures are noisy: the machine has 2 cores shared with other work. Merged into bench/results/geocoding.json.
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import pino from 'pino';
import postgres from 'postgres';
import { createTeam } from '../../dist/auth/admin.js';
import { closePool, runTask } from '../../dist/compute/pool.js';
import { connect } from '../../dist/db/client.js';
import { migrate } from '../../dist/db/migrate.js';
import { GeocodingRunner } from '../../dist/geocoding/runner.js';
import { newId } from '../../dist/lib/ids.js';
import { ensureDefaultMap } from '../../dist/map/build.js';
import { projectRoot } from '../../dist/lib/paths.js';

const POIS = Number(process.env.POIS ?? 10_000);
const SINGLES = 20;
const BOX = { south: 47.048, west: 9.471, north: 47.271, east: 9.636 };
const ADMIN_URL = process.env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const DB = 'waymark_bench_geocoding';
process.env.WAYMARK_WORKERS ??= '2';

const log = pino({ level: 'warn' });
const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
await admin.unsafe(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
await admin.unsafe(`CREATE DATABASE ${DB}`);
const sql = connect(ADMIN_URL.replace(/\/[^/]*$/, `/${DB}`));
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
const pending = async () => (await sql`SELECT count(*)::int AS n FROM pois WHERE geocode_pending`)[0].n;

let seed = 11;
const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;

async function insertPending(teamId, n) {
  const ids = Array.from({ length: n }, () => newId());
  const lats = ids.map(() => BOX.south + random() * (BOX.north - BOX.south));
  const lons = ids.map(() => BOX.west + random() * (BOX.east - BOX.west));
  await sql`
    INSERT INTO pois (id, team_id, name, latitude, longitude)
    SELECT id, ${teamId}, 'p ' || id, lat, lon FROM unnest(${ids}::text[], ${lats}::float8[], ${lons}::float8[]) AS t(id, lat, lon)`;
  return ids;
}

/** Starts `processes` workers (each with its own connection pool, as separate servers would have), times until nothing is pending. */
async function run(teamId, mapDir, processes) {
  await insertPending(teamId, POIS);
  const pools = Array.from({ length: processes }, () => connect(ADMIN_URL.replace(/\/[^/]*$/, `/${DB}`)));
  const workers = pools.map((pool) => new GeocodingRunner(pool, { mapDir, log }));
  const t = performance.now();
  await Promise.all(workers.map((w) => w.start()));
  while ((await pending()) > 0) await sleep(5);
  const seconds = (performance.now() - t) / 1000;
  await Promise.all(workers.map((w) => w.stop()));
  await Promise.all(pools.map((pool) => pool.end()));
  return Math.round(POIS / seconds);
}

try {
  await migrate(sql);
  const mapDir = await ensureDefaultMap(join(projectRoot, 'data'));
  const team = await createTeam(sql, { name: 'bench', plan: 'enterprise' });
  // Warm-up: every pool worker loads the geocoder index once.
  await Promise.all(Array.from({ length: 4 }, () => runTask('geocode', { mapDir, points: [{ lat: 47.14, lon: 9.52 }] })));

  const oneWorker = await run(team.id, mapDir, 1);
  console.log(`end to end, 1 worker (2 lanes of 500): ${oneWorker} POIs/s for ${POIS} POIs`);
  const twoWorkers = await run(team.id, mapDir, 2);
  console.log(`end to end, 2 workers side by side: ${twoWorkers} POIs/s for ${POIS} POIs`);
  const [places] =
    await sql`SELECT (SELECT count(*)::int FROM countries) AS countries, (SELECT count(*)::int FROM cities) AS cities, (SELECT count(*)::int FROM zipcodes) AS zipcodes`;

  // Latency of one POI: inserted with the notification the API sends, until its address is written.
  const worker = new GeocodingRunner(sql, { mapDir, log });
  await worker.start();
  const latencies = [];
  for (let i = 0; i < SINGLES; i++) {
    const t = performance.now();
    const [id] = await insertPending(team.id, 1);
    await sql`SELECT pg_notify('waymark_geocode', '')`;
    while ((await sql`SELECT geocode_pending FROM pois WHERE id = ${id}`)[0].geocode_pending) await sleep(1);
    latencies.push(performance.now() - t);
    await sleep(100);
  }
  await worker.stop();
  latencies.sort((a, b) => a - b);
  const latency = { medianMs: Math.round(latencies[SINGLES >> 1]), maxMs: Math.round(latencies[SINGLES - 1]) };
  console.log(`one POI, create to address: median ${latency.medianMs} ms, max ${latency.maxMs} ms`);

  const file = join(projectRoot, 'bench', 'results', 'geocoding.json');
  const results = existsSync(file) ? JSON.parse(await readFile(file, 'utf8')) : {};
  results.endToEnd = {
    date: new Date().toISOString(),
    pois: POIS,
    poisPerSecond: { oneWorker, twoWorkers },
    singlePoiLatency: latency,
    places,
    setup:
      'GeocodingRunner (batches of 500, 2 lanes) on PostgreSQL, 2 pool threads; "twoWorkers": two workers with their own connection pools in one process, sharing the threads; 2 cores shared with other work, figures are noisy',
    target: { poisPerSecond: 1000 },
  };
  await mkdir(join(projectRoot, 'bench', 'results'), { recursive: true });
  await writeFile(file, `${JSON.stringify(results, null, 2)}\n`);
  console.log('wrote endToEnd to bench/results/geocoding.json');
} finally {
  await closePool();
  await sql.end();
  await admin.unsafe(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
  await admin.end();
}
