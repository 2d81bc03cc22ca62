// Vehicle routing with time windows: packs a VrpProblem into the `vrp` WASM kernel (regret insertion,
// then SISR ruin & recreate with annealing and a local-search polish), runs it synchronously and
// schedules the routes it returns.
import { KERNEL_LAYOUTS, writeRecord } from '../../lib/kernel-records.js';
import { instantiate } from '../../lib/wasm.js';
import {
  breakOrder,
  capacityOf,
  demandOf,
  dimensionsOf,
  fitsIn,
  hasSkills,
  hoursOf,
  isOpen,
  matrixReader,
  normalizedWindows,
  pickupOf,
  routeCost,
  shipmentChanges,
  validateProblem,
} from './problem.js';
import { scheduleRoute } from './schedule.js';
import type { SolveOptions, VrpProblem, VrpRoute, VrpSolution } from './types.js';

export { unassignedReason } from './unassigned.js';
export type * from './types.js';

interface VrpKernel extends WebAssembly.Exports {
  memory: WebAssembly.Memory;
  reset(): void;
  alloc(bytes: number): number;
  /** Reads the problem record at `problem` (layouts.json vrp.problem); returns the iterations run. */
  solve(problem: number): number;
}

const L = KERNEL_LAYOUTS.vrp;

let kernel: VrpKernel | undefined;

const DEFAULTS = { timeLimitMs: 1000, iterations: 20_000, seed: 1, temperature: [0.3, 0.003] as const };

/**
 * Serves the largest sum of priorities, then as many jobs as possible, then minimizes the cost (routeCost: by default the travel duration). Synchronous (runs the kernel in
 * the calling thread, e.g. a pool worker). Throws RangeError on a malformed problem.
 */
