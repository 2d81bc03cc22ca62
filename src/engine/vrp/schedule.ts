// The timetable of one route: the single place outside the WASM kernel that defines arrival, waiting,
// service and load, so the endpoint's steps match what the solver optimized.
import {
  capacityOf,
  demandOf,
  dimensionsOf,
  fitsIn,
  formatAmount,
  hasSkills,
  hoursOf,
  isOpen,
  matrixReader,
  travelTimes,
  normalizedWindows,
  pickupOf,
  serviceStart,
  shipmentChanges,
} from './problem.js';
import type { PlacedBreak, RouteSchedule, VrpProblem } from './types.js';

/** How violations name what they are about (plan mode names the request's stops and breaks). */
export interface Names {
  job(j: number): string;
  break(vehicle: number, index: number): string;
}

const NUMBERED: Names = { job: (j) => `job ${j}`, break: (_, k) => `break ${k}` };

export interface ScheduleOptions {
  /**
   * Plan mode's check: the steps as driven, never waiting: leave at the start of the working hours and
   * serve every stop on arrival; a stop reached before its window opens is a violation, as is one after
   * it closes. The vehicle's breaks are taken where `breaks` puts them (each after job `after`, -1 at the
   * start), starting on arrival; a break not given is a violation.
   */
  asDriven?: boolean;
  /** Breaks taken where given (each after job `after`, -1 at the start); otherwise waiting for a window to open, as stops do. */
  breaks?: ReadonlyArray<{ index: number; after: number }>;
  names?: Names;
}

/** A window violation, or null inside one of the windows (none: any time is inside). */
function outside(windows: ReadonlyArray<readonly [number, number]>, t: number, what: string): string | null {
  if (!windows.length || windows.some(([s, e]) => s <= t && t <= e)) return null;
  const next = windows.find(([s]) => s > t);
  return next
    ? `${what} begins ${next[0] - t} s before its window opens`
    : `${what} is reached ${t - windows[windows.length - 1][1]} s after its last time window`;
}

/**
 * Recomputes the schedule of `vehicle` visiting `jobs` in order: leave at the start of working hours,
 * wait at a stop until its window opens, then serve. Instead of waiting at the first stop the vehicle
 * leaves later, which changes no service time; every reported time is after that shift. The working
 * hours bound the whole tour (types.ts, VrpVehicle.hours). `feasible` is false with the first broken
 * rule in `violation`, every broken rule in `violations`. `asDriven` times the steps without waiting
 * (ScheduleOptions), with the breaks placed as given in `breaks`.
 */
