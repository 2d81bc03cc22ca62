// Drivers' breaks, several a vehicle, solved by both: Gehring–Homberger (or Solomon) instances as VROOM
// input (durations whole tenths of the instance's distances, windows and service times ten times
// theirs), every vehicle given two 30-unit breaks, one in each of [20 %, 40 %] and [60 %, 80 %] of the
// depot's hours (--windows 2: the first break may also be taken in [45 %, 55 %]; --max-load F: each
// break only with at most F × the capacity on board, VROOM's max_load).
// `waymark optimize --matrix` and `vroom -x 5 -t 1 -l S` on the same file, each given S seconds; both
// plans are re-timed here from their order of steps alone (problemsOf), ours also checked with its times
// as reported (vroom-check.mjs), and their travel recomputed from the matrix.
// Usage: node bench/vrptw/breaks.mjs --vroom PATH [--seconds 30] [--instances c1_10_1,r1_10_1,...]
//        [--windows 1|2] [--max-load F] [--out vrptw-breaks.json] [--waymark bin/waymark.js of another checkout, to compare builds]
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { projectRoot } from '../../dist/lib/paths.js';
import { parse, runJson, tenthsInput } from './lib.mjs';
import { checkOutput } from './vroom-check.mjs';

const { values: args } = parseArgs({
  options: {
    vroom: { type: 'string', default: process.env.VROOM ?? '' },
    seconds: { type: 'string', default: '30' },
    instances: { type: 'string', default: 'c1_10_1,r1_10_1,rc1_10_1' },
    windows: { type: 'string', default: '1' },
    'max-load': { type: 'string', default: '' },
    waymark: { type: 'string', default: '' },
    out: { type: 'string', default: 'vrptw-breaks.json' },
  },
});
if (!args.vroom || !existsSync(args.vroom)) throw new Error(`--vroom ${args.vroom}: no such file (build it with bash ../shared/peers/vroom/build.sh DIR)`);
const log = (msg) => process.stderr.write(`${msg}\n`);

function inputOf(inst) {
  const { durations, jobs } = tenthsInput(inst);
  const [depot] = inst.rows;
  const [s, e] = [10 * depot.ready, 10 * depot.due];
  const at = (f) => Math.round(s + f * (e - s));
  const first = [[at(0.2), at(0.4)], ...(args.windows === '2' ? [[at(0.45), at(0.55)]] : [])];
  const maxLoad = args['max-load'] ? { max_load: [Math.round(Number(args['max-load']) * inst.capacity)] } : {};
  return {
    vehicles: Array.from({ length: inst.vehicles }, (_, i) => ({
      id: i,
      start_index: 0,
      end_index: 0,
      capacity: [inst.capacity],
      time_window: [s, e],
      breaks: [
        { id: 1, time_windows: first, service: 300, ...maxLoad },
        { id: 2, time_windows: [[at(0.6), at(0.8)]], service: 300, ...maxLoad },
      ],
    })),
    jobs,
    matrices: { car: { durations } },
  };
}

/**
 * The plan re-timed from its order of steps alone (the reported times are not read): every job served
 * once or unassigned, each inside its window, within the vehicle's hours and capacity; each used vehicle
 * takes each break once, in the order of their windows, starting inside one of its windows where the
 * vehicle is: on leaving a place, or (as VROOM takes it) on reaching the next one, before the service
 * there; whichever of the two reaches the next place earlier counts.
 */
function problemsOf(input, out) {
  const errs = [];
  if (out.code !== 0) return [`code ${out.code}`];
  const d = input.matrices.car.durations;
  const jobs = new Map(input.jobs.map((j) => [j.id, j]));
  const seen = new Set();
  const startIn = (windows, t) => {
    for (const [a, b] of windows) if (t <= b) return Math.max(a, t);
    return null;
  };
  for (const r of out.routes) {
    const v = input.vehicles.find((x) => x.id === r.vehicle);
    const [hs, he] = v.time_window;
    const steps = r.steps.filter((s) => s.type === 'job' || s.type === 'break');
    let t = hs;
    let at = v.start_index;
    let load = steps.reduce((a, s) => a + (s.type === 'job' ? (jobs.get(s.id)?.delivery[0] ?? 0) : 0), 0);
    if (load > v.capacity[0]) errs.push(`vehicle ${v.id} overloaded`);
    const taken = [];
    for (const [i, s] of steps.entries()) {
      if (s.type === 'break') {
        const b = v.breaks.find((x) => x.id === s.id);
        // What is on board: the deliveries not yet made.
        if (b.max_load && load > b.max_load[0]) errs.push(`vehicle ${v.id} break ${s.id} with ${load} on board, max_load ${b.max_load[0]}`);
        const next = steps.slice(i + 1).find((x) => x.type === 'job');
        const there = next ? jobs.get(next.id).location_index : v.end_index;
        const onArrival = startIn(b.time_windows, t + d[at][there]);
        const onLeaving = startIn(b.time_windows, t);
        // With one window on reaching is never later; with several it may have to wait for a later one.
        const reached = (x, travel) => (x === null ? Infinity : x + b.service + travel);
        if (onArrival === null && onLeaving === null) errs.push(`vehicle ${v.id} break ${s.id} after its windows`);
        else if (reached(onArrival, 0) <= reached(onLeaving, d[at][there])) {
          t = onArrival + b.service;
          at = there;
        } else t = onLeaving + b.service;
        taken.push(s.id);
        continue;
      }
      const j = jobs.get(s.id);
      if (!j || seen.has(s.id)) errs.push(`job ${s.id} unknown or twice`);
      seen.add(s.id);
      const begin = startIn(j.time_windows, t + d[at][j.location_index]);
      if (begin === null) errs.push(`job ${s.id} late`);
      t = (begin ?? t) + j.service;
      at = j.location_index;
      load -= j.delivery[0];
    }
    if (t + d[at][v.end_index] > he) errs.push(`vehicle ${v.id} back after its hours`);
    const order = [...v.breaks].sort((a, b) => a.time_windows[0][0] - b.time_windows[0][0]).map((b) => b.id);
    if (taken.join() !== order.join()) errs.push(`vehicle ${v.id} breaks ${taken.join() || 'none'}`);
  }
  for (const u of out.unassigned) seen.add(u.id);
  if (seen.size !== input.jobs.length) errs.push('jobs missing');
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
    // Ours also with its times as reported (vroom-check.mjs: breaks taken on leaving, as ours takes them).
    const side = ({ out, ms }, reported = false) => {
      const problems = [...problemsOf(input, out), ...(reported ? checkOutput(input, out) : [])];
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
      runJson(process.execPath, [args.waymark || join(projectRoot, 'bin', 'waymark.js'), 'optimize', file, '--matrix', '--time-budget', args.seconds]),
      true,
    );
    const vroom = side(runJson(args.vroom, ['-i', file, '-x', '5', '-t', '1', '-l', args.seconds]));
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
  maxLoad: args['max-load'] ? Number(args['max-load']) : null,
  seconds: Number(args.seconds),
  feasible: { ours: results.filter((r) => r.ours.feasible).length, vroom: results.filter((r) => r.vroom.feasible).length },
  meanTravelRatio: +(results.reduce((a, r) => a + r.travelRatio, 0) / results.length).toFixed(4),
};
log(JSON.stringify(summary));
writeFileSync(args.out, JSON.stringify({ summary, results, measuredAt: new Date().toISOString() }, null, 2));
