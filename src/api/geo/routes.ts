// GET /v1/geo/countries, /v1/geo/cities, /v1/geo/zipcodes: the shared places that at least one of the
// team's POIs is in, sorted by id with UUID cursors.
import type { Sql } from '../../db/client.js';
import { likeContains } from '../../db/like.js';
import type { FieldErrors } from '../../http/errors.js';
import { pageOf, readPage } from '../../http/pagination.js';
import type { Query } from '../../http/query.js';
import type { Route } from '../../http/router.js';
import { isUuid } from '../../lib/ids.js';
import { geoDocs } from './schema.js';
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

export function geoRoutes(sql: Sql): Route[] {
  return [
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
