// Batch-size road matrices: N × N durations and distances over the contraction hierarchy, computed in
// pieces of 200 rows on one thread as an optimization job does (engine.matrixInPieces), in process.
// Prints wall and CPU seconds and writes bench/results/matrix-<label>.json.
//
//   node bench/matrix/run.mjs [--map DIR] [--points 2000] [--span 0.5] [--label NAME]
//
// Without --map, the Liechtenstein map is built first (into a temporary directory). --span keeps the
// points within ±span degrees of a random road node (a delivery region); 0 spreads them over the map.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildMap, DEFAULT_EXTRACT } from '../../dist/map/build.js';
import { readGraphFiles, readShapeFiles } from '../../dist/map/map-dir.js';
import { nodePositionsE7, toDegrees } from '../../dist/map/graphs/road-graph.js';
import { placeGraphs } from '../../dist/engine/graph-memory.js';
import { RouteCore } from '../../dist/engine/route-core.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { values: opt } = parseArgs({
  options: { map: { type: 'string' }, points: { type: 'string', default: '2000' }, span: { type: 'string', default: '0.5' }, label: { type: 'string' } },
});
const N = Number(opt.points),
  span = Number(opt.span),
  PIECE = 200;

let mapDir = opt.map,
  work;
if (!mapDir) {
  work = mkdtempSync(join(tmpdir(), 'waymark-matrix-'));
  mapDir = join(work, 'map');
  console.error('building the Liechtenstein map ...');
  await buildMap(DEFAULT_EXTRACT, mapDir);
}
const manifest = JSON.parse(readFileSync(join(mapDir, 'manifest.json'), 'utf8'));
const shapes = await readShapeFiles(mapDir);
const g = await readGraphFiles(mapDir, 'driving-car', manifest.profiles['driving-car'], shapes);
const coords = toDegrees(nodePositionsE7(g));
const core = new RouteCore(placeGraphs({ 'driving-car': g }));

let seed = 5;
const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const centre = Math.floor(rand() * g.nodeCount);
const [clat, clon] = [coords[2 * centre], coords[2 * centre + 1]];
const points = [];
while (points.length < N) {
  const i = Math.floor(rand() * g.nodeCount);
  const lat = coords[2 * i],
    lon = coords[2 * i + 1];
  if (!span || (Math.abs(lat - clat) < span && Math.abs(lon - clon) < span)) points.push({ lat, lon });
}

console.error(`${N} × ${N} matrix on ${g.nodeCount.toLocaleString('en-US')} car nodes, pieces of ${PIECE} rows`);
const started = performance.now(),
  cpu0 = process.cpuUsage();
let unreachable = 0;
for (let from = 0; from < N; from += PIECE) {
  const r = core.matrix({ profile: 'driving-car', points, packed: true, rows: { from, to: Math.min(N, from + PIECE) } });
  if (!r.ok) throw new Error(`matrix failed: ${JSON.stringify(r.error)}`);
  for (const v of r.value.packed.durations) if (!Number.isFinite(v)) unreachable++;
  console.error(`  rows ${Math.min(N, from + PIECE)} of ${N} (${((performance.now() - started) / 1000).toFixed(1)} s)`);
}
const cpu = process.cpuUsage(cpu0);
const result = {
  label: opt.label ?? (opt.map ? mapDir.split('/').pop() : 'liechtenstein'),
  measuredAt: new Date().toISOString(),
  machine: { loadavg1AtEnd: loadavg()[0] },
  carNodes: g.nodeCount,
  points: N,
  spanDegrees: span,
  pieceRows: PIECE,
  wallS: Number(((performance.now() - started) / 1000).toFixed(2)),
  cpuS: Number(((cpu.user + cpu.system) / 1e6).toFixed(2)),
  unreachableEntries: unreachable,
};
console.log(JSON.stringify(result));
writeFileSync(join(root, 'bench/results', `matrix-${result.label}.json`), `${JSON.stringify(result, null, 2)}\n`);
if (work) rmSync(work, { recursive: true, force: true });
