// Turn prices (issue 31, point 3) before and after, two builds in one process: RouteCore from tree A's and
// from tree B's dist over one placed graph (the map is the same: turn prices need no map change), the same
// routes asked of both in turn (the order swapped every route), each the least of --runs runs by the clock,
// in process (no worker, no HTTP). Three workloads: `short` (two waypoints 2–15 km apart: legs searched again
// with their turns priced), `waypoints` (10 waypoints within 100 km, as bench/scale's (d)) and `far` (two
// waypoints ≥ --far × the map's diagonal apart: the hierarchy's path, its turns priced along it). Reports
// per workload each side's p50/p95 ms and B ÷ A, B's duration ÷ A's (what the prices add), and the share of
// routes whose line changed. With --exact-far N, B's first N far routes are also searched whole with their
// turns priced (B's WHOLE_LEG lifted: what pricing far legs in the search would cost and save). Run `npm
// run build` in both trees first. Writes bench/results/turn-prices-ab-<label>.json.
//   node bench/routing/turn-prices-ab.mjs --map DIR --a TREE --b TREE [--routes 200] [--far 0.6] [--runs 3] [--exact-far 0] [--profile driving-car] [--label NAME]
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { rng } from '../scale/lib.mjs';
import { microStats, twoCores } from './ab-lib.mjs';

const { values: opt } = parseArgs({
  options: {
    map: { type: 'string' },
    a: { type: 'string' },
    b: { type: 'string' },
    routes: { type: 'string', default: '200' },
    far: { type: 'string', default: '0.6' },
    runs: { type: 'string', default: '3' },
    'exact-far': { type: 'string', default: '0' },
    profile: { type: 'string', default: 'driving-car' },
    label: { type: 'string', default: 'map' },
  },
});
if (!opt.map || !opt.a || !opt.b) throw new Error('usage: --map DIR --a TREE --b TREE (see the head of this file)');
const here = resolve(import.meta.dirname, '../..');
const log = (m) => process.stderr.write(`[turn-prices-ab] ${m}\n`);
const profile = opt.profile;
const stats = microStats;
const { sides, g, cores, nodes, at, meters, diagonal } = await twoCores({ map: opt.map, a: opt.a, b: opt.b, profile, extra: { turns: 'engine/turn-back.js' } });
log(`map read: ${g.nodeCount} nodes`);
const rand = rng(31);
const pick = () => at(nodes[Math.floor(rand() * nodes.length)]);
const routable = (waypoints) => {
  const r = cores.A.route({ profile, waypoints });
  return r.ok && r.value.geometry.length >= 4;
};
const workloads = { short: [], waypoints: [], far: [] };
const n = +opt.routes;
while (workloads.short.length < n) {
  const a = pick(),
    b = pick();
  const d = meters(a, b);
  if (d >= 2000 && d <= 15_000 && routable([a, b])) workloads.short.push([a, b]);
}
// Ten waypoints within 100 km: the nearest main-network nodes to random points around a centre, in a ring's order.
while (workloads.waypoints.length < Math.max(20, n / 10)) {
  const c = pick();
  const list = [c];
  for (let tries = 0; list.length < 10 && tries < 20_000; tries++) {
    const p = pick();
    if (meters(c, p) <= 50_000) list.push(p);
  }
  if (list.length === 10 && routable(list)) workloads.waypoints.push(list);
}
while (workloads.far.length < Math.max(20, n / 4)) {
  const a = pick(),
    b = pick();
  if (meters(a, b) >= +opt.far * diagonal && routable([a, b])) workloads.far.push([a, b]);
}
log(
  `routes: ${Object.entries(workloads)
    .map(([k, v]) => `${v.length} ${k}`)
    .join(', ')}`,
);

const result = { map: opt.map, a: opt.a, b: opt.b, profile, diagonalKm: Math.round(diagonal / 1000), loadavg: null, workloads: {} };
for (const [kind, list] of Object.entries(workloads)) {
  for (const side of ['A', 'B']) for (const w of list.slice(0, 10)) cores[side].route({ profile, waypoints: w });
  const ms = { A: [], B: [] };
  const longer = [];
  let changed = 0;
  list.forEach((w, i) => {
    const q = { profile, waypoints: w };
    const answers = {};
    for (const side of i % 2 ? ['B', 'A'] : ['A', 'B']) {
      let best = Infinity;
      for (let k = 0; k < +opt.runs; k++) {
        const t = performance.now();
        answers[side] = cores[side].route(q);
        best = Math.min(best, performance.now() - t);
      }
      ms[side].push(best);
    }
    const [x, y] = [answers.A.value, answers.B.value];
    longer.push(y.duration / x.duration);
    if (x.geometry.length !== y.geometry.length || x.geometry.some((v, j) => v !== y.geometry[j])) changed++;
  });
  const A = stats(ms.A),
    B = stats(ms.B);
  result.workloads[kind] = {
    routes: list.length,
    A,
    B,
    ratio: { p50: +(B.p50 / A.p50).toFixed(2), p95: +(B.p95 / A.p95).toFixed(2) },
    durationRatio: stats(longer),
    lineChanged: +(changed / list.length).toFixed(3),
  };
  const r = result.workloads[kind];
  console.log(
    `${kind.padEnd(10)} A p50 ${A.p50} p95 ${A.p95} | B p50 ${B.p50} p95 ${B.p95} ms | B÷A p50 ${r.ratio.p50} p95 ${r.ratio.p95} | duration B÷A p50 ${r.durationRatio.p50} p95 ${r.durationRatio.p95} | line changed ${(100 * r.lineChanged).toFixed(1)} %`,
  );
}
const exact = workloads.far.slice(0, +opt['exact-far']);
if (exact.length) {
  const { WHOLE_LEG } = sides.B.turns;
  const saved = { ...WHOLE_LEG };
  const ms = [],
    saving = [];
  for (const w of exact) {
    const q = { profile, waypoints: w };
    const usual = cores.B.route(q).value.duration;
    Object.assign(WHOLE_LEG, { wholeMaxCost: Infinity, wholeBudget: Infinity });
    const t = performance.now();
    const whole = cores.B.route(q).value.duration;
    ms.push(performance.now() - t);
    Object.assign(WHOLE_LEG, saved);
    saving.push(usual / whole);
  }
  result.exactFar = { routes: exact.length, ms: stats(ms), usualOverExact: stats(saving) };
  console.log(
    `far, searched whole with prices: ${exact.length} routes, p50 ${result.exactFar.ms.p50} ms, max ${result.exactFar.ms.max} ms; usual duration ÷ exact p50 ${result.exactFar.usualOverExact.p50}, max ${result.exactFar.usualOverExact.max}`,
  );
}
result.loadavg = loadavg();
const file = join(here, 'bench/results', `turn-prices-ab-${opt.label}.json`);
mkdirSync(join(here, 'bench/results'), { recursive: true });
writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
log(`wrote ${file}`);
