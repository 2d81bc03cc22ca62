// GET /v1/geo/countries, /v1/geo/cities, /v1/geo/zipcodes: the shared places that at least one of the
// team's POIs is in, sorted by id with UUID cursors.
import { likeContains } from '../categories/routes.js';
import type { Sql } from '../db/client.js';
import type { FieldErrors } from '../http/errors.js';
import { pageOf, readPage } from '../http/pagination.js';
import type { Query } from '../http/query.js';
import { z } from 'zod';
import { pageQuery, pageSchema, uuid, type Operation } from '../http/openapi.js';
import type { Route } from '../http/router.js';
import { isUuid } from '../ids.js';

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

const place = (id: string, field: 'name' | 'code') => pageSchema(id, z.object({ id: uuid, [field]: z.string() }));
const nameQuery = (what: string) => z.string().max(255).describe(`Only ${what} containing this text.`);
const doc = (operationId: string, summary: string, query: Operation['query'], schema: z.ZodType): Operation => ({
  operationId, tag: 'Geolocation', summary, query: { ...pageQuery('UUID'), ...query },
  description: 'Needs the `read-pois` permission. Only places at least one of the team\'s POIs is in, sorted by id.',
  responses: { 200: { description: 'A page of places.', schema } },
  errors: [422],
});
const geoDocs = {
  countries: doc('listCountries', 'List countries', { name: nameQuery('countries whose name is') }, place('CountryPage', 'name')),
  cities: doc('listCities', 'List cities', { country_id: uuid, name: nameQuery('cities whose name is') }, place('CityPage', 'name')),
  zipcodes: doc('listZipcodes', 'List zip codes', { country_id: uuid, city_id: uuid, name: nameQuery('zip codes') }, place('ZipcodePage', 'code')),
};

export function geoRoutes(sql: Sql): Route[] {
  return [
    {
      method: 'GET', path: '/v1/geo/countries', openapi: geoDocs.countries, permission: 'read-pois',
      handler: async (ctx) => {
        const errors: FieldErrors = {};
        const name = nameFilter(ctx.query, errors);
        const page = readPage(ctx.query, 'uuid', errors);
        const rows = await sql<{ id: string; name: string }[]>`
          SELECT co.id, co.name FROM countries co
          WHERE EXISTS (SELECT 1 FROM pois p WHERE p.team_id = ${ctx.teamId} AND p.country_id = co.id)
            AND (${name}::text IS NULL OR co.name ILIKE ${name})
            AND (${page.cursor}::uuid IS NULL OR co.id > ${page.cursor}::uuid)
          ORDER BY co.id LIMIT ${page.limit + 1}`;
        return { status: 200, body: pageOf(rows, page.limit) };
      },
    },
    {
      method: 'GET', path: '/v1/geo/cities', openapi: geoDocs.cities, permission: 'read-pois',
      handler: async (ctx) => {
        const errors: FieldErrors = {};
        const name = nameFilter(ctx.query, errors);
        const country = uuidFilter(ctx.query, 'country_id', errors);
        const page = readPage(ctx.query, 'uuid', errors);
        const rows = await sql<{ id: string; name: string }[]>`
          SELECT ci.id, ci.name FROM cities ci
          WHERE EXISTS (SELECT 1 FROM pois p WHERE p.team_id = ${ctx.teamId} AND p.city_id = ci.id)
            AND (${name}::text IS NULL OR ci.name ILIKE ${name})
            AND (${country}::uuid IS NULL OR ci.country_id = ${country}::uuid)
            AND (${page.cursor}::uuid IS NULL OR ci.id > ${page.cursor}::uuid)
          ORDER BY ci.id LIMIT ${page.limit + 1}`;
        return { status: 200, body: pageOf(rows, page.limit) };
      },
    },
    {
      method: 'GET', path: '/v1/geo/zipcodes', openapi: geoDocs.zipcodes, permission: 'read-pois',
      handler: async (ctx) => {
        const errors: FieldErrors = {};
        const code = nameFilter(ctx.query, errors);
        const country = uuidFilter(ctx.query, 'country_id', errors);
        const city = uuidFilter(ctx.query, 'city_id', errors);
        const page = readPage(ctx.query, 'uuid', errors);
        // city_id: the zip codes of the team's POIs in that city.
        const rows = await sql<{ id: string; code: string }[]>`
          SELECT z.id, z.code FROM zipcodes z
          WHERE EXISTS (
              SELECT 1 FROM pois p WHERE p.team_id = ${ctx.teamId} AND p.zipcode_id = z.id
                AND (${city}::uuid IS NULL OR p.city_id = ${city}::uuid))
            AND (${code}::text IS NULL OR z.code ILIKE ${code})
            AND (${country}::uuid IS NULL OR z.country_id = ${country}::uuid)
            AND (${page.cursor}::uuid IS NULL OR z.id > ${page.cursor}::uuid)
          ORDER BY z.id LIMIT ${page.limit + 1}`;
        return { status: 200, body: pageOf(rows, page.limit) };
      },
    },
  ];
}
