// Reverse-geocoding throughput: random points over Liechtenstein through the `geocode` task of the
// worker pool (2 workers), and in-process on one thread for comparison. Figures are noisy: the machine
// has 2 cores shared with other work.
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir, cpus } from 'node:os';
import { join } from 'node:path';
import { closePool, runTask } from '../../dist/compute/pool.js';
import { buildGeocoderIndex } from '../../dist/map/geocoder/index-build.js';
import { loadGeocoder } from '../../dist/engine/geocoder/reverse.js';
import { loadOsm } from '../../dist/map/osm/osm-data.js';
import { projectRoot } from '../../dist/lib/paths.js';

const WORKERS = 2;
const POINTS = Number(process.env.POINTS ?? 100_000);
// Points per task; one point per task is how a job geocoding POIs one at a time would call it.
const BATCHES = [1000, 100, 10, 1];
// Liechtenstein's bounding box; part of it is Switzerland and Austria, as real POIs near a border would be.
const BOX = { south: 47.048, west: 9.471, north: 47.271, east: 9.636 };

process.env.WAYMARK_WORKERS = String(WORKERS);
const extract = join(projectRoot, '..', 'shared', 'data', 'osm', 'liechtenstein.osm.pbf');

let seed = 42;
const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const points = Array.from({ length: POINTS }, () => ({
  lat: BOX.south + random() * (BOX.north - BOX.south),
  lon: BOX.west + random() * (BOX.east - BOX.west),
}));

const mapDir = await mkdtemp(join(tmpdir(), 'waymark-bench-geo-'));
try {
  let t = performance.now();
  const osm = await loadOsm(extract);
  const readMs = performance.now() - t;
  t = performance.now();
  const counts = await buildGeocoderIndex(osm, mapDir);
  const buildMs = performance.now() - t;
  console.log(`read extract ${readMs.toFixed(0)} ms, built geocoder index ${buildMs.toFixed(0)} ms`, counts);

  t = performance.now();
  const geocoder = await loadGeocoder(mapDir);
  const loadMs = performance.now() - t;
  t = performance.now();
  let withStreet = 0,
    withCity = 0,
    withCountry = 0;
  for (const p of points) {
    const a = geocoder.reverseGeocode(p.lat, p.lon);
    if (a.street) withStreet++;
    if (a.city) withCity++;
    if (a.country) withCountry++;
  }
  const inProcess = POINTS / ((performance.now() - t) / 1000);
  console.log(`load ${loadMs.toFixed(0)} ms; in-process, 1 thread: ${inProcess.toFixed(0)} lookups/s`);

  // Warm-up: every worker loads the index once.
  await Promise.all(Array.from({ length: WORKERS * 2 }, () => runTask('geocode', { mapDir, points: points.slice(0, 10) })));
  const pool = {};
  for (const batch of BATCHES) {
    t = performance.now();
    // At most 64 tasks in flight, well inside the pool's queue limit, the way a job runner would submit.
    let next = 0;
    let done = 0;
    const lane = async () => {
      while (next < POINTS) {
        const from = next;
        next += batch;
        const addresses = await runTask('geocode', { mapDir, points: points.slice(from, from + batch) });
        done += addresses.length;
      }
    };
    await Promise.all(Array.from({ length: 64 }, lane));
    const rate = done / ((performance.now() - t) / 1000);
    pool[`batch${batch}`] = Math.round(rate);
    console.log(`pool, ${WORKERS} workers, batches of ${batch}: ${rate.toFixed(0)} lookups/s`);
  }

  const result = {
    date: new Date().toISOString(),
    machine: { cpus: cpus().length, model: cpus()[0]?.model, note: '2 cores shared with other processes; figures are noisy' },
    extract: 'liechtenstein.osm.pbf',
    points: POINTS,
    workers: WORKERS,
    index: { readExtractMs: Math.round(readMs), buildMs: Math.round(buildMs), loadMs: Math.round(loadMs), counts },
    lookupsPerSecond: { inProcessOneThread: Math.round(inProcess), pool },
    target: { lookupsPerSecondInPool: 5000 },
    answered: { street: withStreet / POINTS, city: withCity / POINTS, country: withCountry / POINTS },
  };
  await mkdir(join(projectRoot, 'bench', 'results'), { recursive: true });
  await writeFile(join(projectRoot, 'bench', 'results', 'geocoding.json'), `${JSON.stringify(result, null, 2)}\n`);
  console.log('wrote bench/results/geocoding.json');
} finally {
  await closePool();
  await rm(mapDir, { recursive: true, force: true });
}

// End to end through the background job (needs PostgreSQL): merges its figures into the same file.
await import('./job.mjs');
