// Drivers' breaks (VROOM's `breaks`), timed after the search: the kernel plans a vehicle's breaks (any
// number, any windows, any max_load) into every route it builds; then every route gets its breaks at the
// positions that keep all its rules and end it earliest; a route where they fit nowhere loses stops,
// fewest and lowest priority first, until they do. Breaks are never dropped or moved out of their
// windows: a plan either has them inside or does not use the vehicle. A break is taken where the
// vehicle is (after leaving its start or a stop), as in VROOM, so it adds no travel.
import { breakOrder, hoursOf, matrixReader, normalizedWindows, routeCost, serviceStart, travelTimes } from './problem.js';
import { type Names, scheduleRoute } from './schedule.js';
import type { PlacedBreak, RouteSchedule, VrpProblem, VrpRoute, VrpSolution } from './types.js';
import { routeViolations } from './violations.js';

/**
 * The schedule of `jobs` with the vehicle's breaks after the given positions (non-decreasing, one per
 * break in window order), or null when a rule breaks. Times as scheduleRoute's; a break starts when the
 * vehicle has left the node before it, or when its window opens.
 */
function timed(
  p: VrpProblem,
  vehicle: number,
  jobs: readonly number[],
  order: number[],
  positions: number[],
  base: RouteSchedule,
): { s: RouteSchedule; placed: PlacedBreak[] } | null {
  const v = p.vehicles[vehicle];
  const breaks = v.breaks ?? [];
  const dur = travelTimes(p, v);
  const [, hoursEnd] = hoursOf(v);
  const placed: PlacedBreak[] = [];
  const arrivals: number[] = [];
  const waits: number[] = [];
  const departures: number[] = [];
  let k = 0;
  // Left at the start of the plain schedule: its later start (no wait at the first stop) is kept unless a break comes first.
  let t = positions[0] === -1 ? hoursOf(v)[0] : base.start;
  const start = t;
  const takeBreaks = (after: number) => {
    while (k < order.length && positions[k] === after) {
      const b = breaks[order[k]];
      const begin = serviceStart(b.windows, t);
      if (begin === null || begin + b.service > hoursEnd) return false;
      const onBoard = after === -1 ? base.initialLoad : base.loads[after];
      if (b.maxLoad && onBoard.some((x, d) => x > (b.maxLoad![d] ?? Infinity))) return false;
      placed.push({ index: order[k], after, arrival: t, start: begin, departure: begin + b.service });
      t = begin + b.service;
      k++;
    }
    return true;
  };
  if (!takeBreaks(-1)) return null;
  let at = v.start;
  for (const [i, j] of jobs.entries()) {
    const job = p.jobs[j];
    const arrival = t + dur(at, job.location);
    const begin = serviceStart(normalizedWindows(job), arrival);
    const service = job.service ?? 0;
    if (begin === null || begin + service > hoursEnd) return null;
    arrivals.push(arrival);
    waits.push(begin - arrival);
    departures.push(begin + service);
    t = begin + service;
    at = job.location;
    if (!takeBreaks(i)) return null;
  }
  if (k < order.length) return null;
  let end: number;
  if (v.end === undefined || v.end === null || v.end < 0) end = jobs.length ? arrivals[arrivals.length - 1] : start;
  else {
    end = t + dur(at, v.end);
    if (end > hoursEnd) return null;
  }
  return {
    s: { ...base, start, end, arrivals, waits, departures, waiting: waits.reduce((a, b) => a + b, 0) },
    placed,
  };
}

/**
 * Positions of the breaks (in `order`, as timed takes them) that end the route earliest, in one pass:
 * end[k] is the earliest the vehicle is free at a node with k breaks taken (at[k] where it took them).
 * Every rule is a deadline, so the earliest is the best to go on from; null when they fit nowhere.
 */
