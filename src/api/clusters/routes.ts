// POST /v1/routes/clusters: groups up to 2,000 stops into compact clusters by straight-line distance, with the
// k-means kernel run in the worker pool (service-spec.md "POST /v1/routes/clusters").
//
// Where the spec and DECISIONS.md are silent:
// - An empty `stops` list (422 at `stops`) or an empty POI selection (422 at `pois`): nothing to cluster.
// - Both of an either/or pair: 422 at the second (`pois`, `max_stops`); neither: at the first (`stops`,
//   `clusters`); `null` counts as sent.
// - Stop ids are 1–100 characters, compared exactly (case-sensitive); each repeat is a 422 at `stops.N.id`.
// - Stops selected by `pois` have `id` null and `poi_id` set; `pois.distance` is a float like `avoid.distance`;
//   `pois.poi_ids` takes up to 2,000 ids, unknown ones are 422 at `pois.poi_ids.N`.
// - `clusters` above the stop count: 422 at `clusters`; a `max_stops` needing over 100 clusters: at `max_stops`.
// - Clusters come in the order of their first stop, stops in request (index) order; radius in 0.1 m,
//   the centroid unrounded (it is exactly the mean).
// - `read-pois` is checked before the body is validated, as for POST /v1/routes (403 before 422).
import { runTask } from '../../compute/pool.js';
import type { Sql } from '../../db/client.js';
import { invalid, unprocessable, type FieldErrors } from '../../http/errors.js';
import type { Route } from '../../http/router.js';
import { clusterCount, ClusterRequestError, MAX_CLUSTERS, type ClusterOptions, type Clustering } from '../../engine/kmeans/kmeans.js';
import type { Operation } from '../../http/openapi.js';
import { clustersRequestSchema, clustersResponseSchema, parseClusterBody, type ClusterBody } from './schema.js';
import { requestStops, selectedStops, type ClusterStop } from './stops.js';
import { engineHttpError } from '../engine-errors.js';
import { namesPoi, rawPoiRefs, resolveLocations } from '../locations.js';

/** The size rules that depend on the number of stops, reported on the field that asked for the size. */
function sizeProblem(body: ClusterBody, stops: number): [field: string, message: string] | undefined {
  try {
    clusterCount(stops, { clusters: body.clusters, maxStops: body.maxStops });
    return undefined;
  } catch (err) {
    if (!(err instanceof ClusterRequestError)) throw err;
    if (body.clusters !== undefined) return ['clusters', `must not exceed the number of stops (${stops})`];
    const needed = Math.ceil(stops / body.maxStops!);
    return ['max_stops', `needs ${needed} clusters for ${stops} stops, more than the ${MAX_CLUSTERS} allowed; use at least ${Math.ceil(stops / MAX_CLUSTERS)}`];
  }
}

const tenths = (x: number) => Math.round(x * 10) / 10;

function clustersJson(stops: readonly ClusterStop[], body: ClusterBody, result: Clustering) {
  return {
    summary: { stops: stops.length, clusters: result.clusters.length, balanced: body.balanced, max_stops: result.maxStops },
    clusters: result.clusters.map((c, i) => ({
      id: i + 1,
      centroid: { latitude: c.centroid.lat, longitude: c.centroid.lon },
      count: c.members.length,
      // 0.1 m, as the distances of POST /v1/routes.
      radius: tenths(c.radius),
      stops: c.members.map((m) => {
        const s = stops[m];
        return { index: s.index, id: s.id, poi_id: s.poiId, latitude: s.latitude, longitude: s.longitude };
      }),
    })),
  };
}

const clustersDoc: Operation = {
  operationId: 'clusterStops',
  tag: 'Routing',
  summary: 'Group stops into compact clusters',
  description:
    "Needs `plan-routes`, and `read-pois` when `pois` is sent or a stop is a POI. k-means by straight-line distance, deterministic for the same stops in the same order; empty clusters are dropped. Every unknown POI id is reported in one 422 with the body's other problems (and a `clusters` or `max_stops` the number of sent stops does not allow).",
  body: clustersRequestSchema,
  responses: { 200: { description: 'The clusters.', schema: clustersResponseSchema } },
  errors: [422, 502, 503],
};

export function clustersEndpoint(sql: Sql): Route[] {
  return [
    {
      method: 'POST',
      path: '/v1/routes/clusters',
      openapi: clustersDoc,
      permission: 'plan-routes',
      handler: async (ctx) => {
        const raw = await ctx.json();
        // Authorization before validation: whether POIs are involved is visible on the raw body.
        if (raw.pois !== undefined || namesPoi(raw.stops)) ctx.require('read-pois');
        const errors: FieldErrors = Object.create(null);
        const body = parseClusterBody(raw, errors);
        if (!body) {
          // Unknown POI ids among the stops go into the same 422 as the body's other problems.
          await resolveLocations(sql, ctx.teamId, rawPoiRefs(raw.stops), 'stops', errors);
          throw unprocessable(errors);
        }
        const stops = body.stops ? await requestStops(sql, ctx.teamId, body.stops, errors) : await selectedStops(sql, ctx.teamId, body.pois!, errors);
        // With the request's own stops their number is known even when some POI id is not: a size that
        // number does not allow joins the same 422.
        const count = body.stops?.length ?? stops?.length;
        const size = count === undefined ? undefined : sizeProblem(body, count);
        if (!stops || Object.keys(errors).length) {
          if (body.stops && size) (errors[size[0]] ??= []).push(size[1]);
          throw unprocessable(errors);
        }
        if (size) throw invalid(...size);

        const options: ClusterOptions = { clusters: body.clusters, maxStops: body.maxStops, balanced: body.balanced };
        const points = stops.map((s) => ({ lat: s.latitude, lon: s.longitude }));
        const result = await runTask<Clustering>('clusters', { points, options }).catch((err: unknown) => {
          throw engineHttpError(err, 'clusters', 'stops');
        });
        return { status: 200, body: { data: clustersJson(stops, body, result) } };
      },
    },
  ];
}
