// Small planar helpers in degrees, good enough at the scale of a building or a municipality.
import type { DegreeRings } from './areas.js';

/**
 * A point strictly inside the area (even-odd over all rings): the middle of the widest inside stretch
 * of a horizontal line through the middle of a ring, trying the largest ring first. Unlike a centroid
 * it never falls into a hole or between the parts of a multipolygon.
 */
export function interiorPoint(rings: DegreeRings): [number, number] | null {
  const bySize = [...rings].sort((a, b) => b.length - a.length);
  for (const ring of bySize) {
    let minLat = Infinity,
      maxLat = -Infinity;
    for (const [lat] of ring) (minLat = Math.min(minLat, lat)), (maxLat = Math.max(maxLat, lat));
    if (!(maxLat > minLat)) continue;
    // Slightly off the exact middle so the scan line is unlikely to pass through a vertex.
    const p = widestStretch(rings, minLat + (maxLat - minLat) * 0.5000123);
    if (p) return p;
  }
  return null;
}

function widestStretch(rings: DegreeRings, lat: number): [number, number] | null {
  const xs: number[] = [];
  for (const ring of rings) {
    for (let i = 0; i + 1 < ring.length; i++) {
      const [y1, x1] = ring[i];
      const [y2, x2] = ring[i + 1];
      if (y1 > lat !== y2 > lat) xs.push(x1 + ((x2 - x1) * (lat - y1)) / (y2 - y1));
    }
  }
  xs.sort((a, b) => a - b);
  let best: [number, number] | null = null;
  let widest = 0;
  for (let i = 0; i + 1 < xs.length; i += 2) {
    if (xs[i + 1] - xs[i] > widest) {
      widest = xs[i + 1] - xs[i];
      best = [lat, (xs[i] + xs[i + 1]) / 2];
    }
  }
  return best;
}

/** Area-weighted centroid of a closed ring (e.g. a building); the vertex mean for lines and degenerate rings. */
export function centroid(points: readonly [number, number][]): [number, number] | null {
  if (points.length === 0) return null;
  const [lat0, lon0] = points[0];
  const closed = points.length >= 4 && points[0][0] === points[points.length - 1][0] && points[0][1] === points[points.length - 1][1];
  if (closed) {
    let a = 0,
      cy = 0,
      cx = 0;
    for (let i = 0; i + 1 < points.length; i++) {
      const y1 = points[i][0] - lat0,
        x1 = points[i][1] - lon0;
      const y2 = points[i + 1][0] - lat0,
        x2 = points[i + 1][1] - lon0;
      const cross = x1 * y2 - x2 * y1;
      a += cross;
      cx += (x1 + x2) * cross;
      cy += (y1 + y2) * cross;
    }
    if (Math.abs(a) > 1e-18) return [lat0 + cy / (3 * a), lon0 + cx / (3 * a)];
  }
  let sLat = 0,
    sLon = 0;
  const n = closed ? points.length - 1 : points.length;
  for (let i = 0; i < n; i++) (sLat += points[i][0]), (sLon += points[i][1]);
  return [sLat / n, sLon / n];
}

/** Even-odd point-in-polygon over all rings, so holes and multipolygons need no roles. */
export function ringsContain(rings: DegreeRings, lat: number, lon: number): boolean {
  let inside = false;
  for (const ring of rings) {
    for (let i = 0; i + 1 < ring.length; i++) {
      const [y1, x1] = ring[i];
      const [y2, x2] = ring[i + 1];
      if (y1 > lat !== y2 > lat && lon < x1 + ((x2 - x1) * (lat - y1)) / (y2 - y1)) inside = !inside;
    }
  }
  return inside;
}

/**
 * Of the areas containing a point (indices), the one of `country` (else any) whose centre is nearest: of
 * two municipalities overlapping there, the one the point lies more inside of (as Nominatim picks among
 * equal ranks); -1 when none. `center` absent counts as far.
 */
export function nearestCentre(
  found: readonly number[],
  area: (i: number) => { country: number; center?: [number, number] },
  country: number,
  lat: number,
  lon: number,
): number {
  const own = found.filter((i) => area(i).country === country);
  let best = -1,
    bestD = Infinity;
  const k = Math.cos((lat * Math.PI) / 180);
  for (const i of own.length ? own : found) {
    const c = area(i).center;
    const d = c ? (c[0] - lat) ** 2 + ((c[1] - lon) * k) ** 2 : Infinity;
    if (best < 0 || d < bestD || (d === bestD && i < best)) (best = i), (bestD = d);
  }
  return best;
}
