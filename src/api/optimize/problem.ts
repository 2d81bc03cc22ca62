// From the request to the solver's problem: the distinct locations (one matrix row each), the road
// matrix in whole seconds and meters, and the vehicles and jobs in seconds from the time frame's origin.
import type { FieldErrors } from '../../http/errors.js';
import type { MatrixResult } from '../../engine/engine.js';
import type { ResolvedLocation } from '../locations.js';
import type { VrpProblem } from '../../engine/vrp/solver.js';
import { amountOf } from '../../engine/vrp/problem.js';
import type { Instant } from './datetimes.js';
import { DEFAULT_PER_HOUR, type OptimizeBody } from './schema.js';
import type { TimeFrame } from './time-frame.js';
import type { LatLon } from '../../lib/lat-lon.js';

/** Where the request's locations sit in the matrix; points are deduplicated by exact position. */
export interface LocationIndex {
  points: LatLon[];
  /** The request's field paths naming each point (`vehicles.0.start`, `stops.3`), for error messages. */
  fields: string[][];
  vehicleStart: number[];
  /** null: the route ends at its last stop. */
  vehicleEnd: Array<number | null>;
  /** The stops, then each shipment's pickup and delivery: one solver job each. */
  stop: number[];
}

export interface ResolvedVehicle {
  start: ResolvedLocation;
  end: ResolvedLocation | null;
}

export interface ResolvedShipment {
  pickup: ResolvedLocation;
  delivery: ResolvedLocation;
}

/**
 * `skip`: stops left out of the matrix (they cannot be served: far from a road, say); they point at the
 * first vehicle's start, which the solver never sends them to (toProblem makes them unservable).
 */
export function indexLocations(
  vehicles: readonly ResolvedVehicle[],
  stops: readonly ResolvedLocation[],
  shipments: readonly ResolvedShipment[] = [],
  skip: ReadonlySet<number> = new Set(),
): LocationIndex {
  const index: LocationIndex = { points: [], fields: [], vehicleStart: [], vehicleEnd: [], stop: [] };
  const byPosition = new Map<string, number>();
  const add = (loc: ResolvedLocation, field: string): number => {
    const key = `${loc.latitude},${loc.longitude}`;
    let i = byPosition.get(key);
    if (i === undefined) {
      i = index.points.length;
      byPosition.set(key, i);
      index.points.push({ lat: loc.latitude, lon: loc.longitude });
      index.fields.push([]);
    }
    index.fields[i].push(field);
    return i;
  };
  vehicles.forEach((v, i) => {
    index.vehicleStart.push(add(v.start, `vehicles.${i}.start`));
    index.vehicleEnd.push(v.end ? add(v.end, `vehicles.${i}.end`) : null);
  });
  stops.forEach((s, i) => index.stop.push(skip.has(i) ? index.vehicleStart[0] : add(s, `stops.${i}`)));
  shipments.forEach((s, i) => {
    index.stop.push(add(s.pickup, `shipments.${i}.pickup`));
    index.stop.push(add(s.delivery, `shipments.${i}.delivery`));
  });
  return index;
}

/** The legs a plan may drive: from each start to each stop, between stops, from each stop to each end. */
function neededLegs(ix: LocationIndex, skip: ReadonlySet<number>): Array<[number, number]> {
  const legs: Array<[number, number]> = [];
  const stops = [...new Set(ix.stop.filter((_, i) => !skip.has(i)))];
  for (const s of stops) {
    for (const a of ix.vehicleStart) legs.push([a, s]);
    for (const t of stops) if (t !== s) legs.push([s, t]);
    for (const b of ix.vehicleEnd) if (b !== null) legs.push([s, b]);
  }
  return legs;
}

/**
 * A location that a needed leg cannot reach or leave by road (service-spec.md "Errors": 422). Each
 * missing leg is blamed on the location with the most missing legs, so the one point cut off from the
 * network is reported rather than every point it fails to connect with.
 */
export function unreachableLocations(ix: LocationIndex, duration: Travel['duration'], profile: string, skip: ReadonlySet<number> = new Set()): FieldErrors {
  let missing = neededLegs(ix, skip).filter(([a, b]) => a !== b && duration(a, b) === null);
  const errors: FieldErrors = {};
  while (missing.length) {
    const count = new Map<number, number>();
    for (const [a, b] of missing) for (const p of [a, b]) count.set(p, (count.get(p) ?? 0) + 1);
    const worst = [...count].reduce((best, c) => (c[1] > best[1] ? c : best))[0];
    for (const field of ix.fields[worst]) {
      errors[field] = [`cannot be reached by road from the other locations, or they from it, with the ${profile} profile`];
    }
    missing = missing.filter(([a, b]) => a !== worst && b !== worst);
  }
  return errors;
}

