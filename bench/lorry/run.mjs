// Lorry sizes on routes: latency of driving-hgv routes for the default lorry, a van (searched without the
// hierarchy, as it may take ways below the default lorry) and a 4.5 m lorry (kept off more ways), over
// the same random pairs of graph nodes, in process on one thread; and how often the van's route is faster.
// Run `npm run build` first.
// Usage: node bench/lorry/run.mjs [--map DIR] [--pairs 200] [--label NAME]   (no --map: Liechtenstein, built here)
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildMap, DEFAULT_EXTRACT } from '../../dist/map/build.js';
import { readGraphFiles, readShapeFiles } from '../../dist/map/map-dir.js';
import { placeGraphs } from '../../dist/engine/graph-memory.js';
import { closedTo, RouteCore } from '../../dist/engine/route-core.js';
import { nodePositionsE7, toDegrees } from '../../dist/map/graphs/road-graph.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { values: opts } = parseArgs({ options: { map: { type: 'string' }, pairs: { type: 'string', default: '200' }, label: { type: 'string' } } });
const N = Number(opts.pairs);
let dir = opts.map;
let scratch;
if (!dir) {
  scratch = mkdtempSync(join(tmpdir(), 'waymark-bench-lorry-'));
  dir = join(scratch, 'map');
  console.log('building the Liechtenstein map ...');
  await buildMap(DEFAULT_EXTRACT, dir, () => {});
}
const label = opts.label ?? (opts.map ? dir.split('/').filter(Boolean).at(-1) : 'liechtenstein');
const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
const g = await readGraphFiles(dir, 'driving-hgv', manifest.profiles['driving-hgv'], await readShapeFiles(dir));
const pos = toDegrees(nodePositionsE7(g));
const closed = closedTo(g, 'driving-hgv').size;
console.log(`lorry graph: ${g.nodeCount} nodes, ${g.limitGeom.length} geometries with limits, ${closed} closed to the default lorry`);
const core = new RouteCore(placeGraphs({ 'driving-hgv': g }));

let seed = 7;
const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const pick = () => {
  const v = Math.floor(random() * g.nodeCount);
  return { lat: pos[2 * v], lon: pos[2 * v + 1] };
};
const lorries = { default: undefined, van: { heightM: 2.5, widthM: 2, lengthM: 6, weightT: 3.5 }, tall: { heightM: 4.5 } };
const pairs = Array.from({ length: N }, () => [pick(), pick()]);
const route = (waypoints, vehicle) => core.route({ profile: 'driving-hgv', waypoints, vehicle });
// Warm-up (JIT, WASM tier-up): every pair once for each lorry, or the first lorry measured pays for it.
for (const w of pairs) for (const v of Object.values(lorries)) route(w, v);

const result = { date: new Date().toISOString(), map: label, lorryNodes: g.nodeCount, closedToDefault: closed, pairs: N, lorries: {} };
for (const [name, vehicle] of Object.entries(lorries)) {
  const ms = [];
  let routed = 0;
  for (const w of pairs) {
    const t = performance.now();
    if (route(w, vehicle).ok) routed++;
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  const at = (q) => Number(ms[Math.min(N - 1, Math.floor(N * q))].toFixed(2));
  result.lorries[name] = { vehicle: vehicle ?? 'default', routed, p50: at(0.5), p95: at(0.95), max: at(1) };
  console.log(`${name.padEnd(8)} p50 ${at(0.5)} ms  p95 ${at(0.95)} ms  (${routed} of ${N} routed)`);
}
result.vanFaster = pairs.filter((w) => {
  const a = route(w),
    b = route(w, lorries.van);
  return a.ok && b.ok && b.value.duration < a.value.duration - 0.05;
}).length;
console.log(`the van's route is faster than the default lorry's for ${result.vanFaster} pairs`);
const out = join(root, 'bench', 'results', `lorry-${label}.json`);
writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
console.log(`wrote bench/results/lorry-${label}.json`);
if (scratch) rmSync(scratch, { recursive: true, force: true });
