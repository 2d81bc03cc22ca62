// Readers over a VrpProblem shared by the solver, the scheduler and the unassigned reasons, so all
// three interpret matrices, windows, hours and skills the same way.
import type { Matrix, VrpJob, VrpProblem, VrpVehicle } from './types.js';

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

export function demandOf(job: VrpJob): number {
  return job.demand ?? 1;
}

export function capacityOf(v: VrpVehicle): number {
  return v.capacity ?? Infinity;
}

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
  p.vehicles.forEach((v, i) => {
    loc(v.start, `vehicles[${i}].start`);
    if (!isOpen(v)) loc(v.end as number, `vehicles[${i}].end`);
    if (v.capacity != null && (!Number.isInteger(v.capacity) || v.capacity < 0)) throw new RangeError(`vehicles[${i}].capacity must be a non-negative integer`);
    const [s, e] = hoursOf(v);
    if (!Number.isFinite(s) || Number.isNaN(e) || e < s) throw new RangeError(`vehicles[${i}].hours must be [start, end] with start <= end`);
  });
  p.jobs.forEach((j, i) => {
    loc(j.location, `jobs[${i}].location`);
    const svc = j.service ?? 0;
    if (!Number.isFinite(svc) || svc < 0) throw new RangeError(`jobs[${i}].service must be >= 0`);
    const d = demandOf(j);
    if (!Number.isInteger(d) || d < 0) throw new RangeError(`jobs[${i}].demand must be a non-negative integer`);
    for (const [s, e] of j.timeWindows ?? []) {
      if (!Number.isFinite(s) || Number.isNaN(e) || e < s) throw new RangeError(`jobs[${i}].timeWindows must be [start, end] with start <= end`);
    }
  });
  return n;
}
