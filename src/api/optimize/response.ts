// The answer of POST /v1/routes/optimize (service-spec.md): the solver's routes as timed steps in the
// request's offset, with totals that are exact sums of the steps (whole seconds and meters).
import type { ResolvedLocation } from '../locations.js';
import { unassignedReason, type VrpProblem, type VrpRoute, type VrpSolution } from '../../engine/vrp/solver.js';
import type { Violation } from '../../engine/vrp/types.js';
import { mergeViolations } from '../../engine/vrp/violations.js';
import { formatDatetime } from './datetimes.js';
import type { ResolvedShipment, ResolvedVehicle } from './problem.js';
import { DEFAULT_PER_HOUR, type OptimizeBody } from './schema.js';
import type { TimeFrame } from './time-frame.js';

export interface OptimizeContext {
  body: OptimizeBody;
  vehicleIds: string[];
  vehicles: ResolvedVehicle[];
  stops: ResolvedLocation[];
  problem: VrpProblem;
  frame: TimeFrame;
  /** Batch jobs: the shipments' places (their jobs follow the stops'), unassigned entries with a `type`. */
  shipments?: ResolvedShipment[];
  /** Why a stop that never reached the solver cannot be served, by stop index (POI stops). */
  unservable?: Record<number, string>;
  batch?: boolean;
}

/** What a solver job is in the request: a stop, or one end of a shipment. */
function taskOf(c: OptimizeContext, j: number) {
  const stops = c.body.stops.length;
  if (j < stops) return { type: 'stop' as const, index: j, id: c.body.stops[j].id ?? null, at: c.stops[j], service: c.body.stops[j].service };
  const k = (j - stops) >> 1;
  const end = (j - stops) & 1 ? ('delivery' as const) : ('pickup' as const);
  const sh = c.body.shipments![k];
  return { type: end, index: k, id: sh.id ?? null, at: c.shipments![k][end], service: sh[end].service };
}

// 1e-6° is at most 11 cm, far below the engine's precision.
const micro = (x: number) => Math.round(x * 1e6) / 1e6;

function lineString(geometry: Array<[number, number]>) {
  const coordinates = geometry.map(([lon, lat]) => [micro(lon), micro(lat)]);
  // A LineString needs two positions, even when every location of a route is the same spot.
  if (coordinates.length === 1) coordinates.push([...coordinates[0]]);
  return { type: 'LineString', coordinates };
}

/** How loads are written: null without capacities, arrays when the request gave any amount as one, else integers. */
type LoadStyle = 'none' | 'integer' | 'array';

