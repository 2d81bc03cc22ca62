// What the geographic search reads of the team's POIs: those whose name holds every word of the query,
// or whose category's name holds the query, with their address. The module other folders use; the
// resource's own SQL is store.ts.
import { type Sql, retryable } from '../../db/client.js';
import type { AddressResource } from '../../geocoding/address.js';
import { foldedContains } from '../../db/like.js';

export interface PoiMatch {
  id: string;
  name: string;
  latitude: number;
  longitude: number;
  category: string | null;
  /** Matched by its category's name only. */
  byCategory: boolean;
  address: AddressResource;
}

interface Row {
  id: string;
  name: string;
  latitude: number;
  longitude: number;
  category: string | null;
  by_name: boolean;
  display_name: string | null;
  street: string | null;
  city_id: string | null;
  city: string | null;
  country_id: string | null;
  country: string | null;
  zipcode_id: string | null;
  zipcode: string | null;
  geocoded_at: Date | null;
}

/** Up to `limit` of the team's POIs matching `words` (folded like the index's) by name, else `text` by category name. */
export async function poisByName(sql: Sql, teamId: string, text: string, words: string[], limit: number): Promise<PoiMatch[]> {
  if (words.length === 0) return [];
  const byName = words.map((w) => foldedContains(sql, sql`p.name`, w)).reduce((acc, part) => sql`${acc} AND ${part}`);
  const rows = await retryable(sql<Row[]>`
    SELECT p.id, p.name, p.latitude, p.longitude, c.name AS category, (${byName}) AS by_name,
           p.display_name, p.street, ci.id AS city_id, ci.name AS city, co.id AS country_id, co.name AS country,
           z.id AS zipcode_id, z.code AS zipcode, p.geocoded_at
    FROM pois p
    LEFT JOIN categories c ON c.id = p.category_id
    LEFT JOIN cities ci ON ci.id = p.city_id
    LEFT JOIN countries co ON co.id = p.country_id
    LEFT JOIN zipcodes z ON z.id = p.zipcode_id
    WHERE p.team_id = ${teamId} AND ((${byName}) OR (c.id IS NOT NULL AND ${foldedContains(sql, sql`c.name`, text)}))
    ORDER BY (${byName}) DESC, p.id
    LIMIT ${limit}`);
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    latitude: r.latitude,
    longitude: r.longitude,
    category: r.category,
    byCategory: !r.by_name,
    address: {
      display_name: r.display_name,
      street: r.street,
      city: r.city_id === null ? null : { id: r.city_id, name: r.city! },
      country: r.country_id === null ? null : { id: r.country_id, name: r.country! },
      zipcode: r.zipcode_id === null ? null : { id: r.zipcode_id, code: r.zipcode! },
      geocoded_at: r.geocoded_at === null ? null : r.geocoded_at.toISOString().replace('Z', '000Z'),
    },
  }));
}
