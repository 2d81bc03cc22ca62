// GET /v1/pois by travel time: the team's POIs that a profile reaches from a point within a time and/or a
// road distance, fastest first (an extension beside the contract; docs/reachability.md).
import type { Sql } from '../../db/client.js';
import { unprocessable, type FieldErrors } from '../../http/errors.js';
import type { Query } from '../../http/query.js';
import { boxesAround } from '../../lib/geo/search-box.js';
import { isUlid } from '../../lib/ids.js';
import { PROFILES, type ProfileName } from '../../map/graphs/profiles.js';
import { topSpeed, travelTimePairs, WaypointTooFarError } from '../../engine/engine.js';
import { SNAP_LIMIT_M } from '../../engine/phantom.js';
import { engineHttpError, farMessage } from '../engine-errors.js';
import type { PoiFilter } from './filters.js';
import type { NearbyIndex } from './nearby-index.js';
import type { PoiReader } from './poi-reader.js';
import { poiPositionsInBoxes, type PoiPosition } from './positions.js';
import type { Positions } from './team-positions.js';

export const MAX_TRAVEL_TIME_S = 3600;
export const MAX_TRAVEL_DISTANCE_M = 100_000;
/** POIs measured at most in one list: beyond it the filters must narrow the selection. */
export const MAX_TRAVEL_CANDIDATES = 50_000;

export interface TravelQuery {
  profile: ProfileName;
  maxTime?: number;
  maxDistance?: number;
}

/** Whether the list is asked by travel time: any of its parameters is sent. */
export const asksTravel = (q: Query): boolean => ['profile', 'max_travel_time', 'max_travel_distance'].some((k) => q.get(k) !== undefined);

/** The travel parameters, problems at their fields; latitude and longitude are the filter's own. */
export function readTravel(q: Query, errors: FieldErrors): TravelQuery | null {
  const profile = q.get('profile') ?? 'driving-car';
  const number = (key: string, max: number, unit: string): number | undefined => {
    const v = q.get(key);
    if (v === undefined) return undefined;
    const n = Number(v);
    if (v.trim() === '' || !Number.isFinite(n) || n < 1 || n > max) errors[key] = [`must be a number of ${unit} from 1 to ${max}`];
    return n;
  };
  const maxTime = number('max_travel_time', MAX_TRAVEL_TIME_S, 'seconds');
  const maxDistance = number('max_travel_distance', MAX_TRAVEL_DISTANCE_M, 'meters');
  if (!PROFILES.includes(profile as ProfileName)) errors.profile = [`must be one of ${PROFILES.join(', ')}`];
  if (maxTime === undefined && maxDistance === undefined) errors.max_travel_time = ['is required (or max_travel_distance) with profile'];
  if (q.get('latitude') === undefined) errors.latitude ??= ['is required with max_travel_time or max_travel_distance'];
  if (q.get('longitude') === undefined) errors.longitude ??= ['is required with max_travel_time or max_travel_distance'];
  return Object.keys(errors).length ? null : { profile: profile as ProfileName, maxTime, maxDistance };
}

/** `limit` 1..100 (default 15) and the cursor of this order: `<tenths of a second>_<POI id>`. */
export function readTravelPage(q: Query, errors: FieldErrors): { limit: number; after: { tenths: number; id: string } | null } {
  const rawLimit = q.get('limit');
  let limit = 15;
  if (rawLimit !== undefined) {
    if (!/^\d+$/.test(rawLimit) || Number(rawLimit) < 1 || Number(rawLimit) > 100) errors.limit = ['must be an integer between 1 and 100'];
    else limit = Number(rawLimit);
  }
  const cursor = q.get('cursor');
  if (cursor === undefined) return { limit, after: null };
  const m = /^(\d{1,9})_(.{26})$/.exec(cursor);
  if (!m || !isUlid(m[2])) {
    errors.cursor = ['must be a cursor returned as next by a list by travel time'];
    return { limit, after: null };
  }
  return { limit, after: { tenths: Number(m[1]), id: m[2].toUpperCase() } };
}

function positionsOf(rows: PoiPosition[]): Positions {
  const latLon = new Float64Array(2 * rows.length);
  rows.forEach((r, i) => {
    latLon[2 * i] = r.latitude;
    latLon[2 * i + 1] = r.longitude;
  });
  return { ids: rows.map((r) => r.id), latLon };
}

