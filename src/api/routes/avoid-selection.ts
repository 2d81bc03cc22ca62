// Which of the team's POIs a route avoids: the filter, inside the selection box, minus the POIs too close
// to a waypoint (skipped). Rules 1, 3 and 4 of POST /v1/routes.
import type { Sql } from '../../db/client.js';
import { invalid } from '../../http/errors.js';
import { boxesAround, type Box } from '../../lib/geo/search-box.js';
import type { PoiFilter } from '../pois/filters.js';
import { poiPositionsInBox, poiPositionsInBoxes } from '../pois/positions.js';
import { avoidSelectionBox, withinRadiusOfAny, type Position } from '../../engine/avoid-area.js';
import { SNAP_LIMIT_M } from '../../engine/phantom.js';

export const MAX_AVOIDED_POIS = 500;

export interface AvoidPoi extends Position {
  id: string;
}

export type AvoidSelection = { tooMany: false; avoided: AvoidPoi[]; skipped: string[] } | { tooMany: true };

/**
 * The avoidance's reads once on each of `connections` database sessions at the same time, for a team
 * that has no POIs, and rows of their shape: a new session's first read of `pois` (its catalog caches filled, the statements
 * planned) made a fresh process's first two avoiding routes 90–98 ms against a median of 8 on the 10x10
 * country, each meeting another connection of the pool. Run before the server listens (app.ts).
 */
export async function warmAvoidanceReads(sql: Sql, connections: number): Promise<void> {
  const filter: PoiFilter = { attributes: [], categoryId: 'none' };
  const at = { latitude: 0, longitude: 0 };
  await Promise.all(
    Array.from({ length: connections }, async (_, i) => {
      const team = `warm-up-${i}`;
      await poisAround(sql, team, filter, [at], 100);
      await poiPositionsInBox(sql, team, filter, avoidSelectionBox([at]), 1);
      // Rows of the POI reads' shape, as many as an avoiding route reads: a team with no POIs reads none,
      // and the driver's parsing of rows was otherwise compiled during a fresh process's first avoiding
      // route (V8's trace: DataRow and its number and text readers).
      for (let round = 0; round < 3; round++) await warmRows(sql);
    }),
  );
}

const warmRows = (sql: Sql) =>
  sql`SELECT lpad(n::text, 26, '0') AS id, n * 1e-4::float8 AS latitude, n * 2e-4::float8 AS longitude FROM generate_series(1, ${MAX_AVOIDED_POIS * 2}::int) n`;

/** Candidates within `meters` of any point (index boxes only; the caller measures exactly). */
async function poisAround(sql: Sql, teamId: string, filter: PoiFilter, points: readonly Position[], meters: number): Promise<AvoidPoi[]> {
  return poiPositionsInBoxes(
    sql,
    teamId,
    filter,
    points.flatMap((p) => boxesAround(p.latitude, p.longitude, meters)),
  );
}

const inBox = (p: Position, b: Box) => p.latitude >= b.south && p.latitude <= b.north && p.longitude >= b.west && p.longitude <= b.east;

/**
 * Selects the POIs to avoid around the waypoints. POIs within `radius` of a waypoint are skipped; so are
 * those within `radius` of where a waypoint lands on the road (`snapped`, asked for only when some POI is
 * close enough to matter): a circle around the route's own start or end would make every route impossible.
 */
export async function selectAvoidance(
  sql: Sql,
  teamId: string,
  filter: PoiFilter,
  waypoints: readonly Position[],
  radius: number,
  snapped: () => Promise<readonly Position[]>,
): Promise<AvoidSelection> {
  const box = avoidSelectionBox(waypoints);
  // A waypoint lands at most SNAP_LIMIT_M from where it was asked (+1 m: the snapper measures on its own plane).
  const near = (await poisAround(sql, teamId, filter, waypoints, radius + SNAP_LIMIT_M + 1)).filter((p) => inBox(p, box));
  let skipPoints: readonly Position[] = waypoints;
  if (near.some((p) => !withinRadiusOfAny(p, waypoints, radius))) skipPoints = [...waypoints, ...(await snapped())];
  const skipped = new Set(near.filter((p) => withinRadiusOfAny(p, skipPoints, radius)).map((p) => p.id));
  // Skipped POIs are inside the box too, so this many rows hold more than the maximum exactly when it is exceeded.
  const rows = await poiPositionsInBox(sql, teamId, filter, box, MAX_AVOIDED_POIS + 1 + skipped.size);
  const avoided = rows.filter((p) => !skipped.has(p.id));
  if (avoided.length > MAX_AVOIDED_POIS) return { tooMany: true };
  return { tooMany: false, avoided, skipped: [...skipped].sort() };
}

/**
 * The circles a request without a route to place them (a matrix, isochrones) keeps out of: the POIs
 * selected around its locations, skipping those within `radius` of a location as sent. 422 at `avoid`
 * over the maximum.
 */
export async function circlesAround(
  sql: Sql,
  teamId: string,
  filter: PoiFilter,
  locations: readonly Position[],
  radius: number,
): Promise<{ circles: Array<{ lat: number; lon: number; radius: number }>; avoided: AvoidPoi[] }> {
  const selection = await selectAvoidance(sql, teamId, filter, locations, radius, async () => locations);
  if (selection.tooMany) {
    throw invalid('avoid', `selects more than ${MAX_AVOIDED_POIS} POIs around the locations; at most ${MAX_AVOIDED_POIS} can be avoided. Narrow the filters.`);
  }
  return { circles: selection.avoided.map((p) => ({ lat: p.latitude, lon: p.longitude, radius })), avoided: selection.avoided };
}
