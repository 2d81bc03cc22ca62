// What a far route's steps cost in one compute thread, and how much of it is the CPU's caches (issue 31:
// steps p95 ≤ 1.3 × the plain route). In one process, one tree, the same far car routes (≥ 60 % of the
// map's extent) asked plain and with steps, their text written as a reply writes it (planSteps, writeSteps
// after the line's GeoJSON), two ways:
//   - each pair plain then at once with steps, the best of `--rounds`: the steps find the route's roads and
//     the map's records in the caches the plain route just filled; what is left is the steps' own work;
//   - a form at a time (a pass of all pairs plain, then one with steps), as bench/scale's (f) and
//     steps-ab.mjs ask them: each route finds its roads where another route left the caches.
// The difference of the two extras is what the steps wait for memory. Writes bench/results/steps-cost-<label>.json.
//   node bench/routing/steps-cost.mjs --map DIR [--tree DIR] [--pairs 150] [--rounds 5] [--label NAME]
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { microStats, STEP_MODULES, twoCores, writeWithSteps } from './ab-lib.mjs';

const { values: opt } = parseArgs({
  options: {
    map: { type: 'string' },
    tree: { type: 'string', default: resolve(import.meta.dirname, '../..') },
    pairs: { type: 'string', default: '150' },
    rounds: { type: 'string', default: '5' },
    label: { type: 'string', default: 'map' },
  },
});
if (!opt.map) throw new Error('usage: --map DIR [--tree DIR] [--pairs N] [--rounds N] [--label NAME]');
const log = (m) => process.stderr.write(`[steps-cost] ${m}\n`);
const profile = 'driving-car';
const { sides, cores, nodes, at, meters, diagonal } = await twoCores({
  map: opt.map,
  a: opt.tree,
  b: opt.tree,
  profile,
  extra: STEP_MODULES,
});
const buffer = new Uint8Array(1 << 24),
  offsets = new Int32Array(1 << 20);
/** The route's milliseconds and its steps, written as a reply writes them. */
function ask(waypoints, steps) {
  const t = performance.now();
  const r = cores.A.routeE7({ profile, waypoints, steps });
  if (!r.ok) throw new Error(r.error?.message ?? 'no route');
  writeWithSteps(sides.A, cores.A, profile, r.value, buffer, offsets);
  return [performance.now() - t, (r.value.legSteps ?? []).reduce((n, leg) => n + leg.length, 0)];
}
let seed = 7;
const rand = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
const pairs = [];
while (pairs.length < +opt.pairs) {
  const p = at(nodes[Math.floor(rand() * nodes.length)]),
    q = at(nodes[Math.floor(rand() * nodes.length)]);
  if (meters(p, q) >= 0.6 * diagonal) pairs.push([p, q]);
}
log(`${pairs.length} pairs, diagonal ${Math.round(diagonal / 1000)} km`);
for (const w of pairs) ask(w, false), ask(w, true);

// Each pair plain, then with steps: the best of the rounds.
const hotPlain = pairs.map(() => Infinity),
  hotSteps = pairs.map(() => Infinity),
  stepCount = pairs.map(() => 0);
for (let round = 0; round < +opt.rounds; round++) {
  log(`pairs in turn: round ${round + 1} of ${opt.rounds}`);
  pairs.forEach((w, i) => {
    hotPlain[i] = Math.min(hotPlain[i], ask(w, false)[0]);
    const [ms, count] = ask(w, true);
    hotSteps[i] = Math.min(hotSteps[i], ms);
    stepCount[i] = count;
  });
}
// A form at a time: every time of every round.
const coldPlain = [],
  coldSteps = [];
for (let round = 0; round < +opt.rounds; round++) {
  log(`a form at a time: round ${round + 1} of ${opt.rounds}`);
  for (const w of pairs) coldPlain.push(ask(w, false)[0]);
  for (const w of pairs) coldSteps.push(ask(w, true)[0]);
}
const p50 = (xs) => microStats(xs).p50;
const hot = { plain: microStats(hotPlain), steps: microStats(hotSteps), extra_p50_ms: +(p50(hotSteps) - p50(hotPlain)).toFixed(3) };
const cold = { plain: microStats(coldPlain), steps: microStats(coldSteps), extra_p50_ms: +(p50(coldSteps) - p50(coldPlain)).toFixed(3) };
const steps = microStats(stepCount);
const result = {
  map: opt.map,
  tree: opt.tree,
  pairs: pairs.length,
  rounds: +opt.rounds,
  steps_per_route: steps,
  pairs_in_turn_best: hot,
  form_at_a_time: cold,
  us_per_step: { pairs_in_turn: +((1000 * hot.extra_p50_ms) / steps.p50).toFixed(2), form_at_a_time: +((1000 * cold.extra_p50_ms) / steps.p50).toFixed(2) },
  waiting_for_memory_share: +(1 - hot.extra_p50_ms / cold.extra_p50_ms).toFixed(2),
};
console.log(`steps a route: p50 ${steps.p50}, p95 ${steps.p95}`);
console.log(
  `pairs in turn (best of ${opt.rounds}): plain p50 ${hot.plain.p50} p95 ${hot.plain.p95}, steps p50 ${hot.steps.p50} p95 ${hot.steps.p95} ms; extra ${hot.extra_p50_ms} ms`,
);
console.log(
  `a form at a time: plain p50 ${cold.plain.p50} p95 ${cold.plain.p95}, steps p50 ${cold.steps.p50} p95 ${cold.steps.p95} ms; extra ${cold.extra_p50_ms} ms`,
);
console.log(
  `µs a step: ${result.us_per_step.pairs_in_turn} in turn, ${result.us_per_step.form_at_a_time} a form at a time; waiting for memory ${result.waiting_for_memory_share}`,
);
const file = join(import.meta.dirname, '../results', `steps-cost-${opt.label}.json`);
mkdirSync(dirname(file), { recursive: true });
writeFileSync(file, `${JSON.stringify({ ...result, at: new Date().toISOString() }, null, 2)}\n`);
log(`wrote ${file}`);
