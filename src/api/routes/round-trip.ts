// `round_trip` of POST /v1/routes (issue 36): a loop of about `length` meters from the one waypoint given,
// through `points` places on a circle that passes through it, its direction chosen by `seed` (GraphHopper's
// and openrouteservice's `round_trip` parameters). The places are where the loop is aimed; each snaps to
// its nearest road however far, and the loop is the fastest route through them and back.
import { z } from 'zod';
import type { LatLon } from '../../lib/lat-lon.js';
import { METERS_PER_DEGREE } from '../../lib/geo/sphere.js';

export const MAX_ROUND_TRIP_M = 100_000;
export const MAX_ROUND_TRIP_POINTS = 10;
/** How much longer a way by road is than the straight line, on average: the polygon is drawn this much
 *  smaller than the length asked for. */
const ROAD_FACTOR = 1.3;

const whole = (min: number, max: number, what: string) =>
  z
    .number({ error: `must be ${what} from ${min} to ${max}` })
    .int(`must be ${what} from ${min} to ${max}`)
    .min(min, `must be ${what} from ${min} to ${max}`)
    .max(max, `must be ${what} from ${min} to ${max}`);

export const roundTripSchema = z
  .strictObject(
    {
      length: whole(500, MAX_ROUND_TRIP_M, 'a whole number of meters').describe("The loop's length to aim for, meters."),
      points: whole(2, MAX_ROUND_TRIP_POINTS, 'a whole number').default(3).describe('How many places the loop passes through besides its start (default 3).'),
      seed: whole(0, 2 ** 31 - 1, 'a whole number')
        .default(0)
        .describe('Picks the direction the loop heads off in; the same seed, the same loop.'),
    },
    { error: 'must be an object {length, points, seed}' },
  )
  .optional()
  .describe(
    `Extension: a loop of about \`length\` meters (500–${MAX_ROUND_TRIP_M}) from the one waypoint given and back, through \`points\` places on a circle through it (2–${MAX_ROUND_TRIP_POINTS}), in the direction \`seed\` picks. The answer is a route whose waypoints are the start, the places aimed at and the start again.`,
  );

/** A number in [0, 1) from the seed (mulberry32's first draw). */
function unit(seed: number): number {
  let t = (seed + 0x6d2b79f5) >>> 0;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

/** The places of the loop from `start`, in visiting order: on a circle through the start, heading off at
 *  the seed's angle, whose inscribed polygon through them and the start is `length` / ROAD_FACTOR long. */
export function roundTripPlaces(start: LatLon, length: number, points: number, seed: number): LatLon[] {
  const n = points + 1;
  const radius = length / ROAD_FACTOR / (2 * n * Math.sin(Math.PI / n));
  const heading = 2 * Math.PI * unit(seed);
  const kLat = 1 / METERS_PER_DEGREE,
    kLon = 1 / (METERS_PER_DEGREE * Math.cos((start.lat * Math.PI) / 180));
  // The circle's centre lies `radius` from the start along the heading; the start is at angle heading + π.
  const cx = Math.sin(heading) * radius,
    cy = Math.cos(heading) * radius;
  return Array.from({ length: points }, (_, i) => {
    const a = heading + Math.PI + (2 * Math.PI * (i + 1)) / n;
    return { lat: start.lat + (cy + Math.cos(a) * radius) * kLat, lon: start.lon + (cx + Math.sin(a) * radius) * kLon };
  });
}
