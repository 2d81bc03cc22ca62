// POST /v1/routes: the fastest route through 2–50 waypoints, optionally keeping out of circles around
// selected POIs (service-spec.md "POST /v1/routes").
import { z } from 'zod';
import { POI_SELECTION_ERROR, poiSelectionShape } from '../pois/selection-schema.js';
import type { Sql } from '../../db/client.js';
import { invalid, unprocessable, type FieldErrors } from '../../http/errors.js';
import type { Operation } from '../../http/openapi.js';
import { RawJson, type Route } from '../../http/router.js';
import { arrayFirst, parseInto } from '../../http/validate.js';
import { defaultVehicle, PROFILES } from '../../map/graphs/profiles.js';
import { straightLineMeters, type Position } from '../../engine/avoid-area.js';
import { MAX_AVOIDED_POIS, selectAvoidance } from './avoid-selection.js';
import { routeJson as findRoute, WaypointTooFarError, type Circle, type GeometryOptions, type ProfileName, type RouteJsonResult } from '../../engine/engine.js';
import type { VehicleQuery } from '../../engine/route-core.js';
import { legJson, legOpening, tenths } from '../../engine/legs-json.js';
import { ALT_SHARE, ALT_STRETCH } from '../../engine/alternative-rules.js';
import { addFarFromRoad, engineHttpError, rawProfile } from '../engine-errors.js';
import { lineStringSchema, micro } from '../../engine/line-json.js';
import { simplifyToleranceM } from '../../engine/polyline.js';
import { INSTRUCTION_LANGUAGES } from '../../engine/guidance/languages.js';
import { routeStepSchema } from './step-schema.js';
import { namesPoi, locationsOf, resolveEach, type ResolvedLocation } from '../locations.js';
import { poiSelectionFilter } from './poi-selection.js';
import { excludeBits, excludeSchema } from './exclude.js';
import { roundTripPlaces, roundTripSchema } from './round-trip.js';
import { snapsOwnWay, tooFarMessage, waypointOptions, waypointSchema } from './waypoint-options.js';
import { avoidPolygonsSchema, enginePolygons, locationsInside, selectsPois } from './avoid-polygons.js';

export const MAX_WAYPOINTS = 50;
const MAX_ALTERNATIVES = 3;
const GEOMETRY_FORMATS = ['geojson', 'polyline', 'polyline6'] as const;
const OVERVIEWS = ['full', 'simplified', 'false'] as const;
export const DEFAULT_AVOID_RADIUS_M = 50;
/** Rule 5: with at least one avoided POI, the waypoints' summed straight-line distance is capped. */
export const MAX_AVOIDING_STRAIGHT_LINE_M = 150_000;

// Types here; ranges and formats are checked by parsePoiFilter, the same rules as the POI list filters.
export const avoidSchema = z.strictObject(
  {
    ...poiSelectionShape,
    radius: z
      .number({ error: 'must be an integer between 10 and 500' })
      .int('must be an integer between 10 and 500')
      .min(10, 'must be an integer between 10 and 500')
      .max(500, 'must be an integer between 10 and 500')
      .optional(),
  },
  { error: POI_SELECTION_ERROR },
);

/** `avoid` of routes and matrices: the POI selection, and polygons. */
export const routeAvoidSchema = avoidSchema.extend({ polygons: avoidPolygonsSchema.optional() });

/** A size between `min` and `max` in `unit`. */
const size = (min: number, max: number, unit: string) =>
  z
    .number({ error: `must be a number of ${unit} between ${min} and ${max}` })
    .min(min, `must be a number of ${unit} between ${min} and ${max}`)
    .max(max, `must be a number of ${unit} between ${min} and ${max}`)
    .optional();
const DEFAULT_LORRY = defaultVehicle('driving-hgv')!;
export const VEHICLE_DESCRIPTION =
  "Extension (not in the service contract), `driving-hgv` only: the lorry's size. Ways whose " +
  '`maxheight`, `maxwidth`/`width`, `maxlength` or `maxweight` it exceeds are kept off. A field left out is the ' +
  `default lorry's: height ${DEFAULT_LORRY.heightM} m, width ${DEFAULT_LORRY.widthM} m, length ${DEFAULT_LORRY.lengthM} m, weight ${DEFAULT_LORRY.weightT} t. ` +
  'A smaller lorry may take ways below the default one.';
