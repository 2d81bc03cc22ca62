// Gehring–Homberger 1,000-customer VRPTW, side by side with VROOM 1.14.0 on the same integer problem
// (travel times ceil(distance × 1000), windows and service × 1000, one depot, the instance's fleet).
// Ours runs the way a batch job runs it (src/api/optimizations/job.ts): 1 s slices, each warm-started from
// the best plan so far, the cooling spread over --time-limit. VROOM runs as `vroom -x 5 -t 1` (its
// exploration level 5 on one thread, as ours has one). Both plans go through the independent checker of
// lib.mjs (exact doubles on the original instance); distances are the checker's. Gap: to the best known
// distance (BKS.json; the BKS minimise vehicles first). Ratio: our distance / VROOM's, and our time / its.
// On a loaded 2-core machine run a sample only; the full run wants an idle machine:
//   node bench/vrptw/homberger.mjs --instances 60 --time-limit 60 --vroom PATH
// --break M gives every vehicle one break of M time units (minutes, say) starting in the middle third of
// the depot's hours (VROOM's `breaks`; ours as a batch job takes them: the search plans each route with
// room for its break, which is then timed in the best plan); the checker then holds each route's break to
// that window where the solver put it (taken on leaving a place, or on reaching the next one). The
// README's row: --break 30 --time-limit vroom --vroom-limit 60 --out vrptw-homberger-breaks.json.
// Usage: node bench/vrptw/homberger.mjs [--instances N] [--only REGEX] [--time-limit S] [--vroom PATH]
//        [--vroom-x 5] [--vroom-limit S] [--seed 1] [--break M] [--out vrptw-homberger.json] [--label TEXT] [--resume]
// --resume keeps the instances already in --out (measured with the same options) and runs the others,
// so the 2-hour full run can be done in parts; each instance records when it was measured.
// (`npm run build` first; VROOM: `bash ../shared/peers/vroom/build.sh DIR` prints its path)
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { projectRoot } from '../../dist/lib/paths.js';
import { SLICE_MS } from '../../dist/api/optimizations/job.js';
import { applyBreaks } from '../../dist/engine/vrp/breaks.js';
import { check, parse, SCALE, solveInSlices, toProblem } from './lib.mjs';

const { values: args } = parseArgs({
  options: {
    instances: { type: 'string', default: '60' },
    only: { type: 'string', default: '' },
    'time-limit': { type: 'string', default: '60' },
    vroom: { type: 'string', default: process.env.VROOM ?? '' },
    'vroom-x': { type: 'string', default: '5' },
    'vroom-limit': { type: 'string', default: '' },
    seed: { type: 'string', default: '1' },
    break: { type: 'string', default: '0' },
    out: { type: 'string', default: 'vrptw-homberger.json' },
    label: { type: 'string', default: '' },
    resume: { type: 'boolean', default: false },
  },
});
const dir = join(projectRoot, '..', 'shared', 'data', 'vrptw', 'homberger_1000');
const bks = JSON.parse(readFileSync(join(dir, 'BKS.json'), 'utf8'));
// `--time-limit vroom`: VROOM runs first and ours gets the wall-clock time it took, everything included
// (VROOM overruns -l with breaks).
const matchVroom = args['time-limit'] === 'vroom';
let budgetMs = matchVroom ? 0 : Number(args['time-limit']) * 1000;
const log = (msg) => process.stderr.write(`${msg}\n`);

// Round-robin over the classes, so a sample of N covers them all: c1_10_1, c2_10_1, r1_10_1, ...
const all = readdirSync(dir)
  .filter((f) => f.endsWith('.txt'))
  .map((f) => f.replace('.txt', ''));
const key = (n) => {
  const [cls, , k] = n.split('_');
  return [Number(k), ['c1', 'c2', 'r1', 'r2', 'rc1', 'rc2'].indexOf(cls)];
};
const names = all
  .filter((n) => !args.only || new RegExp(args.only).test(n))
  .sort((a, b) => {
    const [ka, ca] = key(a),
      [kb, cb] = key(b);
    return ka - kb || ca - cb;
  })
  .slice(0, Number(args.instances));

/** The break of --break, in instance units: the middle third of the depot's hours. */
function breakOf(inst) {
  const minutes = Number(args.break);
  if (!minutes) return null;
  const [depot] = inst.rows;
  const third = (depot.due - depot.ready) / 3;
  // Whole scaled units, as VROOM takes them.
  return { start: Math.ceil((depot.ready + third) * SCALE) / SCALE, end: Math.floor((depot.ready + 2 * third) * SCALE) / SCALE, service: minutes };
}

