// Drawing what a bounded search reached into a cell grid (isochrone-shape.ts): the start's own pieces,
// every geometry wholly within the limit, and the part of each other geometry that a settled node's
// remaining budget covers, measured in the search's key (tenths of a second, or centimeters).
import { METERS_PER_DEGREE } from '../lib/geo/sphere.js';
import type { RoadGraph } from '../map/graphs/road-graph.js';
import type { Canvas } from './isochrone-shape.js';
import { geometryPiece } from './phantom.js';
import type { ReachResult } from './route-kernel.js';

const E7 = 1e-7;

/** A search's reach as the drawing needs it. */
export interface Reached {
  g: RoadGraph;
  reach: ReachResult;
  byMeters: boolean;
  /** Whether the search kept off geometry `geom` (blocked by circles or closed to the lorry). */
  blocked: (geom: number) => boolean;
  /** The start's own pieces: [lon, lat] points from the snapped start, each with its key at the piece's far end. */
  startPieces: Array<{ points: Array<[number, number]>; key: number }>;
  start: { lat: number; lon: number };
}

const key = (r: Reached, v: number): number => (r.byMeters ? r.reach.centimeters(v) : r.reach.duration(v));

/** The box of the start and the nodes settled within `limit`, grown by `padMeters`: where the shape is,
 *  but for geometries that bend out of it (drawing then says `outside`). */
export function reachedBox(r: Reached, limit: number, padMeters: number): [number, number, number, number] {
  const { g, reach } = r;
  const pts = g.shapes.pointsE7;
  let w = r.start.lon,
    e = w,
    s = r.start.lat,
    n = s;
  for (let i = 0; i < reach.nodes.length; i++) {
    const v = reach.nodes[i];
    if (key(r, v) > limit) break;
    const first = g.firstOut[v];
    if (first === g.firstOut[v + 1]) continue;
    const d = g.orig[first];
    const p = d & 1 ? g.geomLast[d >> 1] : g.geomFirst[d >> 1];
    const lat = pts[2 * p] * E7,
      lon = pts[2 * p + 1] * E7;
    if (lon < w) w = lon;
    if (lon > e) e = lon;
    if (lat < s) s = lat;
    if (lat > n) n = lat;
  }
  const dLat = padMeters / METERS_PER_DEGREE,
    dLon = padMeters / (METERS_PER_DEGREE * Math.max(0.01, Math.cos(((s + n) / 2) * (Math.PI / 180))));
  return [w - dLon, s - dLat, e + dLon, n + dLat];
}

/** Draws everything reached within `limit` (the search's key units) into `grid`. */
export function drawReached(r: Reached, limit: number, grid: Canvas): void {
  const { g, reach } = r;
  const pts = g.shapes.pointsE7;
  grid.point(r.start.lon, r.start.lat);
  for (const piece of r.startPieces) drawPiece(grid, piece.points, piece.key <= limit ? 1 : limit / piece.key);
  const whole = new Uint8Array((g.geomCount >> 3) + 1);
  for (let i = 0; i < reach.nodes.length; i++) {
    const v = reach.nodes[i];
    const kv = key(r, v);
    // Settled in order of their keys: the first beyond the limit ends the nodes within it.
    if (kv > limit) break;
    const left = limit - kv;
    for (let e = g.firstOut[v]; e < g.firstOut[v + 1]; e++) {
      const d = g.orig[e],
        geom = d >> 1;
      if (whole[geom >> 3] & (1 << (geom & 7)) || r.blocked(geom)) continue;
      const cost = r.byMeters ? g.geomCm[geom] : g.weight[e];
      if (cost <= left) {
        whole[geom >> 3] |= 1 << (geom & 7);
        let lat0 = pts[2 * g.geomFirst[geom]] * E7,
          lon0 = pts[2 * g.geomFirst[geom] + 1] * E7;
        grid.point(lon0, lat0);
        for (let p = g.geomFirst[geom] + 1; p <= g.geomLast[geom]; p++) {
          const lat1 = pts[2 * p] * E7,
            lon1 = pts[2 * p + 1] * E7;
          grid.segment(lon0, lat0, lon1, lat1);
          lat0 = lat1;
          lon0 = lon1;
        }
      } else {
        const len = g.geomCm[geom] / 100,
          part = (left / cost) * len;
        drawPiece(grid, d & 1 ? geometryPiece(g, geom, len, len - part) : geometryPiece(g, geom, 0, part), 1);
      }
    }
  }
}

/** The first `fraction` of a piece of [lon, lat] points (by length). */
function drawPiece(grid: Canvas, points: Array<[number, number]>, fraction: number): void {
  if (points.length === 0) return;
  grid.point(points[0][0], points[0][1]);
  if (fraction >= 1) {
    for (let i = 1; i < points.length; i++) grid.segment(points[i - 1][0], points[i - 1][1], points[i][0], points[i][1]);
    return;
  }
  // Lengths on a plane tangent at the piece (pieces are one geometry long): longitude shrinks with latitude.
  const k = Math.cos(points[0][1] * (Math.PI / 180));
  const seg = (i: number) => Math.hypot(k * (points[i][0] - points[i - 1][0]), points[i][1] - points[i - 1][1]);
  let total = 0;
  for (let i = 1; i < points.length; i++) total += seg(i);
  let left = fraction * total;
  for (let i = 1; i < points.length && left > 0; i++) {
    const l = seg(i);
    const t = l > left ? left / l : 1;
    grid.segment(
      points[i - 1][0],
      points[i - 1][1],
      points[i - 1][0] + t * (points[i][0] - points[i - 1][0]),
      points[i - 1][1] + t * (points[i][1] - points[i - 1][1]),
    );
    left -= l;
  }
}
