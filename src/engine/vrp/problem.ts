// Readers over a VrpProblem shared by the solver, the scheduler and the unassigned reasons, so all
// three interpret matrices, windows, hours and skills the same way.
import type { Amount, Matrix, VrpBreak, VrpJob, VrpProblem, VrpVehicle } from './types.js';

/** Most load dimensions a problem may have. */
export const MAX_DIMENSIONS = 8;

export function matrixSize(m: Matrix): number {
  if (m instanceof Int32Array || m instanceof Float64Array) {
    const n = Math.round(Math.sqrt(m.length));
    if (n * n !== m.length) throw new RangeError(`a flat matrix needs n × n entries, got ${m.length}`);
    return n;
  }
  return m.length;
}

/** (from, to) → value. */
export function matrixReader(m: Matrix): (from: number, to: number) => number {
  if (m instanceof Int32Array || m instanceof Float64Array) {
    const n = matrixSize(m);
    return (a, b) => m[a * n + b];
  }
  return (a, b) => m[a][b];
}

/** Vehicle `v`'s travel time from a to b: the matrix's divided by its speed factor, in whole seconds (as the kernel's tv). */
export function travelTimes(p: VrpProblem, v: VrpVehicle): (from: number, to: number) => number {
  const read = matrixReader(p.durations);
  const f = v.speedFactor ?? 1;
  return f === 1 ? read : (a, b) => Math.floor(read(a, b) / f + 0.5);
}

/** What a route costs its vehicle (VROOM's cost, unrounded): fixed + per_hour × travel hours + per_km × km. */
export function routeCost(v: VrpVehicle, travel: { duration: number; distance: number }): number {
  const perHour = v.perHour ?? 3600;
  const perKm = v.perKm ?? 0;
  // The default rate prices a second at 1: the sum stays the exact whole seconds.
  return (v.fixed ?? 0) + (perHour === 3600 ? travel.duration : (perHour * travel.duration) / 3600) + (perKm ? (perKm * travel.distance) / 1000 : 0);
}

/** The order a vehicle's breaks are taken in: by the opening of their first window (indexes into `breaks`). */
export function breakOrder(breaks: readonly VrpBreak[]): number[] {
  return breaks.map((_, i) => i).sort((a, b) => (breaks[a].windows[0]?.[0] ?? 0) - (breaks[b].windows[0]?.[0] ?? 0));
}

export function isOpen(v: VrpVehicle): boolean {
  return v.end === undefined || v.end === null || v.end < 0;
}

export function hoursOf(v: VrpVehicle): readonly [number, number] {
  return v.hours ?? [0, Infinity];
}

/** Windows sorted by start with overlaps merged: the same arrivals get the same service start. */
export function normalizedWindows(job: VrpJob): Array<[number, number]> {
  const sorted = [...(job.timeWindows ?? [])].map(([s, e]) => [s, e] as [number, number]).sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const w of sorted) {
    const last = merged[merged.length - 1];
    if (last && w[0] <= last[1]) last[1] = Math.max(last[1], w[1]);
    else merged.push(w);
  }
  return merged;
}

/** Service start for an arrival: the earliest window whose end is >= arrival; null when none is left. */
export function serviceStart(windows: ReadonlyArray<readonly [number, number]>, arrival: number): number | null {
  if (windows.length === 0) return arrival;
  for (const [s, e] of windows) if (e >= arrival) return Math.max(s, arrival);
  return null;
}

export function hasSkills(v: VrpVehicle, job: VrpJob): boolean {
  const have = v.skills ?? [];
  return (job.skills ?? []).every((s) => have.includes(s));
}

export const amountOf = (a: Amount): number[] => (typeof a === 'number' ? [a] : [...a]);

