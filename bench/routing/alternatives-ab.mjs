// Alternatives (issue 36) beside plain far routes, two builds in one process: RouteCore from tree A's and from
// tree B's dist over one placed graph, the same far pairs (≥ --far × the map's diagonal apart, main-network
// nodes) routed plain and with `alternatives: 3` by A and B in turn (the order swapped every pair), each the
// least of --runs runs by the clock and by the process's CPU time (on a loaded machine a run of 10 ms is
// often put off for a time slice, which the clock counts and CPU time does not), in process (no worker, no
// HTTP), each answer's line text written as the worker writes it (lineStringJson; the alternatives' beside the
// route's with writeLineStringBeside where the tree has it). First every pair's answer
// (`route`, geometry included) is compared between A and B. Run `npm run build` in both trees first. Writes
// bench/results/alternatives-ab-inprocess-<label>.json (steps-ab.mjs --variant alternatives: over HTTP).
//   node bench/routing/alternatives-ab.mjs --map DIR --a TREE --b TREE [--pairs 60] [--far 0.6] [--runs 5] [--profile driving-car] [--label NAME]
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
    pairs: { type: 'string', default: '60' },
    far: { type: 'string', default: '0.6' },
    runs: { type: 'string', default: '5' },
    profile: { type: 'string', default: 'driving-car' },
    label: { type: 'string', default: 'map' },
  },
});
if (!opt.map || !opt.a || !opt.b) throw new Error('usage: --map DIR --a TREE --b TREE (see the head of this file)');
const here = resolve(import.meta.dirname, '../..');
const log = (m) => process.stderr.write(`[alternatives-ab] ${m}\n`);
const profile = opt.profile;
const stats = microStats;
const { sides, cores, nodes, at, meters, diagonal } = await twoCores({ map: opt.map, a: opt.a, b: opt.b, profile, extra: { line: 'engine/line-json.js' } });
const rand = rng(36);
const pairs = [];
while (pairs.length < +opt.pairs) {
  const a = at(nodes[Math.floor(rand() * nodes.length)]),
    b = at(nodes[Math.floor(rand() * nodes.length)]);
  if (meters(a, b) < +opt.far * diagonal) continue;
  const r = cores.B.route({ profile, waypoints: [a, b] });
  if (r.ok && r.value.geometry.length >= 10) pairs.push([a, b]);
}
log(`${pairs.length} pairs ≥ ${opt.far} × the ${(diagonal / 1000).toFixed(0)} km diagonal apart`);

// The answers compared whole (typed arrays as lists).
const text = (r) => JSON.stringify(r, (_, x) => (ArrayBuffer.isView(x) ? Array.from(x) : x));
let same = 0,
  differ = 0,
  alternatives = 0;
for (const [a, b] of pairs) {
  const q = { profile, waypoints: [a, b], alternatives: 3 };
  const [x, y] = [cores.A.route(q), cores.B.route(q)];
  if (text(x) === text(y)) same++;
  else {
    differ++;
    log(`differ: ${JSON.stringify([a, b])}`);
  }
  alternatives += y.ok ? y.value.alternatives.length : 0;
}
log(`answers: ${same} the same, ${differ} differ; ${alternatives} alternatives in all`);

// As the worker answers: the route, then each line's text (a tree that has writeLineStringBeside writes the
// alternatives' beside the route's, as its worker does; each text copied out of a reused buffer).
let scratch = new Uint8Array(0),
  offsets = new Int32Array(0);
const answer = (side, q) => {
  const r = cores[side].routeE7(q);
  if (!r.ok) return;
  const line = sides[side].line;
  const main = r.value.geometryE7,
    alternatives = r.value.alternatives ?? [];
  if (!line.writeLineStringBeside || alternatives.length === 0) {
    line.lineStringJson(main);
    for (const alt of alternatives) line.lineStringJson(alt.geometryE7);
    return;
  }
  const room = (l) => {
    if (scratch.length < line.lineStringBytes(l)) scratch = new Uint8Array(Math.max(line.lineStringBytes(l), 2 * scratch.length));
    return scratch;
  };
  if (offsets.length < main.length / 2 + 2) offsets = new Int32Array(main.length);
  const text = room(main).slice(0, line.writeLineString(main, room(main), offsets));
  for (const alt of alternatives) room(alt.geometryE7).slice(0, line.writeLineStringBeside(alt.geometryE7, scratch, main, text, offsets));
};
const kinds = { plain: (a, b) => ({ profile, waypoints: [a, b] }), alternatives: (a, b) => ({ profile, waypoints: [a, b], alternatives: 3 }) };
for (const side of ['A', 'B']) for (const [a, b] of pairs.slice(0, 20)) for (const make of Object.values(kinds)) answer(side, make(a, b));
const ms = {};
pairs.forEach(([a, b], i) => {
  for (const side of i % 2 ? ['B', 'A'] : ['A', 'B']) {
    for (const [kind, make] of Object.entries(kinds)) {
      const q = make(a, b);
      let best = Infinity,
        cpu = Infinity;
      for (let k = 0; k < +opt.runs; k++) {
        const t = performance.now(),
          c = process.cpuUsage();
        answer(side, q);
        const used = process.cpuUsage(c);
        best = Math.min(best, performance.now() - t);
        cpu = Math.min(cpu, (used.user + used.system) / 1000);
      }
      (ms[`${side} ${kind}`] ??= []).push(best);
      (ms[`${side} ${kind} cpu`] ??= []).push(cpu);
    }
  }
});
const result = { map: opt.map, a: opt.a, b: opt.b, profile, pairs: pairs.length, same, differ, alternatives, loadavg: loadavg(), stats: {}, ratios: {} };
for (const [k, xs] of Object.entries(ms)) result.stats[k] = stats(xs);
for (const side of ['A', 'B'])
  for (const clock of ['', ' cpu'])
    for (const q of ['p50', 'p95', 'mean'])
      result.ratios[`${side}${clock} ${q}`] = +(result.stats[`${side} alternatives${clock}`][q] / result.stats[`${side} plain${clock}`][q]).toFixed(2);
for (const [k, v] of Object.entries(result.stats)) console.log(`${k.padEnd(20)} p50 ${v.p50} p95 ${v.p95} mean ${v.mean} ms`);
console.log('alternatives over plain', result.ratios, 'load', result.loadavg.map((x) => x.toFixed(1)).join(' '));
const file = join(here, 'bench/results', `alternatives-ab-inprocess-${opt.label}.json`);
mkdirSync(join(here, 'bench/results'), { recursive: true });
writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
log(`wrote ${file}`);
