// A route's waypoints with options of their own (issue 36): `radius`, `bearing`, `approach` beside the
// location, as OSRM's `radiuses`, `bearings` and `approaches` per coordinate.
import { z } from 'zod';
import { DRIVING_SIDE, type ProfileName } from '../../map/graphs/profiles.js';
import { SNAP_LIMIT_M } from '../../engine/phantom.js';
import type { WaypointOption } from '../../engine/engine.js';
import { locationWith } from '../locations.js';

export const MAX_WAYPOINT_RADIUS_M = 5_000;
const APPROACHES = ['curb', 'unrestricted'] as const;

const between = (min: number, max: number, what: string) =>
  z
    .number({ error: `must be ${what} between ${min} and ${max}` })
    .min(min, `must be ${what} between ${min} and ${max}`)
    .max(max, `must be ${what} between ${min} and ${max}`);

export const waypointSchema = locationWith(
  {
    radius: between(0, MAX_WAYPOINT_RADIUS_M, 'a number of meters')
      .nullable()
      .optional()
      .describe(
        `Extension: how far from its road the waypoint may lie, meters (default ${SNAP_LIMIT_M}; \`null\`: no limit, the nearest road whatever its distance).`,
      ),
    bearing: z
      .strictObject(
        {
          value: between(0, 360, 'a number of degrees'),
          range: between(0, 180, 'a number of degrees'),
        },
        { error: 'must be an object {value, range} of degrees' },
      )
      .optional()
      .describe(
        "Extension: the direction of travel at the waypoint, degrees clockwise from north, ± `range` (OSRM's `bearings`): it snaps to the nearest road open in such a direction, and the route passes it that way.",
      ),
    approach: z
      .enum(APPROACHES, { error: `must be one of ${APPROACHES.join(', ')}` })
      .optional()
      .describe(
        "Extension: `curb` arrives at (and leaves) the waypoint with it on the profile's driving side (the right on every map Waymark builds), OSRM's `approaches=curb`; on a road open one way only, or a waypoint on the road itself, it changes nothing. Default `unrestricted`.",
      ),
  },
  'must be a location: {latitude, longitude} or {poi_id}, with radius, bearing and approach optional',
).describe('A waypoint: `{latitude, longitude}` or `{poi_id}`, and how it is reached (`radius`, `bearing`, `approach`).');

type Waypoint = z.infer<typeof waypointSchema>;

const hasOptions = (w: Waypoint) => w.radius !== undefined || w.bearing !== undefined || w.approach === 'curb';

/** The engine's options per waypoint; undefined when no waypoint has any (a plain route does no more work). */
export function waypointOptions(profile: ProfileName, waypoints: readonly Waypoint[]): Array<WaypointOption | null> | undefined {
  if (!waypoints.some(hasOptions)) return undefined;
  return waypoints.map((w) =>
    hasOptions(w)
      ? {
          ...(w.radius !== undefined ? { radius: w.radius ?? Infinity } : {}),
          ...(w.bearing ? { bearing: w.bearing } : {}),
          ...(w.approach === 'curb' ? { curb: true, side: DRIVING_SIDE[profile] } : {}),
        }
      : null,
  );
}

/** Whether a raw waypoint changes how it snaps (its far-from-road check is then the engine's own). */
export const snapsOwnWay = (raw: unknown): boolean =>
  raw !== null && typeof raw === 'object' && ((raw as Record<string, unknown>).radius !== undefined || (raw as Record<string, unknown>).bearing !== undefined);

/** What a waypoint the engine could not snap is told. */
export function tooFarMessage(profile: ProfileName, option: WaypointOption | null | undefined): string {
  const within = option?.radius === Infinity ? 'anywhere on the map' : `within ${option?.radius ?? SNAP_LIMIT_M} m`;
  return option?.bearing
    ? `has no road usable by the ${profile} profile ${within} open in a direction within ${option.bearing.range}° of ${option.bearing.value}°`
    : `has no road usable by the ${profile} profile ${within}`;
}
