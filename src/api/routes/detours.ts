// POST /v1/routes/detours: the team's POIs ranked by the time they add to a route when visited between two
// consecutive waypoints (an extension beside the contract; docs/reachability.md).
import { z } from 'zod';
import type { Sql } from '../../db/client.js';
import { unprocessable, type FieldErrors } from '../../http/errors.js';
import type { Operation } from '../../http/openapi.js';
import type { Route } from '../../http/router.js';
import { arrayFirst, parseInto } from '../../http/validate.js';
import { greatCircleMeters } from '../../lib/geo/sphere.js';
import { boxesAround } from '../../lib/geo/search-box.js';
import { PROFILES } from '../../map/graphs/profiles.js';
import { farFromRoad, matrix, route, topSpeed, travelTimes, type ProfileName } from '../../engine/engine.js';
import type { VehicleQuery } from '../../engine/route-core.js';
import type { LatLon } from '../../lib/lat-lon.js';
import { SNAP_LIMIT_M } from '../../engine/phantom.js';
import { addFarFromRoad, engineHttpError, rawProfile } from '../engine-errors.js';
import { locationSchema, locationsOf, resolveEach, type ResolvedLocation } from '../locations.js';
import { POI_SELECTION_ERROR, poiSelectionShape } from '../pois/selection-schema.js';
import { poiPositionsInBoxes, type PoiPosition } from '../pois/positions.js';
import { poiSelectionFilter } from './poi-selection.js';
import { VEHICLE_DESCRIPTION, vehicleQuery, vehicleSchema } from './routes.js';
import { avoidPolygonsSchema, enginePolygons, locationsInside } from './avoid-polygons.js';
import { polygonAt } from '../../engine/avoid.js';
import type { Avoid } from '../../engine/route-core.js';

export const MAX_DETOUR_WAYPOINTS = 25;
export const MAX_DETOUR_S = 3600;
/** POIs measured at most: beyond it the selection must be narrowed. */
export const MAX_DETOUR_CANDIDATES = 50_000;
/** Up to this many POIs, two matrices over the hierarchy measure them (a search per POI); more are
 *  measured by two bounded searches per leg, forward from its start and backward from its end. */
const MATRIX_CANDIDATES = 300;

type Leg = { duration: number; distance: number } | null;
/** Per leg i, per POI: from waypoint i to the POI (`to`), and from the POI to waypoint i + 1 (`from`). */
interface LegTimes {
  to: Leg[][];
  from: Leg[][];
}

async function byMatrices(profile: ProfileName, ws: LatLon[], pois: LatLon[], vehicle: VehicleQuery | undefined, avoid: Avoid | undefined): Promise<LegTimes> {
  const [to, from] = await Promise.all([
    matrix({ profile, points: ws.slice(0, -1), targets: pois, vehicle, avoid }),
    matrix({ profile, points: pois, targets: ws.slice(1), vehicle, avoid }),
  ]);
  const cell = (d: number | null, m: number | null): Leg => (d === null ? null : { duration: d, distance: m! });
  return {
    to: to.durations.map((row, i) => row.map((d, p) => cell(d, to.distances[i][p]))),
    from: ws.slice(1).map((_, i) => pois.map((_, p) => cell(from.durations[p][i], from.distances[p][i]))),
  };
}

async function bySearches(
  profile: ProfileName,
  ws: LatLon[],
  pois: LatLon[],
  bounds: number[],
  vehicle: VehicleQuery | undefined,
  avoid: Avoid | undefined,
): Promise<LegTimes> {
  const legs = bounds.map((seconds, i) =>
    Promise.all([
      travelTimes({ profile, source: ws[i], targets: pois, maxDuration: seconds, vehicle, avoid }),
      travelTimes({ profile, source: ws[i + 1], targets: pois, maxDuration: seconds, vehicle, avoid, toSource: true }),
    ]),
  );
  const done = await Promise.all(legs);
  return { to: done.map((d) => d[0]), from: done.map((d) => d[1]) };
}

