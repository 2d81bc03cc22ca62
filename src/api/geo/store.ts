// The place lists' SQL: the shared countries, cities and zip codes (geocoding/places.ts writes them) that
// at least one of the team's POIs is in, a page after a UUID cursor. Filters left null do not filter;
// `name` is an ILIKE pattern.
import { type Sql, retryable } from '../../db/client.js';

interface PageQuery {
  cursor: string | null;
  limit: number;
}

export async function listCountries(sql: Sql, teamId: string, q: PageQuery & { name: string | null }) {
  return retryable(sql<{ id: string; name: string }[]>`
    SELECT co.id, co.name FROM countries co
    WHERE EXISTS (SELECT 1 FROM pois p WHERE p.team_id = ${teamId} AND p.country_id = co.id)
      AND (${q.name}::text IS NULL OR co.name ILIKE ${q.name})
      AND (${q.cursor}::uuid IS NULL OR co.id > ${q.cursor}::uuid)
    ORDER BY co.id LIMIT ${q.limit}`);
}

export async function listCities(sql: Sql, teamId: string, q: PageQuery & { name: string | null; country: string | null }) {
  return retryable(sql<{ id: string; name: string }[]>`
    SELECT ci.id, ci.name FROM cities ci
    WHERE EXISTS (SELECT 1 FROM pois p WHERE p.team_id = ${teamId} AND p.city_id = ci.id)
      AND (${q.name}::text IS NULL OR ci.name ILIKE ${q.name})
      AND (${q.country}::uuid IS NULL OR ci.country_id = ${q.country}::uuid)
      AND (${q.cursor}::uuid IS NULL OR ci.id > ${q.cursor}::uuid)
    ORDER BY ci.id LIMIT ${q.limit}`);
}

/** `city`: the zip codes of the team's POIs in that city. */
export async function listZipcodes(sql: Sql, teamId: string, q: PageQuery & { code: string | null; country: string | null; city: string | null }) {
  return retryable(sql<{ id: string; code: string }[]>`
    SELECT z.id, z.code FROM zipcodes z
    WHERE EXISTS (
        SELECT 1 FROM pois p WHERE p.team_id = ${teamId} AND p.zipcode_id = z.id
          AND (${q.city}::uuid IS NULL OR p.city_id = ${q.city}::uuid))
      AND (${q.code}::text IS NULL OR z.code ILIKE ${q.code})
      AND (${q.country}::uuid IS NULL OR z.country_id = ${q.country}::uuid)
      AND (${q.cursor}::uuid IS NULL OR z.id > ${q.cursor}::uuid)
    ORDER BY z.id LIMIT ${q.limit}`);
}