function routeJson(c: OptimizeContext, r: VrpRoute, geometry: Array<[number, number]>, style: LoadStyle) {
  const at = (t: number) => formatDatetime(c.frame.origin + t, c.frame.offsetMinutes);
  const load = (units: number[]) => (style === 'none' ? null : style === 'array' ? units : units[0]);
  const vehicle = c.vehicles[r.vehicle];
  // A batch plan's steps carry VROOM's violations (plan mode's; none in a searched plan).
  const sv = r.stepViolations;
  const violations = (list: Violation[] | undefined) => (c.batch ? { violations: list ?? [] } : {});
  let distance = 0,
    duration = 0;
  const startAt = at(r.start);
  const steps: Array<Record<string, unknown>> = [
    {
      type: 'start',
      latitude: vehicle.start.latitude,
      longitude: vehicle.start.longitude,
      arrival: startAt,
      departure: startAt,
      waiting_time: 0,
      service: 0,
      distance: 0,
      duration: 0,
      load: load(r.initialLoad),
      ...violations(sv?.start),
    },
  ];
  // A break is taken where the vehicle is: at the step before it, with its distance, duration and load.
  const breaksAfter = (i: number) => {
    for (const [k, b] of (r.breaks ?? []).entries()) {
      if (b.after !== i) continue;
      const prev = steps[steps.length - 1];
      const given = c.body.vehicles[r.vehicle].breaks![b.index];
      steps.push({
        type: 'break',
        index: b.index,
        id: String(given.id),
        poi_id: null,
        latitude: prev.latitude,
        longitude: prev.longitude,
        arrival: at(b.arrival),
        departure: at(b.departure),
        waiting_time: b.start - b.arrival,
        service: given.service,
        distance: prev.distance,
        duration: prev.duration,
        load: prev.load,
        ...violations(sv?.breaks[k]),
      });
    }
  };
  breaksAfter(-1);
  r.jobs.forEach((j, i) => {
    distance += r.legDistances[i];
    duration += r.legDurations[i];
    const task = taskOf(c, j);
    steps.push({
      type: task.type,
      index: task.index,
      id: task.id,
      poi_id: task.at.poiId,
      latitude: task.at.latitude,
      longitude: task.at.longitude,
      arrival: at(r.arrivals[i]),
      departure: at(r.departures[i]),
      waiting_time: r.waits[i],
      service: task.service,
      distance,
      duration,
      load: load(r.loads[i]),
      ...violations(sv?.jobs[i]),
    });
    breaksAfter(i);
  });
  if (vehicle.end) {
    distance += r.legDistances[r.jobs.length];
    duration += r.legDurations[r.jobs.length];
    const endAt = at(r.end);
    steps.push({
      type: 'end',
      latitude: vehicle.end.latitude,
      longitude: vehicle.end.longitude,
      arrival: endAt,
      departure: endAt,
      waiting_time: 0,
      service: 0,
      distance,
      duration,
      load: load(r.loads[r.loads.length - 1]),
      ...violations(sv?.end),
    });
  }
  // An open route ends on arriving at its last stop.
  const endAt = vehicle.end ? at(r.end) : steps[steps.length - 1].arrival;
  const costs = c.body.vehicles[r.vehicle].costs;
  return {
    vehicle: c.vehicleIds[r.vehicle],
    stops: r.jobs.length,
    ...(c.batch ? { cost: userCost(costs, r), violations: sv?.route ?? [], violation_messages: r.violations ?? [] } : {}),
    distance: r.distance,
    duration: r.duration,
    service: r.service,
    waiting_time: r.waiting,
    load: load(r.initialLoad),
    start_at: startAt,
    end_at: endAt,
    geometry: lineString(geometry),
    steps,
  };
}

/** VROOM's cost of a route as it reports it: the fixed cost and the rounded cost of its travel. */
export const userCost = (costs: { fixed?: number; per_hour?: number; per_km?: number } | undefined, r: { duration: number; distance: number }): number =>
  (costs?.fixed ?? 0) + Math.round(((costs?.per_hour ?? DEFAULT_PER_HOUR) * r.duration) / 3600 + ((costs?.per_km ?? 0) * r.distance) / 1000);

/** `geometries[k]` is the road geometry of `solution.routes[k]`, [lon, lat] from its start to its end. */
export function optimizeJson(c: OptimizeContext, solution: VrpSolution, geometries: Array<Array<[number, number]>>) {
  const style: LoadStyle = !c.body.vehicles.some((v) => v.capacity !== undefined)
    ? 'none'
    : [...c.body.vehicles.map((v) => v.capacity), ...c.body.stops.map((s) => s.demand), ...(c.body.shipments ?? []).map((s) => s.amount)].some(Array.isArray)
      ? 'array'
      : 'integer';
  const routes = solution.routes.map((r, k) => routeJson(c, r, geometries[k], style));
  const total = (key: 'distance' | 'duration' | 'service' | 'waiting_time') => routes.reduce((a, r) => a + r[key], 0);
  const assigned = routes.reduce((a, r) => a + r.stops, 0);
  return {
    summary: {
      vehicles: routes.length,
      stops: c.problem.jobs.length,
      assigned,
      unassigned: solution.unassigned.length,
      distance: total('distance'),
      duration: total('duration'),
      service: total('service'),
      waiting_time: total('waiting_time'),
      ...(c.batch
        ? { cost: routes.reduce((a, r) => a + (r.cost ?? 0), 0), violations: mergeViolations(solution.routes.flatMap((r) => r.stepViolations?.route ?? [])) }
        : {}),
    },
    routes,
    // A shipment left out leaves both its jobs out: it is listed once, by its pickup.
    unassigned: solution.unassigned.flatMap((j) => {
      const task = taskOf(c, j);
      if (task.type === 'delivery') return [];
      return [
        {
          ...(c.batch ? { type: task.type === 'stop' ? 'stop' : 'shipment' } : {}),
          index: task.index,
          id: task.id,
          poi_id: task.at.poiId,
          latitude: task.at.latitude,
          longitude: task.at.longitude,
          reason: c.unservable?.[j] ?? unassignedReason(c.problem.jobs[j], c.problem),
        },
      ];
    }),
  };
}
