// What turn guidance reads of each road at a junction, kept together per geometry (`geomGuide`, map format
// 21): its label (road-labels.ts `labelAt` of its first point) and, per direction, the offset from the
// node it leaves to the point its bearing is measured towards. Without it a junction's roads cost several
// reads far apart in memory each (the geometry's ends, its points, a binary search over the labels' runs);
// with it one record of 12 bytes. The offsets are the coordinates' own integers, so the bearing computed
// from them is the one computed from the points, to the last bit (guidance/steps.ts `leaveBearing`).
import { METERS_PER_DEGREE } from '../../lib/geo/sphere.js';
import { labelAt } from './road-labels.js';
import type { RoadGraph, Shapes } from './road-graph.js';

/** Meters a road's bearing is measured over from a node (OSRM looks a few meters down each road). */
export const BEARING_M = 10;
/** Meters per 1e-7° of latitude. */
export const M_PER_E7 = METERS_PER_DEGREE * 1e-7;
/** Words per geometry in `geomGuide`: the label, then the offsets along (2g) and against (2g+1) its points. */
export const GUIDE_WORDS = 3;
/** An offset half that never occurs (offsets are kept within ±32767): the bearing's point is too far for
 *  16 bits (a straight road with no point for more than ~250 m), and is measured on the shapes instead. */
export const GUIDE_FAR = -32768;

/** The cosine of a latitude in 1e-7°: a bearing's east-west scale at a point (in one place, so that every
 *  bearing of a node is scaled by the same number). */
export const eastScale = (latE7: number): number => Math.cos(latE7 * 1e-7 * (Math.PI / 180));

/**
 * The point a road's bearing is measured towards, from point `from` of `pts` (lat, lon pairs in 1e-7°)
 * along its geometry's points by `step` (±1) up to `end`: its first point BEARING_M or more from `from`, or
 * `end` when none is.
 */
export function bearingPoint(pts: Int32Array, from: number, end: number, step: number, meters = BEARING_M): number {
  const kx = eastScale(pts[2 * from]);
  let p = from + step;
  for (; p !== end; p += step) {
    const dx = (pts[2 * p + 1] - pts[2 * from + 1]) * kx,
      dy = pts[2 * p] - pts[2 * from];
    if ((dx * dx + dy * dy) * M_PER_E7 * M_PER_E7 >= meters * meters) break;
  }
  return p;
}

/** One direction's offset as a word: latitude in the low half, longitude in the high (GUIDE_FAR in both
 *  when either does not fit). */
function offsetWord(dLat: number, dLon: number): number {
  const fits = Math.abs(dLat) <= 32767 && Math.abs(dLon) <= 32767;
  return fits ? (dLat & 0xffff) | (dLon << 16) : (GUIDE_FAR & 0xffff) | (GUIDE_FAR << 16);
}

/** The guidance records of a graph's geometries (GUIDE_WORDS each) over `shapes`' points and labels. */
export function buildGuide(g: Pick<RoadGraph, 'geomFirst' | 'geomLast'>, shapes: Pick<Shapes, 'pointsE7' | 'labelFirst' | 'labelIndex'>): Int32Array {
  const pts = shapes.pointsE7;
  const G = g.geomFirst.length;
  const guide = new Int32Array(GUIDE_WORDS * G);
  for (let geom = 0; geom < G; geom++) {
    const first = g.geomFirst[geom],
      last = g.geomLast[geom];
    guide[GUIDE_WORDS * geom] = labelAt(shapes, first);
    const along = bearingPoint(pts, first, last, 1),
      against = bearingPoint(pts, last, first, -1);
    guide[GUIDE_WORDS * geom + 1] = offsetWord(pts[2 * along] - pts[2 * first], pts[2 * along + 1] - pts[2 * first + 1]);
    guide[GUIDE_WORDS * geom + 2] = offsetWord(pts[2 * against] - pts[2 * last], pts[2 * against + 1] - pts[2 * last + 1]);
  }
  return guide;
}
