// Drivers' breaks, several a vehicle, solved by both: Gehring–Homberger (or Solomon) instances as VROOM
// input (durations whole tenths of the instance's distances, windows and service times ten times
// theirs), every vehicle given two 30-unit breaks, one in each of [20 %, 40 %] and [60 %, 80 %] of the
// depot's hours (--windows 2: the first break may also be taken in [45 %, 55 %]).
// `waymark optimize --matrix` and `vroom -x 5 -t 1 -l S` on the same file, each given S seconds; both
// outputs go through vroom-check.mjs (every break inside one of its windows, every stop in its window,
// within the hours), and here each route's breaks must come in the order of their windows; the travel
// of each plan is recomputed from the matrix alone.
// Usage: node bench/vrptw/breaks.mjs --vroom PATH [--seconds 30] [--instances c1_10_1,r1_10_1,...]
//        [--windows 1|2] [--out vrptw-breaks.json] [--waymark bin/waymark.js of another checkout, to compare builds]
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { projectRoot } from '../../dist/lib/paths.js';
import { parse } from './lib.mjs';
import { checkOutput } from './vroom-check.mjs';

const { values: args } = parseArgs({
  options: {
    vroom: { type: 'string', default: process.env.VROOM ?? '' },
    seconds: { type: 'string', default: '30' },
    instances: { type: 'string', default: 'c1_10_1,r1_10_1,rc1_10_1' },
    windows: { type: 'string', default: '1' },
    waymark: { type: 'string', default: '' },
    out: { type: 'string', default: 'vrptw-breaks.json' },
  },
});
if (!args.vroom || !existsSync(args.vroom)) throw new Error(`--vroom ${args.vroom}: no such file (build it with bash ../shared/peers/vroom/build.sh DIR)`);
const log = (msg) => process.stderr.write(`${msg}\n`);

function inputOf(inst) {
  const durations = inst.rows.map((a) => inst.rows.map((b) => Math.round(10 * Math.hypot(a.x - b.x, a.y - b.y))));
  const [depot] = inst.rows;
  const [s, e] = [10 * depot.ready, 10 * depot.due];
  const at = (f) => Math.round(s + f * (e - s));
  const first = [[at(0.2), at(0.4)], ...(args.windows === '2' ? [[at(0.45), at(0.55)]] : [])];
  return {
    vehicles: Array.from({ length: inst.vehicles }, (_, i) => ({
      id: i,
      start_index: 0,
      end_index: 0,
      capacity: [inst.capacity],
      time_window: [s, e],
      breaks: [
        { id: 1, time_windows: first, service: 300 },
        { id: 2, time_windows: [[at(0.6), at(0.8)]], service: 300 },
      ],
    })),
    jobs: inst.rows.slice(1).map((r, i) => ({
      id: i + 1,
      location_index: i + 1,
      delivery: [r.demand],
      service: 10 * r.service,
      time_windows: [[10 * r.ready, 10 * r.due]],
    })),
    matrices: { car: { durations } },
  };
}

/** Problems beyond vroom-check's: a used vehicle's breaks out of the order of their windows. */
function orderProblems(out) {
  const errs = [];
  for (const r of out.routes) {
    const ids = r.steps.filter((s) => s.type === 'break').map((s) => s.id);
    if (ids.join() !== '1,2') errs.push(`vehicle ${r.vehicle} breaks ${ids.join() || 'none'}`);
  }
  return errs;
}

function travelOf(input, out) {
  const { durations } = input.matrices.car;
  let total = 0;
  for (const r of out.routes) {
    const at = r.steps.filter((s) => s.location_index !== undefined).map((s) => s.location_index);
    for (let k = 1; k < at.length; k++) total += durations[at[k - 1]][at[k]];
  }
  return total;
}

const data = join(projectRoot, '..', 'shared', 'data', 'vrptw');
const work = mkdtempSync(join(tmpdir(), 'vrptw-breaks-'));
const results = [];
try {
  for (const name of args.instances.split(',')) {
    const file0 = name.includes('_') ? join(data, 'homberger_1000', `${name}.txt`) : join(data, 'solomon', `${name}.txt`);
    const input = inputOf(parse(readFileSync(file0, 'utf8')));
    const file = join(work, `${name}.json`);
    writeFileSync(file, JSON.stringify(input));
    const run = (cmd, argv) => {
      const t = performance.now();
      const out = JSON.parse(execFileSync(cmd, argv, { maxBuffer: 256 << 20, stdio: ['ignore', 'pipe', 'ignore'] }).toString());
      return { out, ms: Math.round(performance.now() - t) };
    };
    const side = ({ out, ms }) => {
      const problems = [...checkOutput(input, out), ...orderProblems(out)];
      return {
        travel: travelOf(input, out),
        routes: out.routes.length,
        unassigned: out.unassigned.length,
        feasible: problems.length === 0,
        problems: problems.slice(0, 3),
        ms,
      };
    };
    const ours = side(
      run(process.execPath, [args.waymark || join(projectRoot, 'bin', 'waymark.js'), 'optimize', file, '--matrix', '--time-budget', args.seconds]),
    );
    const vroom = side(run(args.vroom, ['-i', file, '-x', '5', '-t', '1', '-l', args.seconds]));
    const r = { instance: name, ours, vroom, travelRatio: +(ours.travel / vroom.travel).toFixed(4) };
    results.push(r);
    const line = (x) =>
      `${String(x.travel).padStart(8)} (${x.routes} routes, ${x.unassigned} unassigned) ${x.feasible ? 'feasible' : `INFEASIBLE ${x.problems}`} ${(x.ms / 1000).toFixed(1)} s`;
    log(`${name.padEnd(9)} ours ${line(ours)} | VROOM ${line(vroom)} | ratio ${r.travelRatio.toFixed(3)}`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
const summary = {
  instances: results.length,
  windows: Number(args.windows),
  seconds: Number(args.seconds),
  feasible: { ours: results.filter((r) => r.ours.feasible).length, vroom: results.filter((r) => r.vroom.feasible).length },
  meanTravelRatio: +(results.reduce((a, r) => a + r.travelRatio, 0) / results.length).toFixed(4),
};
log(JSON.stringify(summary));
writeFileSync(args.out, JSON.stringify({ summary, results, measuredAt: new Date().toISOString() }, null, 2));
