// Turn-by-turn steps of a leg in OSRM's RouteStep model, from the pieces of road the leg took (trace.ts)
// and the roads at each node it passes (the graph's edges out of and into the node). One pass over the
// pieces; a node costs a look at its few roads, and a step's objects are made only where a maneuver is
// announced. The rules follow OSRM's guidance as its feature files specify it (features/guidance): a
// name change alone says "new name"; a road that simply goes on through a junction says nothing; a turn
// where the road ends is "end of road"; two roads splitting ahead is a "fork"; ramps are "on ramp" /
// "off ramp" and a ramp joining a motorway a "merge"; a roundabout is one step with its exit number and
// an "exit roundabout" step where the route leaves it. Deliberate differences are in docs/directions.md.
import { labelAt, labelLanesText, laneText } from '../../map/graphs/road-labels.js';
import { edgeTail, NO_HEAD, type RoadGraph } from '../../map/graphs/road-graph.js';
import { EXCLUDE_BIT, PUSHED_BACKWARD, PUSHED_FORWARD } from '../../map/graphs/profiles.js';
import { BEARING_M, bearingPoint, eastScale, GUIDE_FAR, GUIDE_WORDS, guideLabel, guideLanes, M_PER_E7 } from '../../map/graphs/road-guide.js';
import { MANEUVER_HEAD, MANEUVER_MODIFIERS, MANEUVER_SUPPRESS, MANEUVER_TYPES } from '../../map/graphs/maneuvers.js';
import type { LegTrace } from './trace.js';
import { angleBetween, deviation, reverse } from './bearings.js';
import { type JunctionRoads, type MergeReads, mergeCarriageways } from './merged-roads.js';
import { announced } from './names.js';
import { directionOfAngle, type LaneRoad, laneMasks, turnLanes } from './lanes.js';

/** Road kind bits (map/graphs/profile-ways.ts roadKindOf): class in the low 4 bits. */
const CLASS_MASK = 15,
  LINK = 16,
  ROUNDABOUT = 32,
  CIRCULAR = 64;
const MOTORWAY = 1,
  TRUNK = 2,
  SERVICE = 7;

/** The reverse graph's in-edges per node (graph-memory.ts), empty when the graph has none. */
export interface ReverseView {
  rFirst: Uint32Array;
  rEdge: Uint32Array;
}
export type GuidanceGraph = Pick<
  RoadGraph,
  | 'firstOut'
  | 'head'
  | 'orig'
  | 'origFirst'
  | 'origEdges'
  | 'origHead'
  | 'geomFirst'
  | 'geomLast'
  | 'geomCm'
  | 'geomGuide'
  | 'geomClass'
  | 'maneuvers'
  | 'shapes'
> &
  ReverseView;

export interface StepIntersection {
  /** [longitude, latitude] in 1e-7° of the node. */
  at: number;
  bearings: number[];
  entry: boolean[];
  in?: number;
  out?: number;
  /** The arriving road's turn lanes, left to right (masks of lanes.ts LANE_INDICATIONS), and those of them
   *  that serve the turn (counted from the right, as OSRM counts them); only where the road has lanes. */
  lanes?: { masks: number[]; first: number; count: number };
}

/** A step before it is written: positions are indexes of points of the route's line. */
export interface RawStep {
  type: string;
  modifier?: string;
  exit?: number;
  /** The point of the maneuver; the step's geometry runs from it (`from`) to `to`. */
  from: number;
  to: number;
  bearingBefore: number;
  bearingAfter: number;
  /** The label (road-labels.ts) whose name and ref the step has; -1 none. */
  label: number;
  /** A rotary's own label (its name is OSRM's `rotary_name`). */
  ring?: number;
  meters: number;
  tenths: number;
  intersection: StepIntersection;
  /** The intersections the step passes after its maneuver (only when `legSteps` is asked for them). */
  passed?: StepIntersection[];
  /** How many intersections (nodes of three or more roads) the step passes after its maneuver, whether
   *  `passed` lists them or not. */
  crossed: number;
  /** OSRM's travel mode where it is not the profile's: on a ferry (`route=ferry`), or a bicycle pushed. */
  mode?: StepMode;
  /** Whether the step's road is a segregated one (`segregatedRoad`), while the leg's steps are made. */
  segregated: boolean;
}

/** The travel modes a step may have besides its profile's. */
export type StepMode = 'ferry' | 'pushing bike';

// Scratch for the roads at one node: a junction has a handful (more than MAX_ROADS only in odd data; the
// rest are left out of the picture).
const MAX_ROADS = 32;
const roadDir = new Int32Array(MAX_ROADS);
const roadBearing = new Float64Array(MAX_ROADS);
const roadEntry = new Uint8Array(MAX_ROADS);
const roadKind = new Uint8Array(MAX_ROADS);
const roadLabel = new Int32Array(MAX_ROADS);
/** The way in a road stands for too, where the two carriageways of a road are one (merged-roads.ts); -1 none. */
const roadAlias = new Int32Array(MAX_ROADS);
let roadCount = 0;
/** Whether road i of the scratch is directed geometry d leaving the node, or stands for it. */
const isRoad = (i: number, d: number): boolean => roadDir[i] === d || roadAlias[i] === d;

/** Degrees clockwise from north from point a to point b of `pts` (lat, lon pairs in 1e-7°), on a plane
 *  whose east-west scale `kx` is the cosine of a's latitude. */
function bearingBetween(pts: Int32Array, a: number, b: number, kx: number): number {
  const dx = (pts[2 * b + 1] - pts[2 * a + 1]) * kx,
    dy = pts[2 * b] - pts[2 * a];
  const deg = (Math.atan2(dx, dy) * 180) / Math.PI;
  return deg < 0 ? deg + 360 : deg;
}

/** The bearing of directed original edge `d` leaving its first node, measured on the shapes: towards its
 *  first point BEARING_M or more away (its far end when it is shorter; road-guide.ts `bearingPoint`). */
export function leaveBearing(g: Pick<GuidanceGraph, 'geomFirst' | 'geomLast' | 'shapes'>, d: number, meters = BEARING_M): number {
  const geom = d >> 1,
    pts = g.shapes.pointsE7;
  const first = g.geomFirst[geom],
    last = g.geomLast[geom];
  const from = d & 1 ? last : first;
  return bearingBetween(pts, from, bearingPoint(pts, from, d & 1 ? first : last, d & 1 ? -1 : 1, meters), eastScale(pts[2 * from]));
}

/**
 * `leaveBearing` of directed edge `d` leaving a node whose east-west scale is `kx` (`eastScale` of its
 * latitude), from the graph's guidance record when it has one: the same offsets and the same arithmetic as
 * `bearingBetween`, so the same number, from one read instead of the geometry's ends and points.
 */
export function guidedBearing(g: GuidanceGraph, d: number, kx: number): number {
  if (g.geomGuide.length === 0) return leaveBearing(g, d);
  const w = g.geomGuide[GUIDE_WORDS * (d >> 1) + 1 + (d & 1)];
  const dLat = (w << 16) >> 16;
  if (dLat === GUIDE_FAR) return leaveBearing(g, d);
  const deg = (Math.atan2((w >> 16) * kx, dLat) * 180) / Math.PI;
  return deg < 0 ? deg + 360 : deg;
}

/** The label (road-labels.ts) of directed edge `d`'s way: the guidance record's, else a binary search. */
const labelOfDir = (g: GuidanceGraph, d: number): number =>
  g.geomGuide.length ? guideLabel(g.geomGuide[GUIDE_WORDS * (d >> 1)]) : labelAt(g.shapes, g.geomFirst[d >> 1]);
/** The lanes of directed edge `d`'s way (0 where none are given, or where the graph has no guidance records). */
const lanesOfDir = (g: GuidanceGraph, d: number): number => (g.geomGuide.length ? guideLanes(g.geomGuide[GUIDE_WORDS * (d >> 1)]) : 0);

const kindOf = (g: GuidanceGraph, d: number): number => kindOfLabel(g, labelOfDir(g, d));

/** The classes that change a step's travel mode: a ferry, a bicycle pushed either way. */
const MODE_CLASSES = EXCLUDE_BIT.ferry | PUSHED_FORWARD | PUSHED_BACKWARD;

/** Directed edge `d`'s travel mode where it is not the profile's (its geometry's classes, profiles.ts): a
 *  ferry's, or a pushed bicycle's that way (along the geometry's points for an even `d`). */
function modeOf(g: GuidanceGraph, d: number): StepMode | undefined {
  if (d < 0 || g.geomClass.length <= d >> 1) return undefined;
  const c = g.geomClass[d >> 1];
  if (c & EXCLUDE_BIT.ferry) return 'ferry';
  return c & (d & 1 ? PUSHED_BACKWARD : PUSHED_FORWARD) ? 'pushing bike' : undefined;
}

/** Per graph (its classes' array), whether any of its ways changes the travel mode: most car maps have
 *  none, and their steps then read no class at a junction (a far route decides a thousand). Found when
 *  RouteCore makes its view. */
const modeGraphs = new WeakMap<Uint8Array, boolean>();
export function hasModes(g: GuidanceGraph): boolean {
  let any = modeGraphs.get(g.geomClass);
  if (any === undefined) {
    any = false;
    for (let x = 0; x < g.geomClass.length && !any; x++) if (g.geomClass[x] & MODE_CLASSES) any = true;
    modeGraphs.set(g.geomClass, any);
  }
  return any;
}
const kindOfLabel = (g: GuidanceGraph, label: number): number => (label < 0 ? 0 : g.shapes.labelKind[label]);

/** Collects the roads at node v, whose east-west scale is `kx`, into the scratch: every way out (entry) and
 *  every way in only (no entry). */
function roadsAt(g: GuidanceGraph, v: number, kx: number): void {
  roadCount = 0;
  for (let e = g.firstOut[v]; e < g.firstOut[v + 1]; e++) addRoad(g, g.orig[e], true, kx);
  if (g.rFirst.length <= v + 1) return;
  for (let i = g.rFirst[v]; i < g.rFirst[v + 1]; i++) addRoad(g, g.orig[g.rEdge[i]] ^ 1, false, kx);
  if (viaWayCopy(g, v)) addSplitRoads(g, v, kx);
  // The two carriageways of a road, one road (a way in: only then may there be a pair).
  for (let i = 0; i < roadCount; i++) {
    if (roadEntry[i]) continue;
    junction.count = roadCount;
    mergeCarriageways(g, v, kx, junction, mergeReads(g));
    roadCount = junction.count;
    break;
  }
}

/** The scratch as merged-roads.ts reads it. */
const junction: JunctionRoads = { count: 0, dir: roadDir, bearing: roadBearing, entry: roadEntry, kind: roadKind, label: roadLabel, alias: roadAlias };
/** What the merge reads of a graph, per graph. */
const reads = new WeakMap<object, MergeReads>();
function mergeReads(g: GuidanceGraph): MergeReads {
  let r = reads.get(g.firstOut);
  if (!r) {
    const modes = hasModes(g);
    r = {
      bearing: (d, kx) => guidedBearing(g, d, kx),
      label: (d) => labelOfDir(g, d),
      lanes: (d) => lanesOfDir(g, d),
      identical: (a, b) => isNamed(g, a) && isNamed(g, b) && sameRoad(g, a, b),
      mode: (d) => (modes ? modeOf(g, d) : undefined),
      drivable: (d) => drivable(g, d),
      kind: (label) => kindOfLabel(g, label),
      ring: ROUNDABOUT | CIRCULAR,
      classBits: CLASS_MASK | LINK,
    };
    reads.set(g.firstOut, r);
  }
  return r;
}

/**
 * Whether node v is the copy a via-way restriction gives the via way's far node (map/graphs/graph-assemble.ts):
 * one way in, which does not end there as the graph's way onto the node (`origHead`) does. Such a copy has
 * only the ways out allowed after the via way; OSRM's guidance, which applies via-way restrictions only to
 * its search graph, sees the node's every road there. (A node split for a restriction through it gives
 * each way in a copy with the allowed ways out, as OSRM's guidance marks the others: not to be taken, and
 * no choice for the driver; such a copy is left as it is.)
 */
function viaWayCopy(g: GuidanceGraph, v: number): boolean {
  if (g.rFirst[v + 1] - g.rFirst[v] !== 1 || g.origHead.length === 0) return false;
  return g.origHead[g.orig[g.rEdge[g.rFirst[v]]]] !== v;
}

/** The copies of the node being looked at (`addSplitRoads`), and how many. */
const copies = new Int32Array(MAX_ROADS);
let copyCount = 0;
function addCopy(u: number): void {
  if (u === NO_HEAD || copyCount === MAX_ROADS) return;
  for (let i = 0; i < copyCount; i++) if (copies[i] === u) return;
  copies[copyCount++] = u;
}

