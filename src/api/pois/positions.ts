// What the routing services read of the team's POIs: positions by id and by filter (waypoints and stops
// named by POI id, POI selections to cluster or avoid). The module other folders use; the resource's
// own SQL (lists, reads, writes) is store.ts.
import { type Sql, retryable } from '../../db/client.js';
import type { Box } from '../../lib/geo/search-box.js';
import { insideBox, poiFilterSql, type PoiFilter } from './filters.js';

export interface PoiPosition {
  id: string;
  latitude: number;
  longitude: number;
}

/** The positions of the POIs among `ids` (ULIDs in upper case) that the team has. */
export async function poiPositionsById(sql: Sql, teamId: string, ids: string[]): Promise<PoiPosition[]> {
  return retryable(sql<PoiPosition[]>`SELECT id, latitude, longitude FROM pois WHERE team_id = ${teamId} AND id = ANY(${ids}::text[])`);
}

/** The ids among `ids` (ULIDs in upper case) that are the team's POIs. */
export async function knownPoiIds(sql: Sql, teamId: string, ids: string[]): Promise<Set<string>> {
  const rows = await retryable(sql<Array<{ id: string }>>`SELECT id FROM pois WHERE team_id = ${teamId} AND id = ANY(${ids}::text[])`);
  return new Set(rows.map((r) => r.id));
}

/** The first `limit` POIs matching the filter, by id. */
export async function poiPositionsMatching(sql: Sql, teamId: string, filter: PoiFilter, limit: number): Promise<PoiPosition[]> {
  return retryable(sql<PoiPosition[]>`
    SELECT p.id, p.latitude, p.longitude FROM pois p
    WHERE ${poiFilterSql(sql, teamId, filter)}
    ORDER BY p.id LIMIT ${limit}`);
}

/** The first `limit` POIs matching the filter inside `box`, by id. */
export async function poiPositionsInBox(sql: Sql, teamId: string, filter: PoiFilter, box: Box, limit: number): Promise<PoiPosition[]> {
  return retryable(sql<PoiPosition[]>`
    SELECT p.id, p.latitude, p.longitude FROM pois p
    WHERE ${poiFilterSql(sql, teamId, filter)} AND ${insideBox(sql, box)}
    ORDER BY p.id LIMIT ${limit}`);
}

/** The POIs matching the filter inside any of `boxes` (at least one), by id. */
export async function poiPositionsInBoxes(sql: Sql, teamId: string, filter: PoiFilter, boxes: Box[]): Promise<PoiPosition[]> {
  const inside = boxes.map((b) => insideBox(sql, b));
  return retryable(sql<PoiPosition[]>`
    SELECT p.id, p.latitude, p.longitude FROM pois p
    WHERE ${poiFilterSql(sql, teamId, filter)} AND (${inside.reduce((acc, b) => sql`${acc} OR ${b}`)})
    ORDER BY p.id`);
}

export interface PoiWithValues extends PoiPosition {
  /** The values of the asked attributes the POI has, by attribute id. */
  values: Record<string, unknown>;
}

/** The first `limit` POIs matching the filter, by id, with the values of the attributes `attributeIds`. */
export async function poiValuesMatching(sql: Sql, teamId: string, filter: PoiFilter, attributeIds: string[], limit: number): Promise<PoiWithValues[]> {
  return retryable(sql<PoiWithValues[]>`
    SELECT p.id, p.latitude, p.longitude,
      coalesce((SELECT jsonb_object_agg(k, p.attrs -> k) FROM unnest(${attributeIds}::text[]) k WHERE p.attrs ? k), '{}'::jsonb) AS values
    FROM pois p
    WHERE ${poiFilterSql(sql, teamId, filter)}
    ORDER BY p.id LIMIT ${limit}`);
}