export function scheduleRoute(
  problem: VrpProblem,
  vehicle: number,
  jobs: readonly number[],
  options: ScheduleOptions = {},
): RouteSchedule & { breaks?: PlacedBreak[] } {
  const names = options.names ?? NUMBERED;
  const v = problem.vehicles[vehicle];
  const dur = travelTimes(problem, v);
  const dist = problem.distances ? matrixReader(problem.distances) : () => 0;
  const [hoursStart, hoursEnd] = hoursOf(v);
  const dims = dimensionsOf(problem);
  const s: RouteSchedule = {
    feasible: true,
    start: hoursStart,
    end: hoursStart,
    arrivals: [],
    waits: [],
    departures: [],
    loads: [],
    initialLoad: new Array<number>(dims).fill(0),
    legDurations: [],
    legDistances: [],
    duration: 0,
    distance: 0,
    service: 0,
    waiting: 0,
  };
  const violations: string[] = [];
  const fail = (why: string) => {
    violations.push(why);
    if (s.feasible) {
      s.feasible = false;
      s.violation = why;
    }
  };
  const seen = new Set<number>();
  let t = hoursStart;
  let at = v.start;
  const asDriven = options.asDriven === true;
  const given = options.breaks ?? [];
  const placed: PlacedBreak[] = [];
  if (asDriven)
    (v.breaks ?? []).forEach((_, k) => {
      if (!given.some((b) => b.index === k)) fail(`${names.break(vehicle, k)} is not in the steps`);
    });
  // A break given after position `after` is taken there, where the vehicle is: on arrival as driven, else
  // once its window opens.
  const takeBreaks = (after: number) => {
    for (const b of given) {
      if (b.after !== after) continue;
      const brk = v.breaks![b.index];
      const name = names.break(vehicle, b.index);
      let begin = asDriven ? t : serviceStart(brk.windows, t);
      const why = asDriven ? outside(brk.windows, t, name) : begin === null ? outside(brk.windows, t, name) : null;
      if (why) fail(why);
      begin ??= t;
      if (begin + brk.service > hoursEnd) fail(`${name} ends past the working hours`);
      placed.push({ index: b.index, after, arrival: t, start: begin, departure: begin + brk.service });
      t = begin + brk.service;
    }
  };
  takeBreaks(-1);
  // Leaving later instead of waiting at the first stop moves nothing else, unless a break comes first.
  const shiftStart = !asDriven && placed.length === 0;
  for (const [i, j] of jobs.entries()) {
    const job = problem.jobs[j];
    if (!job) throw new RangeError(`job ${j} does not exist`);
    const name = names.job(j);
    if (seen.has(j)) fail(`${name} is visited twice`);
    seen.add(j);
    if (!hasSkills(v, job)) fail(`the vehicle lacks the skills of ${name}`);
    const d = dur(at, job.location);
    s.legDurations.push(d);
    s.legDistances.push(dist(at, job.location));
    let arrival = t + d;
    let begin: number | null;
    if (asDriven) {
      begin = arrival;
      const why = outside(normalizedWindows(job), arrival, name);
      if (why) fail(why);
    } else {
      const windows = normalizedWindows(job);
      begin = serviceStart(windows, arrival);
      if (begin === null) {
        fail(`${name} is reached ${arrival - windows[windows.length - 1][1]} s after its last time window`);
        begin = arrival;
      }
      if (i === 0 && shiftStart) {
        s.start = begin - d;
        arrival = begin;
      }
    }
    const service = job.service ?? 0;
    if (begin + service > hoursEnd) fail(`${name} is served past the working hours`);
    s.arrivals.push(arrival);
    s.waits.push(begin - arrival);
    s.departures.push(begin + service);
    s.service += service;
    demandOf(job, dims).forEach((x, d) => (s.initialLoad[d] += x));
    t = begin + service;
    at = job.location;
    takeBreaks(i);
  }
  if (isOpen(v)) {
    s.end = jobs.length > 0 ? s.arrivals[s.arrivals.length - 1] : s.start;
  } else {
    const d = dur(at, v.end as number);
    s.legDurations.push(d);
    s.legDistances.push(dist(at, v.end as number));
    s.end = t + d;
    if (s.end > hoursEnd) fail('the end is reached after the working hours');
  }
  const capacity = capacityOf(v, dims);
  if (!fitsIn(s.initialLoad, capacity)) fail(`the load ${formatAmount(s.initialLoad)} exceeds the capacity ${formatAmount(capacity)}`);
  let load = s.initialLoad;
  const changes = shipmentChanges(problem, dims);
  for (const j of jobs) {
    const demand = demandOf(problem.jobs[j], dims);
    const pickup = changes.get(j) ?? pickupOf(problem.jobs[j], dims);
    load = load.map((x, d) => x - demand[d] + pickup[d]);
    if (!fitsIn(load, capacity)) fail(`the load ${formatAmount(load)} after ${names.job(j)} exceeds the capacity ${formatAmount(capacity)}`);
    s.loads.push(load);
  }
  for (const b of placed) {
    const most = v.breaks![b.index].maxLoad;
    const onBoard = b.after < 0 ? s.initialLoad : s.loads[b.after];
    if (most && onBoard.some((x, d) => x > (most[d] ?? Infinity)))
      fail(`${names.break(vehicle, b.index)} is taken with ${formatAmount(onBoard)} on board, more than its max_load ${formatAmount([...most])}`);
  }
  if (v.maxJobs != null && jobs.length > v.maxJobs) fail(`the route holds ${jobs.length} jobs, more than the vehicle's ${v.maxJobs}`);
  const travel = s.legDurations.reduce((a, b) => a + b, 0);
  if (v.maxTravel != null && travel > v.maxTravel) fail(`the route travels ${travel} s, more than the vehicle's ${v.maxTravel} s`);
  const meters = s.legDistances.reduce((a, b) => a + b, 0);
  if (v.maxDistance != null && meters > v.maxDistance) fail(`the route covers ${meters} m, more than the vehicle's ${v.maxDistance} m`);
  const position = problem.shipments?.length ? new Map(jobs.map((j, i) => [j, i])) : undefined;
  (problem.shipments ?? []).forEach((sh, k) => {
    const p = position!.get(sh.pickup) ?? -1;
    const d = position!.get(sh.delivery) ?? -1;
    if (p >= 0 && d < 0) fail(`${names.job(sh.pickup)} is on the route but ${names.job(sh.delivery)} is not (shipment ${k})`);
    else if (d >= 0 && (p < 0 || p > d)) fail(`${names.job(sh.delivery)} comes before ${names.job(sh.pickup)} (shipment ${k})`);
  });
  s.duration = s.legDurations.reduce((a, b) => a + b, 0);
  s.distance = s.legDistances.reduce((a, b) => a + b, 0);
  s.waiting = s.waits.reduce((a, b) => a + b, 0);
  if (violations.length) s.violations = violations;
  return options.breaks || asDriven ? { ...s, breaks: placed } : s;
}
