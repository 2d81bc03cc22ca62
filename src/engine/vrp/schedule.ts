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
import type { RouteSchedule, VrpProblem } from './types.js';

/**
 * Recomputes the schedule of `vehicle` visiting `jobs` in order: leave at the start of working hours,
 * wait at a stop until its window opens, then serve. Instead of waiting at the first stop the vehicle
 * leaves later, which changes no service time; every reported time is after that shift. The working
 * hours bound the whole tour (types.ts, VrpVehicle.hours). `feasible` is false with the first broken
 * rule in `violation`.
 */
export function scheduleRoute(problem: VrpProblem, vehicle: number, jobs: readonly number[]): RouteSchedule {
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
  for (const [i, j] of jobs.entries()) {
    const job = problem.jobs[j];
    if (!job) throw new RangeError(`job ${j} does not exist`);
    if (seen.has(j)) fail(`job ${j} is visited twice`);
    seen.add(j);
    if (!hasSkills(v, job)) fail(`vehicle ${vehicle} lacks the skills of job ${j}`);
    const d = dur(at, job.location);
    s.legDurations.push(d);
    s.legDistances.push(dist(at, job.location));
    let arrival = t + d;
    let begin = serviceStart(normalizedWindows(job), arrival);
    if (begin === null) {
      fail(`job ${j} is reached after its last time window`);
      begin = arrival;
    }
    if (i === 0) {
      s.start = begin - d;
      arrival = begin;
    }
    const service = job.service ?? 0;
    if (begin + service > hoursEnd) fail(`job ${j} is served past the working hours`);
    s.arrivals.push(arrival);
    s.waits.push(begin - arrival);
    s.departures.push(begin + service);
    s.service += service;
    demandOf(job, dims).forEach((x, d) => (s.initialLoad[d] += x));
    t = begin + service;
    at = job.location;
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
    if (!fitsIn(load, capacity)) fail(`the load ${formatAmount(load)} after job ${j} exceeds the capacity ${formatAmount(capacity)}`);
    s.loads.push(load);
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
    if (p >= 0 && d < 0) fail(`shipment ${k} is picked up (job ${sh.pickup}) but its delivery (job ${sh.delivery}) is not on the route`);
    else if (d >= 0 && (p < 0 || p > d)) fail(`shipment ${k} is delivered (job ${sh.delivery}) before it is picked up (job ${sh.pickup})`);
  });
  s.duration = s.legDurations.reduce((a, b) => a + b, 0);
  s.distance = s.legDistances.reduce((a, b) => a + b, 0);
  s.waiting = s.waits.reduce((a, b) => a + b, 0);
  if (violations.length) s.violations = violations;
  return s;
}