export function solveVrp(problem: VrpProblem, options: SolveOptions = {}): VrpSolution {
  const n = validateProblem(problem);
  const opts = {
    timeLimitMs: options.timeLimitMs ?? DEFAULTS.timeLimitMs,
    iterations: options.iterations ?? DEFAULTS.iterations,
    seed: options.seed ?? DEFAULTS.seed,
    temperature: options.temperature ?? DEFAULTS.temperature,
  };
  const { vehicles, jobs } = problem;
  const V = vehicles.length;
  const J = jobs.length;
  const dims = dimensionsOf(problem);
  kernel ??= instantiate<VrpKernel>('vrp', { env: { now: () => performance.now() } });
  const k = kernel;
  k.reset();

  const windows = jobs.map(normalizedWindows);
  const breaks = vehicles.map((v) => breakOrder(v.breaks ?? []).map((i) => v.breaks![i]));
  const breakCount = breaks.reduce((a, b) => a + b.length, 0);
  const breakLoads = breaks.some((b) => b.some((x) => x.maxLoad));
  // A break without windows may start any time: one window without bounds.
  const twCount = windows.reduce((a, w) => a + w.length, 0) + breaks.flat().reduce((a, b) => a + Math.max(1, b.windows.length), 0);
  const ptr = {
    dur: k.alloc(n * n * 4),
    vehI: k.alloc(V * L.vehicle.bytes),
    vehT: k.alloc(V * L.vehicleHours.bytes),
    lim: k.alloc(V * L.vehicleLimits.bytes),
    // Meters go to the kernel only when a vehicle has a distance limit or pays per km: the matrix is as large as the durations'.
    dis: problem.distances && vehicles.some((v) => v.maxDistance != null || (v.perKm ?? 0) > 0) ? k.alloc(n * n * 4) : 0,
    cap: k.alloc(V * dims * 4),
    jobI: k.alloc(J * L.job.bytes),
    dem: k.alloc(Math.max(1, J * dims) * 4),
    pick: k.alloc(Math.max(1, J * dims) * 4),
    pairs: k.alloc(Math.max(1, J) * 4),
    jobSvc: k.alloc(J * 8),
    prio: jobs.some((j) => (j.priority ?? 0) > 0) ? k.alloc(J * 4) : 0,
    tw: k.alloc(Math.max(1, twCount) * L.window.bytes),
    compat: k.alloc(Math.max(1, J * V)),
    params: k.alloc(L.params.bytes),
    out: k.alloc((V + J) * 4),
    breaks: breakCount ? k.alloc(breakCount * L.break.bytes) : 0,
    breakLoads: breakLoads ? k.alloc(breakCount * dims * 4) : 0,
    problem: k.alloc(L.problem.bytes),
  };
  const buf = k.memory.buffer;
  const view = new DataView(buf);

  const dur = new Int32Array(buf, ptr.dur, n * n);
  if (problem.durations instanceof Int32Array) dur.set(problem.durations);
  else {
    const read = matrixReader(problem.durations);
    for (let a = 0; a < n; a++) for (let b = 0; b < n; b++) dur[a * n + b] = read(a, b);
  }
  if (ptr.dis) {
    const dis = new Int32Array(buf, ptr.dis, n * n);
    const read = matrixReader(problem.distances!);
    for (let a = 0; a < n; a++) for (let b = 0; b < n; b++) dis[a * n + b] = Math.round(read(a, b));
  }

  const cap = new Int32Array(buf, ptr.cap, V * dims);
  // Break windows follow the jobs' in the windows block.
  let twAt = windows.reduce((a, w) => a + w.length, 0);
  let firstBreak = 0;
  const brkLoad = ptr.breakLoads ? new Int32Array(buf, ptr.breakLoads, breakCount * dims) : undefined;
  vehicles.forEach((v, r) => {
    writeRecord(view, ptr.vehI, r, L.vehicle, { start: v.start, end: isOpen(v) ? -1 : (v.end as number) });
    const [start, end] = hoursOf(v);
    writeRecord(view, ptr.vehT, r, L.vehicleHours, { start, end });
    for (const [b, brk] of breaks[r].entries()) {
      const tw = brk.windows.length ? brk.windows : [[-Infinity, Infinity] as const];
      writeRecord(view, ptr.breaks, firstBreak + b, L.break, { firstWindow: twAt, windowCount: tw.length, service: brk.service });
      // A dimension the max load does not name has no limit (-1).
      brkLoad?.set(
        Array.from({ length: dims }, (_, d) => brk.maxLoad?.[d] ?? -1),
        (firstBreak + b) * dims,
      );
      for (const [start, end] of tw) writeRecord(view, ptr.tw, twAt++, L.window, { start, end });
    }
    writeRecord(view, ptr.lim, r, L.vehicleLimits, {
      maxJobs: v.maxJobs ?? Infinity,
      maxTravel: v.maxTravel ?? Infinity,
      maxDistance: v.maxDistance ?? Infinity,
      fixed: v.fixed ?? 0,
      speedFactor: v.speedFactor ?? 1,
      costPerSecond: (v.perHour ?? 3600) / 3600,
      costPerMeter: (v.perKm ?? 0) / 1000,
      firstBreak,
      breakCount: breaks[r].length,
    });
    firstBreak += breaks[r].length;
    cap.set(
      capacityOf(v, dims).map((c) => (c === Infinity ? -1 : c)),
      r * dims,
    );
  });

  // Demand only counts when some vehicle has a capacity or some break a max load; a vehicle without a capacity carries any amount.
  const capacitated = vehicles.some((v) => v.capacity != null) || breakLoads;
  const dem = new Int32Array(buf, ptr.dem, J * dims);
  const pick = new Int32Array(buf, ptr.pick, J * dims);
  const pairs = new Int32Array(buf, ptr.pairs, J);
  dem.fill(0); // the kernel's memory is reused between problems
  pick.fill(0);
  pairs.fill(-1);
  for (const s of problem.shipments ?? []) pairs[s.pickup] = s.delivery;
  const changes = shipmentChanges(problem, dims);
  const capacities = vehicles.map((v) => capacityOf(v, dims));
  const jobSvc = new Float64Array(buf, ptr.jobSvc, J);
  const compat = new Uint8Array(buf, ptr.compat, J * V);
  let off = 0;
  jobs.forEach((job, j) => {
    writeRecord(view, ptr.jobI, j, L.job, { location: job.location, firstWindow: off, windowCount: windows[j].length });
    const change = changes.get(j);
    const delivered = demandOf(job, dims);
    const picked = change ?? pickupOf(job, dims);
    if (capacitated) {
      dem.set(delivered, j * dims);
      pick.set(picked, j * dims);
    }
    // What must fit the vehicle alone: the delivery leaving the start, the pickup (a shipment's amount) on board after it.
    const carried = picked.map(Math.abs);
    jobSvc[j] = job.service ?? 0;
    for (const [start, end] of windows[j]) writeRecord(view, ptr.tw, off++, L.window, { start, end });
    vehicles.forEach((v, r) => {
      compat[j * V + r] = hasSkills(v, job) && fitsIn(delivered, capacities[r]) && fitsIn(carried, capacities[r]) ? 1 : 0;
    });
  });
  if (ptr.prio) {
    const prio = new Int32Array(buf, ptr.prio, J);
    // A shipment's priority is its pickup's: the pair is placed and removed by it.
    jobs.forEach((job, j) => {
      prio[j] = job.priority ?? 0;
    });
  }
  const warm = options.warmStart ? warmRoutes(problem, options.warmStart) : undefined;
  if (warm) {
    const init = new Int32Array(buf, ptr.out, V + J);
    let w = V;
    warm.forEach((order, r) => {
      init[r] = order.length;
      init.set(order, w);
      w += order.length;
    });
  }
  writeRecord(view, ptr.params, 0, L.params, {
    seed: opts.seed >>> 0,
    iterations: opts.iterations,
    timeLimitMs: opts.timeLimitMs,
    startTemperature: opts.temperature[0],
    endTemperature: opts.temperature[1],
    warm: warm ? 1 : 0,
  });
  writeRecord(view, ptr.problem, 0, L.problem, {
    n,
    vehicleCount: V,
    jobCount: J,
    dims,
    durations: ptr.dur,
    distances: ptr.dis,
    vehicles: ptr.vehI,
    hours: ptr.vehT,
    limits: ptr.lim,
    capacities: ptr.cap,
    jobs: ptr.jobI,
    deliveries: ptr.dem,
    pickups: ptr.pick,
    pairs: ptr.pairs,
    services: ptr.jobSvc,
    priorities: ptr.prio,
    windows: ptr.tw,
    compat: ptr.compat,
    params: ptr.params,
    out: ptr.out,
    breaks: ptr.breaks,
    breakLoads: ptr.breakLoads,
  });

  const iterations = k.solve(ptr.problem);

  const out = new Int32Array(k.memory.buffer, ptr.out, V + J);
  const routes: VrpRoute[] = [];
  const served = new Uint8Array(J);
  let at = V;
  for (let r = 0; r < V; r++) {
    const order = Array.from(out.subarray(at, at + out[r]));
    at += out[r];
    if (order.length === 0) continue;
    for (const j of order) served[j] = 1;
    routes.push({ vehicle: r, jobs: order, ...scheduleRoute(problem, r, order) });
  }
  const unassigned: number[] = [];
  served.forEach((s, j) => s || unassigned.push(j));
  return {
    routes,
    unassigned,
    cost: routes.reduce((a, r) => a + routeCost(vehicles[r.vehicle], r), 0),
    distance: routes.reduce((a, r) => a + r.distance, 0),
    iterations,
  };
}

/**
 * The routes of a warm start as the kernel takes them (one job list per vehicle), or undefined when they
 * do not fit this problem: a job out of range or twice, or a route its schedule rejects. The kernel
 * trusts what it is given, so a stale checkpoint must not reach it.
 */
function warmRoutes(problem: VrpProblem, routes: ReadonlyArray<{ vehicle: number; jobs: readonly number[] }>): number[][] | undefined {
  const out: number[][] = problem.vehicles.map(() => []);
  const seen = new Set<number>();
  for (const { vehicle, jobs } of routes) {
    if (!Number.isInteger(vehicle) || vehicle < 0 || vehicle >= out.length || out[vehicle].length) return undefined;
    for (const j of jobs) {
      if (!Number.isInteger(j) || j < 0 || j >= problem.jobs.length || seen.has(j)) return undefined;
      seen.add(j);
    }
    if (!scheduleRoute(problem, vehicle, jobs).feasible) return undefined;
    out[vehicle] = [...jobs];
  }
  return out;
}

/** Worker-pool entry: `runTask('vrp', {problem, options})`. */
export function vrpTask(input: { problem: VrpProblem; options?: SolveOptions }): VrpSolution {
  return solveVrp(input.problem, input.options);
}
