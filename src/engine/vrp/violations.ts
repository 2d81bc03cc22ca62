// Plan mode's violations in VROOM's shape (docs/API.md of VROOM 1.14, "Violation"): each step of a timed
// route lists the causes it breaks, `lead_time` and `delay` with their seconds, and the route lists every
// cause of its steps once (those two summed) plus `missing_break`. Derived from the route's own times and
// loads (scheduleRoute's), so a step is flagged exactly where the route's sentences say a rule breaks.
// Where VROOM marks a step: `load` on every step with more on board than the capacity; `max_tasks` on
// every task past the limit; `max_travel_time` and `max_distance` on every step from the one where the
// driving so far passes the limit (breaks at the place they follow, the end with the whole route);
// `precedence` on a pickup with no later delivery on the route and on a delivery with no earlier pickup
// (both ends when the delivery comes first). Our working hours bound the whole tour, so service (or a
// break) ending past them is a `delay` of that step too, as is reaching the end late.
import { capacityOf, dimensionsOf, fitsIn, hasSkills, hoursOf, isOpen, normalizedWindows } from './problem.js';
import type { RouteViolations, Violation, ViolationCause, VrpProblem, VrpRoute } from './types.js';

/** VROOM's causes, in its order (VIOLATION in its structures/typedefs.h), which is also the order they are listed in. */
const VIOLATION_CAUSES: readonly ViolationCause[] = [
  'lead_time',
  'delay',
  'load',
  'max_tasks',
  'skills',
  'precedence',
  'missing_break',
  'max_travel_time',
  'max_load',
  'max_distance',
];

/** Collects one step's causes, each once; a second lead_time or delay keeps the larger seconds. */
class Step {
  private readonly found = new Map<ViolationCause, number | undefined>();
  add(cause: ViolationCause, duration?: number): void {
    const had = this.found.get(cause);
    this.found.set(cause, duration === undefined ? had : Math.max(had ?? 0, duration));
  }
  list(): Violation[] {
    return VIOLATION_CAUSES.filter((c) => this.found.has(c)).map((cause) => {
      const duration = this.found.get(cause);
      return duration === undefined ? { cause } : { cause, duration };
    });
  }
}

/** Each cause once, in VROOM's order, the seconds of lead_time and delay summed: a route's list from its steps', a plan's from its routes'. */
export function mergeViolations(all: readonly Violation[]): Violation[] {
  return VIOLATION_CAUSES.flatMap((cause): Violation[] => {
    const mine = all.filter((x) => x.cause === cause);
    if (!mine.length) return [];
    return cause === 'lead_time' || cause === 'delay' ? [{ cause, duration: mine.reduce((a, x) => a + (x.duration ?? 0), 0) }] : [{ cause }];
  });
}

/** Early (lead_time) or late (delay) for service starting at `t` against `windows` (none: any time fits), as scheduleRoute's sentences count them. */
function windowViolation(step: Step, windows: ReadonlyArray<readonly [number, number]>, t: number): void {
  if (!windows.length || windows.some(([s, e]) => s <= t && t <= e)) return;
  const next = windows.find(([s]) => s > t);
  if (next) step.add('lead_time', next[0] - t);
  else step.add('delay', t - windows[windows.length - 1][1]);
}

/** The violations of a route timed in plan mode (breaks.ts timeAsGiven), step by step. */
export function routeViolations(p: VrpProblem, r: VrpRoute): RouteViolations {
  const v = p.vehicles[r.vehicle];
  const dims = dimensionsOf(p);
  const capacity = capacityOf(v, dims);
  const [, hoursEnd] = hoursOf(v);
  const over = (load: readonly number[]) => !fitsIn(load, capacity);
  // Driving so far on arriving at each job: the sums of the legs up to it.
  const travelTo: number[] = [];
  const metersTo: number[] = [];
  r.jobs.forEach((_, i) => {
    travelTo.push((travelTo[i - 1] ?? 0) + r.legDurations[i]);
    metersTo.push((metersTo[i - 1] ?? 0) + r.legDistances[i]);
  });
  const limits = (step: Step, travel: number, meters: number) => {
    if (v.maxTravel != null && travel > v.maxTravel) step.add('max_travel_time');
    if (v.maxDistance != null && meters > v.maxDistance) step.add('max_distance');
  };

  const start = new Step();
  if (over(r.initialLoad)) start.add('load');

  const position = new Map(r.jobs.map((j, i) => [j, i]));
  const ends = new Map<number, { pickup: number; delivery: number }>();
  for (const sh of p.shipments ?? []) {
    ends.set(sh.pickup, sh);
    ends.set(sh.delivery, sh);
  }
  const jobs = r.jobs.map((j, i) => {
    const step = new Step();
    const job = p.jobs[j];
    const begin = r.arrivals[i] + r.waits[i];
    windowViolation(step, normalizedWindows(job), begin);
    if (begin + (job.service ?? 0) > hoursEnd) step.add('delay', begin + (job.service ?? 0) - hoursEnd);
    if (over(r.loads[i])) step.add('load');
    if (!hasSkills(v, job)) step.add('skills');
    if (v.maxJobs != null && i + 1 > v.maxJobs) step.add('max_tasks');
    limits(step, travelTo[i], metersTo[i]);
    const sh = ends.get(j);
    if (sh) {
      const p = position.get(sh.pickup) ?? -1;
      const d = position.get(sh.delivery) ?? -1;
      // A pickup whose delivery is not after it, a delivery whose pickup is not before it.
      if (j === sh.pickup ? d < i : p < 0 || p > i) step.add('precedence');
    }
    return step;
  });

  const breaks = (r.breaks ?? []).map((b) => {
    const step = new Step();
    const brk = v.breaks![b.index];
    windowViolation(step, brk.windows, b.start);
    if (b.departure > hoursEnd) step.add('delay', b.departure - hoursEnd);
    const onBoard = b.after < 0 ? r.initialLoad : r.loads[b.after];
    if (over(onBoard)) step.add('load');
    if (brk.maxLoad && onBoard.some((x, d) => x > (brk.maxLoad![d] ?? Infinity))) step.add('max_load');
    limits(step, b.after < 0 ? 0 : travelTo[b.after], b.after < 0 ? 0 : metersTo[b.after]);
    return step;
  });

  const end = new Step();
  if (!isOpen(v)) {
    if (r.end > hoursEnd) end.add('delay', r.end - hoursEnd);
    if (over(r.loads.at(-1) ?? r.initialLoad)) end.add('load');
    limits(end, r.duration, r.distance);
  }

  const missing = (v.breaks ?? []).some((_, k) => !(r.breaks ?? []).some((b) => b.index === k));
  const steps = [start, ...jobs, ...breaks, end].flatMap((s) => s.list());
  const route = mergeViolations(missing ? [...steps, { cause: 'missing_break' }] : steps);
  return { start: start.list(), jobs: jobs.map((s) => s.list()), breaks: breaks.map((s) => s.list()), end: end.list(), route };
}