/**
 * Adds to the scratch the ways out of and into the other nodes standing for the same junction as node v (a
 * via-way restriction's copy, `viaWayCopy`), as roads to be taken as OSRM's guidance takes them. They are
 * found from v's ways: where each way out is left from (the tails of its search edges) and where each way
 * into the node arrives (its head), and so on from every node found.
 */
function addSplitRoads(g: GuidanceGraph, v: number, kx: number): void {
  copyCount = 0;
  addCopy(v);
  for (let k = 0; k < copyCount; k++) {
    const u = copies[k];
    for (let e = g.firstOut[u]; e < g.firstOut[u + 1]; e++) {
      const out = g.orig[e];
      for (let i = g.origFirst[out]; i < g.origFirst[out + 1]; i++) addCopy(edgeTail(g, g.origEdges[i]));
      addCopy(g.origHead[out ^ 1]);
    }
    for (let i = g.rFirst[u]; i < g.rFirst[u + 1]; i++) {
      const back = g.orig[g.rEdge[i]] ^ 1;
      for (let j = g.origFirst[back]; j < g.origFirst[back + 1]; j++) addCopy(edgeTail(g, g.origEdges[j]));
    }
  }
  for (let k = 1; k < copyCount; k++) {
    const u = copies[k];
    for (let e = g.firstOut[u]; e < g.firstOut[u + 1]; e++) addRoad(g, g.orig[e], true, kx);
    for (let i = g.rFirst[u]; i < g.rFirst[u + 1]; i++) addRoad(g, g.orig[g.rEdge[i]] ^ 1, false, kx);
  }
}

function addRoad(g: GuidanceGraph, d: number, entry: boolean, kx: number): void {
  for (let i = 0; i < roadCount; i++) {
    if (roadDir[i] === d) {
      if (entry) roadEntry[i] = 1;
      return;
    }
  }
  if (roadCount === MAX_ROADS) return;
  roadDir[roadCount] = d;
  roadAlias[roadCount] = -1;
  roadEntry[roadCount] = entry ? 1 : 0;
  // Its label is asked for again and again while the node's step is decided.
  const label = labelOfDir(g, d);
  roadLabel[roadCount] = label;
  roadKind[roadCount] = kindOfLabel(g, label);
  // A ring's bearing right where it leaves the node, as OSRM takes it (2 m along): further on it has curved away.
  roadBearing[roadCount] = isRound(roadKind[roadCount]) ? leaveBearing(g, d, RING_BEARING_M) : guidedBearing(g, d, kx);
  roadCount++;
}

/** Roundabouts of less than this radius (meters, `ringRadius`) are announced as one turn, OSRM's
 *  "roundabout turn" (its MAX_ROUNDABOUT_INTERSECTION_RADIUS). */
const SMALL_ROUNDABOUT_M = 15;

/** The intersections, its maneuver's included, a step must have for the next to be an "end of road" (OSRM's
 *  MIN_END_OF_ROAD_INTERSECTIONS). */
const MIN_END_OF_ROAD_INTERSECTIONS = 2;

/** Meters along a ring where its bearing is taken (OSRM: 2 m): past a repeated point, within its first segment. */
const RING_BEARING_M = 0.5;

/** The bearings of the roads off a small ring, as `smallRing` finds them. */
const ringBearings = new Float64Array(4);
/** Degrees that every two roads off a ring announced as one turn lie apart at least (OSRM calls a ring
 *  whose exits point alike "non-distinct" and counts its exits instead). */
const DISTINCT_DEG = 50;

/** Roundabouts of more than this radius (meters, as `ringRadius`) with one name all round are OSRM's
 *  rotaries: "rotary" steps with the circle's name (its MAX_ROUNDABOUT_RADIUS). */
const ROTARY_M = 15;

/** Whether the last ring `radiusOfRing` followed has one name all round (OSRM names a rotary only then). */
let ringOneName = false;

/** The radius of the ring of roundabout ways through node v, followed from `d` (Infinity when it does
 *  not close within 64 nodes). */
function radiusOfRing(g: GuidanceGraph, v: number, d: number): number {
  let node = v,
    dir = d;
  const nameOf = (x: number): number => {
    const label = labelOfDir(g, x);
    return label < 0 ? -1 : g.shapes.labelName[label];
  };
  const name = nameOf(d);
  ringOneName = name >= 0;
  for (let hops = 0; hops < 64; hops++) {
    if (nameOf(dir) !== name) ringOneName = false;
    const next = ringStep(g, node, dir, hops);
    if (next < 0) return Infinity;
    if (next === v) return ringRadius();
    node = next;
    // Round the ring, not back along the way just followed (a ring bicycles may ride both ways has both).
    const arrived = dir >> 1;
    dir = -1;
    for (let e = g.firstOut[node]; e < g.firstOut[node + 1]; e++) {
      const o = g.orig[e];
      if (isRound(kindOf(g, o)) && o >> 1 !== arrived) {
        dir = o;
        break;
      }
    }
    if (dir < 0) return Infinity;
  }
  return Infinity;
}

/** The ring's length so far (cm), along its ways' geometry, as `ringStep` followed it. */
let ringCm = 0;

/** The ring's radius as OSRM takes it: its length ÷ 2π (meters). */
function ringRadius(): number {
  return ringCm / 100 / (2 * Math.PI);
}

/** Whether the first `n` ring bearings are pairwise DISTINCT_DEG apart. */
function distinct(n: number): boolean {
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const d = Math.abs(ringBearings[i] - ringBearings[j]) % 360;
      if (Math.min(d, 360 - d) < DISTINCT_DEG) return false;
    }
  }
  return true;
}

/**
 * Whether the ring of roundabout ways through node v (followed from `d`, a roundabout edge out of v) is
 * what OSRM announces as one "roundabout turn": back to v within a few dozen nodes, a radius (its
 * length / 2π) of at most SMALL_ROUNDABOUT_M, and at most four roads off it, one per node, each two-way
 * (oneway entries and exits make it a roundabout like any other) and pointing apart (`distinct`).
 */
/** Adds ring way `dir` (the ring's `hops`-th) to the ring's length, and returns the node it leads to from
 *  `node` (-1: it leaves elsewhere). */
function ringStep(g: GuidanceGraph, node: number, dir: number, hops: number): number {
  ringCm = hops === 0 ? g.geomCm[dir >> 1] : ringCm + g.geomCm[dir >> 1];
  let next = -1;
  for (let e = g.firstOut[node]; e < g.firstOut[node + 1]; e++) if (g.orig[e] === dir) next = g.head[e];
  return next;
}

function smallRing(g: GuidanceGraph, v: number, d: number): boolean {
  let node = v,
    dir = d,
    roads = 0;
  for (let hops = 0; hops < 64; hops++) {
    const next = ringStep(g, node, dir, hops);
    if (next < 0) return false;
    node = next;
    // The roads off the ring here: each way out must come back in (two-way), one per node.
    let out = -1,
      outs = 0,
      back = false;
    // Round the ring, not back along the way just followed (as in `radiusOfRing`).
    const arrived = dir >> 1;
    dir = -1;
    for (let e = g.firstOut[node]; e < g.firstOut[node + 1]; e++) {
      const o = g.orig[e];
      if (isRound(kindOf(g, o))) {
        if (o >> 1 !== arrived) dir = o;
      } else {
        outs++;
        out = o;
      }
    }
    if (g.rFirst.length > node + 1) {
      for (let i = g.rFirst[node]; i < g.rFirst[node + 1]; i++) {
        const o = g.orig[g.rEdge[i]] ^ 1;
        if (!isRound(kindOf(g, o)) && o !== out) return false;
        if (o === out) back = true;
      }
    }
    if (outs > 1 || (outs === 1 && !back)) return false;
    if (outs === 1) {
      // A service road off the ring (a car park's) makes it a roundabout to count exits on.
      if (roads === 4 || (kindOf(g, out) & CLASS_MASK) === SERVICE) return false;
      ringBearings[roads] = leaveBearing(g, out);
    }
    roads += outs;
    if (node === v) return ringRadius() <= SMALL_ROUNDABOUT_M && distinct(roads);
    if (dir < 0) return false;
  }
  return false;
}

/**
 * What was decided at nodes where the route went on along the road it arrived by (the same label on both
 * sides) and nothing was said: by the directed edge arrived on, whether that is so again, and whether the
 * node was an intersection the step passed. Such a node's step depends on its roads alone, not on the steps
 * before it (legSteps' rules say nothing there whatever the step's name or count), and it is two thirds of
 * the nodes a far route looks at (a road going on past side roads): a table of them per graph and thread
 * spares the look at their roads. Only where one road other than the one back has the label, so that the
 * edge arrived on names the way on.
 */
// 2^20 slots, 4 MB per graph and thread, touched as they are kept: 150 far 32x32 routes go on silently
// arriving by ~200,000 edges, and 2^18 slots kept half of them (each slot the last edge that fell there).
const GOING_ON_BITS = 20;
const UNKNOWN = 0,
  SILENT = 1,
  SILENT_CROSSED = 2;
/** A slot holds (edge + 1) << 2 | what was said, 0 when empty: the edge and its answer in one read. */
const goingOnTables = new WeakMap<object, Int32Array>();
/** Edges this many or more (no map has them) are not kept: their slot value would not fit. */
const MAX_KEPT_EDGE = (1 << 29) - 1;

function goingOnFor(g: GuidanceGraph): Int32Array | null {
  if (g.geomGuide.length === 0) return null;
  let t = goingOnTables.get(g.geomGuide);
  if (!t) goingOnTables.set(g.geomGuide, (t = new Int32Array(1 << GOING_ON_BITS)));
  return t;
}

const goingOnSlot = (d: number): number => Math.imul(d, 0x9e3779b1) >>> (32 - GOING_ON_BITS);

/** What `remember` kept for arriving on `d`, or UNKNOWN. */
function goingOn(t: Int32Array | null, d: number): number {
  if (!t) return UNKNOWN;
  const kept = t[goingOnSlot(d)];
  return kept >>> 2 === d + 1 ? kept & 3 : UNKNOWN;
}

/** Keeps that arriving on `d` (label `label`) and going on under it said nothing at the node whose roads
 *  are in the scratch, when exactly one road other than the one back has that label. */
function remember(t: Int32Array, g: GuidanceGraph, d: number, label: number): void {
  if (roadCount === MAX_ROADS || isRound(kindOfLabel(g, label))) return;
  let same = 0;
  for (let i = 0; i < roadCount; i++) if (roadLabel[i] === label && !isRoad(i, d ^ 1)) same++;
  if (same === 1) keep(t, d, roadCount > 2 ? SILENT_CROSSED : SILENT);
}

/** How many nodes `keep` has put in a table, in this thread. @internal (tests) */
export const remembered = (): number => keptNodes;
let keptNodes = 0;

function keep(t: Int32Array, d: number, said: number): void {
  if (d >= MAX_KEPT_EDGE) return;
  const slot = goingOnSlot(d);
  if (t[slot] >>> 2 !== d + 1) keptNodes++;
  t[slot] = ((d + 1) << 2) | said;
}

/** Whether the ring of roundabout ways through node v, followed from its way `ring` out of v, under label
 *  `label`, is one of OSRM's rotaries (but for `junction=circular`, always one): named, not `small`, of one
 *  name all round and a radius over ROTARY_M. */
const namedRotary = (g: GuidanceGraph, v: number, ring: number, label: number, small: boolean): boolean =>
  !small && isNamed(g, label) && radiusOfRing(g, v, ring) > ROTARY_M && ringOneName;

/** Whether the ring a leg started on, left at node v (its roads in the scratch) under label `label`, is a
 *  rotary: what the leg would have called it had it entered there. */
function leftRotary(g: GuidanceGraph, v: number, label: number): boolean {
  if (!isNamed(g, label)) return false;
  let ring = -1;
  for (let i = 0; i < roadCount; i++) if (roadEntry[i] && isRound(roadKind[i])) ring = roadDir[i];
  return ring >= 0 && namedRotary(g, v, ring, label, smallRing(g, v, ring));
}

/** Whether every way out of and into node v is the route's way on (`out`) or back (`back`). */
function onlyOnAndBack(g: GuidanceGraph, v: number, back: number, out: number): boolean {
  for (let e = g.firstOut[v]; e < g.firstOut[v + 1]; e++) if (g.orig[e] !== out && g.orig[e] !== back) return false;
  if (g.rFirst.length > v + 1) {
    // A via-way restriction's copy: its other roads only `roadsAt` finds.
    if (viaWayCopy(g, v)) return false;
    for (let i = g.rFirst[v]; i < g.rFirst[v + 1]; i++) {
      const d = g.orig[g.rEdge[i]] ^ 1;
      if (d !== out && d !== back) return false;
    }
  }
  return true;
}

