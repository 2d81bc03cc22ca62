// Locations of the routing endpoints: `{latitude, longitude}` or `{poi_id}` (the POI's position).
import { z } from 'zod';
import type { Sql } from '../db/client.js';
import type { FieldErrors } from '../http/errors.js';
import { isUlid } from '../lib/ids.js';
import { poiPositionsById } from './pois/positions.js';

const LOCATION_FORMS = 'must be a location: {latitude, longitude} or {poi_id}';

const locationShape = {
  latitude: z.number({ error: 'must be a number between -90 and 90' }).min(-90, 'must be between -90 and 90').max(90, 'must be between -90 and 90').optional(),
  longitude: z
    .number({ error: 'must be a number between -180 and 180' })
    .min(-180, 'must be between -180 and 180')
    .max(180, 'must be between -180 and 180')
    .optional(),
  poi_id: z.string({ error: 'must be a POI id' }).optional(),
};

/** Exactly one form; a missing half of a coordinate pair is reported on the missing field. */
function oneForm(loc: { latitude?: number; longitude?: number; poi_id?: string }, ctx: z.RefinementCtx): void {
  const hasLat = loc.latitude !== undefined,
    hasLon = loc.longitude !== undefined;
  if (loc.poi_id !== undefined) {
    if (hasLat || hasLon) ctx.addIssue({ code: 'custom', message: 'give either latitude and longitude or poi_id, not both' });
  } else if (!hasLat && !hasLon) ctx.addIssue({ code: 'custom', message: LOCATION_FORMS });
  else if (!hasLat) ctx.addIssue({ code: 'custom', path: ['latitude'], message: 'is required with longitude' });
  else if (!hasLon) ctx.addIssue({ code: 'custom', path: ['longitude'], message: 'is required with latitude' });
}

export const locationSchema = z
  .strictObject(locationShape, { error: LOCATION_FORMS })
  .superRefine(oneForm)
  .describe("A location: `{latitude, longitude}`, or `{poi_id}` for the position of one of the team's POIs.");

/** A location with fields of its own beside it (a route's waypoint options), checked like `locationSchema`. */
export const locationWith = <T extends z.ZodRawShape>(more: T, error = LOCATION_FORMS) =>
  z.strictObject({ ...locationShape, ...more }, { error }).superRefine((loc, ctx) => oneForm(loc as Parameters<typeof oneForm>[0], ctx));

export type LocationInput = z.infer<typeof locationSchema>;

export interface ResolvedLocation {
  poiId: string | null;
  latitude: number;
  longitude: number;
}

/** Whether a raw (unvalidated) list of locations names a POI: such requests need `read-pois`. */
export function namesPoi(raw: unknown): boolean {
  return Array.isArray(raw) && raw.some((l) => l !== null && typeof l === 'object' && 'poi_id' in l);
}

/** Positions of validated locations; POI ids the team does not have are reported at `<field>.<i>.poi_id`.
 *  Returns null when any is unknown (the errors say which). */
export async function resolveLocations(
  sql: Sql,
  teamId: string,
  locations: LocationInput[],
  field: string,
  errors: FieldErrors,
): Promise<ResolvedLocation[] | null> {
  const each = await resolveEach(sql, teamId, locations, field, errors);
  return each.every((l) => l !== null) ? (each as ResolvedLocation[]) : null;
}

/** `resolveLocations` one by one: null for an unknown POI id (reported) and for an undefined location
 *  (one that is not valid, left to the body's own errors), the positions of the others. */
export async function resolveEach(
  sql: Sql,
  teamId: string,
  locations: ReadonlyArray<LocationInput | undefined>,
  field: string,
  errors: FieldErrors,
): Promise<Array<ResolvedLocation | null>> {
  const ids = [...new Set(locations.flatMap((l) => (l?.poi_id !== undefined && isUlid(l.poi_id) ? [l.poi_id.toUpperCase()] : [])))];
  const rows = ids.length ? await poiPositionsById(sql, teamId, ids) : [];
  const byId = new Map(rows.map((r) => [r.id, r]));
  return locations.map((l, i): ResolvedLocation | null => {
    if (l === undefined) return null;
    if (l.poi_id === undefined) return { poiId: null, latitude: l.latitude!, longitude: l.longitude! };
    const poi = isUlid(l.poi_id) ? byId.get(l.poi_id.toUpperCase()) : undefined;
    if (!poi) {
      (errors[`${field}.${i}.poi_id`] ??= []).push('is not a POI of this team');
      return null;
    }
    return { poiId: poi.id, latitude: poi.latitude, longitude: poi.longitude };
  });
}

/** The POI references of a raw (unvalidated) list, so that unknown ids are reported alongside the body's
 *  other problems; anything else becomes a placeholder that is never looked up. */
export function rawPoiRefs(raw: unknown): LocationInput[] {
  if (!Array.isArray(raw)) return [];
  return raw.map((l) => {
    const { poi_id: id, latitude, longitude } = (l !== null && typeof l === 'object' ? l : {}) as Record<string, unknown>;
    // A location of both forms is already wrong as a whole: its id is not looked up on top.
    return typeof id === 'string' && latitude === undefined && longitude === undefined ? { poi_id: id } : { latitude: 0, longitude: 0 };
  });
}

/** A raw (unvalidated) location as far as it is usable on its own: a POI reference (as `rawPoiRefs`
 *  takes it) or coordinates in range; undefined otherwise. Other fields beside it (a stop's `id`,
 *  `service`) are not looked at: their problems are theirs, the location's position still counts. */
export function rawLocation(raw: unknown): LocationInput | undefined {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return undefined;
  const { poi_id: id, latitude: lat, longitude: lon } = raw as Record<string, unknown>;
  if (id !== undefined) return typeof id === 'string' && lat === undefined && lon === undefined ? { poi_id: id } : undefined;
  const inRange = (v: unknown, max: number): v is number => typeof v === 'number' && Number.isFinite(v) && v >= -max && v <= max;
  return inRange(lat, 90) && inRange(lon, 180) ? { latitude: lat, longitude: lon } : undefined;
}

/** A list's locations for the POI look-ups of a 422: the validated ones, else each raw one as far as it is
 *  usable (`rawLocation`), at most `max` of them (a list over its limit is looked up no further). */
export function locationsOf(parsed: LocationInput[] | undefined, raw: unknown, max = Infinity): Array<LocationInput | undefined> {
  return parsed ?? (Array.isArray(raw) ? raw.slice(0, max).map(rawLocation) : []);
}
