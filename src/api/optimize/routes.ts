// POST /v1/routes/optimize: vehicle routing with time windows on the road network (service-spec.md
// "POST /v1/routes/optimize"). Validate, resolve POIs, road matrix over the distinct locations, solve in
// the worker pool, then one road geometry per route.
import type { Sql } from '../../db/client.js';
import { HttpError, unprocessable, type FieldErrors } from '../../http/errors.js';
import type { Route } from '../../http/router.js';
import { parseInto } from '../../http/validate.js';
import { runTask } from '../../compute/pool.js';
import { matrix, NoRouteError, route, WaypointTooFarError, type MatrixResult, type ProfileName } from '../../engine/engine.js';
import { addFarFromRoad, engineHttpError, farMessage, rawProfile } from '../engine-errors.js';
import { namesPoi, rawLocation, resolveEach, type LocationInput, type ResolvedLocation } from '../locations.js';
import type { SolveOptions, VrpProblem, VrpSolution } from '../../engine/vrp/solver.js';
import { indexLocations, toProblem, travelOf, unreachableLocations, type LocationIndex, type ResolvedShipment, type ResolvedVehicle } from './problem.js';
import { optimizeJson } from './response.js';
import type { Operation } from '../../http/openapi.js';
import { defaultVehicleId, optimizeBodySchema, optimizeResponseSchema, type OptimizeBody } from './schema.js';
import { timeFrame } from './time-frame.js';
import { excludeBits } from '../routes/exclude.js';
import { pairsOf } from '../../engine/line-json.js';
import type { LatLon } from '../../lib/lat-lon.js';

/**
 * Two searches from different seeds, 6,000 iterations each, run side by side on the pool's threads (as
 * VROOM runs one search per thread), and the better plan is kept: on 50 stops and 3 vehicles their best
 * is as good as one search of 12,000 iterations (tours within 0.1 % of it on average, with and without
 * windows and capacities) in half the time when both threads are free. The iteration caps end the
 * searches, so the same request gets the same plan: the solver's temperature follows the iterations
 * spent, never the clock. The time limit only bounds a search on an overloaded machine.
 */
export const SEARCHES: readonly SolveOptions[] = [
  { iterations: 6_000, timeLimitMs: 1_000, seed: 1 },
  { iterations: 6_000, timeLimitMs: 1_000, seed: 2 },
];

/** Whether plan a is better than b: it serves more jobs, or as many in less travel time. */
const better = (a: VrpSolution, b: VrpSolution) =>
  a.unassigned.length < b.unassigned.length || (a.unassigned.length === b.unassigned.length && a.cost < b.cost);

/** The best plan of the searches; the first wins a tie. */
export async function solvePlan(problem: VrpProblem): Promise<VrpSolution> {
  const plans = await Promise.all(SEARCHES.map((options) => runTask<VrpSolution>('vrp', { problem, options })));
  return plans.reduce((best, plan) => (better(plan, best) ? plan : best));
}

/** Whether a raw (unvalidated) body names a POI anywhere: such requests also need `read-pois`. */
export function bodyNamesPoi(raw: Record<string, unknown>): boolean {
  const vehicles: unknown[] = Array.isArray(raw.vehicles) ? raw.vehicles : [];
  const places = vehicles.flatMap((v) => {
    if (v === null || typeof v !== 'object') return [];
    const { start, end } = v as { start?: unknown; end?: unknown };
    return [start, end];
  });
  const shipments: unknown[] = Array.isArray(raw.shipments) ? raw.shipments : [];
  const ends = shipments.flatMap((s) => {
    if (s === null || typeof s !== 'object') return [];
    const { pickup, delivery } = s as { pickup?: unknown; delivery?: unknown };
    return [pickup, delivery];
  });
  return namesPoi(raw.stops) || namesPoi(places) || namesPoi(ends);
}

/** Every location of a body with its field path: the vehicles' starts and ends, then the stops. Works on
 *  the raw body too (the locations usable on their own), so unknown ids and locations far from a road
 *  join the 422 of an invalid body. */
