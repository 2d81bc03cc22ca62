// Shared by the POST /v1/routes/optimize suites: positions on the real Liechtenstein roads, and a
// feasibility checker that re-derives every rule of a plan from the request alone (it trusts nothing the
// solver or the endpoint computed, except each leg's travel time, read from the steps' cumulative durations).
import { expect } from 'vitest';
import { readGraphFiles, readManifest, readShapeFiles } from '../../src/map/map-dir.js';
import { nodePositionsE7, toDegrees } from '../../src/map/graphs/road-graph.js';
import { api, type ApiResponse } from '../support/app.js';

export interface At {
  latitude: number;
  longitude: number;
}

export const REASONS = [
  'demand exceeds every capacity',
  'no vehicle has the required skills',
  "time windows fall outside every vehicle's working hours",
  'no vehicle can reach it in time with the capacity and hours left',
];

export const optimize = (app: { url: string }, key: string, body: unknown): Promise<ApiResponse> => api(app, 'POST', '/v1/routes/optimize', { key, body });

/** Rathaus Vaduz and Schaan: about 3 km apart, both on roads. */
export const VADUZ: At = { latitude: 47.1393, longitude: 9.5215 };
export const SCHAAN: At = { latitude: 47.165, longitude: 9.5093 };

/**
 * `count` distinct road positions in the Rhine valley between Balzers and Schaan, chosen by a seeded
 * generator among the car graph's nodes on its main (strongly connected) network: reachable both ways.
 */
