// Li & Lim pickup-and-delivery with time windows (PDPTW), side by side with VROOM 1.14.0 on the same
// integer problem: each pair of tasks is a shipment (pickup then delivery by one vehicle, the pickup's
// demand on board between them), travel times ceil(distance × 1000), windows and service × 1000, one
// depot, the instance's fleet and capacity. VROOM runs first as `vroom -x 5 -t 1`; ours then gets the
// time VROOM took (or --time-limit S), sliced as a batch job runs it (src/api/optimizations/job.ts).
// Both plans go through checkPdptw below, which reads the original instance in exact doubles and knows
// nothing of either solver: every task once, each pair's pickup before its delivery on one vehicle, the
// load within [0, capacity] after every stop, every service starting inside its window, the depot
// reached by its closing time. Distances are the checker's. Gap: to the best known distance (BKS.json,
// which minimises vehicles first, as VROOM and ours do not).
// The instances are not in this repository: they are in VROOM-Project/vroom-scripts,
// benchmarks/PDPTW/li_lim_{100,200,400,...}/*.txt (with BKS.json beside the folders); --dir is the
// PDPTW folder of a copy of it.
// Usage: node bench/vrptw/pdptw.mjs --dir PATH/benchmarks/PDPTW --vroom PATH [--sizes 200,400]
//        [--per-size N] [--only REGEX] [--time-limit S] [--budget wall|cpu] [--vroom-x 5] [--seed 1] [--out vrptw-pdptw.json]
// --budget cpu gives ours VROOM's CPU time instead of its wall time: on a loaded machine the two solvers'
// shares of the CPU differ between their runs, so equal wall time is not equal work.
// (`npm run build` first; VROOM: `bash ../shared/peers/vroom/build.sh DIR` prints its path)
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { projectRoot } from '../../dist/lib/paths.js';
import { SLICE_MS } from '../../dist/api/optimizations/job.js';
import { SCALE, solveInSlices } from './lib.mjs';
import { summarize } from './pdptw-summary.mjs';

const { values: args } = parseArgs({
  options: {
    dir: { type: 'string', default: '' },
    vroom: { type: 'string', default: process.env.VROOM ?? '' },
    sizes: { type: 'string', default: '200,400' },
    'per-size': { type: 'string', default: '60' },
    only: { type: 'string', default: '' },
    'time-limit': { type: 'string', default: '' },
    budget: { type: 'string', default: 'wall' },
    'vroom-x': { type: 'string', default: '5' },
    seed: { type: 'string', default: '1' },
    out: { type: 'string', default: 'vrptw-pdptw.json' },
  },
});
const log = (msg) => process.stderr.write(`${msg}\n`);
if (!args.dir || !existsSync(join(args.dir, 'BKS.json')))
  throw new Error('--dir: the benchmarks/PDPTW folder of VROOM-Project/vroom-scripts (with BKS.json and li_lim_* folders)');
if (!args.vroom || !existsSync(args.vroom)) throw new Error(`--vroom ${args.vroom}: no such file (build it with bash ../shared/peers/vroom/build.sh DIR)`);
if (args.budget !== 'wall' && args.budget !== 'cpu') throw new Error(`--budget ${args.budget}: wall or cpu`);
const bks = JSON.parse(readFileSync(join(args.dir, 'BKS.json'), 'utf8'));

/** Li & Lim's format: `vehicles capacity speed`, then `id x y demand ready due service pickup delivery` (the depot first). */
function parsePdptw(text) {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const [vehicles, capacity] = lines[0].split(/\s+/).map(Number);
  const rows = lines.slice(1).map((l) => {
    const [id, x, y, demand, ready, due, service, pickup, delivery] = l.split(/\s+/).map(Number);
    return { id, x, y, demand, ready, due, service, pickup, delivery };
  });
  return { vehicles, capacity, rows };
}

/** The integer problem both solvers get; location k is row k (the depot 0), job k - 1 is task row k. */
function toProblem(inst) {
  const n = inst.rows.length;
  const durations = new Int32Array(n * n);
  for (let a = 0; a < n; a++)
    for (let b = 0; b < n; b++) durations[a * n + b] = Math.ceil(Math.hypot(inst.rows[a].x - inst.rows[b].x, inst.rows[a].y - inst.rows[b].y) * SCALE - 1e-7);
  const depot = inst.rows[0];
  const index = new Map(inst.rows.map((r, k) => [r.id, k]));
  const vehicles = Array.from({ length: inst.vehicles }, () => ({
    start: 0,
    end: 0,
    capacity: inst.capacity,
    hours: [depot.ready * SCALE, depot.due * SCALE],
  }));
  const jobs = inst.rows.slice(1).map((r, k) => ({
    location: k + 1,
    demand: 0,
    service: r.service * SCALE,
    timeWindows: [[r.ready * SCALE, r.due * SCALE]],
  }));
  // A pickup row names its delivery (its own `pickup` column is 0).
  const shipments = inst.rows
    .slice(1)
    .filter((r) => r.pickup === 0)
    .map((r) => ({ pickup: index.get(r.id) - 1, delivery: index.get(r.delivery) - 1, amount: r.demand }));
  return { durations, vehicles, jobs, shipments };
}

