// Turn-by-turn steps on a real map against OSRM's own (issue 31): the same random car routes asked of two
// built trees in process (A and B, one placed graph, ab-lib.mjs) and of a running osrm-routed (car.lua, the
// same extract). Over the routes whose length agrees with OSRM's within 0.5 % (the same path, as far as a
// length tells), it counts OSRM's steps that each tree also gives, in order (longest common subsequence of
// `type modifier exit`), the routes whose whole sequence is OSRM's, and the kinds each tree gives too often
// (+) or too rarely (−). The feature files fix drawn junctions; this is the peer on real ones.
// OSRM: `B=$(bash ../shared/peers/osrm/build.sh)`, then `$B/osrm-extract -p <its profiles>/car.lua X.osm.pbf`,
// `$B/osrm-contract X.osrm`, `$B/osrm-routed --algorithm ch -p 5200 X.osrm`.
//   node bench/routing/steps-vs-osrm.mjs --map DIR --a TREE --b TREE [--osrm http://127.0.0.1:5200] [--routes 600] [--label NAME]
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { twoCores } from './ab-lib.mjs';

const { values: opt } = parseArgs({
  options: {
    map: { type: 'string' },
    a: { type: 'string' },
    b: { type: 'string' },
    osrm: { type: 'string', default: 'http://127.0.0.1:5200' },
    routes: { type: 'string', default: '600' },
    label: { type: 'string', default: 'map' },
  },
});
if (!opt.map || !opt.a || !opt.b) throw new Error('usage: --map DIR --a TREE --b TREE [--osrm URL] [--routes N] [--label NAME]');

const { cores, nodes, at } = await twoCores({ map: opt.map, a: opt.a, b: opt.b, profile: 'driving-car' });
let seed = 11;
const rnd = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
const key = (m) => `${m.type}${m.modifier ? ` ${m.modifier}` : ''}${m.exit ? ` ${m.exit}` : ''}`;
/** How many of `b`'s items `a` has in the same order. */
function common(a, b) {
  let row = new Int32Array(b.length + 1);
  for (let x = a.length - 1; x >= 0; x--) {
    const next = new Int32Array(b.length + 1);
    for (let y = b.length - 1; y >= 0; y--) next[y] = a[x] === b[y] ? row[y + 1] + 1 : Math.max(row[y], next[y + 1]);
    row = next;
  }
  return row[0];
}
const sides = ['A', 'B'];
const result = Object.fromEntries(sides.map((s) => [s, { wholeSequence: 0, stepsInCommon: 0, surplus: {} }]));
let compared = 0,
  osrmSteps = 0;
for (let i = 0; i < +opt.routes; i++) {
  const waypoints = [at(nodes[Math.floor(rnd() * nodes.length)]), at(nodes[Math.floor(rnd() * nodes.length)])];
  const url = `${opt.osrm}/route/v1/driving/${waypoints.map((p) => `${p.lon},${p.lat}`).join(';')}?steps=true&overview=false`;
  const o = await (await fetch(url)).json();
  if (o.code !== 'Ok') continue;
  const theirs = o.routes[0].legs[0].steps.map((s) => key(s.maneuver));
  const ours = {};
  for (const s of sides) {
    const r = cores[s].routeE7({ profile: 'driving-car', waypoints, steps: true });
    ours[s] = r.ok && Math.abs(r.value.distance - o.routes[0].distance) <= 0.005 * o.routes[0].distance ? r.value.legSteps.flat().map(key) : null;
  }
  if (!ours.A || !ours.B) continue;
  compared++;
  osrmSteps += theirs.length;
  for (const s of sides) {
    const r = result[s];
    if (ours[s].join() === theirs.join()) r.wholeSequence++;
    r.stepsInCommon += common(ours[s], theirs);
    for (const k of ours[s]) r.surplus[k] = (r.surplus[k] ?? 0) + 1;
    for (const k of theirs) r.surplus[k] = (r.surplus[k] ?? 0) - 1;
  }
  if ((i + 1) % 100 === 0) process.stderr.write(`${i + 1}/${opt.routes} routes\n`);
}
const out = { label: opt.label, routes: +opt.routes, compared, osrmSteps, at: new Date().toISOString() };
for (const s of sides) {
  const r = result[s];
  const surplus = Object.entries(r.surplus)
    .filter(([, v]) => Math.abs(v) >= 10)
    .sort((x, y) => y[1] - x[1]);
  out[s] = {
    tree: s === 'A' ? opt.a : opt.b,
    wholeSequence: r.wholeSequence,
    stepsInCommon: r.stepsInCommon,
    shareOfOsrmSteps: +(r.stepsInCommon / osrmSteps).toFixed(3),
    surplus: Object.fromEntries(surplus),
  };
  console.log(
    `${s} (${out[s].tree}): OSRM's whole sequence on ${r.wholeSequence} of ${compared} routes; ${r.stepsInCommon} of OSRM's ${osrmSteps} steps in common (${(100 * out[s].shareOfOsrmSteps).toFixed(1)} %)`,
  );
  console.log(`   too often (+) / too rarely (−): ${surplus.map(([k, v]) => `${k} ${v > 0 ? '+' : '−'}${Math.abs(v)}`).join(', ')}`);
}
const file = join(dirname(new URL(import.meta.url).pathname), '..', 'results', `steps-vs-osrm-${opt.label}.json`);
mkdirSync(dirname(file), { recursive: true });
writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
console.log(`→ ${file}`);