function earliestPositions(p: VrpProblem, vehicle: number, jobs: readonly number[], order: number[], base: RouteSchedule, last: number): number[] | null {
  const v = p.vehicles[vehicle];
  const breaks = v.breaks ?? [];
  const dur = travelTimes(p, v);
  const [hoursStart, hoursEnd] = hoursOf(v);
  const K = order.length;
  const end: number[] = new Array(K + 1).fill(Infinity);
  const at: number[][] = Array.from({ length: K + 1 }, () => []);
  end[0] = base.start;
  const take = (after: number) => {
    const onBoard = after === -1 ? base.initialLoad : base.loads[after];
    for (let k = 0; k < K; k++) {
      // As timed: a route whose first break comes right after the start leaves at the start of its hours.
      const from = after === -1 && k === 0 ? hoursStart : end[k];
      const b = breaks[order[k]];
      if (from === Infinity || (b.maxLoad && onBoard.some((x, d) => x > (b.maxLoad![d] ?? Infinity)))) continue;
      const begin = serviceStart(b.windows, from);
      if (begin === null || begin + b.service > hoursEnd || begin + b.service >= end[k + 1]) continue;
      end[k + 1] = begin + b.service;
      at[k + 1] = [...at[k], after];
    }
  };
  if (last > -1) take(-1);
  let place = v.start;
  for (const [i, j] of jobs.entries()) {
    const job = p.jobs[j];
    const d = dur(place, job.location);
    for (let k = 0; k <= K; k++) {
      if (end[k] === Infinity) continue;
      const begin = serviceStart(normalizedWindows(job), end[k] + d);
      end[k] = begin === null || begin + (job.service ?? 0) > hoursEnd ? Infinity : begin + (job.service ?? 0);
    }
    place = job.location;
    if (i < last) take(i);
  }
  const back = v.end === undefined || v.end === null || v.end < 0 ? 0 : dur(place, v.end);
  return end[K] + back <= hoursEnd ? at[K] : null;
}

/** The route with its breaks where they end it earliest (least waiting on ties); null when they fit nowhere. */
export function placeBreaks(p: VrpProblem, vehicle: number, jobs: readonly number[]): (RouteSchedule & { breaks: PlacedBreak[] }) | null {
  const base = scheduleRoute(p, vehicle, jobs);
  const breaks = p.vehicles[vehicle].breaks ?? [];
  if (!breaks.length) return base.feasible ? { ...base, breaks: [] } : null;
  // A rule the route breaks without its breaks it breaks with them (plan mode's routes; the search's keep every rule).
  if (!base.feasible) return null;
  const order = breakOrder(breaks);
  let best: { s: RouteSchedule; placed: PlacedBreak[] } | null = null;
  let budget = 20_000;
  // An open route is over when it reaches its last stop: no break after it.
  const v = p.vehicles[vehicle];
  const last = v.end === undefined || v.end === null || v.end < 0 ? jobs.length - 1 : jobs.length;
  // A long route with several breaks has too many placements to try each: one pass finds the earliest end.
  let placements = 1;
  for (let k = 0; k < order.length; k++) placements = (placements * (last + 1 + k)) / (k + 1);
  if (placements > budget) {
    const at = earliestPositions(p, vehicle, jobs, order, base, last);
    const got = at && timed(p, vehicle, jobs, order, at, base);
    return got ? { ...got.s, feasible: true, violation: undefined, breaks: got.placed } : null;
  }
  const positions: number[] = [];
  const search = (k: number, from: number) => {
    if (budget <= 0) return;
    if (k === order.length) {
      budget--;
      const got = timed(p, vehicle, jobs, order, positions, base);
      if (got && (!best || got.s.end < best.s.end || (got.s.end === best.s.end && got.s.waiting < best.s.waiting))) best = got;
      return;
    }
    for (let at = from; at < last; at++) {
      positions[k] = at;
      search(k + 1, at);
    }
  };
  search(0, -1);
  const found = best as { s: RouteSchedule; placed: PlacedBreak[] } | null;
  return found ? { ...found.s, feasible: true, violation: undefined, breaks: found.placed } : null;
}

/**
 * The solution with every used vehicle's breaks placed. Stops are taken off a route whose breaks fit
 * nowhere, one at a time (a shipment's two together), the one whose removal lets them fit with the least
 * priority lost, then the shortest tour. Each stop taken off then goes, highest priority first, where it
 * adds the least to the plan's cost with every break still in its window (another route, or a vehicle
 * left unused); those that fit nowhere join `unassigned` and are named in `noRoomForBreaks`.
 */