export const vehicleSchema = z.strictObject(
  {
    height: size(1, 10, 'meters').describe(`meters, default ${DEFAULT_LORRY.heightM}`),
    width: size(1, 10, 'meters').describe(`meters, default ${DEFAULT_LORRY.widthM}`),
    length: size(1, 100, 'meters').describe(`meters, default ${DEFAULT_LORRY.lengthM}`),
    weight: size(0.5, 500, 'tonnes').describe(`tonnes, default ${DEFAULT_LORRY.weightT}`),
  },
  { error: 'must be an object with height, width, length (meters) and weight (tonnes), each optional' },
);

/** The engine's lorry from the body's `vehicle`. */
export const vehicleQuery = (v: z.infer<typeof vehicleSchema> | undefined): VehicleQuery | undefined =>
  v && { heightM: v.height, widthM: v.width, lengthM: v.length, weightT: v.weight };

const bodySchema = z
  .strictObject({
    // The type first: zod would also run the length checks on a string.
    waypoints: arrayFirst(`must be an array of 2 to ${MAX_WAYPOINTS} locations`).pipe(
      z.array(waypointSchema).min(1, 'must have at least 2 locations').max(MAX_WAYPOINTS, `may have at most ${MAX_WAYPOINTS} locations`),
    ),
    profile: z.enum(PROFILES, { error: `must be one of ${PROFILES.join(', ')}` }).default('driving-car'),
    avoid: routeAvoidSchema
      .optional()
      .describe("Omit for a plain route; `{}` avoids all the team's POIs around the route; `{polygons}` alone avoids only the polygons."),
    vehicle: vehicleSchema.optional().describe(VEHICLE_DESCRIPTION),
    exclude: excludeSchema,
    geometry_format: z
      .enum(GEOMETRY_FORMATS, { error: `must be one of ${GEOMETRY_FORMATS.join(', ')}` })
      .optional()
      .describe(
        "Extension (not in the service contract): `geojson` (default) a GeoJSON LineString; `polyline` and `polyline6` the encoded polyline string (Google's algorithm, latitude first, precision 5 or 6, as OSRM and Valhalla send it).",
      ),
    overview: z
      .union([z.enum(OVERVIEWS), z.literal(false)], { error: `must be one of ${OVERVIEWS.join(', ')}` })
      .optional()
      .describe(
        'Extension (not in the service contract): `full` (default) the whole line; `simplified` Douglas–Peucker to one pixel at the zoom that fits the waypoints\' box in 1000 pixels (its larger side / 1000, at least 1 m), keeping the ends and every snapped waypoint; `false` (or `"false"`) no geometry, `geometry: null`.',
      ),
    steps: z
      .boolean({ error: 'must be true or false' })
      .optional()
      .describe(
        "Extension (not in the service contract): `true` adds each leg's turn-by-turn `steps` in OSRM's RouteStep model (docs/directions.md); each step's geometry is in `geometry_format`, whole whatever `overview` says.",
      ),
    round_trip: roundTripSchema,
    alternatives: z
      .int({ error: `must be a whole number from 1 to ${MAX_ALTERNATIVES}` })
      .min(1, `must be a whole number from 1 to ${MAX_ALTERNATIVES}`)
      .max(MAX_ALTERNATIVES, `must be a whole number from 1 to ${MAX_ALTERNATIVES}`)
      .optional()
      .describe(
        `Extension, for a route between 2 waypoints: how many alternatives to look for (1–${MAX_ALTERNATIVES}); the answer adds \`alternatives\`, routes shaped like the main one, fastest first, each at most ${ALT_STRETCH}× its duration and sharing at most ${ALT_SHARE * 100} % of its length with it and with each other (fewer, or none, when no such route exists).`,
      ),
    language: z
      .enum(INSTRUCTION_LANGUAGES as [string, ...string[]], { error: `must be one of ${INSTRUCTION_LANGUAGES.join(', ')}` })
      .optional()
      .describe('Extension, with `steps: true` only: adds `instruction`, a sentence in this language (osrm-text-instructions), to each step.'),
  })
  .meta({
    id: 'RouteRequest',
    examples: [
      {
        waypoints: [
          { latitude: 47.141, longitude: 9.5209 },
          { latitude: 47.166, longitude: 9.51 },
        ],
        profile: 'driving-car',
        avoid: { category_name: 'Speed cameras', radius: 50 },
      },
    ],
  });

