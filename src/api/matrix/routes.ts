// POST /v1/matrix: durations and distances between up to 100 sources and 100 destinations (an extension
// beside the contract; docs/reachability.md).
import { z } from 'zod';
import type { Sql } from '../../db/client.js';
import { unprocessable, type FieldErrors } from '../../http/errors.js';
import type { Operation } from '../../http/openapi.js';
import { RawJson, type Route } from '../../http/router.js';
import { arrayFirst, parseInto } from '../../http/validate.js';
import { PROFILES } from '../../map/graphs/profiles.js';
import { matrixJson, WaypointTooFarError, type Circle } from '../../engine/engine.js';
import { addFarFromRoad, engineHttpError, rawProfile } from '../engine-errors.js';
import { locationSchema, namesPoi, locationsOf, resolveEach, type ResolvedLocation } from '../locations.js';
import { circlesAround, MAX_AVOIDED_POIS } from '../routes/avoid-selection.js';
import { excludeBits, excludeSchema } from '../routes/exclude.js';
import { enginePolygons, locationsInside, selectsPois } from '../routes/avoid-polygons.js';
import { poiSelectionFilter } from '../routes/poi-selection.js';
import { routeAvoidSchema, DEFAULT_AVOID_RADIUS_M, VEHICLE_DESCRIPTION, vehicleQuery, vehicleSchema } from '../routes/routes.js';
import { snappedPoint, snappedPointSchema } from './snapped.js';

export const MAX_MATRIX_LOCATIONS = 100;

const locations = (what: string) =>
  arrayFirst(`must be an array of 1 to ${MAX_MATRIX_LOCATIONS} locations`)
    .pipe(
      z
        .array(locationSchema)
        .min(1, `must have at least 1 location`)
        .max(MAX_MATRIX_LOCATIONS, `may have at most ${MAX_MATRIX_LOCATIONS} locations; a larger matrix takes several calls (rows of it)`),
    )
    .describe(what);

const bodySchema = z
  .strictObject({
    profile: z.enum(PROFILES, { error: `must be one of ${PROFILES.join(', ')}` }).default('driving-car'),
    sources: locations('The rows: 1 to 100 locations.'),
    destinations: locations('The columns: 1 to 100 locations; without it, the sources (all to all).').optional(),
    annotations: z
      .array(z.enum(['duration', 'distance'], { error: 'must be duration or distance' }), { error: 'must be an array of duration and/or distance' })
      .min(1, 'must name duration, distance or both')
      .refine((a) => new Set(a).size === a.length, 'must not repeat a value')
      .default(['duration', 'distance'])
      .describe('Which matrices to answer (default both).'),
    avoid: routeAvoidSchema.optional().describe("As in POST /v1/routes: circles around the team's POIs, selected around all the locations, and `polygons`."),
    vehicle: vehicleSchema.optional().describe(VEHICLE_DESCRIPTION),
    exclude: excludeSchema,
  })
  .meta({
    id: 'MatrixRequest',
    examples: [
      {
        profile: 'driving-car',
        sources: [
          { latitude: 47.141, longitude: 9.5209 },
          { latitude: 47.166, longitude: 9.51 },
        ],
        annotations: ['duration', 'distance'],
      },
    ],
  });

const cells = z.array(z.array(z.number().nullable()));
const matrixResponse = z
  .object({
    data: z.object({
      profile: z.enum(PROFILES),
      durations: cells.optional().describe('Seconds, [source][destination]; null where no route exists.'),
      distances: cells.optional().describe('Meters of the fastest route; null where no route exists.'),
      sources: z.array(snappedPointSchema),
      destinations: z.array(snappedPointSchema),
      avoided: z.object({ radius: z.int(), count: z.int(), poi_ids: z.array(z.string()) }).nullable(),
    }),
  })
  .meta({ id: 'MatrixResponse' });

const matrixDoc: Operation = {
  operationId: 'computeMatrix',
  tag: 'Reachability',
  summary: 'Travel times and distances between many points',
  description:
    'Extension (not in the service contract). Needs `plan-routes`, and `read-pois` when a location is a POI or `avoid` is sent. ' +
    'Every cell equals the duration and distance of `POST /v1/routes` between the two snapped points (except where the fastest path turns back mid-road, which a route does not: docs/reachability.md; snapped to the main road ' +
    'network within 500 m, as for optimization). At most 100 sources and 100 destinations. Every bad location, unknown POI and ' +
    'location too far from a road is named in one 422.',
  body: bodySchema,
  bodyExample: {
    sources: [
      { latitude: 47.141, longitude: 9.5209 },
      { latitude: 47.166, longitude: 9.51 },
    ],
  },
  responses: { 200: { description: 'The matrices.', schema: matrixResponse } },
  errors: [422, 502, 503],
};

