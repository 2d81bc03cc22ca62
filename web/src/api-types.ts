// The API's own types, as the OpenAPI document declares them: web/src/generated/api.ts is written from
// docs/openapi.json by openapi-typescript at each build (scripts/build.mjs), so a field the service
// changes shows here as a type error instead of a page that silently reads undefined.
import type { components } from './generated/api';

type Schemas = components['schemas'];

export type Attribute = Schemas['Attribute'];
export type Category = Schemas['Category'];
export type Poi = Schemas['Poi'];
export type Import = Schemas['Import'];
/** One answer of GET /v1/geo/autocomplete and /v1/geo/search. */
export type GeoResult = Schemas['GeoSearchResult'];
export type ClusterResult = Schemas['ClustersResponse']['data'];
export type IsochroneResult = Schemas['IsochroneResponse']['data'];

export type LineString = Schemas['LineString'];
/** An answer whose `geometry` the document gives as GeoJSON, polyline text or null (by the request's
 *  `geometry_format` and `overview`), as the pages ask for it: GeoJSON lines. */
type AsLines<T> = Omit<T, 'geometry'> & { geometry: LineString };
type Route = Schemas['RouteResponse']['data'];
/** A turn-by-turn step (`steps: true`). */
export type RouteStep = AsLines<Schemas['RouteStep']>;
type RouteLeg = Omit<Route['legs'][number], 'steps'> & { steps?: RouteStep[] };
/** POST /v1/routes's answer with GeoJSON lines; its alternatives alike. */
export type RouteResult = Omit<AsLines<Route>, 'legs' | 'alternatives'> & { legs: RouteLeg[]; alternatives?: Array<Omit<RouteResult, 'alternatives'>> };
/** A plan of POST /v1/routes/optimize, or of a batch optimization (more kinds of step, costs, violations). */
export type OptimizeResult = Schemas['OptimizePlan'] | Schemas['OptimizationPlan'];
export type Optimization = Schemas['Optimization'];
