// The geometric rules of route avoidance (service spec, POST /v1/routes, rules 1, 3 and 5).
import type { Box } from '../lib/geo/search-box.js';
import { greatCircleMeters, METERS_PER_DEGREE } from '../lib/geo/sphere.js';

export interface Position {
  latitude: number;
  longitude: number;
}

export const MIN_MARGIN_M = 1_000;
export const MAX_MARGIN_M = 10_000;

/** The margin grown around the waypoints' box: 10% of its diagonal, clamped to 1–10 km. */
export function selectionMargin(box: Box): number {
  const diagonal = greatCircleMeters(box.south, box.west, box.north, box.east);
  return Math.min(MAX_MARGIN_M, Math.max(MIN_MARGIN_M, diagonal / 10));
}

/**
 * Rule 1: POIs to avoid are looked for only in the bounding box of the waypoints grown by 10% of its
 * diagonal (at least 1 km, at most 10 km). Decision: that margin is added on every side (west, south,
 * east and north each move outwards by the margin in meters); in longitude it is measured at the grown
 * box's most poleward latitude, so the box is at least that wide everywhere. A box reaching the
 * antimeridian or a pole is clamped there (the routable extracts are far from both).
 */
export function avoidSelectionBox(points: readonly Position[]): Box {
  let west = Infinity,
    south = Infinity,
    east = -Infinity,
    north = -Infinity;
  for (const p of points) {
    west = Math.min(west, p.longitude);
    east = Math.max(east, p.longitude);
    south = Math.min(south, p.latitude);
    north = Math.max(north, p.latitude);
  }
  const margin = selectionMargin({ west, south, east, north });
  const dLat = margin / METERS_PER_DEGREE;
  const s = Math.max(-90, south - dLat),
    n = Math.min(90, north + dLat);
  const widest = Math.max(Math.abs(s), Math.abs(n));
  if (widest >= 89.9) return { west: -180, south: s, east: 180, north: n };
  const dLon = dLat / Math.cos((widest * Math.PI) / 180);
  return { west: Math.max(-180, west - dLon), south: s, east: Math.min(180, east + dLon), north: n };
}

/** Rule 5: the summed straight-line (great-circle) distance between consecutive waypoints, meters. */
export function straightLineMeters(points: readonly Position[]): number {
  let total = 0;
  for (let i = 0; i + 1 < points.length; i++) {
    total += greatCircleMeters(points[i].latitude, points[i].longitude, points[i + 1].latitude, points[i + 1].longitude);
  }
  return total;
}

/** Rule 3: whether a POI lies within `radius` meters of any of the points. */
export function withinRadiusOfAny(poi: Position, points: readonly Position[], radius: number): boolean {
  return points.some((p) => greatCircleMeters(poi.latitude, poi.longitude, p.latitude, p.longitude) <= radius);
}
