// POST /v1/isochrones: what a location reaches within a time or a road distance, as GeoJSON polygons (an
// extension beside the contract; docs/reachability.md).
import { z } from 'zod';
import type { Sql } from '../../db/client.js';
import { unprocessable, type FieldErrors } from '../../http/errors.js';
import type { Operation } from '../../http/openapi.js';
import type { Route } from '../../http/router.js';
import { arrayFirst, parseInto } from '../../http/validate.js';
import { PROFILES } from '../../map/graphs/profiles.js';
import { isochrone, WaypointTooFarError, type Circle } from '../../engine/engine.js';
import { featureCollection, isochroneFeatures } from './features.js';
import { addFarFromRoad, engineHttpError, rawProfile } from '../engine-errors.js';
import { locationSchema, namesPoi, locationsOf, resolveEach, type ResolvedLocation } from '../locations.js';
import { circlesAround, MAX_AVOIDED_POIS } from '../routes/avoid-selection.js';
import { poiSelectionFilter } from '../routes/poi-selection.js';
import { DEFAULT_AVOID_RADIUS_M, routeAvoidSchema, VEHICLE_DESCRIPTION, vehicleQuery, vehicleSchema } from '../routes/routes.js';
import { enginePolygons, locationsInside, selectsPois } from '../routes/avoid-polygons.js';

export const MAX_ISOCHRONE_LOCATIONS = 5;
export const MAX_RANGE_S = 3600;
export const MAX_RANGE_M = 100_000;
const MAX_VALUES = 10;

const rangeShape = {
  range_type: z.enum(['time', 'distance'], { error: 'must be time or distance' }).default('time'),
  range: arrayFirst(`must be an array of 1 to ${MAX_VALUES} numbers`).pipe(
    z
      .array(z.number({ error: 'must be a number' }).positive('must be greater than 0'))
      .min(1, 'must have at least 1 value')
      .max(10, `may have at most ${MAX_VALUES} values`),
  ),
  interval: z.number({ error: 'must be a number' }).positive('must be greater than 0').optional(),
};
const rangeSchema = z.object(rangeShape);

const bodySchema = z
  .strictObject({
    profile: z.enum(PROFILES, { error: `must be one of ${PROFILES.join(', ')}` }).default('driving-car'),
    ...rangeShape,
    locations: arrayFirst(`must be an array of 1 to ${MAX_ISOCHRONE_LOCATIONS} locations`).pipe(
      z.array(locationSchema).min(1, 'must have at least 1 location').max(MAX_ISOCHRONE_LOCATIONS, `may have at most ${MAX_ISOCHRONE_LOCATIONS} locations`),
    ),
    avoid: routeAvoidSchema
      .optional()
      .describe(
        "As in POST /v1/routes: circles around the team's POIs, selected around the locations, and `polygons` kept out of (`{polygons}` alone selects no POI).",
      ),
    vehicle: vehicleSchema.optional().describe(VEHICLE_DESCRIPTION),
  })
  .meta({
    id: 'IsochroneRequest',
    examples: [{ profile: 'driving-car', locations: [{ latitude: 47.1393, longitude: 9.5215 }], range_type: 'time', range: [600, 1200] }],
  });

const position = z.tuple([z.number(), z.number()]);
const featureSchema = z.object({
  type: z.literal('Feature'),
  bbox: z.tuple([z.number(), z.number(), z.number(), z.number()]),
  properties: z.object({
    group_index: z.int().describe('Index of the location in `locations`.'),
    poi_id: z.string().nullable(),
    value: z.number().describe('The range value this shape holds: seconds or meters.'),
    range_type: z.enum(['time', 'distance']),
    location: z.object({ latitude: z.number(), longitude: z.number() }).describe('The location as sent (a POI: its position).'),
    center: z.object({ latitude: z.number(), longitude: z.number() }).describe('Where the location was snapped to the road: the searches start there.'),
    area: z.number().describe('Square meters.'),
  }),
  geometry: z.union([
    z.object({ type: z.literal('Polygon'), coordinates: z.array(z.array(position)) }),
    z.object({ type: z.literal('MultiPolygon'), coordinates: z.array(z.array(z.array(position))) }),
  ]),
});
const isochroneResponse = z
  .object({
    data: z.object({
      type: z.literal('FeatureCollection'),
      bbox: z.tuple([z.number(), z.number(), z.number(), z.number()]),
      features: z.array(featureSchema),
    }),
  })
  .meta({ id: 'IsochroneResponse' });

const isochroneDoc: Operation = {
  operationId: 'computeIsochrones',
  tag: 'Reachability',
  summary: 'Areas reachable within a time or distance',
  description:
    'Extension (not in the service contract). Needs `plan-routes`, and `read-pois` when a location is a POI or `avoid` is sent. ' +
    'One feature per location and range value (cumulative bands, smallest first): a Polygon, or a MultiPolygon for islands, with holes ' +
    'where the roads do not reach. Every road point reachable within the value lies inside; no point of the shape lies farther than ' +
    'about two grid cells (50 m or more, the search extent / 600) from a reachable road. Ranges: up to 3,600 s or 100,000 m, at ' +
    'most 10 values (or one value and an `interval`), up to 5 locations.',
  body: bodySchema,
  bodyExample: { locations: [{ latitude: 47.1393, longitude: 9.5215 }], range: [600] },
  responses: { 200: { description: 'A GeoJSON FeatureCollection under `data`.', schema: isochroneResponse } },
  errors: [422, 502, 503],
};

