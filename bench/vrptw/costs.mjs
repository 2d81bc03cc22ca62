// Vehicle costs (VROOM's `costs`: fixed, per_hour, per_km, each vehicle its own) solved by both:
// Solomon instances as VROOM input, durations and distances in whole units (tenths of the instance's
// distances; meters 7 per unit of time), the fleet split into three kinds priced apart: plain (per_hour
// 3600), a hired van (fixed 500, per_hour 1800, per_km 40) and a dear hour (per_hour 7200, per_km 5).
// `waymark optimize --matrix` and `vroom -x 5 -t 1 -l S` on the same file, each given S seconds; both
// outputs go through vroom-check.mjs, and each plan's cost is recomputed here from the matrices alone
// (fixed + round(per_hour × its travel / 3600 + per_km × its meters / 1000) per route), the same rule for
// both, so the comparison does not rest on either solver's own report.
// Usage: node bench/vrptw/costs.mjs --vroom PATH [--seconds 10] [--instances C101,R101,...] [--out vrptw-costs.json]
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { projectRoot } from '../../dist/lib/paths.js';
import { parse, runJson, tenthsInput } from './lib.mjs';
import { checkOutput } from './vroom-check.mjs';

const { values: args } = parseArgs({
  options: {
    vroom: { type: 'string', default: process.env.VROOM ?? '' },
    seconds: { type: 'string', default: '10' },
    instances: { type: 'string', default: 'C101,C201,R101,R201,RC101,RC201' },
    out: { type: 'string', default: 'vrptw-costs.json' },
  },
});
if (!args.vroom || !existsSync(args.vroom)) throw new Error(`--vroom ${args.vroom}: no such file (build it with bash ../shared/peers/vroom/build.sh DIR)`);
const log = (msg) => process.stderr.write(`${msg}\n`);

const KINDS = [
  { costs: { fixed: 0, per_hour: 3600, per_km: 0 } },
  { costs: { fixed: 500, per_hour: 1800, per_km: 40 } },
  { costs: { fixed: 0, per_hour: 7200, per_km: 5 } },
];

function inputOf(inst) {
  const { durations, jobs } = tenthsInput(inst);
  const [depot] = inst.rows;
  return {
    vehicles: Array.from({ length: inst.vehicles }, (_, i) => ({
      id: i,
      start_index: 0,
      end_index: 0,
      capacity: [inst.capacity],
      time_window: [10 * depot.ready, 10 * depot.due],
      ...KINDS[i % KINDS.length],
    })),
    jobs,
    matrices: { car: { durations, distances: durations.map((row) => row.map((x) => 7 * x)) } },
  };
}

/** VROOM's cost of a plan from the matrices: its places in order, each route priced by its vehicle. */
function costOf(input, out) {
  const { durations, distances } = input.matrices.car;
  let total = 0;
  for (const r of out.routes) {
    const { costs } = input.vehicles.find((v) => v.id === r.vehicle);
    const at = r.steps.filter((s) => s.location_index !== undefined).map((s) => s.location_index);
    let t = 0;
    let m = 0;
    for (let k = 1; k < at.length; k++) {
      t += durations[at[k - 1]][at[k]];
      m += distances[at[k - 1]][at[k]];
    }
    total += costs.fixed + Math.round((costs.per_hour * t) / 3600 + (costs.per_km * m) / 1000);
  }
  return total;
}

const work = mkdtempSync(join(tmpdir(), 'vrptw-costs-'));
const results = [];
try {
  for (const name of args.instances.split(',')) {
    const input = inputOf(parse(readFileSync(join(projectRoot, '..', 'shared', 'data', 'vrptw', 'solomon', `${name}.txt`), 'utf8')));
    const file = join(work, `${name}.json`);
    writeFileSync(file, JSON.stringify(input));
    const ours = runJson(process.execPath, [join(projectRoot, 'bin', 'waymark.js'), 'optimize', file, '--matrix', '--time-budget', args.seconds]);
    const peer = runJson(args.vroom, ['-i', file, '-x', '5', '-t', '1', '-l', args.seconds]);
    const side = ({ out, ms }) => {
      const problems = checkOutput(input, out);
      const kinds = KINDS.map((_, k) => out.routes.filter((r) => r.vehicle % KINDS.length === k).length);
      return {
        cost: costOf(input, out),
        reported: out.summary.cost,
        unassigned: out.unassigned.length,
        routesByKind: kinds,
        feasible: problems.length === 0,
        problems: problems.slice(0, 3),
        ms,
      };
    };
    const r = { instance: name, ours: side(ours), vroom: side(peer) };
    r.costRatio = +(r.ours.cost / r.vroom.cost).toFixed(4);
    results.push(r);
    log(
      `${name.padEnd(6)} ours ${String(r.ours.cost).padStart(6)} (${r.ours.routesByKind.join('/')}) ${r.ours.feasible ? 'feasible' : `INFEASIBLE ${r.ours.problems}`} ${(r.ours.ms / 1000).toFixed(1)} s | VROOM ${String(r.vroom.cost).padStart(6)} (${r.vroom.routesByKind.join('/')}) ${r.vroom.feasible ? 'feasible' : `INFEASIBLE ${r.vroom.problems}`} ${(r.vroom.ms / 1000).toFixed(1)} s | ratio ${r.costRatio.toFixed(3)}`,
    );
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
const mean = (xs) => +(xs.reduce((a, b) => a + b, 0) / xs.length).toFixed(4);
const summary = {
  instances: results.length,
  feasible: { ours: results.filter((r) => r.ours.feasible).length, vroom: results.filter((r) => r.vroom.feasible).length },
  meanCostRatio: mean(results.map((r) => r.costRatio)),
  oursNoDearer: results.filter((r) => r.costRatio <= 1).length,
};
log(JSON.stringify(summary));
const outFile = resolve(projectRoot, 'bench', 'results', args.out);
mkdirSync(join(projectRoot, 'bench', 'results'), { recursive: true });
writeFileSync(
  outFile,
  `${JSON.stringify({ date: new Date().toISOString(), command: `node bench/vrptw/costs.mjs ${process.argv.slice(2).join(' ')}`, kinds: KINDS, summary, results }, null, 2)}\n`,
);
log(`wrote ${outFile}`);