/** Seconds and meters between two points of a matrix, null when unreachable. */
export interface Travel {
  duration(a: number, b: number): number | null;
  distance(a: number, b: number): number | null;
}

/** The engine's matrix, in nested rows or (asked for `packed`, all rows) packed. */
export function travelOf(m: MatrixResult): Travel {
  const p = m.packed;
  if (p) {
    const n = m.snapped.length;
    const value = (x: number) => (Number.isNaN(x) ? null : x);
    return { duration: (a, b) => value(p.durations[a * n + b]), distance: (a, b) => value(p.distances[a * n + b]) };
  }
  return { duration: (a, b) => m.durations[a][b], distance: (a, b) => m.distances[a][b] };
}

/** Stands in for a leg no plan may drive (a start reached from a stop, say); far beyond any real one. */
export const UNREACHABLE_S = 1_000_000_000;

/** A skill no vehicle has: a stop that cannot be served stays in the problem, unassigned, under its index. */
export const UNSERVABLE_SKILL = '\u0000unservable';

export function toProblem(body: OptimizeBody, ix: LocationIndex, m: Travel, frame: TimeFrame, unservable: ReadonlySet<number> = new Set()): VrpProblem {
  const n = ix.points.length;
  // Whole seconds and meters (DECISIONS.md): the reported totals are then exact sums of the legs.
  const durations = new Int32Array(n * n);
  const distances = new Float64Array(n * n);
  for (let a = 0; a < n; a++) {
    for (let b = 0; b < n; b++) {
      const d = m.duration(a, b),
        meters = m.distance(a, b);
      durations[a * n + b] = a === b ? 0 : d === null ? UNREACHABLE_S : Math.round(d);
      distances[a * n + b] = a === b || meters === null ? 0 : Math.round(meters);
    }
  }
  const seconds = (t: Instant) => t.epoch - frame.origin;
  const windows = (w: Array<[Instant, Instant]> | undefined) => (w ?? []).map(([start, end]) => [seconds(start), seconds(end)] as const);
  const shipments = body.shipments ?? [];
  const dims = dimensionsOf(body);
  const zero = new Array<number>(dims).fill(0);
  const stopCount = body.stops.length;
  return {
    durations,
    distances,
    vehicles: body.vehicles.map((v, i) => ({
      start: ix.vehicleStart[i],
      end: ix.vehicleEnd[i],
      capacity: v.capacity ?? null,
      // Without working hours a vehicle is available from the origin on, with no end.
      hours: v.time_window ? ([seconds(v.time_window[0]), seconds(v.time_window[1])] as const) : null,
      skills: v.skills ?? [],
      maxJobs: v.max_tasks ?? null,
      maxTravel: v.max_travel_time ?? null,
      maxDistance: v.max_distance ?? null,
      // VROOM's objective: fixed + per_hour × driving hours + per_km × km, the driving the vehicle's own (its speed factor).
      fixed: v.costs?.fixed ?? 0,
      perHour: v.costs?.per_hour ?? DEFAULT_PER_HOUR,
      perKm: v.costs?.per_km ?? 0,
      speedFactor: v.speed_factor ?? 1,
      ...(v.breaks?.length
        ? {
            breaks: v.breaks.map((b) => ({
              windows: windows(b.time_windows).sort((x, y) => x[0] - y[0]),
              service: b.service,
              ...(b.max_load === undefined ? {} : { maxLoad: amountOf(b.max_load) }),
            })),
          }
        : {}),
    })),
    jobs: [
      ...body.stops.map((s, i) => ({
        location: ix.stop[i],
        service: s.service,
        demand: s.demand,
        timeWindows: windows(s.time_windows),
        skills: unservable.has(i) ? [UNSERVABLE_SKILL] : (s.skills ?? []),
        priority: s.priority ?? 0,
      })),
      ...shipments.flatMap((sh, k) =>
        (['pickup', 'delivery'] as const).map((end, e) => ({
          location: ix.stop[stopCount + 2 * k + e],
          service: sh[end].service,
          // The shipment's amount rides between its two stops; neither delivers from the start.
          demand: zero,
          timeWindows: windows(sh[end].time_windows),
          skills: sh.skills ?? [],
          priority: e === 0 ? (sh.priority ?? 0) : 0,
        })),
      ),
    ],
    shipments: shipments.map((sh, k) => ({
      pickup: stopCount + 2 * k,
      delivery: stopCount + 2 * k + 1,
      amount: sh.amount ?? zero,
    })),
  };
}

/** Load dimensions of a body: the length of its first capacity, demand or shipment amount given as an array, else 1. */
function dimensionsOf(body: OptimizeBody): number {
  const first = [...body.vehicles.map((v) => v.capacity), ...body.stops.map((s) => s.demand), ...(body.shipments ?? []).map((s) => s.amount)].find(
    (a) => a !== undefined,
  );
  return Array.isArray(first) ? first.length : 1;
}