export function applyBreaks(p: VrpProblem, solution: VrpSolution): VrpSolution & { noRoomForBreaks: number[] } {
  const pairOf = new Map<number, number>();
  for (const s of p.shipments ?? []) {
    pairOf.set(s.pickup, s.delivery);
    pairOf.set(s.delivery, s.pickup);
  }
  const dropped: number[] = [];
  const routes: VrpRoute[] = [];
  for (const route of solution.routes) {
    let jobs = route.jobs;
    let placed = placeBreaks(p, route.vehicle, jobs);
    while (!placed && jobs.length) {
      let choice: { jobs: number[]; lost: number; end: number; placed: NonNullable<ReturnType<typeof placeBreaks>> } | undefined;
      for (const j of jobs) {
        const gone = new Set([j, pairOf.get(j) ?? j]);
        const rest = jobs.filter((x) => !gone.has(x));
        const got = placeBreaks(p, route.vehicle, rest);
        const lost = [...gone].reduce((a, x) => a + 1 + 1000 * (p.jobs[x].priority ?? 0), 0);
        if (got && (!choice || lost < choice.lost || (lost === choice.lost && got.end < choice.end))) choice = { jobs: rest, lost, end: got.end, placed: got };
      }
      if (choice) {
        dropped.push(...jobs.filter((x) => !choice.jobs.includes(x)));
        jobs = choice.jobs;
        placed = choice.placed;
        break;
      }
      // No single removal is enough: the stop served last goes, and the search goes on.
      const last = jobs[jobs.length - 1];
      const gone = new Set([last, pairOf.get(last) ?? last]);
      dropped.push(...gone);
      jobs = jobs.filter((x) => !gone.has(x));
      placed = placeBreaks(p, route.vehicle, jobs);
    }
    if (placed && jobs.length) routes.push({ ...placed, vehicle: route.vehicle, jobs: [...jobs] });
    else dropped.push(...jobs.filter((x) => !dropped.includes(x)));
  }
  // The search's own unassigned stops too: its insertions keep a route's breaks where they are (moved
  // only for a job that fits nowhere else), and some stop may fit with them taken elsewhere.
  const withBreaks = p.vehicles.some((v) => v.breaks?.length);
  const left = new Set(reinsert(p, routes, withBreaks ? [...dropped, ...solution.unassigned] : dropped, pairOf));
  dropped.splice(0, dropped.length, ...dropped.filter((j) => left.has(j)));
  routes.sort((a, b) => a.vehicle - b.vehicle);
  const unassigned = [...new Set([...solution.unassigned.filter((j) => !withBreaks || left.has(j)), ...dropped])].sort((a, b) => a - b);
  return {
    ...solution,
    routes,
    unassigned,
    cost: routes.reduce((a, r) => a + routeCost(p.vehicles[r.vehicle], r), 0),
    distance: routes.reduce((a, r) => a + r.distance, 0),
    noRoomForBreaks: dropped,
  };
}

/**
 * Puts the stops a route lost to its breaks back where they cost least (a shipment's two together, the
 * pickup first), into `routes` as it goes; returns the stops that fit nowhere. The search tried these
 * stops with the breaks where they were, so this is the plan's last chance to keep them. A position the stop cannot reach
 * inside its last window even without breaks (the route's earliest times are a lower bound) is not tried.
 */