// OSRM's segregated intersections (guidance/segregated_intersection_classification.cpp): a short road
// between two carriageways, whose turns a driver takes as one.
/** The longest such road, meters (OSRM's INTERNAL_LENGTH_MAX). */
const SEGREGATED_MAX_M = 32;
/** Turns within this of straight on (OSRM's INTERNAL_STRAIGHT bounds, 150–210°) make no carriageway's end. */
const SEGREGATED_STRAIGHT_DEV = 30;
/** Bits of the sides `sidesOf` finds turns to. */
const TO_LEFT = 1,
  TO_RIGHT = 2;

/** Whether a road of kind `kind` may be a carriageway beside a segregated intersection: a road (OSRM's road
 *  classes up to SIDE_RESIDENTIAL; our class 6 holds its unclassified too), not a link. */
const carriageway = (kind: number): boolean => (kind & LINK) === 0 && (kind & CLASS_MASK) >= MOTORWAY && (kind & CLASS_MASK) < SERVICE;

/** TO_LEFT or TO_RIGHT for a turn of deviation `dev` that OSRM's getTurnDirection calls (sharp) left or right; 0 else. */
const sideOf = (dev: number): number => {
  const a = Math.abs(dev);
  return a <= 40 || a >= 179 ? 0 : dev < 0 ? TO_LEFT : TO_RIGHT;
};

/** Whether directed edge `d` may be driven at all (it has search edges), whatever a turn restriction's
 *  copies of its nodes allow: OSRM classifies segregated roads on its graph without restrictions. */
const drivable = (g: GuidanceGraph, d: number): boolean => g.origFirst[d + 1] > g.origFirst[d];

/** A copy of the scratch's roads: a node's kept while another's are read into it. */
class RoadsCopy {
  readonly dir = new Int32Array(MAX_ROADS);
  readonly bearing = new Float64Array(MAX_ROADS);
  readonly entry = new Uint8Array(MAX_ROADS);
  readonly kind = new Uint8Array(MAX_ROADS);
  readonly label = new Int32Array(MAX_ROADS);
  readonly alias = new Int32Array(MAX_ROADS);
  count = 0;
  /** Takes the scratch's roads. */
  save(): void {
    const n = (this.count = roadCount);
    this.dir.set(roadDir.subarray(0, n));
    this.alias.set(roadAlias.subarray(0, n));
    this.bearing.set(roadBearing.subarray(0, n));
    this.entry.set(roadEntry.subarray(0, n));
    this.kind.set(roadKind.subarray(0, n));
    this.label.set(roadLabel.subarray(0, n));
  }
  /** Puts them back into the scratch. */
  load(): void {
    const n = (roadCount = this.count);
    roadDir.set(this.dir.subarray(0, n));
    roadAlias.set(this.alias.subarray(0, n));
    roadBearing.set(this.bearing.subarray(0, n));
    roadEntry.set(this.entry.subarray(0, n));
    roadKind.set(this.kind.subarray(0, n));
    roadLabel.set(this.label.subarray(0, n));
  }
}
const kept = new RoadsCopy();
/** The roads of the node after a segregated road's candidate, read for its check (`aheadNode`, -1 none). */
const ahead = new RoadsCopy();
let aheadNode = -1;

/** The roads at node v into the scratch, from those `segregatedRoad` read ahead when they are v's (a node's
 *  roads are its own whatever the route: one read each), else `roadsAt`. */
function roadsAhead(g: GuidanceGraph, v: number, kx: number): void {
  if (v === aheadNode) ahead.load();
  else roadsAt(g, v, kx);
}

/**
 * Whether directed edge `out`, from the node whose roads are in the scratch (at its index `outAt`) to node
 * `w` (east-west scale `kx`), is OSRM's segregated road: at most 32 m, no ring, a one-way carriageway
 * turning onto it at its start and off it at its end (neither nearly straight), the turns onto it and off
 * it not to opposite sides, nor those off it to both. The scratch is left as it was.
 */
function segregatedRoad(g: GuidanceGraph, out: number, outAt: number, w: number, kx: number): boolean {
  // (Its length is the caller's to check: a leg's pieces have it at hand.)
  if (isRound(roadKind[outAt])) return false;
  // A one-way way in is one the node has no way out along (so is a turn restriction's copy's): most
  // junctions have none, and are done without another read.
  let oneWayIn = false;
  for (let i = 0; i < roadCount && !oneWayIn; i++) {
    if (i !== outAt && !roadEntry[i] && carriageway(roadKind[i]) && Math.abs(deviation(reverse(roadBearing[i]), roadBearing[outAt])) >= SEGREGATED_STRAIGHT_DEV)
      oneWayIn = !drivable(g, roadDir[i]);
  }
  if (!oneWayIn) return false;
  let intoSides = 0;
  for (let i = 0; i < roadCount; i++)
    if (i !== outAt && drivable(g, roadDir[i] ^ 1)) intoSides |= sideOf(deviation(reverse(roadBearing[i]), roadBearing[outAt]));
  kept.save();
  roadsAt(g, w, kx);
  let back = -1;
  for (let i = 0; i < roadCount; i++) if (isRoad(i, out ^ 1)) back = i;
  let offSides = 0,
    oneWayOut = false;
  if (back >= 0) {
    const arriving = reverse(roadBearing[back]);
    for (let i = 0; i < roadCount; i++) {
      if (i === back || !drivable(g, roadDir[i])) continue;
      const dev = deviation(arriving, roadBearing[i]);
      offSides |= sideOf(dev);
      if (!drivable(g, roadDir[i] ^ 1) && carriageway(roadKind[i]) && Math.abs(dev) >= SEGREGATED_STRAIGHT_DEV) oneWayOut = true;
    }
  }
  // The route goes on to w: its roads, read now, are kept for its turn (`roadsAhead`).
  aheadNode = w;
  ahead.save();
  kept.load();
  if (!oneWayOut) return false;
  return !((intoSides & TO_LEFT && offSides & TO_RIGHT) || (intoSides & TO_RIGHT && offSides & TO_LEFT) || offSides === (TO_LEFT | TO_RIGHT));
}

/** Whether the road `outAt` of the scratch goes on under its name on the far side of the node: another
 *  named road there (not the one arrived by, `inBack`) with its name and class points the opposite way
 *  (OSRM's isThroughStreet, is_through_street.hpp, within 35° here where OSRM allows its
 *  FUZZY_ANGLE_DIFFERENCE, 25°: our bearings are not its turn angles, and at Schaan's Poststrasse
 *  (test/routes-api/turn-rules.test.ts) they part by 149°). */
function throughStreet(g: GuidanceGraph, outAt: number, inBack: number): boolean {
  if (outAt < 0) return false;
  const label = roadLabel[outAt];
  if (!hasName(g, label)) return false;
  for (let i = 0; i < roadCount; i++) {
    if (i === outAt || i === inBack) continue;
    const other = roadLabel[i];
    if (!hasName(g, other) || !sameRoad(g, label, other)) continue;
    if ((roadKind[i] & (CLASS_MASK | LINK)) !== (roadKind[outAt] & (CLASS_MASK | LINK))) continue;
    if (Math.abs(deviation(roadBearing[i], roadBearing[outAt])) >= 145) return true;
  }
  return false;
}

/** Meters in a straight line from directed edge `d`'s first node to its last (OSRM's greatCircleDistance
 *  between the nodes of a node-based edge). */
function chordMeters(g: GuidanceGraph, d: number): number {
  const pts = g.shapes.pointsE7,
    geom = d >> 1;
  const a = g.geomFirst[geom],
    b = g.geomLast[geom];
  const dx = (pts[2 * b + 1] - pts[2 * a + 1]) * eastScale(pts[2 * a]),
    dy = pts[2 * b] - pts[2 * a];
  return Math.sqrt(dx * dx + dy * dy) * M_PER_E7;
}

/** OSRM's MAX_COLLAPSE_DISTANCE of getInstructionForObvious: a turn onto a through street is "straight" only
 *  when the road goes on for twice that before its next node. */
const THROUGH_STRAIGHT_M = 60;

/** OSRM's modifier for a deviation (its getTurnDirection, turned into deviations). */
export function modifierOf(dev: number): string {
  const a = Math.abs(dev);
  if (a <= 10) return 'straight';
  if (a >= 179) return 'uturn';
  const side = dev > 0 ? 'right' : 'left';
  if (a <= 40) return `slight ${side}`;
  if (a <= 120) return side;
  return `sharp ${side}`;
}

/** 0 slight, 1 plain, 2 sharp: `modifierOf`'s bands of a deviation's size. */
const sharpness = (a: number): number => (a <= 40 ? 0 : a <= 120 ? 1 : 2);
/** The deviations (sizes) of the other roads a driver could take on the side a turn goes to, per node. */
const sideDev = new Float64Array(MAX_ROADS);

/**
 * The modifier of a turn of deviation `dev` (its size `outDev`) at a junction with `straighter` roads a driver
 * could take straighter than it, the straightest of them `straightest`, `sameSide` roads on its side and the
 * deviations of the `sideCount` of those a driver could take in `sideDev`. With no other road to that side,
 * OSRM calls any clear turn plain left or right. (A function of its own: as a closure in the node's loop it
 * made a context, and boxed numbers, at every junction.)
 */
function turnModifier(dev: number, outDev: number, straighter: number, straightest: number, sameSide: number, sideCount: number): string {
  // Nearly straight beside a straighter road: slight, to the side away from it (OSRM keeps "straight"
  // for one road of a junction).
  if (outDev <= 10 && straighter > 0) return dev > straightest ? 'slight right' : 'slight left';
  const side = dev < 0 ? 'left' : 'right';
  if (outDev <= 10 || outDev >= 179) return modifierOf(dev);
  if (sameSide > 0) {
    // Roads a driver could take on the same side with the same modifier by angle are told apart as OSRM
    // does: the one nearest a square turn takes the plain modifier, those nearer straight are slight, the
    // others sharp.
    const kind = sharpness(outDev);
    let rival = false,
      nearer = false;
    for (let i = 0; i < sideCount; i++) {
      if (sharpness(sideDev[i]) !== kind) continue;
      rival = true;
      if (Math.abs(sideDev[i] - 90) < Math.abs(outDev - 90)) nearer = true;
    }
    // (Within 20° of straight on or of turning back a road keeps its band: OSRM's similar sharp turns.)
    if (!rival || (!nearer && (outDev <= 20 || outDev >= 160))) return modifierOf(dev);
    return !nearer ? side : outDev < 90 ? `slight ${side}` : `sharp ${side}`;
  }
  return outDev <= 40 ? `slight ${side}` : outDev <= 120 ? side : `sharp ${side}`;
}

/** OSRM's getTurnDirection as it is, straight up to 20°: the modifier of leaving a roundabout, and of an
 *  obvious way on under a new name (getInstructionForObvious). Turns elsewhere keep `modifierOf`. */
function turnDirection(dev: number): string {
  return Math.abs(dev) <= 20 ? 'straight' : modifierOf(dev);
}

/** OSRM's road priority (RoadPriorityClass, profiles/lib/guidance.lua) of a road kind: lower is more
 *  important; residential, unclassified and living streets are one class here, taken as residential. */
const PRIORITIES = [31, 0, 2, 4, 6, 8, 10, 12];
const priorityOf = (kind: number): number => {
  const c = kind & CLASS_MASK;
  return c >= PRIORITIES.length ? 31 : PRIORITIES[c] + (c > 0 && c < SERVICE && kind & LINK ? 1 : 0);
};
/** OSRM's getRoadGroup of a priority. */
const groupOf = (p: number): number => (p <= 1 ? 0 : p <= 3 ? 1 : p <= 9 ? 2 : p <= 13 ? 3 : p <= 15 ? 4 : p <= 16 ? 5 : p <= 18 ? 6 : 7);
/** OSRM's IsLowPriorityRoadClass: a road its car profile does not take for a road type (service and others). */
const lowPriority = (kind: number): boolean => {
  const c = kind & CLASS_MASK;
  return c === 0 || c === SERVICE;
};
/** OSRM's strictlyLess of two road kinds' classifications: `a` of a lower group than `b`. */
const strictlyLess = (a: number, b: number): boolean => (lowPriority(a) !== lowPriority(b) ? lowPriority(a) : groupOf(priorityOf(a)) > groupOf(priorityOf(b)));
/** OSRM's isLinkTo: `link` the `_link` of road `road`'s class. */
const linkTo = (link: number, road: number): boolean => (link & LINK) !== 0 && (road & LINK) === 0 && (link & CLASS_MASK) === (road & CLASS_MASK);

/**
 * Whether road `i` of the scratch, a way a driver could take at `compareDev` from straight, looks as obvious
 * as the candidate road `c` at `candDev` (OSRM's IsDistinctNarrowTurn, its is_similar_turn; intersection_handler.hpp),
 * arriving on label `inLabel` of kind `inKind` with `inLanes` lanes; `back` the road arrived by.
 */
