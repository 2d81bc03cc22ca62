// GET /v1/geo/countries, /v1/geo/cities, /v1/geo/zipcodes: the shared places that at least one of the
// team's POIs is in, sorted by id with UUID cursors. GET /v1/geo/reverse (an extension): the address the
// POI geocoder gives a point, at once. Search and autocomplete: search.ts.
import { PoolBusyError } from '../../compute/pool.js';
import type { Sql } from '../../db/client.js';
import { likeContains } from '../../db/like.js';
import { addressResource, geocodePoints } from '../../geocoding/address.js';
import { PlaceRegistry } from '../../geocoding/places.js';
import { HttpError, serviceUnavailable, unprocessable, type FieldErrors } from '../../http/errors.js';
import { pageOf, readPage } from '../../http/pagination.js';
import type { Query } from '../../http/query.js';
import type { Route } from '../../http/router.js';
import { isUuid } from '../../lib/ids.js';
import { geoDocs } from './schema.js';
import { searchRoutes } from './search.js';
import { listCities, listCountries, listZipcodes } from './store.js';

/** The `name` contains-filter as an ILIKE pattern, or null when not sent. */
function nameFilter(query: Query, errors: FieldErrors): string | null {
  const name = query.get('name');
  if (name === undefined) return null;
  if (name.length > 255 || name.includes('\u0000')) errors.name = ['must be at most 255 characters, without NUL'];
  return likeContains(name);
}

function uuidFilter(query: Query, field: string, errors: FieldErrors): string | null {
  const value = query.get(field);
  if (value === undefined) return null;
  if (!isUuid(value)) errors[field] = ['must be a UUID'];
  return value.toLowerCase();
}

/** A coordinate of the query: a finite number within ±`max`; problems at its field. */
function coordinate(query: Query, field: 'latitude' | 'longitude', max: number, errors: FieldErrors): number {
  const raw = query.get(field);
  const n = Number(raw);
  if (raw === undefined) errors[field] = ['is required'];
  else if (raw.trim() === '' || !Number.isFinite(n) || n < -max || n > max) errors[field] = [`must be a number between -${max} and ${max}`];
  return n;
}

/** `mapDir`: the map loaded at start, undefined without one; the reverse lookups go to the map answering at
 *  the time (geocoding/address.ts), which a swap may have replaced. */
export function geoRoutes(sql: Sql, mapDir?: string): Route[] {
  const places = new PlaceRegistry(sql);
  return [
    ...searchRoutes(sql, places, mapDir),
    {
      method: 'GET',
      path: '/v1/geo/reverse',
      openapi: geoDocs.reverse,
      permission: 'read-pois',
      handler: async (ctx) => {
        const errors: FieldErrors = {};
        const lat = coordinate(ctx.query, 'latitude', 90, errors);
        const lon = coordinate(ctx.query, 'longitude', 180, errors);
        if (Object.keys(errors).length) throw unprocessable(errors);
        if (mapDir === undefined) throw serviceUnavailable('Geocoding is not available: no map is loaded. Retry later.');
        const [address] = await geocodePoints([{ lat, lon }]).catch((err: unknown) => {
          if (err instanceof PoolBusyError) throw new HttpError(503, 'The geocoder is busy. Retry shortly.', {}, { 'Retry-After': '1' });
          throw err;
        });
        // The place rows a POI there would point to (created on first sight, as the runner does).
        const [ids] = await places.resolve([address]);
        return { status: 200, body: { data: addressResource(address, ids, new Date()) } };
      },
    },
    {
      method: 'GET',
      path: '/v1/geo/countries',
      openapi: geoDocs.countries,
      permission: 'read-pois',
      handler: async (ctx) => {
        const errors: FieldErrors = {};
        const name = nameFilter(ctx.query, errors);
        const page = readPage(ctx.query, 'uuid', errors);
        const rows = await listCountries(sql, ctx.teamId, { name, cursor: page.cursor, limit: page.limit + 1 });
        return { status: 200, body: pageOf(rows, page.limit) };
      },
    },
    {
      method: 'GET',
      path: '/v1/geo/cities',
      openapi: geoDocs.cities,
      permission: 'read-pois',
      handler: async (ctx) => {
        const errors: FieldErrors = {};
        const name = nameFilter(ctx.query, errors);
        const country = uuidFilter(ctx.query, 'country_id', errors);
        const page = readPage(ctx.query, 'uuid', errors);
        const rows = await listCities(sql, ctx.teamId, { name, country, cursor: page.cursor, limit: page.limit + 1 });
        return { status: 200, body: pageOf(rows, page.limit) };
      },
    },
    {
      method: 'GET',
      path: '/v1/geo/zipcodes',
      openapi: geoDocs.zipcodes,
      permission: 'read-pois',
      handler: async (ctx) => {
        const errors: FieldErrors = {};
        const code = nameFilter(ctx.query, errors);
        const country = uuidFilter(ctx.query, 'country_id', errors);
        const city = uuidFilter(ctx.query, 'city_id', errors);
        const page = readPage(ctx.query, 'uuid', errors);
        // city_id: the zip codes of the team's POIs in that city.
        const rows = await listZipcodes(sql, ctx.teamId, { code, country, city, cursor: page.cursor, limit: page.limit + 1 });
        return { status: 200, body: pageOf(rows, page.limit) };
      },
    },
  ];
}