function locationFields(vehicles: unknown, stops: unknown, shipments: unknown, ref: (v: unknown) => LocationInput | undefined = rawLocation) {
  const out: Array<{ field: string; location: LocationInput | undefined }> = [];
  const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
  list(vehicles).forEach((v, i) => {
    const { start, end } = (v !== null && typeof v === 'object' ? v : {}) as { start?: unknown; end?: unknown };
    out.push({ field: `vehicles.${i}.start`, location: ref(start) });
    if (end) out.push({ field: `vehicles.${i}.end`, location: ref(end) });
  });
  list(stops).forEach((s, i) => out.push({ field: `stops.${i}`, location: ref(s) }));
  list(shipments).forEach((s, i) => {
    const { pickup, delivery } = (s !== null && typeof s === 'object' ? s : {}) as { pickup?: unknown; delivery?: unknown };
    out.push({ field: `shipments.${i}.pickup`, location: ref(pickup) });
    out.push({ field: `shipments.${i}.delivery`, location: ref(delivery) });
  });
  return out;
}

/** Positions of the locations (null for unknown and invalid ones); unknown POI ids go to `errors` at
 *  `<location field>.poi_id`. */
async function resolveFields(sql: Sql, teamId: string, entries: Array<{ field: string; location: LocationInput | undefined }>, errors: FieldErrors) {
  // One query for all of them; the errors come back at `all.<k>.poi_id` and are renamed to the real paths.
  const scratch: FieldErrors = {};
  const resolved = await resolveEach(
    sql,
    teamId,
    entries.map((e) => e.location),
    'all',
    scratch,
  );
  for (const [key, messages] of Object.entries(scratch)) errors[`${entries[Number(key.split('.')[1])].field}.poi_id`] = messages;
  return resolved;
}

/** The 422 of a body with problems (`errors`), with every location that is known but too far from a road
 *  the plan may use (outside the `exclude`d classes) added, but those of a list that is wrong as a whole
 *  (too long). */
async function rejection(
  profile: ProfileName | undefined,
  entries: Array<{ field: string }>,
  resolved: Array<ResolvedLocation | null>,
  errors: FieldErrors,
  exclude: number,
) {
  const located = entries.flatMap((e, k) => (Object.hasOwn(errors, e.field.split('.')[0]) ? [] : [{ field: e.field, at: resolved[k] }]));
  await addFarFromRoad(profile, located, errors, { exclude });
  return unprocessable(errors);
}

/** The 422 of an optimize body that did not validate (`errors` has why): with its unknown POI ids and its
 *  locations too far from a road outside the `exclude`d classes (excludeBits of the body's). */
export async function invalidBodyError(sql: Sql, teamId: string, raw: Record<string, unknown>, errors: FieldErrors, exclude = 0) {
  const entries = locationFields(raw.vehicles, raw.stops, raw.shipments);
  return rejection(rawProfile(raw.profile), entries, await resolveFields(sql, teamId, entries, errors), errors, exclude);
}

/** Positions of every location of a valid body; unknown POI ids are 422 at `<location field>.poi_id`,
 *  with the other locations too far from a road in the same 422. */
export async function resolveAll(
  sql: Sql,
  teamId: string,
  body: OptimizeBody,
  exclude = 0,
): Promise<{ vehicles: ResolvedVehicle[]; stops: ResolvedLocation[]; shipments: ResolvedShipment[] }> {
  const errors: FieldErrors = {};
  const entries = locationFields(body.vehicles, body.stops, body.shipments, (v) => v as LocationInput);
  const each = await resolveFields(sql, teamId, entries, errors);
  if (Object.keys(errors).length) throw await rejection(body.profile, entries, each, errors, exclude);
  const resolved = each as ResolvedLocation[];
  let k = 0;
  const vehicles = body.vehicles.map((v) => ({ start: resolved[k++], end: v.end ? resolved[k++] : null }));
  const stops = resolved.slice(k, k + body.stops.length);
  k += body.stops.length;
  const shipments = (body.shipments ?? []).map(() => ({ pickup: resolved[k++], delivery: resolved[k++] }));
  return { vehicles, stops, shipments };
}