/** Load dimensions of a problem: the length of its capacities and demands (a number is one), at least 1. */
export function dimensionsOf(p: VrpProblem): number {
  let dims = 1;
  for (const v of p.vehicles) if (v.capacity != null && typeof v.capacity !== 'number') dims = Math.max(dims, v.capacity.length);
  for (const j of p.jobs) {
    if (j.demand !== undefined && typeof j.demand !== 'number') dims = Math.max(dims, j.demand.length);
    if (j.pickup !== undefined && typeof j.pickup !== 'number') dims = Math.max(dims, j.pickup.length);
  }
  for (const s of p.shipments ?? []) if (s.amount !== undefined && typeof s.amount !== 'number') dims = Math.max(dims, s.amount.length);
  return dims;
}

export function demandOf(job: VrpJob, dims: number): number[] {
  return job.demand === undefined ? new Array<number>(dims).fill(1) : amountOf(job.demand);
}

export function pickupOf(job: VrpJob, dims: number): number[] {
  return job.pickup === undefined ? new Array<number>(dims).fill(0) : amountOf(job.pickup);
}

/**
 * What each stop of a shipment does to the load: +amount at its pickup, -amount at its delivery, by job
 * index (jobs outside shipments are not in the map).
 */
export function shipmentChanges(p: VrpProblem, dims: number): Map<number, number[]> {
  const out = new Map<number, number[]>();
  for (const s of p.shipments ?? []) {
    const amount = s.amount === undefined ? new Array<number>(dims).fill(0) : amountOf(s.amount);
    out.set(s.pickup, amount);
    out.set(
      s.delivery,
      amount.map((x) => -x),
    );
  }
  return out;
}

/** Whether the job alone fits the vehicle: its delivery leaves the start on board, its pickup reaches the end. */
export const jobFits = (job: VrpJob, v: VrpVehicle, dims: number): boolean =>
  fitsIn(demandOf(job, dims), capacityOf(v, dims)) && fitsIn(pickupOf(job, dims), capacityOf(v, dims));

export function capacityOf(v: VrpVehicle, dims: number): number[] {
  return v.capacity == null ? new Array<number>(dims).fill(Infinity) : amountOf(v.capacity);
}

/** Whether `load` is within `capacity` in every dimension. */
export const fitsIn = (load: readonly number[], capacity: readonly number[]): boolean => load.every((x, d) => x <= capacity[d]);

/** An amount for messages: `5` in one dimension, `[5, 2]` in several. */
export const formatAmount = (a: readonly number[]): string => (a.length === 1 ? String(a[0]) : `[${a.join(', ')}]`);