/** Independent check in exact doubles on the original instance; routes list task ids. */
function checkPdptw(inst, sol) {
  const errs = [];
  const [depot, ...tasks] = inst.rows;
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const dist = (a, b) => Math.hypot(a.x - b.x, a.y - b.y);
  const routeOf = new Map();
  let total = 0;
  for (const route of sol.routes) {
    let t = depot.ready;
    let at = depot;
    let load = 0;
    const done = new Set();
    for (const id of route.tasks) {
      const c = byId.get(id);
      if (!c) {
        errs.push(`unknown task ${id}`);
        continue;
      }
      if (routeOf.has(id)) errs.push(`task ${id} twice`);
      routeOf.set(id, route.vehicle);
      const isPickup = c.pickup === 0;
      // The pair's pickup must have been served earlier on this very route.
      if (!isPickup && !done.has(c.pickup)) errs.push(`task ${id} delivered before its pickup ${c.pickup} on vehicle ${route.vehicle}`);
      done.add(id);
      const d = dist(at, c);
      total += d;
      const arrival = t + d;
      if (arrival > c.due + 1e-9) errs.push(`task ${id} late (${arrival.toFixed(3)} > ${c.due})`);
      t = Math.max(arrival, c.ready) + c.service;
      load += c.demand;
      if (load > inst.capacity || load < 0) errs.push(`vehicle ${route.vehicle} carries ${load} after task ${id}`);
      at = c;
    }
    // Every pickup on the route has its delivery on it too.
    for (const id of done) if (byId.get(id).pickup === 0 && !done.has(byId.get(id).delivery)) errs.push(`task ${id} picked up, never delivered`);
    const back = dist(at, depot);
    total += back;
    if (t + back > depot.due + 1e-9) errs.push(`vehicle ${route.vehicle} returns late`);
  }
  const unserved = tasks.filter((c) => !routeOf.has(c.id)).length;
  if (unserved) errs.push(`${unserved} tasks unserved`);
  if (sol.routes.length > inst.vehicles) errs.push('too many vehicles');
  return { errs, total };
}

/** Ours, as the batch job runs it; with the CPU time it took (this process's, the search runs on its main thread). */
function ours(problem, budgetMs, seed) {
  const cpu = process.cpuUsage();
  const got = solveInSlices(problem, budgetMs, seed, { cpu: args.budget === 'cpu' });
  const used = process.cpuUsage(cpu);
  return { ...got, cpuMs: (used.user + used.system) / 1000 };
}

// CPU time of the reaped children (VROOM), from /proc/self/stat's cutime and cstime (Linux; null elsewhere).
// Wall times stretch with the machine's load, which varies between VROOM's run and ours; CPU times do not.
const ticksPerSecond = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
  } catch {
    return 100;
  }
})();
function childrenCpuMs() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // fields[0] is field 3 (state)
    return ((Number(fields[13]) + Number(fields[14])) * 1000) / ticksPerSecond;
  } catch {
    return null;
  }
}

/** VROOM on the same integer problem; shipments' pickup id = the pickup task's id, delivery id = the delivery task's. */
function vroom(inst, problem, work) {
  const n = inst.rows.length;
  const rows = Array.from({ length: n }, (_, a) => Array.from(problem.durations.subarray(a * n, (a + 1) * n)));
  const stop = (j) => ({
    id: inst.rows[j + 1].id,
    location_index: problem.jobs[j].location,
    service: problem.jobs[j].service,
    time_windows: problem.jobs[j].timeWindows,
  });
  const input = {
    vehicles: problem.vehicles.map((v, i) => ({ id: i, start_index: 0, end_index: 0, capacity: [v.capacity], time_window: v.hours })),
    shipments: problem.shipments.map((s) => ({ amount: [s.amount], pickup: stop(s.pickup), delivery: stop(s.delivery) })),
    matrices: { car: { durations: rows } },
  };
  const file = join(work, 'problem.json');
  writeFileSync(file, JSON.stringify(input));
  const cpuBefore = childrenCpuMs();
  const started = performance.now();
  const out = JSON.parse(execFileSync(args.vroom, ['-i', file, '-x', args['vroom-x'], '-t', '1'], { maxBuffer: 256 << 20 }).toString());
  const ms = performance.now() - started;
  const cpuMs = cpuBefore === null ? null : childrenCpuMs() - cpuBefore;
  if (out.code !== 0) throw new Error(`vroom failed: ${out.error}`);
  return {
    sol: {
      routes: out.routes.map((r) => ({
        vehicle: r.vehicle,
        tasks: r.steps.filter((s) => s.type === 'pickup' || s.type === 'delivery').map((s) => s.id),
      })),
    },
    ms,
    cpuMs,
  };
}

