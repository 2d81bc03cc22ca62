// The timetable of one route: the single place outside the WASM kernel that defines arrival, waiting,
// service and load, so the endpoint's steps match what the solver optimized.
import { capacityOf, demandOf, hasSkills, hoursOf, isOpen, matrixReader, normalizedWindows, serviceStart } from './problem.js';
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
  const dur = matrixReader(problem.durations);
  const dist = problem.distances ? matrixReader(problem.distances) : () => 0;
  const [hoursStart, hoursEnd] = hoursOf(v);
  const s: RouteSchedule = {
    feasible: true, start: hoursStart, end: hoursStart, arrivals: [], waits: [], departures: [], loads: [],
    initialLoad: 0, legDurations: [], legDistances: [], duration: 0, distance: 0, service: 0, waiting: 0,
  };
  const fail = (why: string) => {
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
    s.initialLoad += demandOf(job);
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
  if (s.initialLoad > capacityOf(v)) fail(`the load ${s.initialLoad} exceeds the capacity ${v.capacity}`);
  let load = s.initialLoad;
  for (const j of jobs) {
    load -= demandOf(problem.jobs[j]);
    s.loads.push(load);
  }
  s.duration = s.legDurations.reduce((a, b) => a + b, 0);
  s.distance = s.legDistances.reduce((a, b) => a + b, 0);
  s.waiting = s.waits.reduce((a, b) => a + b, 0);
  return s;
}
