import type { Sql } from '../db/client.js';
import { BatchLoader } from '../db/batch-loader.js';
import { timestamp } from '../ids.js';

export interface PoiRow {
  id: string;
  name: string;
  latitude: number;
  longitude: number;
  attributes: Record<string, string | number | boolean>;
  street: string | null;
  display_name: string | null;
  geocoded_at: Date | null;
  created_at: Date;
  updated_at: Date;
  category_id: string | null;
  category_name: string | null;
  category_created_at: Date | null;
  category_updated_at: Date | null;
  city_id: string | null;
  city_name: string | null;
  country_id: string | null;
  country_name: string | null;
  zipcode_id: string | null;
  zipcode_code: string | null;
  distance?: number;
}

/** Columns of the POI resource for alias `p`; attribute values come back keyed by attribute name. */
export const poiColumns = (sql: Sql) => sql`
  p.id, p.name, p.latitude, p.longitude, p.street, p.display_name, p.geocoded_at, p.created_at, p.updated_at,
  coalesce((SELECT jsonb_object_agg(a.name, e.value) FROM jsonb_each(p.attrs) e JOIN attributes a ON a.id = e.key AND a.team_id = p.team_id), '{}'::jsonb) AS attributes,
  c.id AS category_id, c.name AS category_name, c.created_at AS category_created_at, c.updated_at AS category_updated_at,
  ci.id AS city_id, ci.name AS city_name, co.id AS country_id, co.name AS country_name, z.id AS zipcode_id, z.code AS zipcode_code`;

export const poiJoins = (sql: Sql) => sql`
  LEFT JOIN categories c ON c.id = p.category_id
  LEFT JOIN cities ci ON ci.id = p.city_id
  LEFT JOIN countries co ON co.id = p.country_id
  LEFT JOIN zipcodes z ON z.id = p.zipcode_id`;

/** Reads POIs by (team, id) pairs in one query; the map is keyed `team id`. */
export async function fetchPois(sql: Sql, keys: Array<{ teamId: string; id: string }>): Promise<Map<string, PoiRow & { team_id: string }>> {
  const rows = await sql<Array<PoiRow & { team_id: string }>>`
    SELECT p.team_id, ${poiColumns(sql)}
    FROM unnest(${keys.map((k) => k.teamId)}::text[], ${keys.map((k) => k.id)}::text[]) AS k(team_id, id)
    JOIN pois p ON p.team_id = k.team_id AND p.id = k.id ${poiJoins(sql)}`;
  return new Map(rows.map((r) => [`${r.team_id} ${r.id}`, r]));
}

export function poiJson(r: PoiRow) {
  return {
    id: r.id,
    name: r.name,
    latitude: r.latitude,
    longitude: r.longitude,
    ...(r.distance !== undefined && r.distance !== null ? { distance: Math.round(r.distance * 100) / 100 } : {}),
    category: r.category_id
      ? { id: r.category_id, name: r.category_name, created_at: timestamp(r.category_created_at), updated_at: timestamp(r.category_updated_at) }
      : null,
    attributes: r.attributes ?? {},
    address: {
      display_name: r.display_name,
      street: r.street,
      city: r.city_id ? { id: r.city_id, name: r.city_name } : null,
      country: r.country_id ? { id: r.country_id, name: r.country_name } : null,
      zipcode: r.zipcode_id ? { id: r.zipcode_id, code: r.zipcode_code } : null,
      geocoded_at: timestamp(r.geocoded_at),
    },
    created_at: timestamp(r.created_at),
    updated_at: timestamp(r.updated_at),
  };
}

/** Takes `n` POI slots of the team's limit in one atomic row update; returns how many were granted. */
export async function reservePoiSlots(sql: Sql, teamId: string, n: number, limit: number | null): Promise<number> {
  const [row] = await sql<{ granted: number }[]>`
    WITH t AS (SELECT poi_count FROM teams WHERE id = ${teamId} FOR UPDATE),
    g AS (SELECT CASE WHEN ${limit}::int IS NULL THEN ${n}::int ELSE least(${n}::int, greatest(${limit}::int - t.poi_count, 0)) END AS granted FROM t)
    UPDATE teams SET poi_count = poi_count + g.granted FROM g WHERE id = ${teamId} RETURNING g.granted`;
  return row ? row.granted : 0;
}

/** Gives back slots after POIs are deleted (or a reservation was not used). */
export async function releasePoiSlots(sql: Sql, teamId: string, n: number): Promise<void> {
  if (n > 0) await sql`UPDATE teams SET poi_count = greatest(poi_count - ${n}, 0) WHERE id = ${teamId}`;
}

/** POI reads of the same event-loop turn, fetched together. */
export const poiLoader = (sql: Sql) =>
  new BatchLoader<{ teamId: string; id: string }, PoiRow>((keys) => fetchPois(sql, keys), (k) => `${k.teamId} ${k.id}`);