const sizes = args.sizes.split(',').map(Number);
// Round-robin over the classes, so a sample of N per size covers them all: LC1_2_1, LC2_2_1, LR1_2_1, ...
// (the 100-task files are named lc101, lc201, lr101, ...: class lc1, number 01).
const classes = ['LC1', 'LC2', 'LR1', 'LR2', 'LRC1', 'LRC2'];
const order = (name) => {
  const [, cls, k] = /^(L[A-Z]+\d)_\d+_(\d+)$/i.exec(name) ?? /^(L[A-Z]+\d)(\d\d)$/i.exec(name) ?? [];
  if (!cls) throw new Error(`${name}: not a Li & Lim instance name`);
  return Number(k) * 10 + classes.indexOf(cls.toUpperCase());
};
const names = sizes.flatMap((size) => {
  const folder = join(args.dir, `li_lim_${size}`);
  return readdirSync(folder)
    .filter((f) => f.endsWith('.txt'))
    .map((f) => ({ size, name: f.replace('.txt', ''), file: join(folder, f) }))
    .filter((x) => !args.only || new RegExp(args.only).test(x.name))
    .sort((a, b) => order(a.name) - order(b.name))
    .slice(0, Number(args['per-size']));
});

log(
  `Li & Lim PDPTW: ${names.length} instances (sizes ${sizes.join(', ')}), VROOM -x ${args['vroom-x']} -t 1, ours ${args['time-limit'] ? `${args['time-limit']} s` : "VROOM's time"} each; 2 shared cores: times are noisy`,
);
const options = {
  timeLimitS: args['time-limit'] ? Number(args['time-limit']) : 'vroom',
  // wall: ours searches for VROOM's wall time (slices timed by the clock); cpu: for VROOM's CPU time (slices timed by this process's CPU time).
  budget: args.budget,
  sliceMs: SLICE_MS,
  seed: Number(args.seed),
  vroom: { x: Number(args['vroom-x']), threads: 1 },
};
mkdirSync(join(projectRoot, 'bench', 'results'), { recursive: true });
const outFile = resolve(projectRoot, 'bench', 'results', args.out);
const save = (results) =>
  writeFileSync(
    outFile,
    `${JSON.stringify(
      {
        date: new Date().toISOString(),
        command: `node bench/vrptw/pdptw.mjs ${process.argv.slice(2).join(' ')}`,
        instances_from: 'VROOM-Project/vroom-scripts benchmarks/PDPTW (not in this repository)',
        options,
        scale: SCALE,
        summary: summarize(results, sizes),
        instances: results,
      },
      null,
      2,
    )}\n`,
  );

const work = mkdtempSync(join(tmpdir(), 'vrptw-pdptw-'));
const results = [];
const taskIds = (inst, sol) => ({
  routes: sol.routes.map((r) => ({ vehicle: r.vehicle, tasks: r.jobs.map((j) => inst.rows[j + 1].id) })),
});
try {
  for (const [k, { size, name, file }] of names.entries()) {
    const inst = parsePdptw(readFileSync(file, 'utf8'));
    const problem = toProblem(inst);
    const best = bks[name];
    const v = vroom(inst, problem, work);
    const cv = checkPdptw(inst, v.sol);
    const budgetMs = args['time-limit'] ? Number(args['time-limit']) * 1000 : args.budget === 'cpu' ? v.cpuMs : v.ms;
    const a = ours(problem, budgetMs, Number(args.seed));
    const ca = checkPdptw(inst, taskIds(inst, a.sol));
    const side = (c, routes, ms, cpuMs) => ({
      distance: +c.total.toFixed(2),
      vehicles: routes.length,
      gap: best ? +((c.total / best.best_known_cost - 1) * 100).toFixed(2) : null,
      ms: Math.round(ms),
      cpuMs: cpuMs == null ? null : Math.round(cpuMs),
      feasible: c.errs.length === 0,
      problems: c.errs.slice(0, 3),
    });
    const r = {
      instance: name,
      // The machine's 1-minute load average when the pair finished: wall times (and so ours's budget) stretch under load.
      load1: +loadavg()[0].toFixed(2),
      size,
      tasks: inst.rows.length - 1,
      bks: best?.best_known_cost ?? null,
      bksVehicles: best?.solved_with_vehicles ?? null,
      ours: { ...side(ca, a.sol.routes, a.ms, a.cpuMs), iterations: a.iterations },
      vroom: side(cv, v.sol.routes, v.ms, v.cpuMs),
    };
    r.distanceRatio = +(ca.total / cv.total).toFixed(4);
    r.timeRatio = +(a.ms / v.ms).toFixed(3);
    r.cpuRatio = v.cpuMs ? +(a.cpuMs / v.cpuMs).toFixed(3) : null;
    results.push(r);
    save(results);
    const line = (s) =>
      `${s.distance.toFixed(1).padStart(9)} veh ${String(s.vehicles).padStart(3)} ${(s.ms / 1000).toFixed(1).padStart(5)} s ${s.feasible ? 'feasible' : `INFEASIBLE ${s.problems.join('; ')}`}`;
    log(`[${k + 1}/${names.length}] ${name.padEnd(9)} ours ${line(r.ours)} | VROOM ${line(r.vroom)} | ratio ${r.distanceRatio.toFixed(3)}`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
log(`\n${JSON.stringify(summarize(results, sizes), null, 1)}`);
save(results);
log(`wrote ${outFile}`);
