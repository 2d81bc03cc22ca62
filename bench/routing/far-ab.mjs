// Far routes before and after a change of the engine, two builds in one process (ab-lib twoCores: one placed
// graph, each build's RouteCore with its own scratch): `routeE7` of pairs ≥ --far × the map's diagonal apart
// (the hierarchy's path, its turns priced along it, its line drawn; no JSON), in two ways. A side at a time:
// every pair once with A, then every pair with B, the order swapped each round, each time kept — a pair's
// roads are not in the caches when it is asked, as for a server's requests. Then each pair asked of A and B
// in turn, the least of --runs: what the change costs with the roads in the caches. Each pair's duration
// and line must be the same on both sides (the bench fails otherwise): the change is one of speed.
//   node bench/routing/far-ab.mjs --map DIR --a TREE --b TREE [--pairs 100] [--rounds 10] [--runs 3] [--far 0.6] [--label NAME]
// Run `npm run build` in both trees first. Writes bench/results/far-ab-<label>.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { rng } from '../scale/lib.mjs';
import { microStats, twoCores } from './ab-lib.mjs';

const { values: opt } = parseArgs({
  options: {
    map: { type: 'string' },
    a: { type: 'string' },
    b: { type: 'string' },
    pairs: { type: 'string', default: '100' },
    rounds: { type: 'string', default: '10' },
    runs: { type: 'string', default: '3' },
    far: { type: 'string', default: '0.6' },
    profile: { type: 'string', default: 'driving-car' },
    label: { type: 'string', default: 'map' },
  },
});
if (!opt.map || !opt.a || !opt.b) throw new Error('usage: --map DIR --a TREE --b TREE (see the head of this file)');
const log = (m) => process.stderr.write(`[far-ab] ${m}\n`);
const profile = opt.profile;
const { cores, nodes, at, meters, diagonal } = await twoCores({ map: opt.map, a: opt.a, b: opt.b, profile });
const rand = rng(11);
const pairs = [];
for (let tries = 0; pairs.length < +opt.pairs && tries < 1000 * +opt.pairs; tries++) {
  const p = at(nodes[Math.floor(rand() * nodes.length)]),
    q = at(nodes[Math.floor(rand() * nodes.length)]);
  if (meters(p, q) >= +opt.far * diagonal) pairs.push([p, q]);
}
log(`${pairs.length} pairs ≥ ${Math.round((+opt.far * diagonal) / 1000)} km apart`);

const ask = (side, waypoints) => {
  const t = performance.now();
  const r = cores[side].routeE7({ profile, waypoints });
  const ms = performance.now() - t;
  if (!r.ok) throw new Error(`${side}: ${r.error?.message ?? 'no route'}`);
  return { ms, value: r.value };
};
// The same answers on both sides, and the code of each warmed before anything is timed.
for (const [i, w] of pairs.entries()) {
  const a = ask('A', w).value,
    b = ask('B', w).value;
  const same =
    a.duration === b.duration &&
    a.distance === b.distance &&
    a.geometryE7.length === b.geometryE7.length &&
    a.geometryE7.every((x, k) => x === b.geometryE7[k]);
  if (!same) throw new Error(`pair ${i}: A and B answer differently (durations ${a.duration} and ${b.duration})`);
}
log('every pair: the same duration, distance and line on both sides');

const apart = { A: [], B: [] };
for (let round = 0; round < +opt.rounds; round++) {
  log(`a side at a time: round ${round + 1} of ${opt.rounds}`);
  for (const side of round % 2 ? ['B', 'A'] : ['A', 'B']) for (const w of pairs) apart[side].push(ask(side, w).ms);
}
const least = { A: pairs.map(() => Infinity), B: pairs.map(() => Infinity) };
for (let run = 0; run < +opt.runs; run++) {
  log(`in turn: run ${run + 1} of ${opt.runs}`);
  pairs.forEach((w, i) => {
    for (const side of (run + i) % 2 ? ['B', 'A'] : ['A', 'B']) least[side][i] = Math.min(least[side][i], ask(side, w).ms);
  });
}
const ratio = (a, b) => ({ p50: +(b.p50 / a.p50).toFixed(2), p95: +(b.p95 / a.p95).toFixed(2) });
const sideBySide = (t) => {
  const a = microStats(t.A),
    b = microStats(t.B);
  return { A: a, B: b, B_over_A: ratio(a, b) };
};
const result = {
  map: opt.map,
  profile,
  a: opt.a,
  b: opt.b,
  pairs: pairs.length,
  far_km: Math.round((+opt.far * diagonal) / 1000),
  a_side_at_a_time: { rounds: +opt.rounds, ...sideBySide(apart) },
  in_turn_least: { runs: +opt.runs, ...sideBySide(least) },
  loadavg: loadavg().map((x) => +x.toFixed(2)),
  at: new Date().toISOString(),
};
for (const [name, r] of [
  ['a side at a time', result.a_side_at_a_time],
  [`in turn, least of ${opt.runs}`, result.in_turn_least],
]) {
  console.log(`${name}: A p50 ${r.A.p50} p95 ${r.A.p95} | B p50 ${r.B.p50} p95 ${r.B.p95} ms | B÷A p50 ${r.B_over_A.p50} p95 ${r.B_over_A.p95}`);
}
const file = join(import.meta.dirname, '../results', `far-ab-${opt.label}.json`);
mkdirSync(dirname(file), { recursive: true });
writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
log(`wrote ${file}`);
