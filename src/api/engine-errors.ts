// Engine failures as the HTTP answers of the spec (service-spec.md "Errors", DECISIONS.md "Routing").
import { PoolBusyError } from '../compute/pool.js';
import { HttpError, invalid, serviceUnavailable, unprocessable, type FieldErrors } from '../http/errors.js';
import { PROFILES } from '../map/graphs/profiles.js';
import {
  farFromRoad,
  loadedProfiles,
  MapNotLoadedError,
  NoRouteError,
  UnknownProfileError,
  WaypointTooFarError,
  type ProfileName,
  type WaypointOption,
} from '../engine/engine.js';
import type { ResolvedLocation } from './locations.js';
import { backgroundError } from '../lib/background-errors.js';

export const farMessage = (profile: string) => `is more than 500 m from a road usable by the ${profile} profile`;

/** The profile a raw body asks for (the default when it sends none); undefined when it is not one. */
export const rawProfile = (raw: unknown): ProfileName | undefined => (raw === undefined ? 'driving-car' : PROFILES.find((p) => p === raw));

/**
 * For a 422 going out for other reasons (unknown POI ids, the body's own problems): adds every location
 * too far from a road at its field, so that one answer names every problem. `located` are the locations
 * known (resolved, valid) by field, each with how it snaps (`option`: its radius and bearing) when it has
 * its own, told with `ownMessage`; one with a problem of its own at the field (or its latitude,
 * longitude or poi_id) is left out. The roads are those the profile may use outside the `exclude`d
 * classes, as the request's. Best effort: without the profile loaded, or with the engine busy or
 * failing, the 422 goes out with what is known.
 */
export async function addFarFromRoad(
  profile: ProfileName | undefined,
  located: Array<{ field: string; at: ResolvedLocation | null | undefined; option?: WaypointOption | null }>,
  errors: FieldErrors,
  how: { exclude?: number; ownMessage?: (option: WaypointOption) => string } = {},
): Promise<void> {
  if (!profile || !loadedProfiles().includes(profile)) return;
  const own = (f: string) => [f, `${f}.latitude`, `${f}.longitude`, `${f}.poi_id`].some((k) => Object.hasOwn(errors, k));
  const points = located.flatMap(({ field, at, option }) =>
    at && !own(field) ? [{ field, lat: at.latitude, lon: at.longitude, option: option ?? null }] : [],
  );
  const options = points.some((p) => p.option) ? points.map((p) => p.option) : undefined;
  let far: number[];
  try {
    far = await farFromRoad(profile, points, { ...(how.exclude ? { exclude: how.exclude } : {}), ...(options ? { options } : {}) });
  } catch (err) {
    // The answer goes out with the other problems, without this hint.
    backgroundError('far-from-road-check', err, { profile, points: points.length });
    return;
  }
  for (const i of far) {
    const option = points[i].option;
    (errors[points[i].field] ??= []).push(option && how.ownMessage ? how.ownMessage(option) : farMessage(profile));
  }
}

/**
 * - waypoints too far from a usable road: 422 at `waypoints.<i>` for every one of them;
 * - no route for leg i → i+1: 422 at `waypoints.<i+1>` (the waypoint that cannot be reached), the message
 *   telling whether avoided POIs block every way or the road network does not connect the two;
 * - no map, or the pool's queue full: 503 (the latter with Retry-After);
 * - anything else from the engine (a crashed worker, a kernel trap): 502, retry shortly.
 * `field` names the list the indexes refer to.
 */
export function engineHttpError(err: unknown, profile: string, field = 'waypoints', polygons = false): HttpError {
  if (err instanceof WaypointTooFarError) {
    const message = farMessage(profile);
    return unprocessable(Object.fromEntries(err.indexes.map((i) => [`${field}.${i}`, [message]])));
  }
  if (err instanceof NoRouteError) {
    const from = err.legIndex,
      to = err.legIndex + 1;
    const message =
      err.reason === 'blocked' && polygons
        ? `No route from waypoint ${from} to waypoint ${to}: the avoided polygons (and POIs, if any) block every way. Avoid smaller areas or fewer POIs.`
        : err.reason === 'blocked'
          ? `No route from waypoint ${from} to waypoint ${to}: the avoided POIs block every way. Avoid fewer POIs or use a smaller avoid.radius.`
          : err.reason === 'too-big'
            ? `No route from waypoint ${from} to waypoint ${to} for a lorry of this size: every way between them has a lower height, width, length or weight limit.`
            : err.reason === 'excluded'
              ? `No route from waypoint ${from} to waypoint ${to} keeps off the excluded ways: every way between them is of an excluded class. Exclude fewer classes.`
              : `No route from waypoint ${from} to waypoint ${to}: the road network does not connect them for the ${profile} profile.`;
    return new HttpError(422, message, { errors: { [`${field}.${to}`]: [message] } });
  }
  if (err instanceof UnknownProfileError) return invalid('profile', 'is not available on the loaded map');
  if (err instanceof MapNotLoadedError) return serviceUnavailable('Routing is not available: no map is loaded. Retry later.');
  if (err instanceof PoolBusyError) return new HttpError(503, 'The routing engine is busy. Retry shortly.', {}, { 'Retry-After': '1' });
  const failed = new HttpError(502, 'The routing service failed to answer. Retry shortly.');
  failed.cause = err; // logged by the server, never sent
  return failed;
}