const bodySchema = z
  .strictObject({
    profile: z.enum(PROFILES, { error: `must be one of ${PROFILES.join(', ')}` }).default('driving-car'),
    waypoints: arrayFirst(`must be an array of 2 to ${MAX_DETOUR_WAYPOINTS} locations`).pipe(
      z.array(locationSchema).min(2, 'must have at least 2 locations').max(MAX_DETOUR_WAYPOINTS, `may have at most ${MAX_DETOUR_WAYPOINTS} locations`),
    ),
    pois: z
      .strictObject(poiSelectionShape, { error: POI_SELECTION_ERROR })
      .default({})
      .describe("The team's POIs to rank (the filters of the POI list); all of them by default."),
    max_detour: z
      .number({ error: `must be a number of seconds from 0 to ${MAX_DETOUR_S}` })
      .min(0, `must be a number of seconds from 0 to ${MAX_DETOUR_S}`)
      .max(MAX_DETOUR_S, `must be a number of seconds from 0 to ${MAX_DETOUR_S}`)
      .default(900),
    limit: z.int({ error: 'must be a whole number from 1 to 100' }).min(1, 'must be at least 1').max(100, 'must be at most 100').default(10),
    vehicle: vehicleSchema.optional().describe(VEHICLE_DESCRIPTION),
    avoid: z
      .strictObject({ polygons: avoidPolygonsSchema }, { error: 'must be an object {polygons}' })
      .optional()
      .describe(
        'Extension: areas the route and every way to and from a POI keep out of, as `avoid.polygons` of POST /v1/routes; a POI inside one is left out.',
      ),
  })
  .meta({
    id: 'DetourRequest',
    examples: [
      {
        waypoints: [
          { latitude: 47.0666, longitude: 9.503 },
          { latitude: 47.238, longitude: 9.526 },
        ],
        pois: { category_name: 'Fuel' },
        max_detour: 600,
      },
    ],
  });

const leg = z.object({ duration: z.number(), distance: z.number() });
const detourResponse = z
  .object({
    data: z.object({
      route: z.object({ duration: z.number(), distance: z.number(), legs: z.array(leg.extend({ from: z.int(), to: z.int() })) }),
      pois: z.array(
        z.object({
          poi_id: z.string(),
          latitude: z.number(),
          longitude: z.number(),
          leg: z.int().describe('The POI is visited between waypoint `leg` and `leg + 1`.'),
          detour_duration: z.number().describe('Seconds added to the route.'),
          detour_distance: z.number().describe('Meters added to the route (may be negative: the faster way through the POI can be shorter).'),
          legs: z.tuple([leg, leg]).describe('From the waypoint to the POI, and from the POI to the next waypoint.'),
        }),
      ),
    }),
  })
  .meta({ id: 'DetourResponse' });

const detourDoc: Operation = {
  operationId: 'rankDetours',
  tag: 'Reachability',
  summary: 'POIs along a route, ranked by the time they add',
  description:
    'Extension (not in the service contract). Needs `plan-routes` and `read-pois`. Each selected POI is placed in the leg where it ' +
    'adds least; POIs adding more than `max_detour` seconds, and POIs more than 500 m from a road, are left out. At most ' +
    `${MAX_DETOUR_CANDIDATES.toLocaleString('en-US')} POIs may lie within reach of the route (the straight-line bound of the detour): narrow the filters otherwise.`,
  body: bodySchema,
  bodyExample: {
    waypoints: [
      { latitude: 47.0666, longitude: 9.503 },
      { latitude: 47.238, longitude: 9.526 },
    ],
    pois: {},
  },
  responses: { 200: { description: 'The route and the POIs, least detour first.', schema: detourResponse } },
  errors: [422, 502, 503],
};

const tenths = (x: number) => Math.round(x * 10) / 10;

/** The POIs that a straight line allows within the detour: a→p→b no longer than the profile's fastest
 *  way covers in the leg's time plus the detour (each end up to the snapping limit off its road). */
async function candidates(
  sql: Sql,
  teamId: string,
  filter: Parameters<typeof poiPositionsInBoxes>[2],
  ws: ResolvedLocation[],
  legSeconds: number[],
  maxDetour: number,
  speed: number,
) {
  const boxes = ws.slice(0, -1).flatMap((a, i) => {
    const b = ws[i + 1];
    const reach = speed * (legSeconds[i] + maxDetour) + 4 * SNAP_LIMIT_M;
    const mid = { lat: (a.latitude + b.latitude) / 2, lon: (a.longitude + b.longitude) / 2 };
    // The ellipse a→p→b ≤ reach lies within reach / 2 of the leg's middle.
    return boxesAround(mid.lat, mid.lon, reach / 2);
  });
  const rows = await poiPositionsInBoxes(sql, teamId, filter, boxes);
  return rows.filter((p) =>
    ws.slice(0, -1).some((a, i) => {
      const b = ws[i + 1];
      const reach = speed * (legSeconds[i] + maxDetour) + 4 * SNAP_LIMIT_M;
      return greatCircleMeters(a.latitude, a.longitude, p.latitude, p.longitude) + greatCircleMeters(p.latitude, p.longitude, b.latitude, b.longitude) <= reach;
    }),
  );
}

