// What a far route's time over HTTP is made of, by the form of its answer (issues 31 and 35): one `waymark
// serve` on a map, the same far car routes (≥ 60 % of the diagonal apart, from points of the map's shapes)
// asked in six forms (plain GeoJSON, no line, polyline6, and each with steps), a form at a time, kept-alive and
// on a new connection per request, timed from send to the last byte; one untimed pass over every form first.
// The forms tell the bytes apart from the work: a form without the line still computes it, polyline6 writes
// a third of the text. Also the server's page faults per request in each form (a reply written into memory
// not yet touched would show there). Run `npm run build` first; PostgreSQL on 127.0.0.1:5432.
// Writes bench/results/forms-http-<label>.json.
//   node bench/routing/forms-http.mjs --map DIR [--pairs 80] [--workers 2] [--label NAME]
import { readFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { readShapeFiles } from '../../dist/map/map-dir.js';
import {
  ADMIN_URL,
  benchDatabaseUrl,
  call,
  closeConnections,
  createBenchDatabase,
  dropBenchDatabase,
  farShapePairs,
  freePort,
  gitCommit,
  MODES,
  spawnServer,
  stats,
  stopChild,
  waitForReady,
} from '../scale/lib.mjs';

const { values: opt } = parseArgs({
  options: {
    map: { type: 'string' },
    pairs: { type: 'string', default: '80' },
    workers: { type: 'string', default: '2' },
    label: { type: 'string', default: 'map' },
  },
});
if (!opt.map) throw new Error('usage: --map DIR [--pairs 80] [--workers 2] [--label NAME]');
const log = (m) => process.stderr.write(`[forms-http] ${m}\n`);
const FORMS = {
  plain: {},
  no_line: { overview: 'false' },
  polyline6: { geometry_format: 'polyline6' },
  steps: { steps: true },
  steps_no_line: { steps: true, overview: 'false' },
  steps_polyline6: { steps: true, geometry_format: 'polyline6' },
};
/** The process's minor page faults so far (Linux: /proc/<pid>/stat, the 10th field). */
const minorFaults = (pid) => +readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[7];

const mapDir = resolve(opt.map);
const dbName = `waymark_forms_http_${process.pid}`;
const { key } = await createBenchDatabase({ adminUrl: ADMIN_URL, dbName, team: 'forms' });
const port = await freePort();
const server = spawnServer({ port, mapDir, dbUrl: benchDatabaseUrl(dbName), workers: +opt.workers, tag: 'serve' });
const base = `http://127.0.0.1:${port}`;
try {
  const t0 = performance.now();
  await waitForReady({ base, t0, timeoutMs: 180_000, server });
  log(`ready in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const post = (body, newConnection) => call(base, key, 'POST', '/v1/routes', body, { newConnection });
  const shapes = await readShapeFiles(mapDir);
  const { pairs, diagonal } = await farShapePairs({
    shapes,
    count: +opt.pairs,
    routes: async (a, b) => (await post({ waypoints: [a, b], profile: 'driving-car' })).status === 200,
  });
  log(`${pairs.length} pairs, diagonal ${Math.round(diagonal / 1000)} km; load ${loadavg()[0].toFixed(2)}`);
  const result = { map: mapDir, commit: gitCommit(resolve(import.meta.dirname, '../..')), pairs: pairs.length, workers: +opt.workers, forms: {} };
  for (const pass of ['warm-up', 'timed'])
    for (const mode of MODES)
      for (const [name, form] of Object.entries(FORMS)) {
        const ms = [];
        let bytes = 0;
        const faults = minorFaults(server.pid);
        for (const [a, b] of pairs) {
          const r = await post({ waypoints: [a, b], profile: 'driving-car', ...form }, mode === 'new_connection');
          if (r.status !== 200) throw new Error(`${name}: ${r.status} ${r.message}`);
          ms.push(r.ms);
          bytes += r.bytes;
        }
        if (pass === 'warm-up') continue;
        const s = stats(ms);
        const perRequest = +((minorFaults(server.pid) - faults) / pairs.length).toFixed(1);
        (result.forms[name] ??= {})[mode] = { ms: s, mean_bytes: Math.round(bytes / pairs.length), page_faults_per_request: perRequest };
        console.log(`${name.padEnd(16)} ${mode.padEnd(15)} p50 ${s.p50} p95 ${s.p95} ms, ${Math.round(bytes / pairs.length / 1000)} kB, ${perRequest} faults`);
      }
  result.load_after = loadavg()[0];
  const file = join(import.meta.dirname, '../results', `forms-http-${opt.label}.json`);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify({ ...result, at: new Date().toISOString() }, null, 2)}\n`);
  log(`wrote ${file}`);
} finally {
  closeConnections();
  await stopChild(server);
  await dropBenchDatabase(ADMIN_URL, dbName);
}