function similarNarrow(g: GuidanceGraph, i: number, c: number, inLabel: number, inKind: number, inLanes: number, candDev: number, compareDev: number): boolean {
  const candLanes = lanesOfDir(g, roadDir[c]),
    compareLanes = lanesOfDir(g, roadDir[i]);
  const noNameChangeToCand = sameRoad(g, inLabel, roadLabel[c]);
  const laneFork =
    compareLanes > 0 && candLanes === compareLanes && inLanes === candLanes + compareLanes && Math.abs(deviation(roadBearing[c], roadBearing[i])) < 60;
  const distinct = compareDev > 2 * candDev && Math.abs(compareDev - candDev) > 12.5;
  const slightlyDistinct = compareDev > 1.4 * candDev;
  // 5. By the names.
  const nameChangesToCompare = !sameRoad(g, inLabel, roadLabel[i]);
  if ((noNameChangeToCand || nameChangesToCompare) && !laneFork && distinct) return false;
  // 6. A road that goes on across the junction is no rival.
  let opposing = -1,
    best = 361;
  const rev = reverse(roadBearing[i]);
  for (let k = 0; k < roadCount; k++) {
    const delta = Math.abs(deviation(rev, roadBearing[k]));
    if (delta < best) {
      best = delta;
      opposing = k;
    }
  }
  const four = roadCount >= 4;
  const compareFromOpposing = opposing >= 0 && sameRoad(g, roadLabel[opposing], roadLabel[i]);
  const opposingAngle = opposing >= 0 ? Math.abs(deviation(roadBearing[i], roadBearing[opposing])) : 0;
  if (four && (compareFromOpposing || opposingAngle > 140) && distinct) return false;
  if (four && noNameChangeToCand && nameChangesToCompare && slightlyDistinct && compareFromOpposing && opposingAngle > 155) return false;
  if (!four && noNameChangeToCand && nameChangesToCompare && distinct && !laneFork && opposingAngle > 120) return false;
  const inP = priorityOf(inKind),
    candP = priorityOf(roadKind[c]),
    compareP = priorityOf(roadKind[i]);
  // 7. From a minor road every distinct road is no rival.
  if (inP > 6 && distinct) return false;
  // 8. The candidate keeps the lanes, nearly straight.
  if (candLanes > 0 && candLanes === inLanes && candDev < 25 && distinct) return false;
  // 9. By the classes.
  if (inP === candP && candP < compareP && noNameChangeToCand && slightlyDistinct) return false;
  if (inP === candP && candP > compareP + 4 && noNameChangeToCand && slightlyDistinct) return false;
  // (OSRM's roadHasLowerClass: of a lower class and fewer lanes, or the `_link` of both.)
  if (strictlyLess(roadKind[i], inKind) && strictlyLess(roadKind[i], roadKind[c]) && compareLanes > 0 && compareLanes + 1 < inLanes) return false;
  if (linkTo(roadKind[i], inKind) && linkTo(roadKind[i], roadKind[c])) return false;
  const candNamesDiffer = !sameRoad(g, roadLabel[c], roadLabel[i]);
  if (inP === candP && groupOf(inP) < groupOf(compareP) && candNamesDiffer && nameChangesToCompare) return false;
  if (inP === candP && roadKind[i] & LINK) return false;
  return true;
}

/** The scratch indexes of the roads a driver could take at the node being decided, other than the route's. */
const choiceAt = new Int32Array(MAX_ROADS);

/** Whether any of the first `count` roads of `choiceAt` looks as obvious as the route's road `c` at `candDev`
 *  from straight (`similarNarrow`), arriving at bearing `before`. */
function anySimilar(g: GuidanceGraph, c: number, inLabel: number, inKind: number, inLanes: number, before: number, candDev: number, count: number): boolean {
  for (let k = 0; k < count; k++) {
    const i = choiceAt[k];
    if (similarNarrow(g, i, c, inLabel, inKind, inLanes, candDev, Math.abs(deviation(before, roadBearing[i])))) return true;
  }
  return false;
}

/** Whether road `s` of `choiceAt`'s first `count`, the straightest a driver could take, is within 35° of
 *  straight and no other, the route's road `c` among them, looks as obvious (`similarNarrow`). `choiceAt`
 *  is left as it was. */
function obviousOther(g: GuidanceGraph, s: number, c: number, inLabel: number, inKind: number, inLanes: number, before: number, count: number): boolean {
  const sDev = Math.abs(deviation(before, roadBearing[s]));
  if (sDev > 35) return false;
  for (let k = 0; k < count; k++) {
    const i = choiceAt[k] === s ? c : choiceAt[k];
    if (similarNarrow(g, i, s, inLabel, inKind, inLanes, sDev, Math.abs(deviation(before, roadBearing[i])))) return false;
  }
  return true;
}

/**
 * Whether road `r` of the scratch, another a driver could take that goes on under the name arrived by, is
 * the obvious way on (OSRM's findObviousTurn, its first look: a road with a name of no lower class, not a
 * `_link` of the road, that is distinct: IsDistinctNarrowTurn within GROUP_ANGLE, 60°, of straight, else
 * IsDistinctWideTurn, its angles alone). The rivals are `choiceAt`'s first `count` with the route's road
 * `c` for `r`; the wide test looks at every road but `back`, the one arrived by.
 */
function continuingObvious(
  g: GuidanceGraph,
  r: number,
  c: number,
  inLabel: number,
  inKind: number,
  inLanes: number,
  before: number,
  count: number,
  back: number,
): boolean {
  if (r < 0 || c < 0) return true;
  if (!hasName(g, inLabel) || !hasName(g, roadLabel[r]) || strictlyLess(roadKind[r], inKind) || linkTo(roadKind[r], inKind)) return false;
  const rDev = Math.abs(deviation(before, roadBearing[r]));
  if (rDev < 60) {
    for (let k = 0; k < count; k++) {
      const i = choiceAt[k] === r ? c : choiceAt[k];
      if (similarNarrow(g, i, r, inLabel, inKind, inLanes, rDev, Math.abs(deviation(before, roadBearing[i])))) return false;
    }
    return true;
  }
  for (let i = 0; i < roadCount; i++) {
    if (i === r || i === back) continue;
    const dev = Math.abs(deviation(before, roadBearing[i]));
    // Not straight and of a lower class with fewer lanes (roadHasLowerClass), or bending twice as much: no rival.
    if (
      dev > 20 &&
      strictlyLess(roadKind[i], inKind) &&
      strictlyLess(roadKind[i], roadKind[r]) &&
      lanesOfDir(g, roadDir[i]) > 0 &&
      lanesOfDir(g, roadDir[i]) + 1 < inLanes
    )
      continue;
    if (dev > 20 && linkTo(roadKind[i], inKind) && linkTo(roadKind[i], roadKind[r])) continue;
    if (dev > 2 * rDev) continue;
    return false;
  }
  return true;
}

/** The deviations of the roads at the node being decided that no one may take (ways in only). */
const closedDev = new Float64Array(MAX_ROADS);

/**
 * Whether one of the first `count` of `closedDev` is among the roads of a fork of the route's road at `dev`
 * and the roads near it (deviations `nearMin` to `nearMax`): within NARROW_TURN_ANGLE (40°) of straight, or
 * of one of them (OSRM's findForkCandidatesByGeometry, isOutermostForkCandidate; a fork's roads must all
 * allow entry).
 */
function closedFork(count: number, dev: number, nearMin: number, nearMax: number): boolean {
  for (let k = 0; k < count; k++) {
    const x = closedDev[k];
    if (Math.abs(x) <= 40 || Math.abs(x - dev) <= 40 || Math.abs(x - nearMin) <= 40 || Math.abs(x - nearMax) <= 40) return true;
  }
  return false;
}

/** `announced` of label pairs seen in this thread (the same few pairs recur along every route): no text
 *  decoded twice. A table of pairs by hash, each slot the last pair that fell there; it belongs to one
 *  shapes (another map's clears it). */
const PAIR_SLOTS = 1 << 14;
const pairFrom = new Int32Array(PAIR_SLOTS).fill(-2);
const pairTo = new Int32Array(PAIR_SLOTS);
const pairSame = new Uint8Array(PAIR_SLOTS);
let pairsOf: WeakRef<object> | null = null;

/** Clears the pairs' table when `g`'s shapes are not those it holds pairs of (once per leg: `sameRoad` runs
 *  at every junction). */
function pairsFor(g: GuidanceGraph): void {
  if (pairsOf?.deref() !== g.shapes) {
    pairFrom.fill(-2);
    pairsOf = new WeakRef(g.shapes);
  }
}

/** Whether two labels read as the same road on the signs (no new name between them); `pairsFor(g)` first. */
function sameRoad(g: GuidanceGraph, a: number, b: number): boolean {
  if (a === b) return true;
  const slot = (Math.imul(a, 0x9e3779b1) ^ b) & (PAIR_SLOTS - 1);
  if (pairFrom[slot] !== a || pairTo[slot] !== b) {
    pairFrom[slot] = a;
    pairTo[slot] = b;
    pairSame[slot] = announced(g.shapes, a, b) ? 0 : 1;
  }
  return pairSame[slot] === 1;
}

/** Whether a label has a name (its ref aside). */
const isNamed = (g: GuidanceGraph, label: number): boolean => label >= 0 && g.shapes.labelName[label] >= 0;

/** Whether a label has a name or a ref (OSRM's non-empty name id). */
const hasName = (g: GuidanceGraph, label: number): boolean => label >= 0 && (g.shapes.labelName[label] >= 0 || g.shapes.labelRef[label] >= 0);

const isRound = (kind: number): boolean => (kind & (ROUNDABOUT | CIRCULAR)) !== 0;
/** A motorway's or trunk's `_link`: what OSRM calls a ramp (other links are roads like any other). */
const isRamp = (kind: number): boolean => (kind & LINK) !== 0 && isHighway(kind);
const isHighway = (kind: number): boolean => {
  const c = kind & CLASS_MASK;
  return c === MOTORWAY || c === TRUNK;
};

/** The scratch roads' indexes in order of bearing (`intersectionOf`). */
const roadOrder = new Int32Array(MAX_ROADS);

/** The maneuver's intersection from the scratch roads (bearings sorted as OSRM sorts them). */
function intersectionOf(at: number, inDir: number, outDir: number): StepIntersection {
  // Insertion sort: stable, as the sort it replaces, and a junction has a handful of roads.
  for (let i = 0; i < roadCount; i++) {
    let j = i;
    for (; j > 0 && roadBearing[roadOrder[j - 1]] > roadBearing[i]; j--) roadOrder[j] = roadOrder[j - 1];
    roadOrder[j] = i;
  }
  // OSRM gives a junction's bearings in steps of 15° where no two of its roads share a step (its bearing
  // class, guidance/turn_classification.cpp), the one of the last step first where it wraps round north.
  let discrete = true;
  for (let k = 0, last = discreteBearing(Math.round(roadBearing[roadOrder[roadCount - 1]])); k < roadCount && discrete; k++) {
    const step = discreteBearing(Math.round(roadBearing[roadOrder[k]]));
    discrete = roadCount <= 1 || step !== last;
    last = step;
  }
  const first =
    discrete && roadCount > 1 && discreteBearing(roadBearing[roadOrder[roadCount - 1]]) < discreteBearing(roadBearing[roadOrder[0]]) ? roadCount - 1 : 0;
  // Made to their size (a list grown from empty takes room for 17 at its first push: a far route's 100 kB).
  const bearings: number[] = new Array(roadCount),
    entry: boolean[] = new Array(roadCount);
  let inAt: number | undefined, outAt: number | undefined;
  for (let k = 0; k < roadCount; k++) {
    const i = roadOrder[(k + first) % roadCount];
    if (isRoad(i, inDir)) inAt = k;
    if (roadDir[i] === outDir) outAt = k;
    bearings[k] = discrete ? Math.round(discreteBearing(Math.round(roadBearing[i])) * DISCRETE_STEP) : Math.round(roadBearing[i]) % 360;
    entry[k] = roadEntry[i] === 1 && !isRoad(i, inDir);
  }
  return intersection(at, bearings, entry, inAt, outAt);
}

/** OSRM's bearing classes' step (BearingClass::discrete_step_size), and a bearing's step. */
const DISCRETE_STEP = 360 / 24;
const discreteBearing = (bearing: number): number => {
  let shifted = bearing + 0.5 * DISCRETE_STEP;
  if (shifted >= 360) shifted -= 360;
  return Math.trunc(shifted / DISCRETE_STEP);
};