/** The POI's JSON with its travel time and distance after its coordinates (as `distance` is placed). */
function withTravel(json: string, seconds: number, meters: number): string {
  const at = json.indexOf(',"category":');
  return `${json.slice(0, at)},"travel_time":${seconds},"travel_distance":${meters}${json.slice(at)}`;
}

/**
 * A page of the POIs matching `filter` that the profile reaches from `from`, fastest first (ties by id).
 * Candidates come from a straight-line bound (the profile's fastest way for the time, the distance
 * itself, each end up to the snapping limit off its road); each is then measured on the road network.
 */
export async function listByTravelTime(
  sql: Sql,
  reader: PoiReader,
  teamId: string,
  filter: PoiFilter,
  from: { latitude: number; longitude: number },
  travel: TravelQuery,
  page: { limit: number; after: { tenths: number; id: string } | null },
  /** The lister's in-process positions, usable when the filter selects by nothing but the bound. */
  nearby?: NearbyIndex,
): Promise<{ data: string[]; next: string | null }> {
  const bound = Math.min(
    travel.maxDistance ?? Infinity,
    travel.maxTime === undefined ? Infinity : travel.maxTime * topSpeed(travel.profile),
    filter.near?.distance ?? Infinity,
  );
  const radius = Math.min(bound + 2 * SNAP_LIMIT_M + 1, 20_000_000);
  const boxes = boxesAround(from.latitude, from.longitude, radius);
  // The boxes are a bound, not the answer: the index's box search may hold a few more POIs than SQL's.
  const held = nearby?.inBoxes(teamId, boxes);
  const candidates = held?.pois ?? positionsOf(await poiPositionsInBoxes(sql, teamId, filter, boxes));
  const n = candidates.ids.length;
  if (n > MAX_TRAVEL_CANDIDATES) {
    throw unprocessable({
      max_travel_time: [`reaches ${n} POIs within a straight-line bound; at most ${MAX_TRAVEL_CANDIDATES}. Narrow the filters.`],
    });
  }
  const times = await travelTimePairs({
    profile: travel.profile,
    source: { lat: from.latitude, lon: from.longitude },
    targets: candidates.latLon,
    maxDuration: travel.maxTime,
    maxDistance: travel.maxDistance,
  }).catch((err: unknown) => {
    if (err instanceof WaypointTooFarError) throw unprocessable({ latitude: [farMessage(travel.profile)], longitude: [farMessage(travel.profile)] });
    throw engineHttpError(err, travel.profile);
  });
  const ids = candidates.ids;
  const tenths = new Float64Array(n);
  const before = (a: number, b: number) => tenths[a] - tenths[b] || (ids[a] < ids[b] ? -1 : ids[a] > ids[b] ? 1 : 0);
  const after = page.after;
  // The page and one more: the first `take` reached after the cursor, kept in order as they are found
  // (a page is a few of thousands: no sort of them all).
  const take = page.limit + 1;
  const best: number[] = [];
  for (let i = 0; i < n; i++) {
    if (Number.isNaN(times[2 * i])) continue;
    tenths[i] = Math.round(times[2 * i] * 10);
    if (after && !(tenths[i] > after.tenths || (tenths[i] === after.tenths && ids[i] > after.id))) continue;
    if (best.length === take && before(i, best[take - 1]) >= 0) continue;
    let j = best.length === take ? take - 1 : best.length;
    while (j > 0 && before(i, best[j - 1]) < 0) {
      best[j] = best[j - 1];
      j--;
    }
    best[j] = i;
  }
  const rows = best.map((i) => ({ id: ids[i], tenths: tenths[i], meters: Math.round(times[2 * i + 1] * 10) / 10 }));
  const more = rows.length > page.limit;
  const shown = more ? rows.slice(0, page.limit) : rows;
  const read = shown.length
    ? await reader.read(
        teamId,
        shown.map((r) => r.id),
      )
    : undefined;
  // Positions of another version than the rows (POIs added, moved or removed since they were held), or
  // nothing to read the version by: the list is made again from the database.
  if (held && read?.version !== held.version) {
    nearby!.stale(teamId, held.version);
    return listByTravelTime(sql, reader, teamId, filter, from, travel, page);
  }
  const pois = read?.pois ?? new Map<string, string>();
  // A POI deleted between the two reads is left out.
  const data = shown.flatMap((r) => {
    const json = pois.get(r.id);
    return json === undefined ? [] : [withTravel(json, r.tenths / 10, r.meters)];
  });
  const last = shown[shown.length - 1];
  return { data, next: more ? `${last.tenths}_${last.id}` : null };
}
