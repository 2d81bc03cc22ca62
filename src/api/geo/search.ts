// GET /v1/geo/search and GET /v1/geo/autocomplete (extensions): forward geocoding over the map's search
// index in a compute thread, and the team's own POIs by name or category from PostgreSQL when asked.
// Each result carries the address object a POI has, its places the shared rows a POI there points to.
import { PoolBusyError } from '../../compute/pool.js';
import type { Sql } from '../../db/client.js';
import type { Address } from '../../engine/geocoder/reverse.js';
import type { SearchHit, SearchLayer, SearchQuery, StructuredQuery } from '../../engine/geocoder/search.js';
import { addressResource, searchMap, type AddressResource } from '../../geocoding/address.js';
import type { PlaceRegistry } from '../../geocoding/places.js';
import { HttpError, serviceUnavailable, unprocessable, type FieldErrors } from '../../http/errors.js';
import type { Query } from '../../http/query.js';
import type { Route } from '../../http/router.js';
import { fold, words } from '../../map/geocoder/search-text.js';
import { poisByName } from '../pois/name-search.js';
import { geoDocs } from './schema.js';

export const LAYERS = ['address', 'street', 'place', 'postcode', 'poi'] as const;
type Layer = (typeof LAYERS)[number];
const MAP_LAYERS: SearchLayer[] = ['address', 'street', 'place', 'postcode'];
const STRUCTURED = ['street', 'housenumber', 'postcode', 'city', 'country'] as const;
export const MAX_LIMIT = 50;

interface Params {
  text: string | undefined;
  structured: StructuredQuery | undefined;
  near: { lat: number; lon: number } | null;
  countries: string[] | null;
  layers: Layer[];
  limit: number;
}

function text(query: Query, field: string, errors: FieldErrors): string | undefined {
  const v = query.get(field);
  if (v === undefined) return undefined;
  if (v.length > 255 || v.includes('\u0000')) errors[field] = ['must be at most 255 characters, without NUL'];
  return v.trim() === '' ? undefined : v;
}

/** Every parameter read and checked; one 422 names every bad one. */
function readParams(query: Query, autocomplete: boolean): Params {
  const errors: FieldErrors = {};
  const q = text(query, 'q', errors);
  const structured: StructuredQuery = {};
  if (!autocomplete) for (const f of STRUCTURED) structured[f] = text(query, f, errors);
  const anyStructured = STRUCTURED.some((f) => structured[f] !== undefined);
  if (q !== undefined && anyStructured) errors.q = ['cannot be combined with street, housenumber, postcode, city or country'];
  else if (q === undefined && !anyStructured && !errors.q) {
    errors.q = [autocomplete ? 'is required' : 'is required (or street, housenumber, postcode, city, country)'];
  } else if (q !== undefined && words(q).length === 0) errors.q = ['must contain a letter or a digit'];
  if (anyStructured && structured.housenumber !== undefined && structured.street === undefined && !errors.housenumber) {
    errors.housenumber = ['needs street'];
  }

  let near: Params['near'] = null;
  const rawNear = query.get('near');
  if (rawNear !== undefined) {
    const m = /^\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*$/.exec(rawNear);
    const lat = m ? Number(m[1]) : Number.NaN,
      lon = m ? Number(m[2]) : Number.NaN;
    if (!m || Math.abs(lat) > 90 || Math.abs(lon) > 180) errors.near = ['must be "latitude,longitude", latitude from -90 to 90, longitude from -180 to 180'];
    else near = { lat, lon };
  }

  let countries: string[] | null = null;
  const rawCountries = query.get('countrycodes');
  if (rawCountries !== undefined) {
    countries = rawCountries.split(',').map((c) => c.trim().toLowerCase());
    if (countries.some((c) => !/^[a-z]{2}$/.test(c))) errors.countrycodes = ['must be ISO 3166-1 alpha-2 codes separated by commas, e.g. li,ch'];
  }

  let layers: Layer[] = [...MAP_LAYERS];
  const rawLayers = query.get('layers');
  if (rawLayers !== undefined) {
    const list = rawLayers.split(',').map((l) => l.trim());
    if (list.some((l) => !(LAYERS as readonly string[]).includes(l))) errors.layers = [`must be some of ${LAYERS.join(', ')}, separated by commas`];
    else layers = [...new Set(list as Layer[])];
  }

  const defaultLimit = autocomplete ? 5 : 10;
  let limit = defaultLimit;
  const rawLimit = query.get('limit');
  if (rawLimit !== undefined) {
    limit = Number(rawLimit);
    if (!/^\d+$/.test(rawLimit) || limit < 1 || limit > MAX_LIMIT) errors.limit = [`must be a whole number from 1 to ${MAX_LIMIT}`];
  }
  if (Object.keys(errors).length) throw unprocessable(errors);
  return { text: q, structured: anyStructured ? structured : undefined, near, countries, layers, limit };
}

