// What a far route with steps leaves for the garbage collector, two builds side by side (issue 31: the
// steps' p95 was set by young collections of a compute thread): in one process, the same far car routes
// (≥ 60 % of the map's extent) asked of tree A's and tree B's RouteCore in turn, each with its steps written
// as the reply writes them (planSteps, writeSteps after the line's GeoJSON). Per tree: the bytes allocated
// per route by function (V8's sampling heap profiler, objects collected since included), the young and full
// collections and their milliseconds over `--rounds` passes, and the route's time p50 / p95.
// The compute threads' V8 flags (src/compute/pool.ts) are given on the command line: without
// --no-allocation-site-pretenuring the figures are those of V8's default, so run it both ways.
// Run `npm run build` in both trees first. Writes bench/results/steps-garbage-<label>.json.
//   node --min-semi-space-size=16 [--no-allocation-site-pretenuring] bench/routing/steps-garbage.mjs --map DIR --a TREE --b TREE [--pairs 100] [--rounds 3] [--label NAME]
import { Session } from 'node:inspector/promises';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PerformanceObserver, constants } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { microStats, STEP_MODULES, twoCores, writeWithSteps } from './ab-lib.mjs';

const { values: opt } = parseArgs({
  options: {
    map: { type: 'string' },
    a: { type: 'string' },
    b: { type: 'string' },
    pairs: { type: 'string', default: '100' },
    rounds: { type: 'string', default: '3' },
    label: { type: 'string', default: 'map' },
  },
});
if (!opt.map || !opt.a || !opt.b) throw new Error('usage: --map DIR --a TREE --b TREE [--pairs N] [--rounds N] [--label NAME]');
const log = (m) => process.stderr.write(`[steps-garbage] ${m}\n`);
const pretenuring = !process.execArgv.includes('--no-allocation-site-pretenuring');
const profile = 'driving-car';
const { sides, cores, nodes, at, meters, diagonal } = await twoCores({
  map: opt.map,
  a: opt.a,
  b: opt.b,
  profile,
  extra: STEP_MODULES,
});
const buffer = new Uint8Array(1 << 24),
  offsets = new Int32Array(1 << 20);
/** The route with its steps, written as a reply writes them. */
function ask(side, waypoints) {
  const r = cores[side].routeE7({ profile, waypoints, steps: true });
  if (!r.ok) throw new Error(`${side}: ${r.error?.message ?? 'no route'}`);
  return writeWithSteps(sides[side], cores[side], profile, r.value, buffer, offsets);
}
let seed = 7;
const rand = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
const pairs = [];
while (pairs.length < +opt.pairs) {
  const p = at(nodes[Math.floor(rand() * nodes.length)]),
    q = at(nodes[Math.floor(rand() * nodes.length)]);
  if (meters(p, q) >= 0.6 * diagonal) pairs.push([p, q]);
}
log(`${pairs.length} pairs; pretenuring ${pretenuring ? 'on (V8 default)' : 'off'}`);
for (const side of ['A', 'B']) for (const w of pairs) ask(side, w);

const session = new Session();
session.connect();
/** Bytes allocated per route by function (top 12), over one pass of one side. */
async function allocations(side) {
  await session.post('HeapProfiler.startSampling', { samplingInterval: 1024, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  for (const w of pairs) ask(side, w);
  const { profile: heap } = await session.post('HeapProfiler.stopSampling');
  const by = new Map();
  const walk = (n) => {
    const name = `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.split('/').pop()}:${n.callFrame.lineNumber + 1}`;
    if (n.selfSize) by.set(name, (by.get(name) ?? 0) + n.selfSize);
    for (const c of n.children) walk(c);
  };
  walk(heap.head);
  let total = 0;
  for (const v of by.values()) total += v;
  const top = [...by].sort((x, y) => y[1] - x[1]).slice(0, 12);
  return {
    kB_per_route: Math.round(total / pairs.length / 1024),
    top_kB_per_route: Object.fromEntries(top.map(([k, v]) => [k, Math.round(v / pairs.length / 1024)])),
  };
}
const result = { map: opt.map, a: opt.a, b: opt.b, pairs: pairs.length, rounds: +opt.rounds, pretenuring, sides: {} };
for (const side of ['A', 'B']) result.sides[side] = { allocated: await allocations(side) };

// Collections and times: the sides in turn, a pass each, `rounds` times.
const gc = { A: { young: [0, 0], full: [0, 0] }, B: { young: [0, 0], full: [0, 0] } };
let current = 'A';
const observer = new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    const kind = e.detail.kind === constants.NODE_PERFORMANCE_GC_MINOR ? 'young' : e.detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR ? 'full' : null;
    if (!kind) continue;
    gc[current][kind][0]++;
    gc[current][kind][1] += e.duration;
  }
});
observer.observe({ entryTypes: ['gc'] });
const times = { A: [], B: [] };
for (let round = 0; round < +opt.rounds; round++) {
  for (const side of round % 2 ? ['B', 'A'] : ['A', 'B']) {
    current = side;
    for (const w of pairs) {
      const t = performance.now();
      ask(side, w);
      times[side].push(performance.now() - t);
    }
    // The observer hears of a pass's collections after it.
    await new Promise((r) => setTimeout(r, 20));
  }
}
observer.disconnect();
for (const side of ['A', 'B']) {
  result.sides[side].routes = microStats(times[side]);
  result.sides[side].young_collections = { count: gc[side].young[0], ms: +gc[side].young[1].toFixed(1) };
  result.sides[side].full_collections = { count: gc[side].full[0], ms: +gc[side].full[1].toFixed(1) };
  console.log(
    `${side}: ${result.sides[side].allocated.kB_per_route} kB a route; young collections ${gc[side].young[0]} (${gc[side].young[1].toFixed(1)} ms), full ${gc[side].full[0]} (${gc[side].full[1].toFixed(1)} ms) over ${times[side].length} routes; p50 ${result.sides[side].routes.p50} p95 ${result.sides[side].routes.p95} ms`,
  );
}
const file = join(import.meta.dirname, '../results', `steps-garbage-${opt.label}.json`);
mkdirSync(dirname(file), { recursive: true });
writeFileSync(file, `${JSON.stringify({ ...result, at: new Date().toISOString() }, null, 2)}\n`);
log(`wrote ${file}`);