function reinsert(p: VrpProblem, routes: VrpRoute[], dropped: readonly number[], pairOf: Map<number, number>): number[] {
  const left: number[] = [];
  const done = new Set<number>();
  const shipment = new Map((p.shipments ?? []).map((s) => [s.pickup, s.delivery]));
  const prio = (j: number) => p.jobs[j].priority ?? 0;
  const durOf = p.vehicles.map((v) => travelTimes(p, v));
  const meters = p.distances ? matrixReader(p.distances) : () => 0;
  // A route's cost comes from its travel (breaks add none) and the vehicle's fixed cost: what an insertion
  // adds is known before its breaks are placed, so the candidates are tried cheapest first and the first
  // that takes its breaks is the best.
  const travel = (vehicle: number, jobs: readonly number[]) => {
    const v = p.vehicles[vehicle];
    const dur = durOf[vehicle];
    let at = v.start;
    let duration = 0;
    let distance = 0;
    for (const j of jobs) {
      duration += dur(at, p.jobs[j].location);
      distance += meters(at, p.jobs[j].location);
      at = p.jobs[j].location;
    }
    if (v.end !== undefined && v.end !== null && v.end >= 0) {
      duration += dur(at, v.end);
      distance += meters(at, v.end);
    }
    return routeCost(v, { duration, distance }) - (v.fixed ?? 0);
  };
  const kindOf = p.vehicles.map((v) => JSON.stringify(v));
  // A route's earliest and latest times, kept until the route changes.
  const times = new Map<VrpRoute, { plain: RouteSchedule; latest: number[] }>();
  for (const j of [...dropped].sort((a, b) => prio(b) - prio(a) || a - b)) {
    if (done.has(j)) continue;
    const other = pairOf.get(j);
    const gone = other === undefined ? [j] : [j, other];
    gone.forEach((x) => done.add(x));
    // A shipment goes in as its pickup, then its delivery at or after it.
    const first = other === undefined || shipment.has(j) ? j : other;
    const second = other === undefined ? undefined : first === j ? other : j;
    const candidates: Array<{ at: number; vehicle: number; jobs: number[]; added: number }> = [];
    const byVehicle = new Map(routes.map((r, i) => [r.vehicle, i]));
    const loc = p.jobs[first].location;
    const windows = normalizedWindows(p.jobs[first]);
    const firstStart = windows[0]?.[0] ?? -Infinity;
    const lastEnd = windows.at(-1)?.[1] ?? Infinity;
    const service = p.jobs[first].service ?? 0;
    // Unused vehicles alike (a fleet of one kind) give the same answer: the first of each kind is tried.
    const kinds = new Set<string>();
    for (let vehicle = 0; vehicle < p.vehicles.length; vehicle++) {
      const at = byVehicle.get(vehicle) ?? -1;
      if (at < 0) {
        if (kinds.has(kindOf[vehicle])) continue;
        kinds.add(kindOf[vehicle]);
      }
      const jobs = at >= 0 ? routes[at].jobs : [];
      const before = at >= 0 ? travel(vehicle, jobs) : -(p.vehicles[vehicle].fixed ?? 0);
      const v = p.vehicles[vehicle];
      const dur = durOf[vehicle];
      let known = at >= 0 ? times.get(routes[at]) : undefined;
      if (!known) {
        known = { plain: scheduleRoute(p, vehicle, jobs), latest: latestStarts(p, vehicle, jobs, dur) };
        if (at >= 0) times.set(routes[at], known);
      }
      const { plain } = known;
      const latest = second === undefined ? known.latest : undefined;
      for (let i = 0; i <= jobs.length; i++) {
        const from = i === 0 ? hoursOf(v)[0] : plain.departures[i - 1];
        const arrival = from + dur(i === 0 ? v.start : p.jobs[jobs[i - 1]].location, loc);
        if (arrival > lastEnd) continue;
        // A stop alone: the one after it must still be reached by its latest start (the end by the end of the hours).
        const next = i < jobs.length ? p.jobs[jobs[i]].location : (v.end ?? -1);
        if (latest && next >= 0 && Math.max(arrival, firstStart) + service + dur(loc, next) > latest[i]) continue;
        const withFirst = [...jobs.slice(0, i), first, ...jobs.slice(i)];
        const orders =
          second === undefined ? [withFirst] : jobs.slice(i).map((_, k) => [...withFirst.slice(0, i + 1 + k), second, ...withFirst.slice(i + 1 + k)]);
        if (second !== undefined) orders.push([...withFirst, second]);
        for (const order of orders) candidates.push({ at, vehicle, jobs: order, added: travel(vehicle, order) - before });
      }
    }
    candidates.sort((a, b) => a.added - b.added);
    const best = candidates.find((c) => placeBreaks(p, c.vehicle, c.jobs) !== null);
    if (!best) {
      left.push(...gone);
      continue;
    }
    const route: VrpRoute = { ...placeBreaks(p, best.vehicle, best.jobs)!, vehicle: best.vehicle, jobs: best.jobs };
    if (best.at >= 0) routes[best.at] = route;
    else routes.push(route);
  }
  return left;
}

