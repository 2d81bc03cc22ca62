// What turn guidance reads of each road at a junction, kept together per geometry (`geomGuide`, map format
// 21): its label (road-labels.ts `labelAt` of its first point) and, per direction, the offset from the
// node it leaves to the point its bearing is measured towards: since format 24 its representative
// coordinate as OSRM finds it (road-coordinate.ts). Without it a junction's roads cost several reads far
// apart in memory each (the geometry's ends, its points, a binary search over the labels' runs); with it
// one record of 12 bytes.
import { METERS_PER_DEGREE } from '../../lib/geo/sphere.js';
import { ROAD_CIRCULAR, ROAD_CLASS_MASK, ROAD_CLASSES, ROAD_LINK, ROAD_ROUNDABOUT } from './profile-ways.js';
import { bearingScale, closeCoordinate, type Coords, distance, e6OfE7, representativeCoordinate } from './road-coordinate.js';
import { labelAt } from './road-labels.js';
import type { Shapes } from './road-graph.js';

/** Meters a road's bearing is measured over from a node (OSRM looks a few meters down each road). */
export const BEARING_M = 10;
/** Meters per 1e-7° of latitude. */
export const M_PER_E7 = METERS_PER_DEGREE * 1e-7;
/** Words per geometry in `geomGuide`: the label (with the way's lanes), then the offsets along (2g) and
 *  against (2g+1) its points. */
export const GUIDE_WORDS = 3;
/** The label's bits of a record's first word; its top 4 bits are the way's number of lanes (up to 15, 0
 *  none given: profile-ways.ts `laneCountOf`), as OSRM's mergeable roads read a road's width. */
export const GUIDE_LABEL_MASK = 0x0fffffff;
const GUIDE_LANES_SHIFT = 28;
/** The label of a record's first word. */
export const guideLabel = (word: number): number => word & GUIDE_LABEL_MASK;
/** The lanes of a record's first word. */
export const guideLanes = (word: number): number => word >>> GUIDE_LANES_SHIFT;
/** An offset half that never occurs (offsets are kept within ±32767): the bearing's point is too far for
 *  16 bits (a straight road with no point for more than ~250 m), and is measured on the shapes instead. */
export const GUIDE_FAR = -32768;

/**
 * The point a road's bearing is measured towards, from point `from` of `pts` (lat, lon pairs in 1e-7°)
 * along its geometry's points by `step` (±1) up to `end`: its first point BEARING_M or more from `from`, or
 * `end` when none is.
 */
