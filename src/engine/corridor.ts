// Circles along a stretch of a route, as a team's POIs along a road put them: most a little beside it,
// one in twenty on it. The compute threads' warm-up (RouteCore.warmUp) routes around them: circles spread
// over a whole map seldom cut the roads a search passes, so the searches around cut roads near the path —
// what a route avoiding the POIs along its corridor runs — were otherwise first run by a client.
import { METERS_PER_DEGREE } from '../lib/geo/sphere.js';
import type { LatLon } from '../lib/lat-lon.js';
import type { Circle } from './avoid.js';

const E7 = 1e-7;

export interface Corridor {
  ends: [LatLon, LatLon];
  circles: Circle[];
}

/**
 * The stretch of the line `geometryE7` (1e-7° pairs) that starts a tenth of its length in and is
 * `lengthM` long (or what is left), with `count` circles of `radius` along it: each `aside` m to the left
 * of the line, every twentieth on it. Null for a line too short to hold them.
 */
export function corridorAlong(geometryE7: Int32Array, lengthM: number, count: number, radius: number, aside = radius + 15): Corridor | null {
  const n = geometryE7.length / 2;
  if (n < 2) return null;
  const cum = new Float64Array(n);
  for (let i = 1; i < n; i++) cum[i] = cum[i - 1] + segmentM(geometryE7, i - 1);
  const start = cum[n - 1] / 10;
  const end = Math.min(cum[n - 1] - start, start + lengthM);
  if (end - start < count * 10) return null;
  const circles: Circle[] = [];
  let i = 0;
  for (let k = 0; k < count; k++) {
    const s = start + ((end - start) * (k + 0.5)) / count;
    while (i < n - 2 && cum[i + 1] < s) i++;
    const t = (s - cum[i]) / Math.max(1e-9, cum[i + 1] - cum[i]);
    const lat = lerp(geometryE7[2 * i], geometryE7[2 * i + 2], t) * E7;
    const lon = lerp(geometryE7[2 * i + 1], geometryE7[2 * i + 3], t) * E7;
    // The segment's direction in local meters; its left normal is (-dy, dx).
    const cos = Math.cos((lat * Math.PI) / 180);
    const dx = (geometryE7[2 * i + 3] - geometryE7[2 * i + 1]) * E7 * cos;
    const dy = (geometryE7[2 * i + 2] - geometryE7[2 * i]) * E7;
    const len = Math.hypot(dx, dy) || 1;
    const off = k % 20 === 10 ? 0 : aside / METERS_PER_DEGREE;
    circles.push({ lat: lat + (off * dx) / len, lon: lon - (off * dy) / len / cos, radius });
  }
  return { ends: [pointAt(geometryE7, cum, start), pointAt(geometryE7, cum, end)], circles };
}

const lerp = (a: number, b: number, t: number) => a + (b - a) * t;

function segmentM(g: Int32Array, i: number): number {
  const cos = Math.cos(g[2 * i] * E7 * (Math.PI / 180));
  return Math.hypot((g[2 * i + 2] - g[2 * i]) * E7, (g[2 * i + 3] - g[2 * i + 1]) * E7 * cos) * METERS_PER_DEGREE;
}

/** The line's vertex at or just past `s` meters along (a point on a road of the route). */
function pointAt(g: Int32Array, cum: Float64Array, s: number): LatLon {
  let i = 0;
  while (i < cum.length - 1 && cum[i] < s) i++;
  return { lat: g[2 * i] * E7, lon: g[2 * i + 1] * E7 };
}