/** Checks indices, integers and windows; throws RangeError naming the first bad field. */
export function validateProblem(p: VrpProblem): number {
  const n = matrixSize(p.durations);
  const dur = matrixReader(p.durations);
  for (let a = 0; a < n; a++) {
    if (Array.isArray(p.durations) && p.durations[a].length !== n) throw new RangeError(`durations row ${a} needs ${n} entries`);
    for (let b = 0; b < n; b++) {
      const d = dur(a, b);
      if (!Number.isInteger(d) || d < 0 || d > 2_000_000_000) throw new RangeError(`durations[${a}][${b}] must be a non-negative integer`);
    }
  }
  if (p.distances && matrixSize(p.distances) !== n) throw new RangeError('distances must have the size of durations');
  const loc = (x: number, what: string) => {
    if (!Number.isInteger(x) || x < 0 || x >= n) throw new RangeError(`${what} must be a location index below ${n}`);
  };
  const dims = dimensionsOf(p);
  if (dims > MAX_DIMENSIONS) throw new RangeError(`capacities and demands may have at most ${MAX_DIMENSIONS} dimensions, got ${dims}`);
  const amount = (a: Amount, what: string) => {
    const units = amountOf(a);
    if (units.length !== dims) throw new RangeError(`${what} must have ${dims} amounts, like the other capacities and demands`);
    if (units.some((x) => !Number.isInteger(x) || x < 0)) throw new RangeError(`${what} must be non-negative integers`);
  };
  p.vehicles.forEach((v, i) => {
    loc(v.start, `vehicles[${i}].start`);
    if (!isOpen(v)) loc(v.end as number, `vehicles[${i}].end`);
    if (v.capacity != null) amount(v.capacity, `vehicles[${i}].capacity`);
    const [s, e] = hoursOf(v);
    if (!Number.isFinite(s) || Number.isNaN(e) || e < s) throw new RangeError(`vehicles[${i}].hours must be [start, end] with start <= end`);
    if (v.maxJobs != null && !(Number.isInteger(v.maxJobs) && v.maxJobs >= 0)) throw new RangeError(`vehicles[${i}].maxJobs must be a non-negative integer`);
    if (v.maxTravel != null && !(v.maxTravel >= 0)) throw new RangeError(`vehicles[${i}].maxTravel must be >= 0`);
    if (v.maxDistance != null && !(v.maxDistance >= 0)) throw new RangeError(`vehicles[${i}].maxDistance must be >= 0`);
    if (v.fixed != null && !(Number.isFinite(v.fixed) && v.fixed >= 0)) throw new RangeError(`vehicles[${i}].fixed must be a finite number >= 0`);
    if (v.maxDistance != null && !p.distances) throw new RangeError(`vehicles[${i}].maxDistance needs the problem's distances`);
    if (v.perHour != null && !(Number.isFinite(v.perHour) && v.perHour >= 0)) throw new RangeError(`vehicles[${i}].perHour must be a finite number >= 0`);
    if (v.perKm != null && !(Number.isFinite(v.perKm) && v.perKm >= 0)) throw new RangeError(`vehicles[${i}].perKm must be a finite number >= 0`);
    if (v.perKm && !p.distances) throw new RangeError(`vehicles[${i}].perKm needs the problem's distances`);
    if (v.speedFactor != null && !(v.speedFactor > 0 && v.speedFactor <= 5)) throw new RangeError(`vehicles[${i}].speedFactor must be above 0 and at most 5`);
  });
  p.jobs.forEach((j, i) => {
    loc(j.location, `jobs[${i}].location`);
    const svc = j.service ?? 0;
    if (!Number.isFinite(svc) || svc < 0) throw new RangeError(`jobs[${i}].service must be >= 0`);
    if (j.demand !== undefined) amount(j.demand, `jobs[${i}].demand`);
    if (j.pickup !== undefined) amount(j.pickup, `jobs[${i}].pickup`);
    if (j.priority !== undefined && !(Number.isInteger(j.priority) && j.priority >= 0 && j.priority <= 100))
      throw new RangeError(`jobs[${i}].priority must be an integer from 0 to 100`);
    for (const [s, e] of j.timeWindows ?? []) {
      if (!Number.isFinite(s) || Number.isNaN(e) || e < s) throw new RangeError(`jobs[${i}].timeWindows must be [start, end] with start <= end`);
    }
  });
  const inShipment = new Map<number, number>();
  (p.shipments ?? []).forEach((s, i) => {
    if (s.amount !== undefined) amount(s.amount, `shipments[${i}].amount`);
    for (const [stop, j] of [
      ['pickup', s.pickup],
      ['delivery', s.delivery],
    ] as const) {
      if (!Number.isInteger(j) || j < 0 || j >= p.jobs.length) throw new RangeError(`shipments[${i}].${stop} must be a job index below ${p.jobs.length}`);
      if (inShipment.has(j)) throw new RangeError(`shipments[${i}].${stop}: job ${j} is already a stop of shipments[${inShipment.get(j)}]`);
      inShipment.set(j, i);
      const job = p.jobs[j];
      if (job.demand === undefined || amountOf(job.demand).some((x) => x !== 0) || (job.pickup !== undefined && amountOf(job.pickup).some((x) => x !== 0)))
        throw new RangeError(`jobs[${j}] is a stop of shipments[${i}]: its demand must be 0 and it has no pickup (the shipment's amount is carried)`);
    }
  });
  return n;
}
