import type { Sql } from '../db/client.js';
import { BatchLoader } from '../db/batch-loader.js';

/** A POI as the API shows it: `json` is the resource, serialised by the database. */
export interface PoiJsonRow {
  id: string;
  json: string;
}

// The resource is built as JSON text in the query, so that a read costs this process no row objects,
// date parsing or serialising: the text goes into the reply as it is (RawJson). The fragments below
// are the only definition of a POI's shape. Timestamps keep milliseconds, like every other resource's
// (the driver's dates carry no more). Attribute names are looked up by primary key for the POI's own
// keys: joined with jsonb_each, the planner hashed the team's attributes for every row (14 POIs with five
// values each: 430 → 330 µs of database CPU; without values, skipped: 230 → 190 µs).
const ts = (column: string) =>
  `coalesce(to_json(to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"000Z"')), 'null')`;
const str = (column: string) => `coalesce(to_json(${column})::text, 'null')`;
const place = (alias: string, field: 'name' | 'code') =>
  `CASE WHEN ${alias}.id IS NULL THEN 'null' ELSE '{"id":' || to_json(${alias}.id) || ',"${field}":' || to_json(${alias}.${field}) || '}' END`;

const POI_JSON = `'{"id":' || to_json(p.id) || ',"name":' || to_json(p.name)
  || ',"latitude":' || p.latitude || ',"longitude":' || p.longitude
  || DISTANCE
  || ',"category":' || CASE WHEN c.id IS NULL THEN 'null' ELSE
       '{"id":' || to_json(c.id) || ',"name":' || to_json(c.name)
       || ',"created_at":' || ${ts('c.created_at')} || ',"updated_at":' || ${ts('c.updated_at')} || '}' END
  || ',"attributes":' || CASE WHEN p.attrs = '{}' THEN '{}' ELSE coalesce((
       SELECT '{' || string_agg(to_json(a.name)::text || ':' || (p.attrs -> a.id)::text, ',' ORDER BY a.name) || '}'
       FROM attributes a WHERE a.id = ANY(ARRAY(SELECT jsonb_object_keys(p.attrs))) AND a.team_id = p.team_id), '{}') END
  || ',"address":{"display_name":' || ${str('p.display_name')} || ',"street":' || ${str('p.street')}
  || ',"city":' || ${place('ci', 'name')} || ',"country":' || ${place('co', 'name')} || ',"zipcode":' || ${place('z', 'code')}
  || ',"geocoded_at":' || ${ts('p.geocoded_at')} || '}'
  || ',"created_at":' || ${ts('p.created_at')} || ',"updated_at":' || ${ts('p.updated_at')} || '}'`;

const POI_JOINS = `
  LEFT JOIN categories c ON c.id = p.category_id
  LEFT JOIN cities ci ON ci.id = p.city_id
  LEFT JOIN countries co ON co.id = p.country_id
  LEFT JOIN zipcodes z ON z.id = p.zipcode_id`;

/** `p.id, … AS json` for alias `p`, with `distance` (meters, to the centimetre) when a column of that name is given. */
export const poiJsonColumns = (sql: Sql, distanceColumn?: string) =>
  sql.unsafe(`p.id, ${POI_JSON.replace('DISTANCE', distanceColumn ? `',"distance":' || round(${distanceColumn} * 100) / 100` : `''`)} AS json`);

/** The joins `poiJsonColumns` reads from. */
export const poiJoins = (sql: Sql) => sql.unsafe(POI_JOINS);

/** Reads POIs by (team, id) pairs in one query; the map is keyed `team id`. */
export async function fetchPois(sql: Sql, keys: Array<{ teamId: string; id: string }>): Promise<Map<string, PoiJsonRow>> {
  const rows = await sql<Array<PoiJsonRow & { team_id: string }>>`
    SELECT p.team_id, ${poiJsonColumns(sql)}
    FROM unnest(${keys.map((k) => k.teamId)}::text[], ${keys.map((k) => k.id)}::text[]) AS k(team_id, id)
    JOIN pois p ON p.team_id = k.team_id AND p.id = k.id ${poiJoins(sql)}`;
  return new Map(rows.map((r) => [`${r.team_id} ${r.id}`, r]));
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
  new BatchLoader<{ teamId: string; id: string }, PoiJsonRow>((keys) => fetchPois(sql, keys), (k) => `${k.teamId} ${k.id}`);

/** Rows of a distance list page chosen by the in-process index, with the team's POI version read in
 *  the same statement (so in the same snapshot). */
export interface NearbyPage {
  version: string;
  rows: Map<string, PoiJsonRow>;
}

/** Reads several distance list pages in one statement; the map is keyed by each request's `n`. */
export async function fetchNearbyPages(
  sql: Sql,
  requests: Array<{ n: number; teamId: string; ids: string[]; near: { latitude: number; longitude: number } }>,
): Promise<Map<string, NearbyPage>> {
  const [ord, team, id, lat, lon]: [number[], string[], Array<string | null>, number[], number[]] = [[], [], [], [], []];
  for (const r of requests) {
    // An empty page still reads its version, through a key without an id.
    for (const poi of r.ids.length ? r.ids : [null]) {
      ord.push(r.n);
      team.push(r.teamId);
      id.push(poi);
      lat.push(r.near.latitude);
      lon.push(r.near.longitude);
    }
  }
  // The distance is the SQL list's own expression, so both paths print the same figures.
  const rows = await sql<Array<PoiJsonRow & { ord: number; version: string }>>`
    SELECT k.ord, coalesce(v.version, 0)::text AS version, ${poiJsonColumns(sql, 'great_circle_m(k.lat, k.lon, p.location[1], p.location[0])')}
    FROM unnest(${ord}::int[], ${team}::text[], ${id}::text[], ${lat}::float8[], ${lon}::float8[]) AS k(ord, team_id, id, lat, lon)
    LEFT JOIN poi_versions v ON v.team_id = k.team_id
    LEFT JOIN pois p ON p.team_id = k.team_id AND p.id = k.id ${poiJoins(sql)}`;
  const pages = new Map<string, NearbyPage>();
  for (const row of rows) {
    const key = String(row.ord);
    let page = pages.get(key);
    if (!page) pages.set(key, (page = { version: row.version, rows: new Map() }));
    if (row.id !== null) page.rows.set(row.id, { id: row.id, json: row.json });
  }
  return pages;
}
