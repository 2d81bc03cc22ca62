// The POIs resource's SQL: the resource's JSON built in the query, reads by id with the team's counters,
// the list's pages, and every write.
import { reservePoiSlots } from '../../auth/plans.js';
import { type Sql, retryable } from '../../db/client.js';
import { distanceSql, poiFilterSql, type PoiFilter } from './filters.js';
import type { AttributeValue } from './values.js';

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
const ts = (column: string) => `coalesce(to_json(to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"000Z"')), 'null')`;
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
  const rows = await retryable(
    sql<Array<{ team_id: string; version: string | null; id: string | null; json: string }>>`${countersSql}${
      keys.length === 0
        ? sql``
        : sql`
    UNION ALL
    SELECT p.team_id, NULL::text, ${poiJsonColumns(sql)}
    FROM unnest(${keys.map((k) => k.teamId)}::text[], ${keys.map((k) => k.id)}::text[]) AS k(team_id, id)
    JOIN pois p ON p.team_id = k.team_id AND p.id = k.id ${poiJoins(sql)}`
    }`,
  );
  const counters = new Map<string, PoiCounters>();
  const pois: Array<{ teamId: string; id: string; json: string }> = [];
  for (const r of rows) {
    if (r.id === null) counters.set(r.team_id, { version: r.version!, content: r.json });
    else pois.push({ teamId: r.team_id, id: r.id, json: r.json });
  }
  return { counters, pois };
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

/** A page of the list: the rows after `cursor` and one more (it tells whether another page follows). */
export async function listPois(sql: Sql, teamId: string, filter: PoiFilter, page: { cursor: string | null; limit: number }): Promise<PoiJsonRow[]> {
  const near = filter.near;
  const distance = near ? sql`, ${distanceSql(sql, near)} AS distance` : sql``;
  // The page is chosen first, so the joins and the attribute names are built for its rows only.
  return retryable(sql<PoiJsonRow[]>`
    WITH page AS (
      SELECT p.id ${distance} FROM pois p
      WHERE ${poiFilterSql(sql, teamId, filter)} AND (${page.cursor}::text IS NULL OR p.id > ${page.cursor})
      ORDER BY p.id LIMIT ${page.limit + 1})
    SELECT ${poiJsonColumns(sql, near ? 'page.distance' : undefined)}
    FROM page JOIN pois p ON p.id = page.id ${poiJoins(sql)}
    ORDER BY p.id`);
}

/** Whether `id` (a ULID in upper case) is one of the team's categories, which a POI may name. */
export async function isTeamCategory(sql: Sql, teamId: string, id: string): Promise<boolean> {
  const rows = await retryable(sql`SELECT 1 FROM categories WHERE team_id = ${teamId} AND id = ${id}`);
  return rows.length > 0;
}

export interface NewPoi {
  id: string;
  name: string;
  latitude: number;
  longitude: number;
  /** Upper case, or null. */
  categoryId: string | null;
  /** Attribute values by attribute id. */
  attrs: Record<string, AttributeValue>;
}

const NO_SLOT = new Error('no POI slot left');

/** A POI's JSON as the API shows it, read in transaction `tx` (a write's answer, before its commit). */
async function poiJsonIn(tx: Sql, teamId: string, id: string): Promise<string> {
  const [row] = await tx<Array<{ json: string }>>`SELECT ${poiJsonColumns(tx)} FROM pois p ${poiJoins(tx)} WHERE p.team_id = ${teamId} AND p.id = ${id}`;
  return row.json;
}

/**
 * Stores a new POI in a slot of the team's (`limit`: its most POIs, null for no limit) and returns its JSON as
 * the API shows it; null, with nothing written, when no slot is left. A category deleted since it was
 * checked fails with the foreign key violation.
 */
export async function createPoi(sql: Sql, teamId: string, limit: number | null, poi: NewPoi): Promise<string | null> {
  try {
    return await sql.begin(async (tx) => {
      if ((await reservePoiSlots(tx as unknown as Sql, teamId, 1, limit)) === 0) throw NO_SLOT;
      await tx`
        INSERT INTO pois (id, team_id, name, latitude, longitude, category_id, attrs)
        VALUES (${poi.id}, ${teamId}, ${poi.name}, ${poi.latitude}, ${poi.longitude}, ${poi.categoryId}, ${tx.json(poi.attrs)})`;
      // Read before the commit: the background geocoder cannot have filled the address yet (the contract's
      // state at creation is an empty address, always; read after the commit, a geocoder awake for the POI
      // before sometimes had).
      return poiJsonIn(tx as unknown as Sql, teamId, poi.id);
    });
  } catch (err) {
    if (err === NO_SLOT) return null;
    throw err;
  }
}