/** The problem with every vehicle's break, scaled as toProblem scales times. */
function withBreak(problem, brk) {
  if (!brk) return problem;
  const breaks = [{ windows: [[Math.round(brk.start * SCALE), Math.round(brk.end * SCALE)]], service: brk.service * SCALE }];
  return { ...problem, vehicles: problem.vehicles.map((v) => ({ ...v, breaks })) };
}

/**
 * Ours, as the batch job runs it: slices with warm starts until the budget is spent, then the breaks
 * placed (job.ts). Given VROOM's time, that is the wall-clock time of all of it, the breaks' placement
 * included (2 % of it held back for that, at least 1 s).
 */
function ours(original, seed) {
  const withBreaks = original.vehicles.some((v) => v.breaks?.length);
  const started = performance.now();
  const wall = matchVroom ? { wall: true, reserveMs: withBreaks ? Math.max(1000, 0.02 * budgetMs) : 0 } : {};
  let { sol, iterations } = solveInSlices(original, budgetMs, seed, wall);
  if (withBreaks) sol = applyBreaks(original, sol);
  const routes = sol.routes.map((r) => ({ ...r, breakAfter: r.breaks?.length ? r.breaks[0].after + 1 : undefined }));
  return { sol: { ...sol, routes }, ms: performance.now() - started, iterations };
}

/** VROOM on the same integer problem; its routes as job indices. */
function vroom(inst, problem, work) {
  const n = inst.rows.length;
  const rows = Array.from({ length: n }, (_, a) => Array.from(problem.durations.subarray(a * n, (a + 1) * n)));
  const input = {
    vehicles: problem.vehicles.map((v, i) => ({
      id: i,
      start_index: 0,
      end_index: 0,
      capacity: [v.capacity],
      time_window: v.hours,
      ...(v.breaks ? { breaks: v.breaks.map((b, k) => ({ id: k, time_windows: b.windows, service: b.service })) } : {}),
    })),
    jobs: problem.jobs.map((j, i) => ({ id: i, location_index: j.location, service: j.service, delivery: [j.demand], time_windows: j.timeWindows })),
    matrices: { car: { durations: rows } },
  };
  const file = join(work, 'problem.json');
  writeFileSync(file, JSON.stringify(input));
  const flags = ['-i', file, '-x', args['vroom-x'], '-t', '1', ...(args['vroom-limit'] ? ['-l', args['vroom-limit']] : [])];
  const started = performance.now();
  const out = JSON.parse(execFileSync(args.vroom, flags, { maxBuffer: 256 << 20 }).toString());
  const ms = performance.now() - started;
  if (out.code !== 0) throw new Error(`vroom failed: ${out.error}`);
  return {
    sol: {
      routes: out.routes.map((r) => {
        const tasks = r.steps.filter((s) => s.type === 'job' || s.type === 'break');
        const at = tasks.findIndex((s) => s.type === 'break');
        return { vehicle: r.vehicle, jobs: tasks.filter((s) => s.type === 'job').map((s) => s.id), breakAfter: at < 0 ? undefined : at };
      }),
      unassigned: out.unassigned.map((u) => u.id),
    },
    ms,
  };
}

const withVroom = Boolean(args.vroom);
if (matchVroom && !withVroom) throw new Error('--time-limit vroom needs --vroom PATH');
if (withVroom && !existsSync(args.vroom)) throw new Error(`--vroom ${args.vroom}: no such file (build it with bash ../shared/peers/vroom/build.sh DIR)`);
log(
  `Gehring–Homberger 1000: ${names.length} instances, ours ${matchVroom ? "VROOM's time" : `${budgetMs / 1000} s`} each${withVroom ? `, VROOM -x ${args['vroom-x']} -t 1${args['vroom-limit'] ? ` -l ${args['vroom-limit']}` : ''}` : ' (no VROOM: pass --vroom PATH)'}; 2 shared cores: times are noisy`,
);
const mean = (xs) => (xs.length ? +(xs.reduce((s, x) => s + x, 0) / xs.length).toFixed(3) : null);
const summarize = (results) => ({
  instances: results.length,
  ours: {
    feasible: results.filter((r) => r.ours.feasible).length,
    meanGap: mean(results.map((r) => r.ours.gap)),
    meanVehicles: mean(results.map((r) => r.ours.vehicles)),
    meanMs: mean(results.map((r) => r.ours.ms)),
  },
  ...(withVroom
    ? {
        vroom: {
          feasible: results.filter((r) => r.vroom.feasible).length,
          meanGap: mean(results.map((r) => r.vroom.gap)),
          meanVehicles: mean(results.map((r) => r.vroom.vehicles)),
          meanMs: mean(results.map((r) => r.vroom.ms)),
        },
        shorterThanVroom: results.filter((r) => r.distanceRatio < 1).length,
        meanDistanceRatio: mean(results.map((r) => r.distanceRatio)),
        meanTimeRatio: mean(results.map((r) => r.timeRatio)),
      }
    : {}),
  bksVehicles: mean(results.map((r) => r.bksVehicles)),
});
/** Written after every instance, so an interrupted run keeps what it measured (and --resume goes on). */
const save = (results) =>
  writeFileSync(
    outFile,
    `${JSON.stringify(
      {
        date: new Date().toISOString(),
        label: args.label || null,
        command: `node bench/vrptw/homberger.mjs ${process.argv
          .slice(2)
          .filter((a, i, all) => a !== '--label' && all[i - 1] !== '--label')
          .join(' ')}`,
        options,
        scale: SCALE,
        summary: summarize(results),
        instances: results,
      },
      null,
      2,
    )}\n`,
  );