/** The engine's matrix errors as the request's: a point far from any road is a 422 at its fields. */
export async function roadMatrix(profile: ProfileName, ix: LocationIndex, compute = () => matrix({ profile, points: ix.points })): Promise<MatrixResult> {
  try {
    return await compute();
  } catch (err) {
    if (err instanceof WaypointTooFarError) {
      const message = farMessage(profile);
      throw unprocessable(Object.fromEntries(err.indexes.flatMap((i) => ix.fields[i]).map((f) => [f, [message]])));
    }
    throw engineHttpError(err, profile);
  }
}

async function solve(problem: VrpProblem, profile: ProfileName): Promise<VrpSolution> {
  try {
    return await solvePlan(problem);
  } catch (err) {
    throw engineHttpError(err, profile);
  }
}

/** [lon, lat] along the roads from the vehicle's start through its stops to its end (if it has one). */
export async function geometry(profile: ProfileName, waypoints: LatLon[], exclude = 0): Promise<Array<[number, number]>> {
  try {
    // Snapped as the matrix snapped them: a stop on a piece cut off from the main network (behind a
    // barrier, on a private driveway) was joined there through the main network's nearest road.
    return pairsOf((await route({ profile, waypoints, mainNetwork: true, ...(exclude ? { exclude } : {}) })).geometry);
  } catch (err) {
    // The matrix already joined these points: a failure now is the engine's, not the request's.
    if (err instanceof NoRouteError || err instanceof WaypointTooFarError) throw new HttpError(502, 'The routing service failed to answer. Retry shortly.');
    throw engineHttpError(err, profile);
  }
}

const optimizeDoc: Operation = {
  operationId: 'optimizeDeliveries',
  tag: 'Routing',
  summary: 'Optimize deliveries for up to 3 vehicles',
  description:
    'Needs `plan-routes`, and `read-pois` when a location is a POI. Vehicle routing with time windows, capacities and skills on the road network. Every location too far from a road or unreachable, and every unknown POI id, is reported in one 422.',
  body: optimizeBodySchema,
  responses: { 200: { description: 'The routes and the stops no vehicle can serve.', schema: optimizeResponseSchema } },
  errors: [422, 502, 503],
};

export function optimizeEndpoint(sql: Sql): Route[] {
  return [
    {
      method: 'POST',
      path: '/v1/routes/optimize',
      openapi: optimizeDoc,
      permission: 'plan-routes',
      handler: async (ctx) => {
        const raw = await ctx.json();
        // Authorization before validation: whether POIs are involved is visible on the raw body.
        if (bodyNamesPoi(raw)) ctx.require('read-pois');
        const errors: FieldErrors = Object.create(null);
        const body = parseInto(optimizeBodySchema, raw, errors);
        const exclude = excludeBits(body?.profile ?? rawProfile(raw.profile), raw.exclude, errors);
        if (!body || Object.keys(errors).length) throw await invalidBodyError(sql, ctx.teamId, raw, errors, exclude);
        const profile = body.profile;
        const frame = timeFrame(body, Object.keys(raw), Math.floor(Date.now() / 1000));
        const { vehicles, stops } = await resolveAll(sql, ctx.teamId, body, exclude);

        const ix = indexLocations(vehicles, stops);
        const m = await roadMatrix(profile, ix, () => matrix({ profile, points: ix.points, ...(exclude ? { exclude } : {}) }));
        const travel = travelOf(m);
        const unreachable = unreachableLocations(ix, travel.duration, profile);
        if (Object.keys(unreachable).length) throw unprocessable(unreachable);

        const problem = toProblem(body, ix, travel, frame);
        const solution = await solve(problem, profile);
        const geometries = await Promise.all(
          solution.routes.map((r) => {
            const v = problem.vehicles[r.vehicle];
            const at = [v.start, ...r.jobs.map((j) => problem.jobs[j].location), ...(v.end == null ? [] : [v.end])];
            return geometry(
              profile,
              at.map((p) => ix.points[p]),
              exclude,
            );
          }),
        );
        const vehicleIds = body.vehicles.map((v, i) => v.id ?? defaultVehicleId(i));
        return { status: 200, body: { data: optimizeJson({ body, vehicleIds, vehicles, stops, problem, frame }, solution, geometries) } };
      },
    },
  ];
}