export async function roadPoints(mapDir: string, count: number, seed = 7): Promise<At[]> {
  const manifest = await readManifest(mapDir);
  const g = await readGraphFiles(mapDir, 'driving-car', manifest.profiles['driving-car'], await readShapeFiles(mapDir));
  const nodeCoords = toDegrees(nodePositionsE7(g));
  const seen = new Set<string>();
  const candidates: At[] = [];
  for (let v = 0; v < g.nodeCount; v++) {
    const latitude = Math.round(nodeCoords[2 * v] * 1e6) / 1e6,
      longitude = Math.round(nodeCoords[2 * v + 1] * 1e6) / 1e6;
    if (latitude < 47.08 || latitude > 47.18 || longitude < 9.49 || longitude > 9.54) continue;
    if (g.mainNet[v] !== 1) continue;
    const key = `${latitude},${longitude}`;
    if (seen.has(key)) continue;
    seen.add(key);
    candidates.push({ latitude, longitude });
  }
  let a = seed >>> 0;
  const rand = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out: At[] = [];
  while (out.length < count) out.push(candidates.splice(Math.floor(rand() * candidates.length), 1)[0]);
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Independent feasibility checker

const DATETIME = /^(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(Z|[+-]\d\d:\d\d)$/;

/** Epoch seconds of a datetime (`Z`, `±HH:MM`, `±HHMM` or no offset = UTC), rounded to whole seconds as the API does. */
export function epochOf(text: string): number {
  const zoned = text.replace(/([+-]\d\d)(\d\d)$/, '$1:$2');
  const ms = Date.parse(/(Z|[+-]\d\d:\d\d)$/.test(zoned) ? zoned : `${zoned}Z`);
  expect(Number.isNaN(ms), text).toBe(false);
  return Math.round(ms / 1000);
}

/** The point of `points` farthest from `from`, straight-line. */
export function farthest(from: At, points: At[]): At {
  return points.reduce((best, p) => (meters(from, p) > meters(from, best) ? p : best));
}

/** A datetime of the answer: the exact shape, the expected offset suffix; epoch seconds. */
function answerEpoch(text: string, suffix: string): number {
  expect(text, 'datetime shape').toMatch(DATETIME);
  expect(text.endsWith(suffix), `${text} ends with ${suffix}`).toBe(true);
  return epochOf(text);
}

const meters = (a: At, b: At) => {
  const R = 6371008.8,
    rad = Math.PI / 180;
  const h =
    Math.sin(((b.latitude - a.latitude) * rad) / 2) ** 2 +
    Math.cos(a.latitude * rad) * Math.cos(b.latitude * rad) * Math.sin(((b.longitude - a.longitude) * rad) / 2) ** 2;
  return 2 * R * Math.asin(Math.min(1, Math.sqrt(h)));
};

export interface CheckOptions {
  /** Positions of POI locations, by POI id (the request names them only by id). */
  pois?: Record<string, At>;
  /** Offset suffix every datetime of the answer must carry; default `Z`. */
  suffix?: string;
}

/** The keys every step has after its type (and a stop step's index, ids), in order. */
const PLACE_AND_TIMES = ['latitude', 'longitude', 'arrival', 'departure', 'waiting_time', 'service', 'distance', 'duration', 'load'];

/**
 * Checks a 200 answer against its request and returns its data: shape, each stop once, skills,
 * capacities and loads, working hours, time windows (service starts inside one; waits only until a
 * window opens), arrival = previous departure + leg, departure = arrival + wait + service, totals equal
 * the sums of the steps and routes, the offset of every datetime, and the geometry's ends.
 */
export function checkPlan(req: any, res: ApiResponse, opts: CheckOptions = {}): any {
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(Object.keys(res.body)).toEqual(['data']);
  const d = res.body.data;
  expect(Object.keys(d)).toEqual(['summary', 'routes', 'unassigned']);
  // The batch plan (POST /v1/optimizations' result) adds VROOM's cost to the contract's shape.
  const batch = 'cost' in d.summary;
  const suffix = opts.suffix ?? 'Z';
  const position = (loc: any): At => (loc.poi_id !== undefined ? opts.pois![loc.poi_id] : { latitude: loc.latitude, longitude: loc.longitude });
  const poiOf = (loc: any) => (loc.poi_id !== undefined ? loc.poi_id.toUpperCase() : null);
  const capacitated = req.vehicles.some((v: any) => v.capacity !== undefined);
  const arrays = [...req.vehicles.map((v: any) => v.capacity), ...req.stops.map((st: any) => st.demand)].filter(Array.isArray);
  const dims: number = arrays.length ? arrays[0].length : 0;
  const ids = req.vehicles.map((v: any, i: number) => v.id ?? `vehicle-${i + 1}`);
  const seen = new Map<number, number>();
  const sums = { distance: 0, duration: 0, service: 0, waiting_time: 0, stops: 0 };
  const usedVehicles = new Set<number>();

  // A batch plan's steps also carry their violations (checked below).
  const stepKeys = (s: object) => Object.keys(s).filter((k) => !(batch && k === 'violations'));
  for (const r of d.routes) {
    // A batch plan's routes (and steps) also carry their cost and plan-mode violations (none in a searched plan).
    const batchOnly = ['cost', 'violations', 'violation_messages'];
    if (batch) {
      expect(r.cost).toBe(r.duration);
      expect(r.violations).toEqual([]);
      expect(r.violation_messages).toEqual([]);
      for (const s of r.steps) expect(s.violations).toEqual([]);
    }
    expect(Object.keys(r).filter((k) => !(batch && batchOnly.includes(k)))).toEqual([
      'vehicle',
      'stops',
      'distance',
      'duration',
      'service',
      'waiting_time',
      'load',
      'start_at',
      'end_at',
      'geometry',
      'steps',
    ]);
    const vi = ids.indexOf(r.vehicle);
    expect(vi, `vehicle ${r.vehicle}`).toBeGreaterThanOrEqual(0);
    expect(usedVehicles.has(vi), 'one route per vehicle').toBe(false);
    usedVehicles.add(vi);
    const v = req.vehicles[vi];
    const steps: any[] = r.steps;
    const stopSteps = steps.filter((s) => s.type === 'stop');
    expect(stopSteps.length, 'a route serves at least one stop').toBeGreaterThan(0);
    expect(r.stops).toBe(stopSteps.length);
    expect(steps.map((s) => s.type)).toEqual(['start', ...stopSteps.map(() => 'stop'), ...(v.end ? ['end'] : [])]);

    // Positions and echoes.
    expect({ latitude: steps[0].latitude, longitude: steps[0].longitude }).toEqual(position(v.start));
    if (v.end) expect({ latitude: steps.at(-1).latitude, longitude: steps.at(-1).longitude }).toEqual(position(v.end));
    for (const s of stopSteps) {
      const stop = req.stops[s.index];
      expect(stop, `stop index ${s.index}`).toBeDefined();
      seen.set(s.index, (seen.get(s.index) ?? 0) + 1);
      expect(stepKeys(s)).toEqual(['type', 'index', 'id', 'poi_id', ...PLACE_AND_TIMES]);
      expect(s.id).toBe(stop.id ?? null);
      expect(s.poi_id).toBe(poiOf(stop));
      expect({ latitude: s.latitude, longitude: s.longitude }).toEqual(position(stop));
      for (const skill of stop.skills ?? []) expect(v.skills ?? [], `skill ${skill} of stop ${s.index}`).toContain(skill);
    }
    for (const s of steps.filter((x) => x.type !== 'stop')) {
      expect(stepKeys(s)).toEqual(['type', ...PLACE_AND_TIMES]);
      expect(s.waiting_time).toBe(0);
      expect(s.service).toBe(0);
    }

    // Times: each leg's travel time is the growth of the cumulative duration.
    const start = steps[0];
    expect(start.distance).toBe(0);
    expect(start.duration).toBe(0);
    expect(start.arrival).toBe(start.departure);
    expect(r.start_at).toBe(start.departure);
    const hours = v.time_window ? v.time_window.map(epochOf) : [-Infinity, Infinity];
    let t = answerEpoch(start.departure, suffix);
    expect(t, 'leaves within working hours').toBeGreaterThanOrEqual(hours[0]);
    let service = 0,
      waiting = 0;
    for (let k = 1; k < steps.length; k++) {
      const s = steps[k],
        prev = steps[k - 1];
      const leg = s.duration - prev.duration;
      expect(Number.isInteger(leg) && leg >= 0, `leg ${k} duration ${leg}`).toBe(true);
      expect(Number.isInteger(s.distance - prev.distance) && s.distance >= prev.distance, `leg ${k} distance`).toBe(true);
      const arrival = answerEpoch(s.arrival, suffix);
      expect(arrival, `arrival at step ${k} = previous departure + leg`).toBe(t + leg);
      expect(arrival, `step ${k} within working hours`).toBeLessThanOrEqual(hours[1]);
      expect(Number.isInteger(s.waiting_time) && s.waiting_time >= 0).toBe(true);
      const begin = arrival + s.waiting_time;
      expect(begin, `service at step ${k} starts within working hours`).toBeLessThanOrEqual(hours[1]);
      if (s.type === 'stop') {
        const stop = req.stops[s.index];
        expect(s.service).toBe(stop.service ?? 0);
        const windows: number[][] = (stop.time_windows ?? []).map((w: string[]) => w.map(epochOf));
        if (windows.length) {
          expect(
            windows.some(([ws, we]) => ws <= begin && begin <= we),
            `stop ${s.index} served at ${begin} inside a window`,
          ).toBe(true);
          // Waiting only until a window opens, and only when none is open at arrival.
          if (s.waiting_time > 0) {
            expect(windows.some(([ws]) => ws === begin)).toBe(true);
            expect(windows.some(([ws, we]) => ws <= arrival && arrival <= we)).toBe(false);
          }
        } else expect(s.waiting_time).toBe(0);
      }
      const departure = answerEpoch(s.departure, suffix);
      expect(departure, `departure at step ${k}`).toBe(begin + s.service);
      service += s.service;
      waiting += s.waiting_time;
      t = departure;
    }
    const last = steps.at(-1);
    expect(r.end_at).toBe(last.arrival);
    expect(r.distance).toBe(last.distance);
    expect(r.duration).toBe(last.duration);
    expect(r.service).toBe(service);
    expect(r.waiting_time).toBe(waiting);

    // Loads: everything is loaded at the start, each stop unloads its demand. A batch request with
    // arrays for amounts gets arrays, one entry per dimension (a stop without a demand carries 1 in each).
    if (capacitated && dims > 0) {
      const units = (a: number | number[] | undefined) => (a === undefined ? new Array<number>(dims).fill(1) : typeof a === 'number' ? [a] : a);
      const total = new Array<number>(dims).fill(0);
      for (const s of stopSteps) units(req.stops[s.index].demand).forEach((x, d) => (total[d] += x));
      expect(r.load).toEqual(total);
      if (v.capacity !== undefined) units(v.capacity).forEach((c, d) => expect(total[d], `load of ${r.vehicle} in dimension ${d}`).toBeLessThanOrEqual(c));
      const load = [...total];
      expect(start.load).toEqual(load);
      for (const s of steps.slice(1)) {
        if (s.type === 'stop') units(req.stops[s.index].demand).forEach((x, d) => (load[d] -= x));
        expect(s.load).toEqual(load);
      }
    } else if (capacitated) {
      const total = stopSteps.reduce((a, s) => a + (req.stops[s.index].demand ?? 1), 0);
      expect(r.load).toBe(total);
      if (v.capacity !== undefined) expect(total, `load of ${r.vehicle}`).toBeLessThanOrEqual(v.capacity);
      let load = total;
      expect(start.load).toBe(load);
      for (const s of steps.slice(1)) {
        if (s.type === 'stop') load -= req.stops[s.index].demand ?? 1;
        expect(s.load).toBe(load);
      }
    } else {
      expect(r.load).toBeNull();
      for (const s of steps) expect(s.load).toBeNull();
    }

    // The geometry runs from the start through every stop (each leg ends on the road point its location
    // snaps to, at most 500 m away) to the last location.
    expect(r.geometry.type).toBe('LineString');
    const coords: number[][] = r.geometry.coordinates;
    expect(coords.length).toBeGreaterThanOrEqual(2);
    const at = (c: number[]): At => ({ latitude: c[1], longitude: c[0] });
    const stepAt = (s: any): At => ({ latitude: s.latitude, longitude: s.longitude });
    expect(meters(at(coords[0]), position(v.start))).toBeLessThan(500);
    expect(meters(at(coords.at(-1)!), stepAt(last))).toBeLessThan(500);
    for (const s of stopSteps) expect(Math.min(...coords.map((c) => meters(at(c), stepAt(s)))), `geometry near stop ${s.index}`).toBeLessThan(500);
    // Roads are no shorter than the straight line, give or take the snapping at both ends.
    for (let k = 1; k < steps.length; k++) {
      expect(steps[k].distance - steps[k - 1].distance, `leg ${k} distance`).toBeGreaterThanOrEqual(meters(stepAt(steps[k - 1]), stepAt(steps[k])) - 1000);
    }

    sums.distance += r.distance;
    sums.duration += r.duration;
    sums.service += r.service;
    sums.waiting_time += r.waiting_time;
    sums.stops += r.stops;
  }

  for (const u of d.unassigned) {
    if (batch) expect(u.type).toBe('stop');
    expect(Object.keys(u).filter((k) => !(batch && k === 'type'))).toEqual(['index', 'id', 'poi_id', 'latitude', 'longitude', 'reason']);
    const stop = req.stops[u.index];
    expect(stop).toBeDefined();
    seen.set(u.index, (seen.get(u.index) ?? 0) + 1);
    expect(u.id).toBe(stop.id ?? null);
    expect(u.poi_id).toBe(poiOf(stop));
    expect({ latitude: u.latitude, longitude: u.longitude }).toEqual(position(stop));
    expect(REASONS).toContain(u.reason);
  }
  // Every stop exactly once, in a route or unassigned.
  expect([...seen.keys()].sort((a, b) => a - b)).toEqual(req.stops.map((_: unknown, i: number) => i));
  expect([...seen.values()].every((c) => c === 1)).toBe(true);
  expect(d.unassigned.map((u: any) => u.index)).toEqual([...d.unassigned.map((u: any) => u.index)].sort((a: number, b: number) => a - b));

  expect(d.summary).toEqual({
    vehicles: d.routes.length,
    stops: req.stops.length,
    assigned: sums.stops,
    unassigned: d.unassigned.length,
    distance: sums.distance,
    duration: sums.duration,
    service: sums.service,
    waiting_time: sums.waiting_time,
    // Without vehicle costs a batch plan's cost is its driving seconds, as VROOM's; a searched plan breaks no rule.
    ...(batch ? { cost: sums.duration, violations: [] } : {}),
  });
  return d;
}

/** The route of a vehicle, or undefined. */
export const routeOf = (d: any, vehicle: string) => d.routes.find((r: any) => r.vehicle === vehicle);
/** Stop indexes of a route in visiting order. */
export const order = (r: any): number[] => r.steps.filter((s: any) => s.type === 'stop').map((s: any) => s.index);
