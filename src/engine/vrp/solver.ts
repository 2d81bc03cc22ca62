// Vehicle routing with time windows: packs a VrpProblem into the `vrp` WASM kernel (regret insertion,
// then SISR ruin & recreate with annealing and a local-search polish), runs it synchronously and
// schedules the routes it returns.
import { instantiate } from '../../lib/wasm.js';
import {
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
  searchedBreak,
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
  solve(
    n: number,
    v: number,
    j: number,
    dims: number,
    dur: number,
    dis: number,
    vehI: number,
    vehT: number,
    lim: number,
    cap: number,
    jobI: number,
    dem: number,
    pick: number,
    pairs: number,
    jobSvc: number,
    prio: number,
    tw: number,
    compat: number,
    params: number,
    out: number,
  ): number;
}

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
  const twCount = windows.reduce((a, w) => a + w.length, 0);
  const ptr = {
    dur: k.alloc(n * n * 4),
    vehI: k.alloc(V * 8),
    vehT: k.alloc(V * 16),
    lim: k.alloc(V * 80),
    // Meters go to the kernel only when a vehicle has a distance limit or pays per km: the matrix is as large as the durations'.
    dis: problem.distances && vehicles.some((v) => v.maxDistance != null || (v.perKm ?? 0) > 0) ? k.alloc(n * n * 4) : 0,
    cap: k.alloc(V * dims * 4),
    jobI: k.alloc(J * 12),
    dem: k.alloc(Math.max(1, J * dims) * 4),
    pick: k.alloc(Math.max(1, J * dims) * 4),
    pairs: k.alloc(Math.max(1, J) * 4),
    jobSvc: k.alloc(J * 8),
    prio: jobs.some((j) => (j.priority ?? 0) > 0) ? k.alloc(J * 4) : 0,
    tw: k.alloc(Math.max(1, twCount) * 16),
    compat: k.alloc(Math.max(1, J * V)),
    params: k.alloc(48),
    out: k.alloc((V + J) * 4),
  };
  const buf = k.memory.buffer;

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

  const vehI = new Int32Array(buf, ptr.vehI, V * 2);
  const vehT = new Float64Array(buf, ptr.vehT, V * 2);
  const lim = new Float64Array(buf, ptr.lim, V * 10);
  const cap = new Int32Array(buf, ptr.cap, V * dims);
  vehicles.forEach((v, r) => {
    vehI.set([v.start, isOpen(v) ? -1 : (v.end as number)], r * 2);
    vehT.set(hoursOf(v), r * 2);
    const brk = searchedBreak(v);
    lim.set(
      [
        v.maxJobs ?? Infinity,
        v.maxTravel ?? Infinity,
        v.maxDistance ?? Infinity,
        v.fixed ?? 0,
        v.speedFactor ?? 1,
        (v.perHour ?? 3600) / 3600,
        (v.perKm ?? 0) / 1000,
        brk?.windows[0]?.[0] ?? -Infinity,
        brk?.windows[0]?.[1] ?? Infinity,
        brk ? brk.service : -1,
      ],
      r * 10,
    );
    cap.set(
      capacityOf(v, dims).map((c) => (c === Infinity ? -1 : c)),
      r * dims,
    );
  });

  // Demand only counts when some vehicle has a capacity; a vehicle without one carries any amount.
  const capacitated = vehicles.some((v) => v.capacity != null);
  const jobI = new Int32Array(buf, ptr.jobI, J * 3);
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
  const tw = new Float64Array(buf, ptr.tw, twCount * 2);
  const compat = new Uint8Array(buf, ptr.compat, J * V);
  let off = 0;
  jobs.forEach((job, j) => {
    jobI.set([job.location, off, windows[j].length], j * 3);
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
    for (const [s, e] of windows[j]) {
      tw[off * 2] = s;
      tw[off * 2 + 1] = e;
      off++;
    }
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
  new Float64Array(buf, ptr.params, 6).set([opts.seed >>> 0, opts.iterations, opts.timeLimitMs, opts.temperature[0], opts.temperature[1], warm ? 1 : 0]);

  const iterations = k.solve(
    n,
    V,
    J,
    dims,
    ptr.dur,
    ptr.dis,
    ptr.vehI,
    ptr.vehT,
    ptr.lim,
    ptr.cap,
    ptr.jobI,
    ptr.dem,
    ptr.pick,
    ptr.pairs,
    ptr.jobSvc,
    ptr.prio,
    ptr.tw,
    ptr.compat,
    ptr.params,
    ptr.out,
  );

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