/**
 * For each position of `jobs` and one past them, the latest time service there may start (arrival at the
 * end past them) and still keep every later window and the vehicle's hours, breaks aside; windows are
 * taken as their hull, so these are upper bounds.
 */
function latestStarts(p: VrpProblem, vehicle: number, jobs: readonly number[], dur: (a: number, b: number) => number): number[] {
  const v = p.vehicles[vehicle];
  const hoursEnd = hoursOf(v)[1];
  const open = v.end === undefined || v.end === null || v.end < 0;
  const out = new Array<number>(jobs.length + 1);
  // An open route is over when it leaves its last stop: nothing to reach past it.
  out[jobs.length] = open ? Infinity : hoursEnd;
  for (let k = jobs.length - 1; k >= 0; k--) {
    const job = p.jobs[jobs[k]];
    const service = job.service ?? 0;
    const next = k + 1 < jobs.length ? p.jobs[jobs[k + 1]].location : open ? job.location : (v.end as number);
    const lastEnd = normalizedWindows(job).at(-1)?.[1] ?? Infinity;
    out[k] = Math.min(lastEnd, hoursEnd - service, out[k + 1] - dur(job.location, next) - service);
  }
  return out;
}

/**
 * Plan mode: the routes as given, timed with every broken rule in `violations`; jobs on no route are
 * unassigned. `retime` (the default): as early as the windows allow, waiting for a window to open, the
 * breaks where the given ones say (each after job `after` of the route) or else where they end each route
 * earliest, a violation when they cannot be taken. `check`: as driven, never waiting
 * (scheduleRoute's asDriven), the breaks where given. Each route also carries its steps' violations in
 * VROOM's shape (violations.ts).
 */
export function timeAsGiven(
  p: VrpProblem,
  given: ReadonlyArray<{ vehicle: number; jobs: readonly number[]; breaks?: ReadonlyArray<{ index: number; after: number }> }>,
  options: { timing?: 'retime' | 'check'; names?: Names } = {},
): VrpSolution {
  const routes: VrpRoute[] = [];
  const served = new Set<number>();
  const { names } = options;
  for (const { vehicle, jobs, breaks } of given) {
    if (!jobs.length) continue;
    for (const j of jobs) served.add(j);
    // Breaks the steps name are taken there, each violation named; the others go where they end the route earliest.
    if (options.timing === 'check' || breaks?.length) {
      routes.push({ ...scheduleRoute(p, vehicle, jobs, { asDriven: options.timing === 'check', breaks, names }), vehicle, jobs: [...jobs] });
      continue;
    }
    const placed = placeBreaks(p, vehicle, jobs);
    if (placed) routes.push({ ...placed, vehicle, jobs: [...jobs] });
    else {
      const plain = scheduleRoute(p, vehicle, jobs, { names });
      const violations = [...(plain.violations ?? [])];
      if (p.vehicles[vehicle].breaks?.length) violations.push("the vehicle's breaks fit nowhere in this order");
      routes.push({ ...plain, violations, vehicle, jobs: [...jobs] });
    }
  }
  // Each step's violations in VROOM's shape, from the route's own times.
  for (const r of routes) r.stepViolations = routeViolations(p, r);
  return {
    routes,
    unassigned: p.jobs.flatMap((_, j) => (served.has(j) ? [] : [j])),
    cost: routes.reduce((a, r) => a + routeCost(p.vehicles[r.vehicle], r), 0),
    distance: routes.reduce((a, r) => a + r.distance, 0),
    iterations: 0,
  };
}