const routeData = z.object({
  profile: z.enum(PROFILES),
  distance: z.number().describe('Meters.'),
  duration: z.number().describe('Seconds.'),
  bbox: z.tuple([z.number(), z.number(), z.number(), z.number()]).describe('[west, south, east, north].'),
  geometry: z
    .union([lineStringSchema, z.string().describe('An encoded polyline (`geometry_format` polyline or polyline6).'), z.null()])
    .describe('A GeoJSON LineString unless `geometry_format` asks for an encoded polyline; null with `overview: false`.'),
  legs: z.array(
    z.object({
      from: z.int(),
      to: z.int(),
      distance: z.number(),
      duration: z.number(),
      steps: z
        .array(routeStepSchema)
        .optional()
        .describe("With `steps: true`: the leg's steps, depart first and arrive last; their distances and durations add up to the leg's."),
    }),
  ),
  waypoints: z.array(z.object({ poi_id: z.string().nullable(), latitude: z.number(), longitude: z.number() })),
  avoided: z
    .object({
      radius: z.int(),
      count: z.int(),
      poi_ids: z.array(z.string()),
      skipped_poi_ids: z.array(z.string()),
      polygons: z.int().optional().describe('Extension: with `avoid.polygons`, how many polygons the route kept out of.'),
    })
    .nullable()
    .describe('null when `avoid` is not sent.'),
});

const routeResponse = z
  .object({
    data: routeData.extend({
      alternatives: z
        .array(routeData)
        .optional()
        .describe('With `alternatives`: the other routes found, each shaped like this one, fastest first (possibly none).'),
    }),
  })
  .meta({ id: 'RouteResponse' });

const routeDoc: Operation = {
  operationId: 'planRoute',
  tag: 'Routing',
  summary: 'Plan a route avoiding POIs',
  description:
    "Needs `plan-routes`, and `read-pois` when a waypoint is a POI or `avoid` is sent. The fastest route through the waypoints in order, outside circles of `avoid.radius` around the selected POIs (selected inside the waypoints' bounding box grown by 10% of its diagonal, 1 to 10 km). Every waypoint too far from a road and every unknown POI id is reported in one 422.",
  body: bodySchema,
  bodyExample: {
    waypoints: [
      { latitude: 47.141, longitude: 9.5209 },
      { latitude: 47.166, longitude: 9.51 },
    ],
  },
  responses: { 200: { description: 'The route.', schema: routeResponse } },
  errors: [422, 502, 503],
};

/** The engine's geometry options from the body (none for the default: GeoJSON, the whole line). */
function geometryOptions(
  format: (typeof GEOMETRY_FORMATS)[number] | undefined,
  overview: (typeof OVERVIEWS)[number] | false | undefined,
  points: Array<{ lat: number; lon: number }>,
): GeometryOptions | undefined {
  const o = overview === false ? 'false' : (overview ?? 'full');
  if ((format ?? 'geojson') === 'geojson' && o === 'full') return undefined;
  return { format: format ?? 'geojson', overview: o, ...(o === 'simplified' ? { toleranceM: simplifyToleranceM(points) } : {}) };
}

/** The response `{data: …}` around the geometry text the worker wrote, with the alternatives' after it. */
function routeJson(profile: ProfileName, r: RouteJsonResult, waypoints: Array<{ poiId: string | null } & Position>, avoided: unknown): RawJson {
  const main = routeParts(profile, r, waypoints, avoided);
  if (r.alternatives) {
    const last = main.pop() as string;
    main.push(`${last.slice(0, -1)},"alternatives":[`);
    r.alternatives.forEach((a, i) => main.push(...(i ? [','] : []), ...routeParts(profile, a, waypoints, avoided)));
    main.push(']}');
  }
  const json = new RawJson('{"data":', ...main, '}');
  json.onSent = r.release;
  json.frame = r.framed;
  return json;
}

