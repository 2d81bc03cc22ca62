import type { Sql } from '../db/client.js';

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

/** A team's counters (migration 013): `version` moves with its POIs' positions, `content` with anything they show. */
export interface PoiCounters {
  version: string;
  content: string;
}

/** The counters of `teams` and the JSON of the POIs `keys` name (those that exist), read in one
 *  statement, so both are of one snapshot. */
export async function fetchPoisWithCounters(sql: Sql, teams: string[], keys: Array<{ teamId: string; id: string }>) {
  const countersSql = sql`
    SELECT t.team_id, coalesce(v.version, 0)::text AS version, NULL::text AS id, coalesce(v.content, 0)::text AS json
    FROM unnest(${teams}::text[]) AS t(team_id) LEFT JOIN poi_versions v ON v.team_id = t.team_id`;
  // Everything asked is held: the counters alone, a cheaper statement than the union with no keys.
  const rows = await sql<Array<{ team_id: string; version: string | null; id: string | null; json: string }>>`${countersSql}${keys.length === 0 ? sql`` : sql`
    UNION ALL
    SELECT p.team_id, NULL::text, ${poiJsonColumns(sql)}
    FROM unnest(${keys.map((k) => k.teamId)}::text[], ${keys.map((k) => k.id)}::text[]) AS k(team_id, id)
    JOIN pois p ON p.team_id = k.team_id AND p.id = k.id ${poiJoins(sql)}`}`;
  const counters = new Map<string, PoiCounters>();
  const pois: Array<{ teamId: string; id: string; json: string }> = [];
  for (const r of rows) {
    if (r.id === null) counters.set(r.team_id, { version: r.version!, content: r.json });
    else pois.push({ teamId: r.team_id, id: r.id, json: r.json });
  }
  return { counters, pois };
}

/** Takes `n` POI slots of the team's limit in one atomic row update; returns how many were granted. */
export async function reservePoiSlots(sql: Sql, teamId: string, n: number, limit: number | null): Promise<number> {
  const [row] = await sql<{ granted: number }[]>`
    WITH t AS (SELECT poi_count FROM teams WHERE id = ${teamId} FOR UPDATE),
    g AS (SELECT CASE WHEN ${limit}::int IS NULL THEN ${n}::int ELSE least(${n}::int, greatest(${limit}::int - t.poi_count, 0)) END AS granted FROM t)
    UPDATE teams SET poi_count = poi_count + g.granted FROM g WHERE id = ${teamId} RETURNING g.granted`;
  return row ? row.granted : 0;
}

/**
 * Deletes a POI and gives its slot back. The team's row is locked first, as creating a POI does
 * (reservePoiSlots, then the insert whose trigger bumps the team's poi_versions row): taken the other
 * way round, a delete and a create of one team deadlock. Whether it was there.
 */
export async function deletePoi(sql: Sql, teamId: string, id: string): Promise<boolean> {
  return sql.begin(async (tx) => {
    await tx`SELECT 1 FROM teams WHERE id = ${teamId} FOR UPDATE`;
    const rows = await tx`DELETE FROM pois WHERE team_id = ${teamId} AND id = ${id} RETURNING id`;
    if (rows.length) await tx`UPDATE teams SET poi_count = greatest(poi_count - ${rows.length}, 0) WHERE id = ${teamId}`;
    return rows.length > 0;
  }) as Promise<boolean>;
}