/** A PUT's changes: the fields left undefined keep their value; `categoryId` null clears the category. */
export interface PoiChanges {
  name?: string;
  latitude?: number;
  longitude?: number;
  /** Upper case, null, or undefined to keep it. */
  categoryId?: string | null;
  /** Attribute values set, by attribute id. */
  set: Record<string, AttributeValue>;
  /** Attribute ids whose values are removed. */
  remove: string[];
}

/**
 * Applies a PUT. Returns whether the POI moved (a move empties its address and marks it for geocoding; a
 * rename does not) and its JSON as the API shows it, read before the commit (so a move's answer shows the
 * address empty, whatever the background geocoder does next), or undefined when it does not exist. The row
 * is locked while the new values are worked out from it, so that a concurrent PUT cannot undo this one's
 * changes with values read before it.
 */
export async function updatePoi(sql: Sql, teamId: string, id: string, changes: PoiChanges): Promise<{ moved: boolean; json: string } | undefined> {
  return sql.begin(async (tx) => {
    const [row] = await tx<Array<{ name: string; latitude: number; longitude: number; category_id: string | null }>>`
      SELECT name, latitude, longitude, category_id FROM pois WHERE team_id = ${teamId} AND id = ${id} FOR UPDATE`;
    if (!row) return undefined;
    const lat = changes.latitude ?? row.latitude;
    const lon = changes.longitude ?? row.longitude;
    const moved = lat !== row.latitude || lon !== row.longitude;
    const category = changes.categoryId === undefined ? row.category_id : changes.categoryId;
    await tx`
      UPDATE pois SET
        name = ${changes.name ?? row.name}, latitude = ${lat}, longitude = ${lon}, category_id = ${category},
        attrs = (attrs || ${tx.json(changes.set)}::jsonb) - ${changes.remove}::text[],
        street = CASE WHEN ${moved} THEN NULL ELSE street END,
        display_name = CASE WHEN ${moved} THEN NULL ELSE display_name END,
        city_id = CASE WHEN ${moved} THEN NULL ELSE city_id END,
        country_id = CASE WHEN ${moved} THEN NULL ELSE country_id END,
        zipcode_id = CASE WHEN ${moved} THEN NULL ELSE zipcode_id END,
        geocoded_at = CASE WHEN ${moved} THEN NULL ELSE geocoded_at END,
        geocode_pending = geocode_pending OR ${moved},
        geocode_lease_until = CASE WHEN ${moved} THEN NULL ELSE geocode_lease_until END,
        geocode_attempts = CASE WHEN ${moved} THEN 0 ELSE geocode_attempts END,
        updated_at = now()
      WHERE team_id = ${teamId} AND id = ${id}`;
    return { moved, json: await poiJsonIn(tx as unknown as Sql, teamId, id) };
  }) as Promise<{ moved: boolean; json: string } | undefined>;
}

/**
 * The team's POI positions ([id, latitude, longitude] in id order) and its positions' version, read in one
 * snapshot; undefined past `max` POIs.
 */
export async function teamPositionRows(sql: Sql, teamId: string, max: number): Promise<{ rows: Array<[string, number, number]>; version: string } | undefined> {
  return sql.begin('ISOLATION LEVEL REPEATABLE READ READ ONLY', async (tx) => {
    const [{ version }] = await tx<Array<{ version: string }>>`
      SELECT coalesce((SELECT version FROM poi_versions WHERE team_id = ${teamId}), 0)::text AS version`;
    const rows = (await tx`
      SELECT id, latitude, longitude FROM pois WHERE team_id = ${teamId} ORDER BY id LIMIT ${max + 1}`.values()) as unknown as Array<[string, number, number]>;
    return rows.length > max ? undefined : { rows, version };
  }) as Promise<{ rows: Array<[string, number, number]>; version: string } | undefined>;
}