/** One route as the parts of its JSON object (the last a string ending it). */
function routeParts(
  profile: ProfileName,
  r: Omit<RouteJsonResult, 'release' | 'alternatives'>,
  waypoints: Array<{ poiId: string | null } & Position>,
  avoided: unknown,
): Array<string | Uint8Array> {
  const legs = r.legs.map((l, i) => legJson(i, l));
  const head = JSON.stringify({
    profile,
    // Totals are the sums of the rounded legs, so that the legs add up to them exactly.
    distance: tenths(legs.reduce((a, l) => a + l.distance, 0)),
    duration: tenths(legs.reduce((a, l) => a + l.duration, 0)),
    // Rounding is monotonic, so the rounded box is exactly the box of the rounded geometry.
    bbox: r.bbox.map(micro),
  });
  const steps = r.stepsJson;
  // Each leg's steps are the text the worker wrote, in place between the leg's fields (which it wrote too
  // for a whole route: withLegs).
  const legsJson = r.withLegs
    ? []
    : steps
      ? [',"legs":', ...r.legs.flatMap((l, i) => [legOpening(i, l), steps[i], '}']), ']']
      : [',"legs":', JSON.stringify(legs)];
  const tail = JSON.stringify({
    waypoints: waypoints.map((w) => ({ poi_id: w.poiId, latitude: w.latitude, longitude: w.longitude })),
    avoided,
  }).slice(1);
  return [`${head.slice(0, -1)},"geometry":`, ...r.geometryJson, ...legsJson, `,${tail}`];
}