export function detoursEndpoint(sql: Sql): Route[] {
  return [
    {
      method: 'POST',
      path: '/v1/routes/detours',
      openapi: detourDoc,
      permission: 'plan-routes',
      handler: async (ctx) => {
        ctx.require('read-pois');
        const raw = await ctx.json();
        const errors: FieldErrors = Object.create(null);
        const parsed = parseInto(bodySchema, raw, errors);
        const located = await resolveEach(sql, ctx.teamId, locationsOf(parsed?.waypoints, raw.waypoints, MAX_DETOUR_WAYPOINTS), 'waypoints', errors);
        const filter = parsed && (await poiSelectionFilter(sql, ctx.teamId, parsed.pois, 'pois', 500, errors));
        const profile = parsed?.profile ?? rawProfile(raw.profile);
        const polygons = enginePolygons(raw.avoid);
        locationsInside(polygons, located, 'waypoints', errors);
        if (parsed?.vehicle && parsed.profile !== 'driving-hgv') errors.vehicle = [`is only for the driving-hgv profile, not ${parsed.profile}`];
        // With other problems, every waypoint too far from a road is named beside them (alone, the route says so).
        if (Object.keys(errors).length && !Object.hasOwn(errors, 'waypoints'))
          await addFarFromRoad(
            profile,
            located.map((at, i) => ({ field: `waypoints.${i}`, at })),
            errors,
          );
        if (!parsed || !filter || Object.keys(errors).length) throw unprocessable(errors);
        const ws = located as ResolvedLocation[];
        const vehicle = vehicleQuery(parsed.vehicle);
        const avoid: Avoid | undefined = polygons.length ? { circles: [], polygons } : undefined;
        const at = (l: { latitude: number; longitude: number }) => ({ lat: l.latitude, lon: l.longitude });
        const fail = (err: unknown): never => {
          throw engineHttpError(err, parsed.profile);
        };
        const base = await route({ profile: parsed.profile, waypoints: ws.map(at), vehicle, avoid, mainNetwork: true }).catch((err: unknown) => {
          throw engineHttpError(err, parsed.profile, 'waypoints', polygons.length > 0);
        });
        let pois: PoiPosition[] = await candidates(
          sql,
          ctx.teamId,
          filter,
          ws,
          base.legs.map((l) => l.duration),
          parsed.max_detour,
          topSpeed(parsed.profile),
        );
        // A POI inside an avoided polygon cannot be stopped at.
        if (polygons.length) pois = pois.filter((p) => polygonAt(p.longitude, p.latitude, polygons) < 0);
        if (pois.length > MAX_DETOUR_CANDIDATES) {
          throw unprocessable({
            pois: [`selects ${pois.length} POIs within reach of the route; at most ${MAX_DETOUR_CANDIDATES}. Narrow the filters or max_detour.`],
          });
        }
        // A matrix refuses a point too far from a road: those POIs are left out first. The searches measure
        // them as unreachable on their own.
        if (pois.length && pois.length <= MATRIX_CANDIDATES) {
          const far = new Set(await farFromRoad(parsed.profile, pois.map(at)).catch(fail));
          pois = pois.filter((_, i) => !far.has(i));
        }
        const ranked: Array<{ poi: PoiPosition; leg: number; duration: number; distance: number; legs: [number, number, number, number] }> = [];
        if (pois.length) {
          const legs = await (pois.length <= MATRIX_CANDIDATES
            ? byMatrices(parsed.profile, ws.map(at), pois.map(at), vehicle, avoid)
            : bySearches(
                parsed.profile,
                ws.map(at),
                pois.map(at),
                base.legs.map((l) => l.duration + parsed.max_detour),
                vehicle,
                avoid,
              )
          ).catch(fail);
          pois.forEach((poi, p) => {
            let best: (typeof ranked)[number] | null = null;
            base.legs.forEach((l, i) => {
              const to = legs.to[i][p],
                from = legs.from[i][p];
              if (!to || !from) return;
              const added = to.duration + from.duration - l.duration;
              if (!best || added < best.duration)
                best = {
                  poi,
                  leg: i,
                  duration: added,
                  distance: to.distance + from.distance - l.distance,
                  legs: [to.duration, to.distance, from.duration, from.distance],
                };
            });
            if (best !== null && (best as (typeof ranked)[number]).duration <= parsed.max_detour + 1e-9) ranked.push(best);
          });
        }
        ranked.sort((a, b) => a.duration - b.duration || (a.poi.id < b.poi.id ? -1 : 1));
        const data = {
          route: {
            duration: tenths(base.legs.reduce((s, l) => s + tenths(l.duration), 0)),
            distance: tenths(base.legs.reduce((s, l) => s + tenths(l.distance), 0)),
            legs: base.legs.map((l, i) => ({ from: i, to: i + 1, duration: tenths(l.duration), distance: tenths(l.distance) })),
          },
          pois: ranked.slice(0, parsed.limit).map((r) => ({
            poi_id: r.poi.id,
            latitude: r.poi.latitude,
            longitude: r.poi.longitude,
            leg: r.leg,
            // Never below zero: the route is the fastest, a rounding may not make a POI look like a shortcut.
            detour_duration: Math.max(0, tenths(r.duration)),
            detour_distance: tenths(r.distance),
            legs: [
              { duration: tenths(r.legs[0]), distance: tenths(r.legs[1]) },
              { duration: tenths(r.legs[2]), distance: tenths(r.legs[3]) },
            ],
          })),
        };
        return { status: 200, body: { data } };
      },
    },
  ];
}