// Steps and intersections are made with every field, in one order: a far route's hundreds of steps then
// share one shape, and reading and adding to them stays fast.
const intersection = (at: number, bearings: number[], entry: boolean[], inAt?: number, outAt?: number): StepIntersection => ({
  at,
  bearings,
  entry,
  in: inAt,
  out: outAt,
  lanes: undefined,
});

/** Per shapes, the lanes' masks of each lanes text met (null: a text OSRM's handler does not read): a far
 *  route meets the same few again and again. */
const laneMaskCache = new WeakMap<object, Map<number, number[] | null>>();
/** The piece of the leg before the one arriving at a junction (`dir` -1 where the leg starts on it), and the
 *  search node between them. */
interface PriorPiece {
  dir: number;
  node: number;
}
/** OSRM's COMBINE_DISTANCE_CUTOFF: centimeters within which the road before a junction's road lends it its
 *  lanes (findPreviousIntersection). */
const PRIOR_LANES_CM = 3000;
/** OSRM's GROUP_ANGLE: the road on must lie within this of straight on from the road before. */
const PRIOR_STRAIGHT_DEV = 60;

/**
 * The lanes (labelLanesText) of the road before `inDir` where OSRM's turn lane handler takes them for a
 * road without lanes of its own (its SIMPLE_PREVIOUS scenario, "Turn Lanes Given earlier than actual
 * turn"): `inDir` at most 30 m long, from a node of only these two roads, nearly straight on; -1 none.
 */
function priorLanesText(g: GuidanceGraph, inDir: number, prior: PriorPiece): number {
  if (g.geomCm[inDir >> 1] > PRIOR_LANES_CM || prior.dir >> 1 === inDir >> 1) return -1;
  // Most roads have no lanes: theirs first, the node's roads only for one that has.
  const text = labelLanesText(g.shapes, labelOfDir(g, prior.dir), (prior.dir & 1) === 0);
  if (text < 0) return -1;
  if (!onlyOnAndBack(g, prior.node, prior.dir ^ 1, inDir)) return -1;
  const kx = eastScale(g.shapes.pointsE7[2 * (inDir & 1 ? g.geomLast[inDir >> 1] : g.geomFirst[inDir >> 1])]);
  return Math.abs(deviation(reverse(guidedBearing(g, prior.dir ^ 1, kx)), guidedBearing(g, inDir, kx))) > PRIOR_STRAIGHT_DEV ? -1 : text;
}

function masksOf(g: GuidanceGraph, text: number): number[] | null {
  let cache = laneMaskCache.get(g.shapes);
  if (!cache) laneMaskCache.set(g.shapes, (cache = new Map()));
  let masks = cache.get(text);
  if (masks === undefined) cache.set(text, (masks = laneMasks(laneText(g.shapes, text) ?? '')));
  return masks;
}

/** The arriving road's lanes that serve the turn from `inDir` onto `outDir` at the node whose roads are in
 *  the scratch, where the road has lanes and OSRM's handler matches them (lanes.ts); the turn is the step's
 *  `type` and `modifier` (`suppressed` where no step is made). Bearings are measured from `before`. */
function lanesAt(
  g: GuidanceGraph,
  inDir: number,
  outDir: number,
  before: number,
  type: string,
  modifier: string | undefined,
  prior: PriorPiece,
): StepIntersection['lanes'] {
  // Most roads have no lanes: one look at the label's (OSRM emits none on roundabouts).
  let text = labelLanesText(g.shapes, labelOfDir(g, inDir), (inDir & 1) === 0);
  if (text < 0 && prior.dir >= 0) text = priorLanesText(g, inDir, prior);
  if (text < 0) return undefined;
  const masks = masksOf(g, text);
  if (!masks) return undefined;
  const back = inDir ^ 1;
  const roads: LaneRoad[] = [];
  let uturnReversed = true,
    sameAhead = false,
    takenAt = -1;
  for (let i = 0; i < roadCount; i++) {
    if (isRound(roadKind[i])) return undefined;
    const isBack = isRoad(i, back);
    if (isBack) uturnReversed = roadEntry[i] === 0;
    const angle = isBack ? 0 : (540 - deviation(before, roadBearing[i])) % 360;
    const taken = roadDir[i] === outDir;
    if (taken) takenAt = i;
    if (!isBack && roadEntry[i] && labelLanesText(g.shapes, roadLabel[i], (roadDir[i] & 1) === 0) === text) sameAhead = true;
    roads.push({
      angle,
      entry: isBack ? taken : roadEntry[i] === 1,
      modifier: isBack ? 'uturn' : taken && modifier ? modifier : directionOfAngle(angle),
      type: taken ? type : 'turn',
    });
  }
  if (takenAt < 0) return undefined;
  const taken = roads[takenAt];
  // OSRM's order: the way back first, the others from sharp right round to sharp left.
  const sorted = roads.slice().sort((a, b) => a.angle - b.angle);
  const lanes = turnLanes(masks, sorted, sorted.indexOf(taken), uturnReversed, sameAhead);
  return lanes ? { masks, first: lanes.first, count: lanes.count } : undefined;
}

function rawStep(
  type: string,
  modifier: string | undefined,
  from: number,
  to: number,
  bearingBefore: number,
  bearingAfter: number,
  label: number,
  at: StepIntersection,
): RawStep {
  return {
    type,
    modifier,
    exit: undefined,
    from,
    to,
    bearingBefore,
    bearingAfter,
    label,
    ring: undefined,
    meters: 0,
    tenths: 0,
    intersection: at,
    passed: undefined,
    crossed: 0,
    segregated: false,
  };
}

/** Scratch of `legSteps`: its pieces' labels and what the going-on table said of each (grown as legs need). */
let pieceLabels: Int32Array = new Int32Array(1024),
  pieceSaids: Int32Array = new Int32Array(1024);
const atLeast = (a: Int32Array, n: number): Int32Array => (a.length >= n ? a : new Int32Array(Math.max(n, 2 * a.length)));

/** A leg's running figures, in a typed array: as variables its closures share they were numbers boxed
 *  anew at every piece of road (a far route's hundreds of kB of garbage). */
const tally = new Float64Array(4);
const METERS = 0,
  TENTHS = 1,
  /** The bearings into and out of the junction being looked at (`make` reads them). */
  BEFORE = 2,
  AFTER = 3;

/**
 * The steps of one leg: depart, the maneuvers, arrive. `line` is the route's line (lon, lat pairs in
 * 1e-7°), `trace` the leg's pieces as drawn into it. With `passed`, each step also lists the
 * intersections (nodes of three or more roads) it passes, as OSRM's `intersections` do.
 */