/** The range values asked for, each checked against the range type's limit; errors at `range.<i>` / `interval`. */
function rangeValues(body: z.infer<typeof rangeSchema>, errors: FieldErrors): number[] {
  const max = body.range_type === 'time' ? MAX_RANGE_S : MAX_RANGE_M;
  const unit = body.range_type === 'time' ? 'seconds' : 'meters';
  body.range.forEach((v, i) => {
    if (v > max) (errors[`range.${i}`] ??= []).push(`must be at most ${max} ${unit} for range_type ${body.range_type}`);
    else if (i > 0 && v <= body.range[i - 1]) (errors[`range.${i}`] ??= []).push('must be greater than the value before it');
  });
  if (body.interval === undefined) return body.range;
  if (body.range.length !== 1) {
    errors.interval = ['is only allowed with a single range value'];
    return [];
  }
  const count = Math.ceil(body.range[0] / body.interval - 1e-9);
  if (count > MAX_VALUES) {
    errors.interval = [`makes ${count} bands; at most ${MAX_VALUES} (use a larger interval)`];
    return [];
  }
  return Array.from({ length: count }, (_, k) => Math.min(body.range[0], (k + 1) * body.interval!));
}

export function isochronesEndpoint(sql: Sql): Route[] {
  return [
    {
      method: 'POST',
      path: '/v1/isochrones',
      openapi: isochroneDoc,
      permission: 'plan-routes',
      handler: async (ctx) => {
        const raw = await ctx.json();
        if (selectsPois(raw.avoid) || namesPoi(raw.locations)) ctx.require('read-pois');
        const errors: FieldErrors = Object.create(null);
        const parsed = parseInto(bodySchema, raw, errors);
        const located = await resolveEach(sql, ctx.teamId, locationsOf(parsed?.locations, raw.locations, MAX_ISOCHRONE_LOCATIONS), 'locations', errors);
        // The ranges are checked on their own too, so that one 422 names them beside other problems.
        const ranges = parsed ?? parseInto(rangeSchema, { range_type: raw.range_type, range: raw.range, interval: raw.interval }, Object.create(null));
        const values = ranges ? rangeValues(ranges, errors) : [];
        const polygons = enginePolygons(raw.avoid);
        locationsInside(polygons, located, 'locations', errors);
        const rejection = async () => {
          if (!Object.hasOwn(errors, 'locations')) {
            await addFarFromRoad(
              parsed?.profile ?? rawProfile(raw.profile),
              located.map((at, i) => ({ field: `locations.${i}`, at })),
              errors,
            );
          }
          return unprocessable(errors);
        };
        if (!parsed) throw await rejection();
        const profile = parsed.profile;
        if (parsed.vehicle && profile !== 'driving-hgv') errors.vehicle = [`is only for the driving-hgv profile, not ${profile}`];
        const { radius: _radius, polygons: _polygons, ...avoidFilters } = parsed.avoid ?? {};
        const filter = selectsPois(parsed.avoid) && (await poiSelectionFilter(sql, ctx.teamId, avoidFilters, 'avoid', MAX_AVOIDED_POIS, errors));
        if (Object.keys(errors).length) throw await rejection();
        const locations = located as ResolvedLocation[];
        let circles: Circle[] | undefined;
        if (filter) circles = (await circlesAround(sql, ctx.teamId, filter, locations, parsed.avoid?.radius ?? DEFAULT_AVOID_RADIUS_M)).circles;
        const found = await Promise.all(
          locations.map((l, i) =>
            isochrone({
              profile,
              source: { lat: l.latitude, lon: l.longitude },
              limits: values,
              byDistance: parsed.range_type === 'distance',
              avoid: circles?.length || polygons.length ? { circles: circles ?? [], ...(polygons.length ? { polygons } : {}) } : undefined,
              vehicle: vehicleQuery(parsed.vehicle),
            }).catch((err: unknown) => {
              // Each location is searched on its own: one too far from a road has every such one named.
              if (err instanceof WaypointTooFarError) throw new WaypointTooFarError([i]);
              throw err;
            }),
          ),
        ).catch(async (err: unknown) => {
          if (err instanceof WaypointTooFarError) {
            await addFarFromRoad(
              profile,
              locations.map((at, i) => ({ field: `locations.${i}`, at })),
              errors,
            );
            if (Object.keys(errors).length) throw unprocessable(errors);
          }
          throw engineHttpError(err, profile, 'locations');
        });
        const features = found.flatMap((f, i) => isochroneFeatures(f, values, i, locations[i], parsed.range_type));
        return { status: 200, body: { data: featureCollection(features) } };
      },
    },
  ];
}