export function matrixEndpoint(sql: Sql): Route[] {
  return [
    {
      method: 'POST',
      path: '/v1/matrix',
      openapi: matrixDoc,
      permission: 'plan-routes',
      handler: async (ctx) => {
        const raw = await ctx.json();
        if (selectsPois(raw.avoid) || namesPoi(raw.sources) || namesPoi(raw.destinations)) ctx.require('read-pois');
        const errors: FieldErrors = Object.create(null);
        const parsed = parseInto(bodySchema, raw, errors);
        const polygons = enginePolygons(raw.avoid);
        const exclude = excludeBits(parsed?.profile ?? rawProfile(raw.profile), raw.exclude, errors);
        const resolve = (field: 'sources' | 'destinations') =>
          resolveEach(sql, ctx.teamId, locationsOf(parsed?.[field], raw[field], MAX_MATRIX_LOCATIONS), field, errors);
        const sources = await resolve('sources');
        const destinations = raw.destinations === undefined ? null : await resolve('destinations');
        locationsInside(polygons, sources, 'sources', errors);
        if (destinations) locationsInside(polygons, destinations, 'destinations', errors);
        const rejection = async () => {
          const known = [
            ...(Object.hasOwn(errors, 'sources') ? [] : sources.map((at, i) => ({ field: `sources.${i}`, at }))),
            ...(!destinations || Object.hasOwn(errors, 'destinations') ? [] : destinations.map((at, i) => ({ field: `destinations.${i}`, at }))),
          ];
          await addFarFromRoad(parsed?.profile ?? rawProfile(raw.profile), known, errors, { exclude });
          return unprocessable(errors);
        };
        if (!parsed) throw await rejection();
        const profile = parsed.profile;
        if (parsed.vehicle && profile !== 'driving-hgv') errors.vehicle = [`is only for the driving-hgv profile, not ${profile}`];
        const { radius: _radius, polygons: _polygons, ...avoidFilters } = parsed.avoid ?? {};
        const filter = selectsPois(parsed.avoid) && (await poiSelectionFilter(sql, ctx.teamId, avoidFilters, 'avoid', MAX_AVOIDED_POIS, errors));
        if (Object.keys(errors).length) throw await rejection();
        const rows = sources as ResolvedLocation[];
        const columns = destinations as ResolvedLocation[] | null;

        let circles: Circle[] | undefined;
        let avoided = null;
        if (filter) {
          const radius = parsed.avoid?.radius ?? DEFAULT_AVOID_RADIUS_M;
          // No route places the circles here: the skip rule of routes goes by the locations as sent.
          const around = await circlesAround(sql, ctx.teamId, filter, [...rows, ...(columns ?? [])], radius);
          circles = around.circles;
          avoided = { radius, count: around.avoided.length, poi_ids: around.avoided.map((p) => p.id) };
        }
        const at = (l: ResolvedLocation) => ({ lat: l.latitude, lon: l.longitude });
        const want = new Set(parsed.annotations);
        const m = await matrixJson({
          profile,
          points: rows.map(at),
          targets: columns?.map(at),
          avoid: circles?.length || polygons.length ? { circles: circles ?? [], ...(polygons.length ? { polygons } : {}) } : undefined,
          vehicle: vehicleQuery(parsed.vehicle),
          ...(exclude ? { exclude } : {}),
          annotations: { durations: want.has('duration'), distances: want.has('distance') },
        }).catch((err: unknown) => {
          if (err instanceof WaypointTooFarError) {
            const message = `is more than 500 m from a road usable by the ${profile} profile`;
            const field = (i: number) => (i < rows.length ? `sources.${i}` : `destinations.${i - rows.length}`);
            throw unprocessable(Object.fromEntries(err.indexes.map((i) => [field(i), [message]])));
          }
          throw engineHttpError(err, profile, 'sources');
        });
        const n = rows.length;
        const head = JSON.stringify({ profile });
        const tail = JSON.stringify({
          sources: rows.map((l, i) => snappedPoint(l, m.snapped[i], m.offsets[i], m.names?.[i])),
          destinations: (columns ?? rows).map((l, j) =>
            columns ? snappedPoint(l, m.snappedTargets![j], m.offsets[n + j], m.names?.[n + j]) : snappedPoint(l, m.snapped[j], m.offsets[j], m.names?.[j]),
          ),
          avoided,
        });
        // The cells are the compute threads' text, sent as it is (rows in pieces when threads shared them).
        const parts: Array<string | Uint8Array> = [`{"data":${head.slice(0, -1)}`];
        const cells = (name: string, pieces: Uint8Array[]) => {
          parts.push(`,"${name}":[`);
          // A thread may have had no rows (more threads than rows to share): its piece is empty.
          pieces.filter((p) => p.length).forEach((p, k) => parts.push(...(k ? [',', p] : [p])));
          parts.push(']');
        };
        if (want.has('duration')) cells('durations', m.durations);
        if (want.has('distance')) cells('distances', m.distances);
        parts.push(`,${tail.slice(1)}}`);
        const body = new RawJson(...parts);
        body.onSent = m.release;
        return { status: 200, body };
      },
    },
  ];
}
