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