export function legSteps(g: GuidanceGraph, line: Int32Array, trace: LegTrace, passed = false): RawStep[] {
  // Pieces of no length at either end (a waypoint on a node, snapped to a road that leaves it) say
  // nothing of the way taken: the leg starts and ends on the roads it travels.
  let k0 = 0,
    n = trace.count;
  while (n - k0 > 1 && trace.meters[n - 1] === 0) {
    trace.end[n - 2] = trace.end[n - 1];
    n--;
  }
  while (n - k0 > 1 && trace.meters[k0] === 0) k0++;
  const steps: RawStep[] = [];
  pairsFor(g);
  aheadNode = -1;
  const modes = hasModes(g);
  const mode = (d: number): StepMode | undefined => (modes ? modeOf(g, d) : undefined);
  const memo = passed ? null : goingOnFor(g);
  const lastPoint = trace.end[n - 1];
  const lineBearing = (a: number, b: number): number => {
    const kx = Math.cos(line[2 * a + 1] * 1e-7 * (Math.PI / 180));
    const deg = (Math.atan2((line[2 * b] - line[2 * a]) * kx, line[2 * b + 1] - line[2 * a + 1]) * 180) / Math.PI;
    return deg < 0 ? deg + 360 : deg;
  };
  const labelOf = (d: number): number => labelOfDir(g, d);
  const first = k0 > 0 ? trace.end[k0 - 1] : trace.first;
  const departAfter = lastPoint > first ? Math.round(lineBearing(first, first + 1)) % 360 : 0;
  let current = rawStep(
    'depart',
    undefined,
    first,
    lastPoint,
    0,
    departAfter,
    labelOf(trace.dir[k0]),
    intersection(first, [departAfter], [true], undefined, 0),
  );
  const departMode = mode(trace.dir[k0]);
  if (departMode) current.mode = departMode;
  steps.push(current);
  // The current step's meters and tenths so far (added up here, given to the step when the next starts).
  tally[METERS] = tally[TENTHS] = 0;
  // The roundabout step being counted (entered in this leg), and its exits so far.
  let round: RawStep | null = null;
  // The turn onto it: OSRM's modifier of a roundabout the leg does not leave (an exit gives it another).
  let entryModifier = '';
  let exits = 0;
  // A straight change of name (a bridge's own name, say), held until the next junction tells whether the
  // route goes back onto the name before it, where OSRM collapses both. (Before an arrival it stays: a short
  // one goes with the short names, as at "Four Way Intersection"; a longer one is said, as OSRM says it
  // after turning back at a dead end in "Car - prohibit turn".)
  let quietName: RawStep | null = null;
  /** Takes the last step back (the held name change, or one a maneuver relation suppresses): its
   *  stretch goes to the step before it. */
  const dropLastStep = (): void => {
    const quiet = steps.pop() as RawStep;
    current = steps[steps.length - 1];
    tally[METERS] += current.meters;
    tally[TENTHS] += current.tenths;
    takeIntersections(current, quiet, passed);
    quietName = null;
  };
  const emit = (step: RawStep): void => {
    quietName = null;
    current.to = step.from;
    current.meters = tally[METERS];
    current.tenths = tally[TENTHS];
    tally[METERS] = tally[TENTHS] = 0;
    steps.push(step);
    current = step;
  };
  // The piece before the one arriving at the junction, whose lanes it may take (`priorLanesText`).
  const prior: PriorPiece = { dir: -1, node: -1 };
  // The state of the junction being looked at, read by `make` (one function for the whole leg, not one
  // per node: a far route passes tens of thousands of nodes).
  let at = 0,
    back = 0,
    outDir = 0,
    outLabel = -1;
  const make = (type: string, modifier?: string): RawStep => {
    const x = intersectionOf(at, back, outDir);
    x.lanes = lanesAt(g, back ^ 1, outDir, tally[BEFORE], type, modifier, prior);
    const step = rawStep(type, modifier, at, lastPoint, Math.round(tally[BEFORE]) % 360, Math.round(tally[AFTER]) % 360, outLabel, x);
    const m = mode(outDir);
    if (m) step.mode = m;
    return step;
  };
  // A maneuver relation the leg follows, at the node being looked at: the step there gets the relation's
  // type and modifier (made if nothing would be said), or goes into the step before (`suppress`), as
  // OSRM's applyOverrides does before its steps are collapsed.
  const maneuvers = legManeuvers(g, trace, k0, n);
  const override = (r: number, stepsBefore: number): void => {
    const m = g.maneuvers;
    const type = m[r + 2],
      modifier = m[r + 3];
    const made = steps.length > stepsBefore ? steps[steps.length - 1] : null;
    const direction = modifier ? MANEUVER_MODIFIERS[modifier] : (made?.modifier ?? turnDirection(deviation(tally[BEFORE], tally[AFTER])));
    if (type === MANEUVER_SUPPRESS) {
      if (made) dropLastStep();
      // A short turn just before, to the same side, is told onto the road after this node (OSRM's
      // maneuverSucceededBySuppressedDirection, its signs transferred).
      if (
        current.type !== 'depart' &&
        tally[METERS] < MAX_COLLAPSE_M &&
        current.crossed === 0 &&
        direction !== 'straight' &&
        sameSide(current.modifier, direction)
      )
        current.label = outLabel;
      return;
    }
    if (made) {
      if (type) made.type = MANEUVER_TYPES[type];
      made.modifier = direction;
      if (quietName === made) quietName = null;
    } else if (type) emit(make(MANEUVER_TYPES[type], direction));
  };
  // Whether a step is on a segregated road.
  let segregated = false;
  // Each piece's label and what the table remembers of going on from it, read in loops of their own before
  // the pieces are walked: reads far apart in memory, whose waits then overlap (the walk's own reads wait
  // one after another). The table may learn more during the walk: what was read is still so.
  const labels = atLeast(pieceLabels, n);
  pieceLabels = labels;
  for (let k = k0; k < n; k++) labels[k] = labelOf(trace.dir[k]);
  const saids = atLeast(pieceSaids, n);
  pieceSaids = saids;
  if (memo) for (let k = k0; k < n - 1; k++) saids[k] = labels[k] === labels[k + 1] ? goingOn(memo, trace.dir[k]) : UNKNOWN;
  let nextLabel = labels[k0];
  for (let k = k0; k < n; k++) {
    tally[METERS] += trace.meters[k];
    tally[TENTHS] += trace.tenths[k];
    if (k === n - 1) break;
    const v = trace.node[k];
    at = trace.end[k];
    prior.dir = k > k0 ? trace.dir[k - 1] : -1;
    prior.node = k > k0 ? trace.node[k - 1] : -1;
    const inDir = trace.dir[k];
    outDir = trace.dir[k + 1];
    const inLabel = nextLabel;
    outLabel = nextLabel = labels[k + 1];
    // The same geometry on both sides (a partial piece that ends where the path starts): no junction.
    if (inDir === outDir) continue;
    const relation = maneuvers?.get(k) ?? -1;
    // A node where the road only goes on (two ways out, two in: on and back) under the same label: nothing
    // to say, and no need to look at its roads (nor a maneuver relation to apply: OSRM's graph has no node there).
    if (inLabel === outLabel && outDir !== (inDir ^ 1)) {
      const said = memo && relation < 0 ? saids[k] : UNKNOWN;
      if (said !== UNKNOWN && !current.segregated) {
        if (said === SILENT_CROSSED) current.crossed++;
        continue;
      }
      if (onlyOnAndBack(g, v, inDir ^ 1, outDir)) {
        if (memo) keep(memo, inDir, SILENT);
        continue;
      }
    }
    // Every road here leaves the node's point, which is the line's point `at`: its latitude scales them all.
    roadsAhead(g, v, eastScale(line[2 * at + 1]));
    const stepsBefore = steps.length;
    // The node's step, decided once (`break decide`); then, for the feature runner, the intersection passed.
    // biome-ignore lint/suspicious/noConfusingLabels: one labelled block per node, left where its step is decided
    decide: {
      back = inDir ^ 1;
      let inBack = -1,
        outAt = -1;
      for (let i = 0; i < roadCount; i++) {
        if (isRoad(i, back)) inBack = i;
        if (roadDir[i] === outDir) outAt = i;
      }
      const bearingBefore = (tally[BEFORE] = inBack >= 0 ? reverse(roadBearing[inBack]) : lineBearing(Math.max(first, at - 1), at));
      const bearingAfter = (tally[AFTER] = outAt >= 0 ? roadBearing[outAt] : lineBearing(at, Math.min(lastPoint, at + 1)));
      const dev = deviation(bearingBefore, bearingAfter);
      // Back along the road arrived by (a dead end's U-turn): OSRM's "continue uturn".
      if (outDir === back) {
        emit(make(hasName(g, inLabel) && hasName(g, outLabel) && sameRoad(g, inLabel, outLabel) ? 'continue' : 'turn', 'uturn'));
        break decide;
      }
      const inKind = inLabel < 0 ? 0 : g.shapes.labelKind[inLabel],
        outKind = outLabel < 0 ? 0 : g.shapes.labelKind[outLabel];
      // Onto or off a ferry, or where a bicycle is pushed: where nothing else would be said, OSRM's
      // "notification" says it (getInstructionForObvious, a change of travel mode), in the turn's direction.
      const inMode = mode(inDir);
      const modeChange = inMode !== mode(outDir);
      // Roundabouts: one step where the route enters, its exits counted on the way round, and an
      // "exit roundabout" step where it leaves.
      if (isRound(inKind) || isRound(outKind)) {
        if (!isRound(inKind)) {
          const small = !(outKind & CIRCULAR) && smallRing(g, v, outDir);
          const rotary = (outKind & CIRCULAR) !== 0 || namedRotary(g, v, outDir, outLabel, small);
          round = make(rotary ? 'rotary' : small ? 'roundabout turn' : 'roundabout');
          entryModifier = modifierOf(dev);
          if (rotary) round.ring = outLabel;
          // An exit at the node the route enters by is passed too when it lies beyond the ring's way on,
          // to its right on a counter-clockwise ring (entered turning right), to its left on a clockwise one.
          exits = 0;
          for (let i = 0; i < roadCount; i++) {
            const d = deviation(bearingBefore, roadBearing[i]);
            if (roadEntry[i] && i !== outAt && i !== inBack && !isRound(roadKind[i]) && (dev < -20 ? d < dev : d > dev) && mode(roadDir[i]) === mode(outDir))
              exits++;
          }
          emit(round);
        } else if (isRound(outKind)) {
          // Service roads off a public roundabout are not counted among its exits, nor roads of another travel
          // mode (where a bicycle is pushed: OSRM counts the exits of the mode on the ring).
          const lowRing = (inKind & CLASS_MASK) === SERVICE;
          for (let i = 0; i < roadCount; i++) {
            if (
              roadEntry[i] &&
              i !== outAt &&
              i !== inBack &&
              !isRound(roadKind[i]) &&
              (lowRing || (roadKind[i] & CLASS_MASK) !== SERVICE) &&
              mode(roadDir[i]) === inMode
            )
              exits++;
          }
        } else {
          exits++;
          const turn = round?.type === 'roundabout turn';
          const wasRotary = round ? round.type === 'rotary' : (inKind & CIRCULAR) !== 0 || leftRotary(g, v, inLabel);
          if (round) {
            round.exit = exits;
            round.label = outLabel;
            // OSRM gives a roundabout turn the direction from entry to exit, a roundabout or rotary its entry's.
            round.modifier = turn ? turnDirection(deviation(round.bearingBefore, bearingAfter)) : entryModifier;
            round = null;
          }
          // (A roundabout turn says its exit too where the mode changes there: OSRM collapses no step across one.)
          if (!turn || modeChange) {
            emit(make(wasRotary ? 'exit rotary' : 'exit roundabout', turnDirection(dev)));
            // OSRM numbers the exit on the step that takes it too.
            if (exits > 0) current.exit = exits;
          }
        }
        break decide;
      }
      // Through a node of a roundabout without driving on it: OSRM calls it leaving the roundabout.
      let onRing = false;
      for (let i = 0; i < roadCount; i++) if (isRound(roadKind[i])) onRing = true;
      if (onRing) {
        emit(make('exit roundabout', turnDirection(dev)));
        break decide;
      }
      // On a ferry where every road is a ferry's (its lines meeting at a harbour): nothing to say (OSRM's
      // SuppressModeHandler).
      if (inMode === 'ferry') {
        let allFerries = true;
        for (let i = 0; i < roadCount && allFerries; i++) if (mode(roadDir[i]) !== 'ferry') allFerries = false;
        if (allFerries) break decide;
      }
      // The other roads a driver could take here; service roads do not make a choice on a public road.
      const lowIn = (inKind & CLASS_MASK) === SERVICE || (inKind & CLASS_MASK) === 0;
      // Onto a low-priority road (OSRM's: service roads and roads of no class) from one that is not: the other
      // service roads are choices too, and it is never the obvious way on (findObviousTurn filters such roads
      // out of every stage but a junction of two roads).
      const lowOut = !lowIn && lowPriority(outKind);
      let others = 0,
        choices = 0,
        straighter = 0,
        straightest = 360,
        straightestAt = -1,
        continuesAt = -1,
        closed = 0,
        sideCount = 0,
        near = 0,
        left = 0,
        right = 0,
        sameSide = 0,
        straightOn = false,
        continues = false,
        nearMin = Infinity,
        nearMax = -Infinity;
      const outDev = Math.abs(dev);
      // The road the step is on counts as well as the piece before the node: a short piece without a name
      // (a bridge, a junction's own way) does not make the named road after it a new one.
      const same = sameRoad(g, inLabel, outLabel) || sameRoad(g, current.label, outLabel);
      let highwayIn = false,
        highwayChoice = false,
        highwayNear = false;
      for (let i = 0; i < roadCount; i++) {
        if (i === outAt || i === inBack) continue;
        if (!lowIn && !lowOut && (roadKind[i] & CLASS_MASK) === SERVICE) continue;
        const d = deviation(bearingBefore, roadBearing[i]);
        const highway = isHighway(roadKind[i]) && !(roadKind[i] & LINK);
        if (!roadEntry[i] && highway) highwayIn = true;
        if (roadEntry[i] && highway) highwayChoice = true;
        if (roadEntry[i] && highway && Math.abs(d) <= 45 && isHighway(outKind) && !(outKind & LINK)) highwayNear = true;
        // A ramp off a road that goes on under its name, or off a motorway that goes on as one (OSRM's
        // motorway handler goes on along the straightest when the name changes, as at a new exit number),
        // is no choice for those who stay on it.
        if ((same || (isHighway(inKind) && isHighway(outKind))) && isRamp(roadKind[i]) && !isRamp(inKind) && !isRamp(outKind)) continue;
        others++;
        // A road across (OSRM's end of road: within NARROW_TURN_ANGLE, 40°, of a square turn).
        if (Math.abs(d) > 50 && Math.abs(d) < 130) {
          if (d < 0) left++;
          else right++;
        }
        if (Math.abs(d) <= 30) straightOn = true;
        const onSide = Math.abs(d) > 10 && Math.abs(d) < 179 && d < 0 === dev < 0;
        if (onSide) sameSide++;
        if (!roadEntry[i]) {
          closedDev[closed++] = d;
          continue;
        }
        if (onSide) sideDev[sideCount++] = Math.abs(d);
        choiceAt[choices++] = i;
        if (Math.abs(d) < outDev) straighter++;
        if (Math.abs(d) < Math.abs(straightest)) {
          straightest = d;
          straightestAt = i;
        }
        if (Math.abs(Math.abs(d) - outDev) < 25 && Math.abs(d) <= 60) {
          near++;
          if (d < nearMin) nearMin = d;
          if (d > nearMax) nearMax = d;
        }
        if (sameRoad(g, inLabel, roadLabel[i])) {
          continues = true;
          if (continuesAt < 0 || Math.abs(d) < Math.abs(deviation(bearingBefore, roadBearing[continuesAt]))) continuesAt = i;
        }
      }
      // Ramps: onto one from a motorway is off, from anything else on; a ramp ending on a motorway merges.
      if (isRamp(outKind) && (!isRamp(inKind) || highwayChoice)) {
        emit(make(isHighway(inKind) || highwayChoice ? 'off ramp' : 'on ramp', modifierOf(dev)));
        break decide;
      }
      // Onto a motorway that comes in beside the route: a merge, towards the side the motorway lies on.
      if (isHighway(outKind) && !(outKind & LINK) && highwayIn && choices === 0 && (isRamp(inKind) || !same)) {
        const side = inBack >= 0 ? deviation(bearingAfter, roadBearing[inBack]) : -dev;
        emit(make('merge', side > 0 ? 'slight left' : 'slight right'));
        break decide;
      }
      // A motorway splitting in two: a fork even for the branch that keeps the name.
      if (isHighway(inKind) && !(inKind & LINK) && highwayNear && outDev <= 45 && near > 0) {
        emit(make('fork', dev < 0 ? 'slight left' : dev > 0 ? 'slight right' : 'straight'));
        break decide;
      }
      // A bend where the road meets no other: only a change of name is said.
      if (others === 0) {
        if (modeChange) emit(make('notification', turnDirection(dev)));
        else if (!same) emit(make('new name', turnDirection(dev)));
        break decide;
      }
      // No other road a driver could take looks as obvious (OSRM's IsDistinctNarrowTurn, `similarNarrow`; on
      // motorways and their ramps, which OSRM's motorway handler decides, roads within 25° of each other).
      const motorwayish = isHighway(inKind) || isHighway(outKind);
      // Or the one road that goes on under the name, of no lower class, with no rival (findObviousTurn's first
      // look, at the road continuing its name: beside a straighter one, or bending past 35°; `continuingObvious`).
      const goesOn =
        !motorwayish &&
        !continues &&
        outAt >= 0 &&
        !(straighter === 0 && outDev <= 35) &&
        sameRoad(g, inLabel, outLabel) &&
        continuingObvious(g, outAt, outAt, inLabel, inKind, lanesOfDir(g, inDir), bearingBefore, choices, inBack);
      const obvious =
        (straighter === 0 &&
          outDev <= 35 &&
          !lowOut &&
          (motorwayish ? near === 0 : outAt < 0 || !anySimilar(g, outAt, inLabel, inKind, lanesOfDir(g, inDir), bearingBefore, outDev, choices)) &&
          !(continues && !same && continuingObvious(g, continuesAt, outAt, inLabel, inKind, lanesOfDir(g, inDir), bearingBefore, choices, inBack))) ||
        goesOn;
      if (obvious) {
        // Onto a road that goes on through the junction on both sides (OSRM's through street): a turn
        // straight onto it (a merge onto a motorway), however slight the bend.
        if (!same && throughStreet(g, outAt, inBack)) {
          if (isHighway(outKind) && !(outKind & LINK)) emit(make('merge', dev > 0 ? 'slight right' : 'slight left'));
          // Straight only if nearly so and the road goes on for a while (getInstructionForObvious), else
          // getTurnDirection's modifier.
          else emit(make('turn', outDev < 40 && chordMeters(g, outDir) > THROUGH_STRAIGHT_M ? 'straight' : turnDirection(dev)));
          break decide;
        }
        if (modeChange) {
          emit(make('notification', turnDirection(dev)));
          break decide;
        }
        // Back onto the name held before a straight change of name (a bridge's own name): OSRM collapses both.
        if (!same && outDev <= 20 && quietName === current && sameRoad(g, steps[steps.length - 2].label, outLabel)) dropLastStep();
        else if (!same) {
          emit(make('new name', turnDirection(dev)));
          if (outDev <= 20) quietName = current;
        }
        break decide;
      }
      // A road without name or ref continues nothing: unnamed branches fork like any others.
      const named = inLabel >= 0 && (g.shapes.labelName[inLabel] >= 0 || g.shapes.labelRef[inLabel] >= 0);
      // Nor is one beside a straighter road that is obvious (OSRM forks only where findObviousTurn finds none),
      // nor one with a road no one may take among its roads (findFork's only_valid_entries).
      // A road straight on between the two is no fork (OSRM's high-degree junctions): a turn off it. Nor are
      // two roads that both bend away by more than NARROW_TURN_ANGLE (OSRM's findFork).
      // Nor where the mode changes (its findFork: the roads of a fork share the mode arrived in).
      if (
        !modeChange &&
        !(named && (continues || same)) &&
        outDev <= 60 &&
        Math.min(outDev, Math.abs(straightest)) <= 40 &&
        near > 0 &&
        !(outDev > 20 && Math.abs(straightest) <= 10) &&
        !closedFork(closed, dev, nearMin, nearMax) &&
        !(straighter > 0 && !motorwayish && outAt >= 0 && obviousOther(g, straightestAt, outAt, inLabel, inKind, lanesOfDir(g, inDir), bearingBefore, choices))
      ) {
        // Two roads ahead, neither clearly straight on: a fork, to the side the route keeps of the other.
        emit(make('fork', dev < nearMin ? 'slight left' : dev > nearMax ? 'slight right' : 'straight'));
        break decide;
      }
      // The road goes on, straighter than any other and within OSRM's NARROW_TURN_ANGLE: nothing to say
      // (but a change of mode).
      if (same && straighter === 0 && outDev <= 40) {
        if (modeChange) emit(make('notification', turnDirection(dev)));
        break decide;
      }
      // The road ends across the route's way at a three-way junction: nothing straight on, a road to the other side.
      if (!straightOn && roadCount === 3 && outDev > 50 && outDev < 130 && (dev < 0 ? right > 0 : left > 0)) {
        // Said only after a step that passed an intersection, which `withEndsOfRoadTold` decides once the
        // steps are collapsed. (Where the mode changes, never: OSRM turns there.)
        const type = !modeChange ? 'end of road' : hasName(g, outLabel) && sameRoad(g, current.label, outLabel) ? 'continue' : 'turn';
        emit(make(type, dev < 0 ? 'left' : 'right'));
        break decide;
      }
      // OSRM continues only a road with a name (or ref) on both sides: onto or from an unnamed one it turns.
      // (At a junction of three roads its handleThreeWayTurn gives each its own angle's modifier: rivals on
      // one side are told apart only at more, in assignRightTurns / assignLeftTurns.)
      emit(
        make(
          same && hasName(g, inLabel) && hasName(g, outLabel) ? 'continue' : 'turn',
          turnModifier(dev, outDev, straighter, straightest, roadCount > 3 ? sameSide : 0, roadCount > 3 ? sideCount : 0),
        ),
      );
    }
    if (relation >= 0) override(relation, stepsBefore);
    // Onto a segregated road (a short one between carriageways), or off one: the node's step, or one that
    // says nothing (OSRM's suppressed), for the collapse of the intersection's turns into one
    // (`withSegregatedCollapsed`).
    if (roadCount > 2) {
      let outAt = -1;
      if (k + 1 < n - 1 && trace.meters[k + 1] <= SEGREGATED_MAX_M) for (let i = 0; i < roadCount; i++) if (roadDir[i] === outDir) outAt = i;
      const onto = outAt >= 0 && segregatedRoad(g, outDir, outAt, trace.node[k + 1], eastScale(line[2 * trace.end[k + 1] + 1]));
      if ((onto || current.segregated) && steps.length <= stepsBefore) {
        const step = make(SUPPRESSED, turnDirection(deviation(tally[BEFORE], tally[AFTER])));
        // Its name is never shown (it goes into a step on or before it): the road's as the steps have it so far.
        step.label = current.label;
        emit(step);
      }
      if (onto) current.segregated = segregated = true;
    }
    if (memo && relation < 0 && steps.length <= stepsBefore && inLabel === outLabel) remember(memo, g, inDir, inLabel);
    // OSRM lists every intersection a step passes; only the feature runner asks for those (`passed`).
    if (steps.length <= stepsBefore && roadCount > 2) {
      current.crossed++;
      if (passed) {
        const x = intersectionOf(at, inDir ^ 1, outDir);
        x.lanes = lanesAt(g, inDir, outDir, tally[BEFORE], 'suppressed', undefined, prior);
        (current.passed ??= []).push(x);
      }
    }
  }
  // A leg that ends on the roundabout announces it, without an exit, turning onto it as OSRM does (its
  // instructions need a modifier: "Enter the roundabout" in every language).
  if (round) {
    if (round.type === 'roundabout turn') round.type = 'roundabout';
    round.modifier = entryModifier;
  }
  // From the last point before the end that is not the end itself (a destination on a node repeats it).
  let before = lastPoint - 1;
  while (before > first && line[2 * before] === line[2 * lastPoint] && line[2 * before + 1] === line[2 * lastPoint + 1]) before--;
  const arriveBefore = before >= first && before < lastPoint ? Math.round(lineBearing(before, lastPoint)) % 360 : 0;
  const arrive = rawStep(
    'arrive',
    undefined,
    lastPoint,
    lastPoint,
    arriveBefore,
    0,
    labelOf(trace.dir[n - 1]),
    intersection(lastPoint, [(arriveBefore + 180) % 360], [true], 0),
  );
  const arriveMode = mode(trace.dir[n - 1]);
  if (arriveMode) arrive.mode = arriveMode;
  emit(arrive);
  return withoutShortNames(
    g,
    withEndsOfRoadTold(g, withLanesAnticipated(withTurnsCollapsed(g, segregated ? withSegregatedCollapsed(g, steps, passed) : steps, passed))),
    passed,
  );
}

