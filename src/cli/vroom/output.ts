// A solution as VROOM's output JSON (docs/API.md of VROOM 1.14: code, summary, unassigned, routes with
// steps), so tools reading VROOM's answers read ours. Violations are always empty: the solver's plans
// keep every rule it models.
import type { VrpSolution } from '../../engine/vrp/types.js';
import { userCost } from '../../api/optimize/response.js';
import { dimensionsOf, type Places, tasksOf, type VroomInput } from './input.js';

const where = (places: Places, row: number) => (places.coordinates ? { location: places.coordinates[row] } : { location_index: row });

export interface Timings {
  loading: number;
  solving: number;
  routing: number;
}

/** `withDistance`: the problem had distances (a matrix of them, or roads), reported as VROOM does with `-g`. */
export function vroomOutput(input: VroomInput, places: Places, solution: VrpSolution, timings: Timings, withDistance: boolean) {
  const dims = dimensionsOf(input);
  const tasks = tasksOf(input);
  const capacitated = dims > 0;
  const amount = (x: number[]) => (capacitated ? { load: [...x] } : {});
  const zero = () => new Array<number>(dims).fill(0);
  const add = (a: number[], b: number[], sign = 1) => a.forEach((_, d) => (a[d] += sign * b[d]));
  const totals = { cost: 0, setup: 0, service: 0, duration: 0, waiting_time: 0, priority: 0, delivery: zero(), pickup: zero(), distance: 0 };

  const routes = solution.routes.map((r) => {
    const v = input.vehicles[r.vehicle];
    const jobs = r.jobs.map((j) => tasks[j]);
    // As VROOM counts them: a shipment's amount is delivered and picked up; only jobs' deliveries leave the start on board.
    const delivery = zero(),
      pickup = zero(),
      load = zero();
    for (const j of jobs) {
      add(delivery, j.dropped);
      add(pickup, j.loaded);
      add(load, j.start);
    }
    let duration = 0,
      distance = 0;
    const dist = (x: number) => (withDistance ? { distance: x } : {});
    const startRow = places.vehicleStart[r.vehicle] ?? places.jobRow[r.jobs[0]];
    const steps: Array<Record<string, unknown>> = [
      {
        type: 'start',
        ...where(places, startRow),
        setup: 0,
        service: 0,
        waiting_time: 0,
        ...amount(load),
        arrival: r.start,
        duration: 0,
        violations: [],
        ...dist(0),
      },
    ];
    // VROOM's break steps: where the vehicle is, with the duration and load so far.
    let breakWaiting = 0;
    const breaksAfter = (i: number) => {
      for (const b of r.breaks ?? []) {
        if (b.after !== i) continue;
        const given = v.breaks![b.index];
        breakWaiting += b.start - b.arrival;
        steps.push({
          type: 'break',
          ...(given.description !== undefined ? { description: given.description } : {}),
          ...where(places, i < 0 ? startRow : places.jobRow[r.jobs[i]]),
          id: given.id,
          setup: 0,
          service: given.service,
          waiting_time: b.start - b.arrival,
          ...amount(load),
          arrival: b.arrival,
          duration,
          violations: [],
          ...dist(distance),
        });
      }
    };
    breaksAfter(-1);
    r.jobs.forEach((j, i) => {
      const job = tasks[j];
      duration += r.legDurations[i];
      distance += r.legDistances[i];
      add(load, job.loaded);
      add(load, job.dropped, -1);
      steps.push({
        type: job.type,
        ...(job.description !== undefined ? { description: job.description } : {}),
        ...where(places, places.jobRow[j]),
        id: job.id,
        setup: job.setup,
        service: job.service,
        waiting_time: r.waits[i],
        job: job.id,
        ...amount(load),
        arrival: r.arrivals[i],
        duration,
        violations: [],
        ...dist(distance),
      });
      breaksAfter(i);
    });
    const end = places.vehicleEnd[r.vehicle];
    if (end !== null) {
      duration += r.legDurations[r.jobs.length];
      distance += r.legDistances[r.jobs.length];
      steps.push({
        type: 'end',
        ...where(places, end),
        setup: 0,
        service: 0,
        waiting_time: 0,
        ...amount(load),
        arrival: r.end,
        duration,
        violations: [],
        ...dist(distance),
      });
    }
    const route = {
      vehicle: v.id,
      // VROOM's cost: fixed + per_hour × travel hours + per_km × km (its default rates make it the travel seconds).
      cost: userCost(v.costs, r),
      ...(capacitated ? { delivery, amount: [...delivery], pickup } : {}),
      setup: jobs.reduce((a, j) => a + j.setup, 0),
      service: jobs.reduce((a, j) => a + j.service, 0),
      duration: r.duration,
      waiting_time: r.waiting + breakWaiting,
      priority: jobs.reduce((a, j) => a + j.priority, 0),
      ...(withDistance ? { distance: r.distance } : {}),
      ...(v.description !== undefined ? { description: v.description } : {}),
      steps,
      violations: [],
    };
    totals.cost += route.cost;
    totals.setup += route.setup;
    totals.service += route.service;
    totals.duration += route.duration;
    totals.waiting_time += route.waiting_time;
    totals.priority += route.priority;
    add(totals.delivery, delivery);
    add(totals.pickup, pickup);
    totals.distance += r.distance;
    return route;
  });

  return {
    code: 0,
    summary: {
      cost: totals.cost,
      routes: routes.length,
      unassigned: solution.unassigned.length,
      ...(capacitated ? { delivery: totals.delivery, amount: [...totals.delivery], pickup: totals.pickup } : {}),
      setup: totals.setup,
      service: totals.service,
      duration: totals.duration,
      waiting_time: totals.waiting_time,
      priority: totals.priority,
      ...(withDistance ? { distance: totals.distance } : {}),
      violations: [],
      computing_times: { loading: Math.round(timings.loading), solving: Math.round(timings.solving), routing: Math.round(timings.routing) },
    },
    unassigned: solution.unassigned.map((j) => ({
      id: tasks[j].id,
      ...where(places, places.jobRow[j]),
      type: tasks[j].type,
      ...(tasks[j].description !== undefined ? { description: tasks[j].description } : {}),
    })),
    routes,
  };
}
