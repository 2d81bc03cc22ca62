// Solomon VRPTW benchmark: all 56 instances through solveVrp, checked by an independent checker in exact
// doubles, compared with the best known solutions (vehicles-first objective; ours is travel-only, so R1/RC1
// may go below BKS with more vehicles). The annealing cools over the iterations, so the run is an iteration
// budget sized to end near 2 s on this machine; the time limit is only a hard stop (slow instances or a
// busy machine end there, less cooled).
// Usage: node bench/vrptw/run.mjs [--time 1950] [--iterations N] [--seed 1] [--only C1] [--t0 x --tf y]
import { readFileSync, readdirSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { projectRoot } from '../../dist/lib/paths.js';
import { solveVrp } from '../../dist/engine/vrp/solver.js';
import { check, parse, SCALE, toProblem } from './lib.mjs';

const { values: args } = parseArgs({
  options: {
    time: { type: 'string', default: '1950' }, // hard stop; packing and scheduling fit in the rest of 2 s
    iterations: { type: 'string', default: '200000' },
    seed: { type: 'string', default: '1' },
    only: { type: 'string', default: '' },
    t0: { type: 'string' },
    tf: { type: 'string' },
    out: { type: 'string', default: 'vrptw.json' },
  },
});
const dir = join(projectRoot, '..', 'shared', 'data', 'vrptw', 'solomon');
const bks = JSON.parse(readFileSync(join(dir, 'BKS.json'), 'utf8'));
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.txt'))
  .sort();
const names = files.map((f) => f.replace('.txt', '')).filter((n) => !args.only || new RegExp(args.only).test(n));
const options = { timeLimitMs: Number(args.time), iterations: Number(args.iterations), seed: Number(args.seed) };
if (args.t0 && args.tf) options.temperature = [Number(args.t0), Number(args.tf)];
console.log(
  `Solomon VRPTW: ${names.length} instances, ${options.iterations} iterations or ${options.timeLimitMs} ms each, seed ${options.seed} (2 shared cores: times are noisy)`,
);
const results = [];
for (const name of names) {
  const inst = parse(readFileSync(join(dir, `${name}.txt`), 'utf8'));
  const problem = toProblem(inst);
  const started = performance.now();
  const sol = solveVrp(problem, options);
  const ms = performance.now() - started;
  const { errs, total } = check(inst, sol);
  const best = bks[name];
  const gap = (total / best.best_known_cost - 1) * 100;
  const r = {
    instance: name,
    class: name.replace(/\d+$/, '') + name.match(/\d/)[0],
    cost: +total.toFixed(2),
    vehicles: sol.routes.length,
    bks: best.best_known_cost,
    bksVehicles: best.solved_with_vehicles,
    gap: +gap.toFixed(2),
    ms: Math.round(ms),
    iterations: sol.iterations,
    feasible: errs.length === 0,
  };
  results.push(r);
  console.log(
    `${name.padEnd(6)} cost ${r.cost.toFixed(2).padStart(8)} veh ${String(r.vehicles).padStart(2)} | BKS ${best.best_known_cost.toFixed(2).padStart(8)} veh ${String(best.solved_with_vehicles).padStart(2)} | gap ${gap.toFixed(2).padStart(6)}% | ${String(r.ms).padStart(5)} ms ${String(sol.iterations).padStart(7)} it | feasible ${r.feasible ? 'yes' : `NO ${errs.slice(0, 3).join('; ')}`}`,
  );
}
const avg = (xs, f) => xs.reduce((a, x) => a + f(x), 0) / xs.length;
// Gap where our fleet is no larger than the BKS one: the like-for-like comparison.
const sameFleet = (rs) => rs.filter((r) => r.vehicles <= r.bksVehicles);
const summary = (rs) => ({
  instances: rs.length,
  gap: +avg(rs, (r) => r.gap).toFixed(2),
  sameFleetInstances: sameFleet(rs).length,
  sameFleetGap: sameFleet(rs).length ? +avg(sameFleet(rs), (r) => r.gap).toFixed(2) : null,
  aboveBks: rs.filter((r) => r.gap > 0.005).length,
  vehicles: +avg(rs, (r) => r.vehicles).toFixed(2),
  bksVehicles: +avg(rs, (r) => r.bksVehicles).toFixed(2),
  ms: Math.round(avg(rs, (r) => r.ms)),
  maxMs: Math.max(...rs.map((r) => r.ms)),
  feasible: rs.filter((r) => r.feasible).length,
});
const classes = {};
for (const c of ['C1', 'C2', 'R1', 'R2', 'RC1', 'RC2']) {
  const rs = results.filter((r) => r.class === c);
  if (rs.length) classes[c] = summary(rs);
}
console.log('\nclass  n   gap%   veh  (BKS veh)  same-fleet n gap%  above BKS   avg ms  max ms  feasible');
for (const [c, s] of Object.entries({ ...classes, ALL: summary(results) })) {
  const same = s.sameFleetGap === null ? '     -' : s.sameFleetGap.toFixed(2).padStart(6);
  console.log(
    `${c.padEnd(5)} ${String(s.instances).padStart(2)} ${s.gap.toFixed(2).padStart(6)} ${s.vehicles.toFixed(2).padStart(6)} (${s.bksVehicles.toFixed(2).padStart(6)})   ${String(s.sameFleetInstances).padStart(8)} ${same}  ${String(s.aboveBks).padStart(9)} ${String(s.ms).padStart(8)} ${String(s.maxMs).padStart(7)}  ${s.feasible}/${s.instances}`,
  );
}
mkdirSync(join(projectRoot, 'bench', 'results'), { recursive: true });
writeFileSync(
  join(projectRoot, 'bench', 'results', args.out),
  JSON.stringify({ date: new Date().toISOString(), options, scale: SCALE, summary: summary(results), classes, instances: results }, null, 2),
);
console.log(`\nwrote bench/results/${args.out}`);