export function routesEndpoint(sql: Sql): Route[] {
  return [
    {
      method: 'POST',
      path: '/v1/routes',
      openapi: routeDoc,
      permission: 'plan-routes',
      handler: async (ctx) => {
        const raw = await ctx.json();
        // Authorization before validation: whether POIs are involved is visible on the raw body.
        if (selectsPois(raw.avoid) || namesPoi(raw.waypoints)) ctx.require('read-pois');
        const errors: FieldErrors = Object.create(null);
        const parsed = parseInto(bodySchema, raw, errors);
        // One waypoint is a round trip's start; any other route needs two.
        if (raw.round_trip === undefined && Array.isArray(raw.waypoints) && raw.waypoints.length === 1)
          (errors.waypoints ??= []).push('must have at least 2 locations');
        const polygons = enginePolygons(raw.avoid);
        const exclude = excludeBits(parsed?.profile ?? rawProfile(raw.profile), raw.exclude, errors);
        // Unknown POI ids are looked up even when the body has other problems: one 422 names them all.
        const located = await resolveEach(sql, ctx.teamId, locationsOf(parsed?.waypoints, raw.waypoints), 'waypoints', errors);
        locationsInside(polygons, located, 'waypoints', errors);
        // And every known waypoint too far from a road (when the list itself is right: not too long).
        const rejection = async () => {
          if (!Object.hasOwn(errors, 'waypoints')) {
            const profile = parsed?.profile ?? rawProfile(raw.profile);
            await addFarFromRoad(
              profile,
              // A waypoint with its own radius or bearing is measured with them (one whose options are
              // wrong is left out: its own 422 says why).
              located.flatMap((at, i) => {
                const w = Array.isArray(raw.waypoints) ? raw.waypoints[i] : undefined;
                if (!snapsOwnWay(w)) return [{ field: `waypoints.${i}`, at }];
                const own = waypointSchema.safeParse(w);
                return own.success && profile ? [{ field: `waypoints.${i}`, at, option: waypointOptions(profile, [own.data])?.[0] ?? null }] : [];
              }),
              errors,
              { exclude, ownMessage: (option) => tooFarMessage(profile!, option) },
            );
          }
          return unprocessable(errors);
        };
        if (!parsed) throw await rejection();
        const body = parsed;
        const profile = body.profile;
        if (body.vehicle && profile !== 'driving-hgv') errors.vehicle = [`is only for the driving-hgv profile, not ${profile}`];
        if (body.language !== undefined && body.steps !== true) errors.language = ['is only for steps: true'];
        if (body.alternatives !== undefined && (body.waypoints.length !== 2 || body.round_trip))
          errors.alternatives = ['is only for a route between 2 waypoints'];
        if (body.round_trip && body.waypoints.length !== 1) errors.round_trip = ['needs exactly 1 waypoint, the start'];
        const { radius: _radius, polygons: _polygons, ...avoidFilters } = body.avoid ?? {};
        const filter = selectsPois(body.avoid) && (await poiSelectionFilter(sql, ctx.teamId, avoidFilters, 'avoid', MAX_AVOIDED_POIS, errors));
        if (Object.keys(errors).length) throw await rejection();
        let waypoints = located as ResolvedLocation[];
        let options = waypointOptions(profile, body.waypoints);
        const loop = body.round_trip;
        if (loop) {
          // The start, the places (each to its nearest road, however far) and the start again.
          const start = waypoints[0];
          const places = roundTripPlaces({ lat: start.latitude, lon: start.longitude }, loop.length, loop.points, loop.seed);
          waypoints = [start, ...places.map((p) => ({ poiId: null, latitude: p.lat, longitude: p.lon })), start];
          const own = options?.[0] ?? null;
          options = [own, ...places.map(() => ({ radius: Infinity })), own];
        }

        const points = waypoints.map((w) => ({ lat: w.latitude, lon: w.longitude }));
        const geometry = geometryOptions(body.geometry_format, body.overview, points);
        const run = (circles: Circle[] = []) =>
          findRoute({
            profile,
            waypoints: points,
            avoid: circles.length || polygons.length ? { circles, ...(polygons.length ? { polygons } : {}) } : undefined,
            vehicle: vehicleQuery(body.vehicle),
            ...(exclude ? { exclude } : {}),
            ...(options ? { waypointOptions: options } : {}),
            ...(body.alternatives ? { alternatives: body.alternatives } : {}),
            ...(loop ? { roundTrip: true } : {}),
            ...(geometry ? { geometry } : {}),
            ...(body.steps ? { steps: true, ...(body.language ? { language: body.language } : {}) } : {}),
          }).catch((err: unknown) => {
            if (options && err instanceof WaypointTooFarError) {
              throw unprocessable(Object.fromEntries(err.indexes.map((i) => [`waypoints.${i}`, [tooFarMessage(profile, options[i])]])));
            }
            throw engineHttpError(err, profile, 'waypoints', polygons.length > 0);
          });
        let plain: Promise<RouteJsonResult> | undefined;
        const plainRoute = () => (plain ??= run());

        const radius = body.avoid?.radius ?? DEFAULT_AVOID_RADIUS_M;
        const polygonCount = polygons.length ? { polygons: polygons.length } : {};
        if (!filter) {
          if (!polygons.length) return { status: 200, body: routeJson(profile, await plainRoute(), waypoints, null) };
          return { status: 200, body: routeJson(profile, await run(), waypoints, { radius, count: 0, poi_ids: [], skipped_poi_ids: [], ...polygonCount }) };
        }

        const selection = await selectAvoidance(sql, ctx.teamId, filter, waypoints, radius, async () =>
          (await plainRoute()).snapped.map((p) => ({ latitude: p.lat, longitude: p.lon })),
        );
        if (selection.tooMany) {
          throw invalid(
            'avoid',
            `selects more than ${MAX_AVOIDED_POIS} POIs around the route; at most ${MAX_AVOIDED_POIS} can be avoided. Narrow the filters.`,
          );
        }
        const straight = straightLineMeters(waypoints);
        if (selection.avoided.length && straight > MAX_AVOIDING_STRAIGHT_LINE_M) {
          throw invalid(
            'waypoints',
            `may be at most ${MAX_AVOIDING_STRAIGHT_LINE_M / 1000} km apart in total (straight-line, consecutive) when POIs are avoided; these are ${(straight / 1000).toFixed(1)} km`,
          );
        }
        const circles = selection.avoided.map((p) => ({ lat: p.latitude, lon: p.longitude, radius }));
        const avoiding = circles.length > 0 || polygons.length > 0;
        const result = avoiding ? await run(circles) : await plainRoute();
        // A plain route found to place the selection (it had to succeed to get here) is not sent when the
        // avoiding one replaces it.
        if (avoiding) (await plain)?.release();
        const avoided = {
          radius,
          count: selection.avoided.length,
          poi_ids: selection.avoided.map((p) => p.id),
          skipped_poi_ids: selection.skipped,
          ...polygonCount,
        };
        return { status: 200, body: routeJson(profile, result, waypoints, avoided) };
      },
    },
  ];
}
