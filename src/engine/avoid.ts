// Avoided circles and polygons → blocked geometries: every geometry with a segment closer to a circle's
// center than its radius, or with a point inside a polygon, is blocked. Found through the segment grid,
// confirmed exactly (segment/point distance; segment in polygon, in degrees as GeoJSON draws it).
import type { RoadGraph } from '../map/graphs/road-graph.js';
import {
  geometryOfPoint,
  metersPerLonDegree,
  segmentDistance,
  segmentDistanceDeg,
  segmentsInBox,
  segmentsNearCircle,
  type GridView,
} from '../map/graphs/segment-grid.js';

export interface Circle {
  lat: number;
  lon: number;
  radius: number;
}

/** Blocks every geometry entering a circle; returns geometry → indexes of the circles it enters. */
export function blockCircles(g: RoadGraph, grid: GridView, circles: readonly Circle[], block: (geom: number) => void): Map<number, number[]> {
  const hits = new Map<number, number[]>();
  const points: number[] = [];
  for (let ci = 0; ci < circles.length; ci++) {
    const circle = circles[ci];
    const kx = metersPerLonDegree(circle.lat);
    for (const point of segmentsNearCircle(grid, circle.lat, circle.lon, circle.radius, points)) {
      // The distance first: most segments near the circle's box are outside the circle.
      if (segmentDistance(g.shapes.pointsE7, point, circle.lat, circle.lon, kx) >= circle.radius) continue;
      const geom = geometryOfPoint(grid, point);
      if (geom < 0) continue; // a segment of the other profiles only
      const list = hits.get(geom);
      if (list?.includes(ci)) continue;
      if (list) list.push(ci);
      else {
        hits.set(geom, [ci]);
        block(geom);
      }
    }
  }
  return hits;
}

/** Whether a polyline of [lon, lat] points comes closer than the radius to any of the given circles. */
export function lineEntersCircles(line: ReadonlyArray<[number, number]>, circles: readonly Circle[]): boolean {
  for (const circle of circles) {
    for (let i = 0; i + 1 < line.length; i++) {
      if (segmentDistanceDeg(line[i][1], line[i][0], line[i + 1][1], line[i + 1][0], circle.lat, circle.lon) < circle.radius) return true;
    }
    if (line.length === 1 && segmentDistanceDeg(line[0][1], line[0][0], line[0][1], line[0][0], circle.lat, circle.lon) < circle.radius) return true;
  }
  return false;
}

/** A polygon to keep out of: its rings of [lon, lat] (the outer first, holes after), each closed. */
export type AvoidPolygon = number[][][];

/** Whether the point lies inside the polygon or on its boundary (even-odd over every ring). */
function pointInPolygon(lon: number, lat: number, rings: AvoidPolygon): boolean {
  let inside = false;
  for (const ring of rings) {
    for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
      const [x1, y1] = ring[j],
        [x2, y2] = ring[i];
      // On an edge: inside (the route may not touch the boundary either).
      if (orient(x1, y1, x2, y2, lon, lat) === 0 && lon >= Math.min(x1, x2) && lon <= Math.max(x1, x2) && lat >= Math.min(y1, y2) && lat <= Math.max(y1, y2)) {
        return true;
      }
      if (y2 > lat !== y1 > lat && lon < ((x1 - x2) * (lat - y2)) / (y1 - y2) + x2) inside = !inside;
    }
  }
  return inside;
}

const orient = (ax: number, ay: number, bx: number, by: number, cx: number, cy: number): number => Math.sign((bx - ax) * (cy - ay) - (by - ay) * (cx - ax));