/**
 * The leg's steps with each "end of road" said only after a step that has MIN_END_OF_ROAD_INTERSECTIONS,
 * its maneuver's included, where it tells which junction this is: right after the last maneuver it is a
 * turn, or a continue onto the name of the step before (OSRM's buildIntersections, run where OSRM runs it:
 * after the steps are collapsed, before short names are merged, so that a turn or name change collapsed into
 * the step before counts among its intersections).
 */
function withEndsOfRoadTold(g: GuidanceGraph, steps: RawStep[]): RawStep[] {
  for (let i = 1; i < steps.length - 1; i++) {
    const s = steps[i],
      before = steps[i - 1];
    if (s.type !== 'end of road' || 1 + before.crossed >= MIN_END_OF_ROAD_INTERSECTIONS) continue;
    s.type = sameName(g, before.label, s.label) ? 'continue' : 'turn';
  }
  return steps;
}

/** The maneuver records of a graph by their first directed geometry, per thread. */
const maneuverStarts = new WeakMap<Int32Array, Map<number, number[]>>();

/** The maneuver relations (`RoadGraph.maneuvers`) whose whole run of geometries the leg's pieces [k0, n)
 *  follow: by the node their instruction is given at (k: the node piece k ends at), the record. */
function legManeuvers(g: GuidanceGraph, trace: LegTrace, k0: number, n: number): Map<number, number> | null {
  const m = g.maneuvers;
  if (m.length === 0) return null;
  let starts = maneuverStarts.get(m);
  if (!starts) {
    maneuverStarts.set(m, (starts = new Map()));
    for (let r = 0; r < m.length; r += MANEUVER_HEAD + m[r]) {
      const list = starts.get(m[r + MANEUVER_HEAD]);
      if (list) list.push(r);
      else starts.set(m[r + MANEUVER_HEAD], [r]);
    }
  }
  let found: Map<number, number> | null = null;
  for (let k = k0; k < n; k++) {
    for (const r of starts.get(trace.dir[k]) ?? []) {
      const count = m[r];
      if (k + count > n) continue;
      let i = 1;
      while (i < count && trace.dir[k + i] === m[r + MANEUVER_HEAD + i]) i++;
      if (i === count) (found ??= new Map()).set(k + m[r + 1] - 1, r);
    }
  }
  return found;
}

/** OSRM's areSameSide of two modifiers: both to the left or both to the right, straight on either. */
const sameSide = (a: string | undefined, b: string): boolean =>
  a === 'straight' || b === 'straight' || (LEFT_MODIFIERS.has(a ?? '') && LEFT_MODIFIERS.has(b)) || (RIGHT_MODIFIERS.has(a ?? '') && RIGHT_MODIFIERS.has(b));

/** Meters OSRM allows a driver for a change of lane (anticipateLaneChange's min_distance_needed_for_lane_change). */
const LANE_CHANGE_M = 200;
const LEFT_MODIFIERS = new Set(['sharp left', 'left', 'slight left']),
  RIGHT_MODIFIERS = new Set(['sharp right', 'right', 'slight right']);
/** OSRM's isLeftTurn / isRightTurn: by the modifier, the other way round for a merge. */
const leftTurn = (s: RawStep): boolean => (s.type === 'merge' ? RIGHT_MODIFIERS : LEFT_MODIFIERS).has(s.modifier ?? '');
const rightTurn = (s: RawStep): boolean => (s.type === 'merge' ? LEFT_MODIFIERS : RIGHT_MODIFIERS).has(s.modifier ?? '');

/**
 * OSRM's anticipateLaneChange (engine/guidance/lane_processing.cpp), run where OSRM runs it (after the turns
 * are collapsed): over each run of two or more short steps with lanes (shorter than 200 m for each lane a
 * driver may have to cross, and 200 m more), walked backwards, a turn whose lanes fan in to fewer in the
 * next turn keeps only as many, on the side that next turn goes to (a keep straight to the side of the
 * turn after it, else to the right). The steps keep their lanes' layout; which of them are valid changes.
 */
function withLanesAnticipated(steps: RawStep[]): RawStep[] {
  const right = (s: RawStep): number => s.intersection.lanes!.first,
    left = (s: RawStep): number => s.intersection.lanes!.masks.length - (s.intersection.lanes!.count + s.intersection.lanes!.first);
  const short = (s: RawStep): boolean => {
    const lanes = s.intersection.lanes;
    return lanes !== undefined && lanes.count > 0 && s.meters < (1 + Math.max(right(s), left(s))) * LANE_CHANGE_M;
  };
  const straightLeft = new Set<RawStep>(),
    straightRight = new Set<RawStep>();
  for (let start = 0; start < steps.length; ) {
    let end = start;
    while (end < steps.length && short(steps[end])) end++;
    // Later turns constrain earlier ones.
    for (let k = end - 1; k > start; k--) {
      const current = steps[k],
        previous = steps[k - 1];
      const now = current.intersection.lanes!,
        before = previous.intersection.lanes!;
      // (OSRM also lets a run of suppressed steps long enough for the lanes to change go free: the steps
      // here have none left.)
      if (before.count <= 1 || before.count <= now.count) continue;
      if (!leftTurn(previous) && !rightTurn(previous)) {
        if (leftTurn(current) || straightLeft.has(current)) straightLeft.add(previous);
        else if (rightTurn(current) || straightRight.has(current)) straightRight.add(previous);
      }
      const towardsLeft = leftTurn(current) || (!rightTurn(current) && straightLeft.has(current));
      const first = towardsLeft
        ? before.first + before.count - now.count - Math.min(left(current), now.count)
        : before.first + Math.min(right(current), now.count);
      previous.intersection.lanes = { masks: before.masks, first, count: now.count };
    }
    start = Math.max(end, start + 1);
  }
  return steps;
}

/** Meters within which two maneuvers may be told as one (OSRM's MAX_COLLAPSE_DISTANCE). */
const MAX_COLLAPSE_M = 30;

const ROUND_TYPES = new Set(['roundabout', 'rotary', 'roundabout turn', 'exit roundabout', 'exit rotary']);
const isWaypoint = (s: RawStep): boolean => s.type === 'depart' || s.type === 'arrive';

/**
 * The leg's steps with two of OSRM's collapsing scenarios (collapseTurnInstructions, run where OSRM runs it:
 * before short names are merged), in its order: a staggered intersection (right and left, or left and
 * right, within 3 m) told as going straight on, and a turn back over a short road between two carriageways
 * (left, then left again onto the road the route came by, the other way) as one "continue uturn", with its
 * loop's look back a step for turns found late. The first step takes the other's stretch and name; its
 * maneuver stays where the route leaves its road. OSRM's other scenarios are not ported (docs/directions.md:
 * alone they merge other steps than OSRM does).
 */