export function bearingPoint(pts: Int32Array, from: number, end: number, step: number, meters = BEARING_M): number {
  const kx = bearingScale(pts[2 * from]);
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

/** A direction whose bearing is measured on the shapes (`leaveBearing`): a road no one may take, or of no length. */
const FAR_WORD = offsetWord(GUIDE_FAR, GUIDE_FAR);

/** What `buildGuide` reads of a graph being assembled (graph-assemble.ts GraphInput). */
export interface GuideInput {
  nodeCount: number;
  geomA: Uint32Array;
  geomB: Uint32Array;
  geomFwd: Uint32Array;
  geomBwd: Uint32Array;
  geomFirst: Uint32Array;
  geomLast: Uint32Array;
  /** Per geometry its way's lanes (0: not said); none read as 0. */
  geomLanes?: Uint8Array;
}

/** How far down a road its points are gathered for its representative coordinate at a junction of roads of
 *  `lanes` lanes at most: past the farthest OSRM looks (40 m and the lanes' widths, 2.5 × 3.25 m each on a
 *  motorway). */
const gatherM = (lanes: number): number => 50 + 8.125 * Math.max(2, lanes);

/**
 * The guidance records of a graph's geometries (GUIDE_WORDS each) over `shapes`' points and labels: each
 * direction's offset points towards the road's representative coordinate at the node it leaves, as OSRM
 * finds it (road-coordinate.ts), over the road's points as OSRM's graph has them: on through nodes where
 * only two roads meet under one label (which OSRM's graph does not have), up to the next junction.
 */
export function buildGuide(g: GuideInput, shapes: Pick<Shapes, 'pointsE7' | 'labelFirst' | 'labelIndex' | 'labelKind'>): Int32Array {
  const pts = shapes.pointsE7;
  const G = g.geomFirst.length;
  const guide = new Int32Array(GUIDE_WORDS * G);
  // Per node: how many of the graph's roads meet there (OSRM's degree), and the first two directed
  // geometries leaving it (a node of two roads is gone through).
  const degree = new Uint8Array(g.nodeCount),
    // The most lanes of the roads at each node (OSRM's getIntersectionLanes).
    lanes = new Uint8Array(g.nodeCount);
  const leaving = new Int32Array(2 * g.nodeCount).fill(-1);
  const usable = (geom: number): boolean => g.geomFwd[geom] > 0 || g.geomBwd[geom] > 0;
  const tail = (d: number): number => (d & 1 ? g.geomB[d >> 1] : g.geomA[d >> 1]);
  const head = (d: number): number => (d & 1 ? g.geomA[d >> 1] : g.geomB[d >> 1]);
  for (let d = 0; d < 2 * G; d++) {
    if (!usable(d >> 1)) continue;
    const v = tail(d);
    if (degree[v] < 2) leaving[2 * v + degree[v]] = d;
    if (degree[v] < 255) degree[v]++;
    if (g.geomLanes) lanes[v] = Math.max(lanes[v], g.geomLanes[d >> 1]);
  }
  const labels = new Int32Array(G);
  for (let geom = 0; geom < G; geom++) labels[geom] = labelAt(shapes, g.geomFirst[geom]);
  const points: Coords = { lon: [], lat: [] };
  const out: [number, number] = [0, 0];
  /** The points of directed geometry d on from its first node, then on through two-road nodes, until
   *  `enough` metres are gathered. */
  const gather = (d: number, enough: number): void => {
    points.lon.length = points.lat.length = 0;
    const start = tail(d);
    let meters = 0;
    for (let hops = 0; hops < 64; hops++) {
      const geom = d >> 1,
        first = g.geomFirst[geom],
        last = g.geomLast[geom];
      const from = d & 1 ? last : first,
        step = d & 1 ? -1 : 1;
      for (let p = from; ; p += step) {
        const lon = e6OfE7(pts[2 * p + 1]),
          lat = e6OfE7(pts[2 * p]);
        const n = points.lon.length;
        if (n === 0 || points.lon[n - 1] !== lon || points.lat[n - 1] !== lat) {
          if (n > 0) meters += distance(points.lon[n - 1], points.lat[n - 1], lon, lat);
          points.lon.push(lon);
          points.lat.push(lat);
        }
        // (Past `enough` the points are not read: OSRM's extractor looks no farther.)
        if (p === (d & 1 ? first : last) || meters >= enough) break;
      }
      const v = head(d);
      if (meters >= enough || degree[v] !== 2 || v === start) return;
      const next = leaving[2 * v] === (d ^ 1) ? leaving[2 * v + 1] : leaving[2 * v];
      if (next < 0 || labels[next >> 1] !== labels[geom]) return;
      d = next;
    }
  };
  const word = (d: number): number => {
    const v = tail(d);
    // Where two roads meet, the first point more than a metre away: on the road's own points (the other
    // roads' are needed only where it is nearly all shorter than a metre).
    gather(d, degree[v] <= 2 ? 2 : gatherM(lanes[v]));
    if (points.lon.length < 2) return FAR_WORD;
    if (g.geomA[d >> 1] === g.geomB[d >> 1]) {
      // A road from a node back to it (OSRM's fallback for such loops: its second point).
      out[0] = points.lon[1];
      out[1] = points.lat[1];
    } else if (degree[v] <= 2) closeCoordinate(points, out);
    else {
      const kind = shapes.labelKind[labels[d >> 1]] ?? 0,
        roadClass = kind & ROAD_CLASS_MASK;
      representativeCoordinate(
        points,
        {
          // OSRM's car profile may ignore every road but those up to living streets (guidance.lua road_types).
          lowPriority: roadClass === 0 || roadClass === ROAD_CLASSES.service,
          ring: (kind & (ROAD_ROUNDABOUT | ROAD_CIRCULAR)) !== 0,
          // GetOffsetCorrectionFactor: motorways and trunks (their links too) 2.5, primary roads 1.5.
          offsetFactor:
            roadClass === ROAD_CLASSES.motorway || roadClass === ROAD_CLASSES.trunk ? 2.5 : roadClass === ROAD_CLASSES.primary && !(kind & ROAD_LINK) ? 1.5 : 1,
          lanes: lanes[v],
        },
        out,
      );
    }
    return scaledWord(10 * (out[1] - points.lat[0]), 10 * (out[0] - points.lon[0]));
  };
  for (let geom = 0; geom < G; geom++) {
    if (labels[geom] > GUIDE_LABEL_MASK) throw new Error(`buildGuide: label ${labels[geom]} does not fit the guidance record`);
    guide[GUIDE_WORDS * geom] = labels[geom] | (Math.min(15, g.geomLanes?.[geom] ?? 0) << GUIDE_LANES_SHIFT);
    guide[GUIDE_WORDS * geom + 1] = usable(geom) ? word(2 * geom) : FAR_WORD;
    guide[GUIDE_WORDS * geom + 2] = usable(geom) ? word(2 * geom + 1) : FAR_WORD;
  }
  return guide;
}

/** An offset as a word, scaled down to 16-bit halves where it is longer (its direction is what counts). */
function scaledWord(dLat: number, dLon: number): number {
  const most = Math.max(Math.abs(dLat), Math.abs(dLon));
  if (most <= 32767) return offsetWord(dLat, dLon);
  const k = 32767 / most;
  return offsetWord(Math.round(dLat * k), Math.round(dLon * k));
}