interface Result {
  kind: Layer;
  name: string;
  latitude: number;
  longitude: number;
  /** [west, south, east, north], as GeoJSON. */
  bbox: [number, number, number, number];
  score: number;
  address: AddressResource;
  poi_id?: string;
}

/** `mapDir`: the map loaded at start; undefined without one (then only the poi layer can answer). The
 *  searches go to the map answering at the time (geocoding/address.ts), which a swap may have replaced. */
export function searchRoutes(sql: Sql, places: PlaceRegistry, mapDir?: string): Route[] {
  const run = async (query: Query, teamId: string, autocomplete: boolean) => {
    const p = readParams(query, autocomplete);
    const mapLayers = p.layers.filter((l): l is SearchLayer => l !== 'poi');
    if (mapLayers.length && mapDir === undefined) throw serviceUnavailable('Geocoding is not available: no map is loaded. Retry later.');
    const q: SearchQuery = {
      text: p.text,
      structured: p.structured,
      near: p.near,
      countries: p.countries,
      layers: mapLayers,
      limit: p.limit,
      prefix: autocomplete,
    };
    const [hits, pois] = await Promise.all([
      mapLayers.length
        ? searchMap(q).catch((err: unknown) => {
            if (err instanceof PoolBusyError) throw new HttpError(503, 'The geocoder is busy. Retry shortly.', {}, { 'Retry-After': '1' });
            throw err;
          })
        : Promise.resolve([] as SearchHit[]),
      p.layers.includes('poi') && p.text !== undefined ? poiResults(sql, teamId, p.text, p.limit) : Promise.resolve([] as Result[]),
    ]);
    const ids = await places.resolve(hits.map((h) => h.address));
    const now = new Date();
    const results: Result[] = hits.map((h, i) => ({
      kind: h.kind,
      name: h.name,
      latitude: h.lat,
      longitude: h.lon,
      bbox: [h.box[1], h.box[0], h.box[3], h.box[2]],
      score: h.score,
      address: addressResource(h.address as Address, ids[i], now),
    }));
    // Stable: each source keeps its own order among equal scores.
    return [...results, ...pois].sort((a, b) => b.score - a.score).slice(0, p.limit);
  };
  return [
    {
      method: 'GET',
      path: '/v1/geo/search',
      openapi: geoDocs.search,
      permission: 'read-pois',
      handler: async (ctx) => ({ status: 200, body: { data: await run(ctx.query, ctx.teamId, false) } }),
    },
    {
      method: 'GET',
      path: '/v1/geo/autocomplete',
      openapi: geoDocs.autocomplete,
      permission: 'read-pois',
      handler: async (ctx) => ({ status: 200, body: { data: await run(ctx.query, ctx.teamId, true) } }),
    },
  ];
}

/** The team's POIs as results: a whole-name match scores like a place, a category match below a street. */
async function poiResults(sql: Sql, teamId: string, text: string, limit: number): Promise<Result[]> {
  const matches = await poisByName(sql, teamId, text, words(text), limit);
  const folded = words(text).join(' ');
  return matches.map((m) => {
    const name =
      fold(m.name)
        .match(/[\p{L}\p{N}]+/gu)
        ?.join(' ') ?? '';
    const score = m.byCategory ? 0.6 : name === folded ? 0.95 : name.startsWith(folded) ? 0.85 : 0.75;
    return {
      kind: 'poi' as const,
      name: m.name,
      latitude: m.latitude,
      longitude: m.longitude,
      bbox: [m.longitude, m.latitude, m.longitude, m.latitude] as [number, number, number, number],
      score,
      address: m.address,
      poi_id: m.id,
    };
  });
}