function withTurnsCollapsed(g: GuidanceGraph, steps: RawStep[], passed: boolean): RawStep[] {
  if (steps.length <= 3) return steps;
  let gone: Uint8Array | null = null;
  const next = (i: number): number => {
    do i++;
    while (gone?.[i]);
    return i;
  };
  const previous = (i: number): number => {
    do i--;
    while (gone?.[i]);
    return i;
  };
  const combine = (into: number, from: number, type: string, modifier: string): void => {
    const a = steps[into];
    a.type = type;
    a.modifier = modifier;
    a.label = steps[from].label;
    takeStretch(a, steps[from], passed);
    (gone ??= new Uint8Array(steps.length))[from] = 1;
  };
  for (let i = 1; i < steps.length - 1; i++) {
    if (gone?.[i]) continue;
    const type = steps[i].type;
    if (type === 'roundabout' || type === 'rotary' || type === 'roundabout turn') continue;
    const j = next(i);
    if (isWaypoint(steps[j])) break;
    const h = previous(i);
    // A change of travel mode (a ferry, a pushed bicycle) is told where it happens: OSRM collapses no step across one.
    if (isStaggered(steps[i], steps[j]) && steps[i].mode === steps[j].mode && steps[h].mode === steps[i].mode) {
      // OSRM's StaggeredTurnStrategy: straight on, under the new name if there is one (short, it then goes
      // with the short names), else into the step before.
      combine(i, j, 'new name', 'straight');
      if (sameName(g, steps[h].label, steps[i].label)) {
        takeStretch(steps[h], steps[i], passed);
        gone![i] = 1;
        continue;
      }
    } else if (isUTurn(g, steps[h], steps[i], steps[j])) combine(i, j, 'continue', 'uturn');
    // Found late, after a name change: the step before this one turned back with this one.
    if (!isWaypoint(steps[h]) && isUTurn(g, steps[previous(h)], steps[h], steps[i])) combine(h, i, 'continue', 'uturn');
  }
  return gone ? steps.filter((_, i) => !gone![i]) : steps;
}

/** OSRM's Suppressed turn type: a step at an intersection that says nothing, made only onto a segregated
 *  road; none is left in a leg's steps. */
const SUPPRESSED = 'suppressed';

/**
 * The turns of a segregated intersection told as one (OSRM's collapseSegregatedTurnInstructions, run first
 * of its collapses): a step onto a segregated road takes the next step's stretch and its road's name, a
 * turn back onto the road the route came by becoming "continue uturn", another the turn from the road
 * before to the road after (its SegregatedTurnStrategy); two steps on segregated roads in a row become one
 * first. The suppressed steps left go into the step before them.
 */
function withSegregatedCollapsed(g: GuidanceGraph, steps: RawStep[], passed: boolean): RawStep[] {
  const gone = new Uint8Array(steps.length);
  let curr = 1;
  for (let next = 2; next < steps.length - 1; next++) {
    const c = steps[curr],
      x = steps[next];
    if (!c.segregated || c.mode !== x.mode) {
      curr = next;
      continue;
    }
    if (x.segregated) {
      if (x.type === 'end of road') c.type = 'end of road';
      c.intersection.lanes = x.intersection.lanes;
    } else if (!ROUND_TYPES.has(c.type) && !ROUND_TYPES.has(x.type)) {
      let prior = curr - 1;
      while (gone[prior]) prior--;
      const a = c.intersection,
        b = x.intersection;
      if (a.in !== undefined && b.out !== undefined && bearingsReversed(reverse(a.bearings[a.in]), b.bearings[b.out])) {
        c.type = 'continue';
        c.modifier = 'uturn';
      } else segregatedTurn(g, steps[prior], c, x);
      c.segregated = false;
    } else {
      curr = next;
      continue;
    }
    c.label = x.label;
    c.ring = x.ring;
    takeStretch(c, x, passed);
    gone[next] = 1;
  }
  let kept = 0;
  for (let i = 1; i < steps.length - 1; i++) {
    if (gone[i]) continue;
    if (steps[i].type === SUPPRESSED) {
      takeStretch(steps[kept], steps[i], passed);
      gone[i] = 1;
    } else kept = i;
  }
  return steps.filter((_, i) => !gone[i]);
}

const STRAIGHTISH = new Set(['straight', 'slight left', 'slight right']);
const TURNISH = new Set(['turn', 'continue', 'new name', SUPPRESSED]);

/** OSRM's SegregatedTurnStrategy: the type and modifier of step `c`, onto a segregated road, that takes the
 *  turn of step `x` off it; `prior` the step before `c`. */
function segregatedTurn(g: GuidanceGraph, prior: RawStep, c: RawStep, x: RawStep): void {
  const dev = deviation(c.bearingBefore, x.bearingAfter);
  const direction = turnDirection(dev);
  const sameAsPrior = sameName(g, prior.label, x.label);
  if (c.type === 'end of road' || x.type === 'end of road') c.type = 'end of road';
  else if (c.type === 'fork') return;
  else if (direction === 'straight' && TURNISH.has(x.type) && STRAIGHTISH.has(x.modifier ?? '')) c.type = sameAsPrior ? SUPPRESSED : 'new name';
  else if (widerStraight(angleBetween(c.bearingBefore, x.bearingAfter)) && c.crossed === 0 && straightestTurn(c) && straightestTurn(x)) {
    c.type = sameAsPrior ? SUPPRESSED : 'new name';
    c.modifier = 'straight';
    return;
  } else if (direction !== 'straight' && TURNISH.has(x.type)) c.type = 'turn';
  else c.type = x.type;
  c.modifier = direction;
}

/** OSRM's isWiderStraight: a turn angle within 55° of straight on. */
const widerStraight = (angle: number): boolean => angle >= 125 && angle <= 235;

/** OSRM's hasStraightestTurn: the step's maneuver goes on nearly straight (`widerStraight`), and no other road a
 *  driver could take there is straighter by more than 10°. */
function straightestTurn(s: RawStep): boolean {
  const x = s.intersection;
  if (x.in === undefined || x.out === undefined) return false;
  const arriving = reverse(x.bearings[x.in]);
  const path = angleBetween(arriving, x.bearings[x.out]);
  if (!widerStraight(path)) return false;
  let straightest = 360,
    straightestDelta = 360;
  for (let i = 0; i < x.bearings.length; i++) {
    if (i === x.in || i === x.out || !x.entry[i]) continue;
    const angle = angleBetween(arriving, x.bearings[i]);
    const delta = Math.abs(angle - 180);
    if (delta < straightestDelta) {
      straightest = angle;
      straightestDelta = delta;
    }
  }
  return Math.abs(deviation(path, straightest)) > 10 ? Math.abs(path - 180) <= Math.abs(deviation(straightest, 180)) : true;
}

/** Step `from`'s stretch (to its end, its meters and tenths, its intersections) onto the end of `into`. */
function takeStretch(into: RawStep, from: RawStep, passed: boolean): void {
  into.to = from.to;
  into.meters += from.meters;
  into.tenths += from.tenths;
  takeIntersections(into, from, passed);
}

/** OSRM's turn angle of a step's maneuver (its `angleBetween` on the intersection's whole degrees): 180
 *  straight on, 90 a square right, 270 a square left. */
const turnAngle = (s: RawStep): number => {
  const x = s.intersection;
  const a = 180 - deviation(reverse(x.bearings[x.in!]), x.bearings[x.out!]);
  return a < 0 ? a + 360 : a;
};

/** OSRM's isStaggeredIntersection: a square turn one way and then the other within 3 m (the zig-zag where
 *  two side roads meet a road a few meters apart), passing no intersection between. */
function isStaggered(entering: RawStep, leaving: RawStep): boolean {
  if (ROUND_TYPES.has(entering.type) || ROUND_TYPES.has(leaving.type)) return false;
  if (entering.intersection.in === undefined || leaving.intersection.in === undefined || entering.crossed > 0 || !(entering.meters < 3)) return false;
  const right = (a: number): boolean => a > 45 && a < 135,
    left = (a: number): boolean => a > 225 && a < 315;
  const first = turnAngle(entering),
    second = turnAngle(leaving);
  return (left(first) && right(second)) || (right(first) && left(second));
}

/**
 * OSRM's isUTurn: `entering` turns off the road `prior` is on and `leaving` turns onto a road of the same
 * name the other way (the bearing before the first within 35° of the reverse of the one after the
 * second), over a short stretch that passes no intersection: 30 m, or an unnamed link of 60 m between
 * named roads, or any length when the second turn is the only way on.
 */
function isUTurn(g: GuidanceGraph, prior: RawStep, entering: RawStep, leaving: RawStep): boolean {
  if (ROUND_TYPES.has(prior.type) || ROUND_TYPES.has(entering.type) || ROUND_TYPES.has(leaving.type)) return false;
  if (badUTurnPair(prior, entering) && badUTurnPair(entering, leaving)) return false;
  if (entering.type !== 'turn' && entering.type !== 'continue' && entering.type !== 'end of road') return false;
  const x = entering.intersection,
    y = leaving.intersection;
  if (x.in === undefined || y.out === undefined) return false;
  if (!bearingsReversed(reverse(x.bearings[x.in]), y.bearings[y.out])) return false;
  if (!sameName(g, prior.label, leaving.label)) return false;
  if (entering.crossed > 0) return false;
  if (entering.meters <= MAX_COLLAPSE_M) return true;
  if (entering.meters <= 2 * MAX_COLLAPSE_M && !isNamed(g, entering.label) && isNamed(g, prior.label) && isNamed(g, leaving.label)) return true;
  let allowed = 0;
  for (const entry of y.entry) if (entry) allowed++;
  return allowed === 1;
}

/** OSRM's bearingsAreReversed (on the intersections' whole degrees): the way on within 35° of the way back. */
function bearingsReversed(before: number, after: number): boolean {
  const leftTurn = after >= 0 && after <= before ? before - after : before + 360 - after;
  return Math.abs(deviation(leftTurn, 180)) <= 35;
}

/** A pair of steps OSRM does not collapse for a U-turn in it: a turn back beside anything but a new name. */
function badUTurnPair(first: RawStep, second: RawStep): boolean {
  if (first.modifier !== 'uturn' && second.modifier !== 'uturn') return false;
  return !(first.type === 'new name' && second.modifier === 'uturn') && !(second.type === 'new name' && first.modifier === 'uturn');
}

/** Meters under which a new name's stretch is not worth a step (OSRM's NAME_SEGMENT_CUTOFF_LENGTH). */
const SHORT_NAME_M = 105;

/**
 * The leg's steps without the "new name" steps that tell nothing: one without lanes whose stretch is
 * shorter than SHORT_NAME_M, or one back to the name of the step before it; each goes into that step,
 * its intersection and those it passed with it (OSRM's suppressShortNameSegments, run on a leg's finished steps, as it is there).
 */
function withoutShortNames(g: GuidanceGraph, steps: RawStep[], passed: boolean): RawStep[] {
  let kept = 0;
  for (let i = 1; i < steps.length - 1; i++) {
    const s = steps[i],
      before = steps[kept];
    // A short new name that shows lanes tells them (OSRM's name_change_without_lanes): kept, on the driving
    // profiles' graphs (the guided ones; of OSRM's profiles only car.lua reads turn lanes). One back to the
    // name before goes whatever its lanes: OSRM has taken such a name's oscillation out before (its
    // collapseTurnInstructions, isNameOszillation).
    const showsLanes = s.intersection.lanes !== undefined && g.geomGuide.length > 0;
    if (s.type === 'new name' && ((s.meters < SHORT_NAME_M && !showsLanes) || sameName(g, before.label, s.label))) {
      before.to = s.to;
      before.meters += s.meters;
      before.tenths += s.tenths;
      takeIntersections(before, s, passed);
      steps[i] = before;
    } else kept = i;
  }
  // The merged steps were left as copies of the step they went into: one each.
  return steps.filter((step, i) => i === 0 || step !== steps[i - 1]);
}

/** OSRM's haveSameName: both have a name or ref, and going from one to the other announces nothing. */
const sameName = (g: GuidanceGraph, a: number, b: number): boolean => hasName(g, a) && hasName(g, b) && sameRoad(g, a, b);

/** Step `from`, merged into `into`, hands it its maneuver's intersection and those it passed (counted, and
 *  listed when the leg lists them). */
function takeIntersections(into: RawStep, from: RawStep, passed: boolean): void {
  into.crossed += 1 + from.crossed;
  if (passed) (into.passed ??= []).push(from.intersection, ...(from.passed ?? []));
}