/** Whether segments p1–p2 and q1–q2 share a point (touching counts). */
function segmentsMeet(p1x: number, p1y: number, p2x: number, p2y: number, q1x: number, q1y: number, q2x: number, q2y: number): boolean {
  const d1 = orient(q1x, q1y, q2x, q2y, p1x, p1y),
    d2 = orient(q1x, q1y, q2x, q2y, p2x, p2y),
    d3 = orient(p1x, p1y, p2x, p2y, q1x, q1y),
    d4 = orient(p1x, p1y, p2x, p2y, q2x, q2y);
  if (d1 !== d2 && d3 !== d4 && d1 * d2 <= 0 && d3 * d4 <= 0) return true;
  const on = (ax: number, ay: number, bx: number, by: number, cx: number, cy: number) =>
    cx >= Math.min(ax, bx) && cx <= Math.max(ax, bx) && cy >= Math.min(ay, by) && cy <= Math.max(ay, by);
  return (
    (d1 === 0 && on(q1x, q1y, q2x, q2y, p1x, p1y)) ||
    (d2 === 0 && on(q1x, q1y, q2x, q2y, p2x, p2y)) ||
    (d3 === 0 && on(p1x, p1y, p2x, p2y, q1x, q1y)) ||
    (d4 === 0 && on(p1x, p1y, p2x, p2y, q2x, q2y))
  );
}

/** Whether the segment a–b ([lon, lat] degrees) has a point inside the polygon or on its boundary. */
export function segmentEntersPolygon(ax: number, ay: number, bx: number, by: number, rings: AvoidPolygon): boolean {
  if (pointInPolygon(ax, ay, rings) || pointInPolygon(bx, by, rings)) return true;
  for (const ring of rings) {
    for (let i = 0; i + 1 < ring.length; i++) if (segmentsMeet(ax, ay, bx, by, ring[i][0], ring[i][1], ring[i + 1][0], ring[i + 1][1])) return true;
  }
  return false;
}

/** [west, south, east, north] of a polygon's outer ring. */
function boxOf(rings: AvoidPolygon): [number, number, number, number] {
  let w = Infinity,
    s = Infinity,
    e = -Infinity,
    n = -Infinity;
  for (const [lon, lat] of rings[0]) {
    w = Math.min(w, lon);
    e = Math.max(e, lon);
    s = Math.min(s, lat);
    n = Math.max(n, lat);
  }
  return [w, s, e, n];
}

/**
 * Blocks every geometry with a segment entering a polygon; returns geometry → indexes of the polygons it
 * enters (numbered after `offset`, so that they share one map with the circles'), added to `hits`.
 */
export function blockPolygons(
  g: RoadGraph,
  grid: GridView,
  polygons: readonly AvoidPolygon[],
  offset: number,
  hits: Map<number, number[]>,
  block: (geom: number) => void,
): void {
  const pts = g.shapes.pointsE7;
  const points: number[] = [];
  for (let k = 0; k < polygons.length; k++) {
    const rings = polygons[k];
    const pi = offset + k;
    const [w, s, e, n] = boxOf(rings);
    for (const point of segmentsInBox(grid, s, w, n, e, points)) {
      const geom = geometryOfPoint(grid, point);
      if (geom < 0) continue; // a segment of the other profiles only
      const list = hits.get(geom);
      if (list?.includes(pi)) continue;
      if (!segmentEntersPolygon(pts[2 * point + 1] * 1e-7, pts[2 * point] * 1e-7, pts[2 * point + 3] * 1e-7, pts[2 * point + 2] * 1e-7, rings)) continue;
      if (list) list.push(pi);
      else {
        hits.set(geom, [pi]);
        block(geom);
      }
    }
  }
}

/** Whether a polyline of [lon, lat] points has a point inside any of the polygons. */
export function lineEntersPolygons(line: ReadonlyArray<[number, number]>, polygons: readonly AvoidPolygon[]): boolean {
  for (const rings of polygons) {
    if (line.length === 1 && pointInPolygon(line[0][0], line[0][1], rings)) return true;
    for (let i = 0; i + 1 < line.length; i++) if (segmentEntersPolygon(line[i][0], line[i][1], line[i + 1][0], line[i + 1][1], rings)) return true;
  }
  return false;
}

/** The index of the first polygon the point lies in (or on), or -1. */
export function polygonAt(lon: number, lat: number, polygons: readonly AvoidPolygon[]): number {
  return polygons.findIndex((rings) => pointInPolygon(lon, lat, rings));
}