const options = {
  timeLimitS: matchVroom ? 'vroom' : budgetMs / 1000,
  sliceMs: SLICE_MS,
  seed: Number(args.seed),
  ...(Number(args.break) ? { breakUnits: Number(args.break) } : {}),
  vroom: withVroom ? { x: Number(args['vroom-x']), threads: 1, limitS: args['vroom-limit'] ? Number(args['vroom-limit']) : null } : null,
};
mkdirSync(join(projectRoot, 'bench', 'results'), { recursive: true });
const outFile = join(projectRoot, 'bench', 'results', args.out);
/** Instances measured before with the same options (--resume), by name. */
const earlier = new Map();
if (args.resume && existsSync(outFile)) {
  const before = JSON.parse(readFileSync(outFile, 'utf8'));
  if (JSON.stringify(before.options) !== JSON.stringify(options))
    throw new Error(`--resume: ${args.out} was measured with other options (${JSON.stringify(before.options)})`);
  for (const r of before.instances) earlier.set(r.instance, { measuredAt: before.date, ...r });
  log(`--resume: ${earlier.size} instances kept from ${args.out}`);
}
const work = mkdtempSync(join(tmpdir(), 'vrptw-homberger-'));
const results = [];
const pct = (x) => (x === null ? '     -' : `${x.toFixed(2).padStart(6)}`);
try {
  for (const [k, name] of names.entries()) {
    if (earlier.has(name)) {
      results.push(earlier.get(name));
      continue;
    }
    const inst = parse(readFileSync(join(dir, `${name}.txt`), 'utf8'));
    const brk = breakOf(inst);
    const problem = withBreak(toProblem(inst), brk);
    const best = bks[name];
    const v = withVroom ? vroom(inst, problem, work) : null;
    if (matchVroom) budgetMs = v.ms;
    const a = ours(problem, Number(args.seed));
    const ca = check(inst, a.sol, brk);
    const r = {
      instance: name,
      measuredAt: new Date().toISOString(),
      class: name.split('_')[0].toUpperCase(),
      bks: best.best_known_cost,
      bksVehicles: best.solved_with_vehicles,
      ours: {
        distance: +ca.total.toFixed(2),
        vehicles: a.sol.routes.length,
        gap: +((ca.total / best.best_known_cost - 1) * 100).toFixed(2),
        ms: Math.round(a.ms),
        iterations: a.iterations,
        feasible: ca.errs.length === 0,
        problems: ca.errs.slice(0, 3),
      },
    };
    if (v) {
      const cv = check(inst, v.sol, brk);
      r.vroom = {
        distance: +cv.total.toFixed(2),
        vehicles: v.sol.routes.length,
        gap: +((cv.total / best.best_known_cost - 1) * 100).toFixed(2),
        ms: Math.round(v.ms),
        feasible: cv.errs.length === 0,
        problems: cv.errs.slice(0, 3),
      };
      r.distanceRatio = +(ca.total / cv.total).toFixed(4);
      r.timeRatio = +(a.ms / v.ms).toFixed(3);
    }
    results.push(r);
    save(results);
    log(
      `[${k + 1}/${names.length}] ${name.padEnd(9)} ours ${r.ours.distance.toFixed(1).padStart(9)} veh ${String(r.ours.vehicles).padStart(3)} gap ${pct(r.ours.gap)}% ${(r.ours.ms / 1000).toFixed(1).padStart(5)} s ${r.ours.feasible ? 'feasible' : `INFEASIBLE ${r.ours.problems.join('; ')}`}` +
        (r.vroom
          ? ` | VROOM ${r.vroom.distance.toFixed(1).padStart(9)} veh ${String(r.vroom.vehicles).padStart(3)} gap ${pct(r.vroom.gap)}% ${(r.vroom.ms / 1000).toFixed(1).padStart(5)} s ${r.vroom.feasible ? 'feasible' : 'INFEASIBLE'} | ratio ${r.distanceRatio.toFixed(3)} time ${r.timeRatio.toFixed(2)}`
          : ''),
    );
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

log(`\n${JSON.stringify(summarize(results))}`);
save(results);
log(`wrote bench/results/${args.out}`);
