// Turn-by-turn steps of a leg in OSRM's RouteStep model, from the pieces of road the leg took (trace.ts)
// and the roads at each node it passes (the graph's edges out of and into the node). One pass over the
// pieces; a node costs a look at its few roads, and a step's objects are made only where a maneuver is
// announced. The rules follow OSRM's guidance as its feature files specify it (features/guidance): a
// name change alone says "new name"; a road that simply goes on through a junction says nothing; a turn
// where the road ends is "end of road"; two roads splitting ahead is a "fork"; ramps are "on ramp" /
// "off ramp" and a ramp joining a motorway a "merge"; a roundabout is one step with its exit number and
// an "exit roundabout" step where the route leaves it. Deliberate differences are in docs/directions.md.
import { labelAt, labelLanesText, laneText } from '../../map/graphs/road-labels.js';
import { edgeTail, junctionCopies, NO_HEAD, type RoadGraph } from '../../map/graphs/road-graph.js';
import { EXCLUDE_BIT, PUSHED_BACKWARD, PUSHED_FORWARD } from '../../map/graphs/profiles.js';
import { BEARING_M, bearingPoint, GUIDE_FAR, GUIDE_WORDS, guideLabel, guideLanes, M_PER_E7 } from '../../map/graphs/road-guide.js';
import { MANEUVER_HEAD, MANEUVER_MODIFIERS, MANEUVER_SUPPRESS, MANEUVER_TYPES } from '../../map/graphs/maneuvers.js';
import type { LegTrace } from './trace.js';
import { angleBetween, deviation, FUZZY_DEG, GROUP_DEG, reverse } from './bearings.js';
import { type JunctionRoads, type MergeReads, mergeCarriageways } from './merged-roads.js';
import { angleAt, bearingScale, Coord, distance, e6OfE7 } from '../../map/graphs/road-coordinate.js';
import { announced } from './names.js';
import { directionOfAngle, type LaneRoad, laneMasks, sliproadTurnLanes, turnLanes } from './lanes.js';

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
  /** Whether the step turns onto a sliproad (`sliproadFrom`), until `withSliproadsCollapsed` tells it. */
  sliproad: boolean;
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
/** The scratch's road arrived by on `inDir` and the one taken, `outDir`, as `locate` found them (-1: not there). */
let locatedBack = -1,
  locatedOut = -1;
function locate(inDir: number, outDir: number): void {
  locatedBack = locatedOut = -1;
  for (let i = 0; i < roadCount; i++) {
    if (isRoad(i, inDir ^ 1)) locatedBack = i;
    if (roadDir[i] === outDir) locatedOut = i;
  }
}

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
  return bearingBetween(pts, from, bearingPoint(pts, from, d & 1 ? first : last, d & 1 ? -1 : 1, meters), bearingScale(pts[2 * from]));
}

/**
 * `leaveBearing` of directed edge `d` leaving a node whose east-west scale is `kx` (`bearingScale` of its
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
/** Whether directed edges `a` and `b` are travelled in the same mode (always, on a map without modes). */
const sameModes = (g: GuidanceGraph, a: number, b: number): boolean => !hasModes(g) || modeOf(g, a) === modeOf(g, b);
const kindOfLabel = (g: GuidanceGraph, label: number): number => (label < 0 ? 0 : g.shapes.labelKind[label]);

/** Collects the roads at node v, whose east-west scale is `kx`, into the scratch: every way out (entry) and
 *  every way in only (no entry). */
function roadsAt(g: GuidanceGraph, v: number, kx: number): void {
  roadCount = 0;
  for (let e = g.firstOut[v]; e < g.firstOut[v + 1]; e++) addRoad(g, g.orig[e], true, kx);
  if (g.rFirst.length <= v + 1) return;
  for (let i = g.rFirst[v]; i < g.rFirst[v + 1]; i++) addRoad(g, g.orig[g.rEdge[i]] ^ 1, false, kx);
  if (viaWayCopy(g, v)) addSplitRoads(g, v, kx);
  else if (splitForTurns(g, v)) addSplitRoads(g, v, kx, false);
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

/** The copies of the node being looked at (`addSplitRoads`). */
const copies = new Int32Array(MAX_ROADS);

/** Adds to the scratch the ways out of and into the other nodes standing for the same junction as node v
 *  (`junctionCopies`: a via-way restriction's copy, a node split for a turn restriction), as roads to be
 *  taken as OSRM's guidance takes them. */
function addSplitRoads(g: GuidanceGraph, v: number, kx: number, entry = true): void {
  const copyCount = junctionCopies(g, v, copies);
  for (let k = 1; k < copyCount; k++) {
    const u = copies[k];
    for (let e = g.firstOut[u]; e < g.firstOut[u + 1]; e++) addRoad(g, g.orig[e], entry, kx);
    for (let i = g.rFirst[u]; i < g.rFirst[u + 1]; i++) addRoad(g, g.orig[g.rEdge[i]] ^ 1, false, kx);
  }
}

/** Whether node v is one of the copies a turn restriction through it splits a node into (a way out of it
 *  is left from more than one search node): OSRM's guidance sees the junction's every road there, those
 *  the restriction forbids not to be taken. */
function splitForTurns(g: GuidanceGraph, v: number): boolean {
  for (let e = g.firstOut[v]; e < g.firstOut[v + 1]; e++) {
    const out = g.orig[e];
    if (g.origFirst[out + 1] - g.origFirst[out] > 1) return true;
  }
  return false;
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
  // (A ring's too: its guidance record has OSRM's point 2 m along it, where the ring has not yet curved away.)
  roadBearing[roadCount] = guidedBearing(g, d, kx);
  roadCount++;
}

/** Roundabouts of less than this radius (meters, `ringRadius`) are announced as one turn, OSRM's
 *  "roundabout turn" (its MAX_ROUNDABOUT_INTERSECTION_RADIUS). */
const SMALL_ROUNDABOUT_M = 15;

/** The intersections, its maneuver's included, a step must have for the next to be an "end of road" (OSRM's
 *  MIN_END_OF_ROAD_INTERSECTIONS). */
const MIN_END_OF_ROAD_INTERSECTIONS = 2;

/** The bearings of the roads off a small ring, as `smallRing` finds them. */
const ringBearings = new Float64Array(4);
/** Degrees that every two roads off a ring announced as one turn lie apart at least (OSRM calls a ring
 *  whose exits point alike "non-distinct" and counts its exits instead). */
const DISTINCT_DEG = 50;

/** Roundabouts of more than this radius (meters, as `ringRadius`) with one name all round are OSRM's
 *  rotaries: "rotary" steps with the circle's name (its MAX_ROUNDABOUT_RADIUS). */
const ROTARY_M = 15;

/** Whether the last ring `radiusOfRing` followed has one name all round, and whether a road off it has that
 *  name too (OSRM's rotary has a name of its own: one, and no road off it takes it). */
let ringOneName = false,
  ringNameOff = false;

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
  ringNameOff = false;
  const offRing = (x: number): void => {
    if (!isRound(kindOf(g, x)) && nameOf(x) === name) ringNameOff = true;
  };
  for (let hops = 0; hops < 64; hops++) {
    if (nameOf(dir) !== name) ringOneName = false;
    for (let e = g.firstOut[node]; e < g.firstOut[node + 1]; e++) offRing(g.orig[e]);
    if (g.rFirst.length > node + 1) for (let i = g.rFirst[node]; i < g.rFirst[node + 1]; i++) offRing(g.orig[g.rEdge[i]]);
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
 * length / 2π) of at most SMALL_ROUNDABOUT_M, and at most four roads off it, one per node (either way or
 * one way: OSRM's qualifiesAsRoundaboutIntersection counts a node's edges, at most three), and pointing
 * apart (`distinct`).
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
    // The roads off the ring here: one per node at most.
    let out = -1,
      outs = 0;
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
        if (isRound(kindOf(g, o)) || o === out) continue;
        // A way in only: the node's one road off the ring too (OSRM counts the node's edges, one way or two).
        if (outs > 0) return false;
        outs = 1;
        out = o;
      }
    }
    if (outs > 1) return false;
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
 *  name all round that no road off it has, and a radius over ROTARY_M. */
const namedRotary = (g: GuidanceGraph, v: number, ring: number, label: number, small: boolean): boolean =>
  !small && isNamed(g, label) && radiusOfRing(g, v, ring) > ROTARY_M && ringOneName && !ringNameOff;

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

// OSRM's MotorwayHandler (guidance/motorway_handler.cpp): the junctions of motorways (and trunks) with their
// ramps only, where every road a driver could take goes on within 60° of straight. Its rules decide the
// step there, before the turns of other roads.
/** OSRM's IsMotorwayClass: a motorway or trunk, not its link. */
const motorwayClass = (kind: number): boolean => isHighway(kind) && (kind & LINK) === 0;
/** OSRM's isRampClass of motorway_handler.cpp: a motorway's or trunk's link, or from a motorway any link. */
const rampClass = (kind: number, fromMotorway: boolean): boolean => (kind & LINK) !== 0 && (fromMotorway || isHighway(kind));
/** What `motorwayTurn` decided: not its junction (the other rules decide), nothing to say, or a step
 *  (`motorwayType`, `motorwayModifier`). */
const MOTORWAY_NONE = 0,
  MOTORWAY_SILENT = 1,
  MOTORWAY_STEP = 2;
let motorwayType = '',
  motorwayModifier = '';
/** The scratch roads in OSRM's order of turn angle (the way back first, then from sharp right round to
 *  sharp left), and their angles (180 straight on, below it to the right). */
const angleOrder = new Int32Array(MAX_ROADS);
const angleOf = new Float64Array(MAX_ROADS);

/** `motorwayTurn`'s step: `type` and `modifier`, MOTORWAY_STEP. */
function motorwayStep(type: string, modifier: string): number {
  motorwayType = type;
  motorwayModifier = modifier;
  return MOTORWAY_STEP;
}

/**
 * The step OSRM's MotorwayHandler gives the road `outAt` of the scratch, arriving on label `inLabel` of kind
 * `inKind` by road `inBack` (bearing `bearingBefore`); `modeChange` where the travel mode changes onto it.
 * MOTORWAY_NONE where its canProcess does not take the junction.
 */
function motorwayTurn(g: GuidanceGraph, inLabel: number, inKind: number, inBack: number, outAt: number, bearingBefore: number, modeChange: boolean): number {
  const fromMotorway = motorwayClass(inKind);
  // (Arriving on neither a motorway nor a ramp, the road arrived by is one of its normal roads: most junctions.)
  if (outAt < 0 || inBack < 0 || !(fromMotorway || isRamp(inKind))) return MOTORWAY_NONE;
  // canProcess: no road to take more than 60° off straight, no road but motorways and ramps, and arriving
  // on a motorway or with one to take.
  let hasMotorway = false;
  for (let i = 0; i < roadCount; i++) {
    const entry = i !== inBack && roadEntry[i] === 1;
    if (entry && Math.abs(deviation(bearingBefore, roadBearing[i])) > 60) return MOTORWAY_NONE;
    if (motorwayClass(roadKind[i])) {
      if (entry) hasMotorway = true;
    } else if (!rampClass(roadKind[i], fromMotorway)) return MOTORWAY_NONE;
  }
  if (!hasMotorway && !fromMotorway) return MOTORWAY_NONE;
  // The roads by angle, the way back (angle 0) first.
  let n = 0;
  angleOrder[n++] = inBack;
  angleOf[inBack] = 0;
  for (let i = 0; i < roadCount; i++) {
    if (i === inBack) continue;
    const a = angleBetween(bearingBefore, roadBearing[i]);
    angleOf[i] = a;
    let j = n;
    for (; j > 1 && angleOf[angleOrder[j - 1]] > a; j--) angleOrder[j] = angleOrder[j - 1];
    angleOrder[j] = i;
    n++;
  }
  const entry = (i: number): boolean => i !== inBack && roadEntry[i] === 1;
  let valid = 0,
    motorways = 0;
  for (let k = 1; k < n; k++) {
    if (!entry(angleOrder[k])) continue;
    valid++;
    if (motorwayClass(roadKind[angleOrder[k]])) motorways++;
  }
  const outAngle = angleOf[outAt];
  // The type and direction OSRM's setTurnTypes gave the road, where the handler leaves it so.
  const basic = (): number => motorwayBasic(g, inKind, inLabel, outAt, fromMotorway);
  // The fork of the roads `left` and `right` (assignFork: OSRM's two-way fork ends by telling each side a
  // fork, unless one of them is of low priority).
  const fork = (left: number, right: number): number => {
    const lowLeft = lowPriority(roadKind[left]),
      lowRight = lowPriority(roadKind[right]);
    if (outAt === left) return lowRight && !lowLeft ? MOTORWAY_SILENT : motorwayStep(lowLeft && !lowRight ? 'turn' : 'fork', 'slight left');
    if (outAt === right) return lowLeft && !lowRight ? MOTORWAY_SILENT : motorwayStep(lowRight && !lowLeft ? 'turn' : 'fork', 'slight right');
    return basic();
  };
  // The fork of three roads, all to be taken (assignFork's three-way form).
  const fork3 = (left: number, center: number, right: number): number => {
    if (entry(left) && entry(center) && entry(right)) {
      if (outAt === left) return motorwayStep('fork', 'slight left');
      if (outAt === right) return motorwayStep('fork', 'slight right');
      if (Math.abs(180 - outAngle) < 3 && !announced(g.shapes, inLabel, roadLabel[center])) return MOTORWAY_SILENT;
      return motorwayStep('fork', 'straight');
    }
    if (entry(left)) return entry(right) ? fork(left, right) : entry(center) ? fork(left, center) : basic();
    if (entry(right)) return entry(center) ? fork(center, right) : basic();
    return basic();
  };
  // fallback: a motorway merged onto, anything else turned onto, slightly.
  const fallback = (): number => {
    if (motorwayClass(roadKind[outAt])) return motorwayStep('merge', outAngle < 180 ? 'slight left' : 'slight right');
    return motorwayStep('turn', Math.abs(180 - outAngle) < FUZZY_DEG ? 'straight' : outAngle > 180 ? 'slight left' : 'slight right');
  };
  const obvious = (through: boolean): number => motorwayObvious(g, inKind, inLabel, outAt, through, fromMotorway, modeChange);
  if (fromMotorway) {
    // The road that goes on: the first to be taken under the motorway's name (getContinueAngle), else the
    // motorway nearest straight on (getMostLikelyContinue).
    let goesOn = -1;
    for (let k = 1; k < n && goesOn < 0; k++) {
      const i = angleOrder[k];
      if (entry(i) && hasName(g, inLabel) && hasName(g, roadLabel[i]) && sameRoad(g, inLabel, roadLabel[i]) && motorwayClass(roadKind[i])) goesOn = i;
    }
    if (goesOn < 0) {
      let best = 180;
      for (let k = 0; k < n; k++) {
        const i = angleOrder[k];
        if (motorwayClass(roadKind[i]) && Math.abs(180 - angleOf[i]) < best) {
          best = Math.abs(180 - angleOf[i]);
          goesOn = i;
        }
      }
    }
    // The motorway does not go on: a ramp at its end is not told, two or three roads at its end fork.
    if (goesOn < 0 || goesOn === inBack) {
      if (n === 2) return MOTORWAY_SILENT;
      if (n === 3) return entry(angleOrder[1]) && entry(angleOrder[2]) ? fork(angleOrder[2], angleOrder[1]) : MOTORWAY_SILENT;
      const c1 = roadKind[angleOrder[1]] & (CLASS_MASK | LINK);
      if (n === 4 && c1 === (roadKind[angleOrder[2]] & (CLASS_MASK | LINK)) && c1 === (roadKind[angleOrder[3]] & (CLASS_MASK | LINK)))
        return fork3(angleOrder[3], angleOrder[2], angleOrder[1]);
      return fallback();
    }
    // Only ramps to take: where the motorway ends in a ramp, nothing is said.
    if (motorways === 0) return MOTORWAY_SILENT;
    if (motorways === 1 || motorways !== valid) {
      // OSRM asks whether its first road (the sharpest to the right) is a through street, whichever it tells.
      const through = throughStreet(g, angleOrder[1], inBack);
      if (n === 2 || outAt === goesOn) return obvious(through);
      const type = rampClass(roadKind[outAt], true) ? 'off ramp' : 'turn';
      const goesOnAngle = angleOf[goesOn];
      if (outAngle < goesOnAngle) return motorwayStep(type, outAngle < 145 ? 'right' : 'slight right');
      if (outAngle > goesOnAngle) return motorwayStep(type, outAngle > 215 ? 'left' : 'slight left');
      return obvious(through);
    }
    // Two or three motorways to take, and nothing else: a fork.
    if (motorways === 2 || motorways === 3) {
      const m: number[] = [];
      for (let k = 1; k < n; k++) if (entry(angleOrder[k]) && motorwayClass(roadKind[angleOrder[k]])) m.push(angleOrder[k]);
      return motorways === 2 ? fork(m[1], m[0]) : fork3(m[2], m[1], m[0]);
    }
    return fallback();
  }
  // From a ramp (fromRamp).
  if (n === 2 && valid === 1) return obvious(throughStreet(g, angleOrder[1], inBack));
  if (n === 3) {
    const first = angleOrder[1],
      second = angleOrder[2];
    const sameNames = isNamed(g, roadLabel[first]) && isNamed(g, roadLabel[second]) && !announced(g.shapes, roadLabel[second], roadLabel[first]);
    if (valid === 1) {
      // Onto a motorway that goes on through the junction under its name: a merge, from the side the
      // ramp arrives on.
      if (entry(first)) {
        if (outAt !== first) return basic();
        if (motorwayClass(roadKind[first]) && sameNames)
          return motorwayStep('merge', Math.abs(180 - outAngle) < 2 * NARROW_TURN_DEG ? 'slight left' : turnDirection(180 - outAngle));
        return obvious(throughStreet(g, first, inBack));
      }
      if (outAt !== second) return basic();
      if (motorwayClass(roadKind[second]) && sameNames)
        return motorwayStep('merge', Math.abs(180 - outAngle) < 2 * NARROW_TURN_DEG ? 'slight right' : turnDirection(180 - outAngle));
      return obvious(throughStreet(g, second, inBack));
    }
    if (motorwayClass(roadKind[first]) && motorwayClass(roadKind[second])) return fork(second, first);
    // A ramp that goes on past a motorway's start.
    if (motorwayClass(roadKind[first])) return outAt === first ? motorwayStep('turn', 'slight right') : motorwayStep('continue', 'slight left');
    return fork(second, first);
  }
  // A ramp onto a motorway that comes in beside it, with a ramp off it: a merge from the side the motorway
  // comes from, or the ramp off.
  if (n === 4) {
    let passedMotorway = false;
    for (let k = 0; k < n; k++) {
      const i = angleOrder[k];
      if (!entry(i) && motorwayClass(roadKind[i])) passedMotorway = true;
      else if (i === outAt)
        return motorwayClass(roadKind[i])
          ? motorwayStep('merge', passedMotorway ? 'slight right' : 'slight left')
          : motorwayStep('off ramp', turnDirection(180 - outAngle));
    }
  }
  return fallback();
}

/** The basic type of a turn onto road `outAt` (findBasicTurnType), with its direction: onto a ramp from no
 *  ramp it is on (off from a motorway), a continue under the same name, else a turn. */
function motorwayBasic(g: GuidanceGraph, inKind: number, inLabel: number, outAt: number, fromMotorway: boolean): number {
  const direction = turnDirection(180 - angleOf[outAt]);
  if (!isRamp(inKind) && isRamp(roadKind[outAt])) return motorwayStep(fromMotorway ? 'off ramp' : 'on ramp', direction);
  const label = roadLabel[outAt];
  return motorwayStep(isNamed(g, inLabel) && isNamed(g, label) && sameRoad(g, inLabel, label) ? 'continue' : 'turn', direction);
}

/** OSRM's getInstructionForObvious of road `outAt` at a junction of `n` roads (`through`: isThroughStreet). */
function motorwayObvious(
  g: GuidanceGraph,
  inKind: number,
  inLabel: number,
  outAt: number,
  through: boolean,
  fromMotorway: boolean,
  modeChange: boolean,
): number {
  const angle = angleOf[outAt],
    direction = turnDirection(180 - angle);
  const outKind = roadKind[outAt],
    label = roadLabel[outAt];
  if (!isRamp(inKind) && isRamp(outKind)) return motorwayStep(fromMotorway ? 'off ramp' : 'on ramp', direction);
  if (angle === 0) return motorwayStep('continue', 'uturn');
  if (!sameRoad(g, inLabel, label)) {
    if (!through) return motorwayStep(modeChange ? 'notification' : 'new name', direction);
    if (motorwayClass(outKind)) return motorwayStep('merge', angle > 180 ? 'slight right' : 'slight left');
    if (isRamp(inKind) && isRamp(outKind)) return modeChange ? motorwayStep('notification', direction) : MOTORWAY_SILENT;
    return motorwayStep('turn', Math.abs(180 - angle) < NARROW_TURN_DEG && chordMeters(g, roadDir[outAt]) > THROUGH_STRAIGHT_M ? 'straight' : direction);
  }
  return modeChange ? motorwayStep('notification', direction) : MOTORWAY_SILENT;
}

// OSRM's sliproads (guidance/sliproad_handler.cpp, SliproadHandler): a short road that leaves a road just
// before a junction and cuts its corner, joining the road the junction turns onto. OSRM marks the turn onto
// it a Sliproad, and its collapse (collapse_turns.cpp handleSliproad) tells it with the turn off it: one
// "turn right" onto the road joined, where the sliproad leaves (`withSliproadsCollapsed`).
/** The longest way to the junction cut, and the side of the largest triangle, meters (MAX_SLIPROAD_THRESHOLD). */
const MAX_SLIPROAD_M = 250;
/** Nodes a sliproad is followed through to the junction it ends at (its IntersectionFinderAccumulator's). */
const SLIPROAD_HOPS = 10;

/** OSRM's scaledThresholdByRoadClass: MAX_SLIPROAD_M scaled down by a road's class. */
function sliproadMeters(kind: number): number {
  if (kind & LINK) return MAX_SLIPROAD_M * 0.3;
  switch (kind & CLASS_MASK) {
    case MOTORWAY:
      return MAX_SLIPROAD_M;
    case TRUNK:
    case TRUNK + 1:
      return MAX_SLIPROAD_M * 0.8;
    case 4:
      return MAX_SLIPROAD_M * 0.6;
    case 5:
      return MAX_SLIPROAD_M * 0.5;
    case 6:
      return MAX_SLIPROAD_M * 0.4;
    default:
      return MAX_SLIPROAD_M * 0.1;
  }
}

/** The node directed edge `d` leads to, whichever way it may be driven (-1 where neither). */
function nodeAfter(g: GuidanceGraph, d: number): number {
  if (g.origFirst[d + 1] > g.origFirst[d]) return g.head[g.origEdges[g.origFirst[d]]];
  const b = d ^ 1;
  if (g.origFirst[b + 1] > g.origFirst[b]) return edgeTail(g, g.origEdges[g.origFirst[b]]);
  return -1;
}
/** Point index (shapes.pointsE7) of the end of directed edge `d`. */
const endPoint = (g: GuidanceGraph, d: number): number => (d & 1 ? g.geomFirst[d >> 1] : g.geomLast[d >> 1]);
/** Point index of the start of directed edge `d`. */
const startPoint = (g: GuidanceGraph, d: number): number => (d & 1 ? g.geomLast[d >> 1] : g.geomFirst[d >> 1]);
/** Whether two points of the shapes are one place (a node's copies share it). */
const samePlace = (pts: Int32Array, a: number, b: number): boolean => pts[2 * a] === pts[2 * b] && pts[2 * a + 1] === pts[2 * b + 1];
/** Meters between two points of the shapes (an equirectangular plane: a junction's few dozen meters). */
function metersBetween(pts: Int32Array, a: number, b: number): number {
  const kx = bearingScale(pts[2 * a]);
  const dy = pts[2 * b] - pts[2 * a],
    dx = (pts[2 * b + 1] - pts[2 * a + 1]) * kx;
  return Math.sqrt(dx * dx + dy * dy) * M_PER_E7;
}

/** Where `walkRoad` got to: the edge it arrived by, the meters, and the edges followed. */
let walkIn = -1,
  walkM = 0,
  walkCount = 0;
const walkDirs = new Int32Array(SLIPROAD_HOPS + 1);

/**
 * Follows road `d` (a directed edge leaving a junction) past nodes where only it goes on (two roads) to the
 * next junction or dead end, whose roads it leaves in the scratch: OSRM's graph walker over its compressed
 * graph. False when it goes on for more than `hops` nodes, or more than `maxM` meters up to a node of two
 * roads where the label changes.
 */
function walkRoad(g: GuidanceGraph, d: number, hops: number, maxM: number): boolean {
  const pts = g.shapes.pointsE7;
  walkM = 0;
  walkCount = 0;
  for (let hop = 0; hop <= hops; hop++) {
    if (walkCount < walkDirs.length) walkDirs[walkCount] = d;
    walkCount++;
    walkM += g.geomCm[d >> 1] / 100;
    const w = nodeAfter(g, d);
    if (w < 0) return false;
    const kx = bearingScale(pts[2 * endPoint(g, d)]);
    roadsAt(g, w, kx);
    // A node split for a turn restriction through it: its copies' roads too (OSRM's graph walker sees the
    // junction's every road, whatever the restrictions; a via-way copy's `roadsAt` has added).
    if (!viaWayCopy(g, w) && !splitForTurns(g, w)) addSplitRoads(g, w, kx);
    walkIn = d;
    if (roadCount !== 2) return true;
    let on = -1;
    for (let i = 0; i < roadCount; i++) if (!isRoad(i, d ^ 1)) on = roadDir[i];
    if (on < 0 || on >> 1 === d >> 1) return true;
    // OSRM's DistanceToNextIntersectionAccumulator is asked only at the nodes of two roads its compressed
    // graph keeps (where the road's attributes change: another label here), before going on past them.
    if (walkM > maxM && labelOfDir(g, on) !== labelOfDir(g, d)) return false;
    d = on;
  }
  return false;
}

/** Index in the scratch of the road back along directed edge `d` arrived by (-1 none). */
function backOf(d: number): number {
  for (let i = 0; i < roadCount; i++) if (isRoad(i, d ^ 1)) return i;
  return -1;
}

/** The roads at the junction a sliproad cuts (`c`) and at its end (`d`), while they are checked. */
const atB = new RoadsCopy();
const atC = new RoadsCopy();
const atD = new RoadsCopy();

/** The scratch's road a driver may take nearest straight on from `before` (`back` the road arrived by), its
 *  deviation and that of the next nearest, as `straightestEntry` found them (-1 and 360: none). */
let straightAt = -1,
  straightDev = 360,
  nextStraightDev = 360;
function straightestEntry(back: number, before: number): void {
  straightAt = -1;
  straightDev = nextStraightDev = 360;
  for (let i = 0; i < roadCount; i++) {
    if (i === back || !roadEntry[i]) continue;
    const dev = Math.abs(deviation(before, roadBearing[i]));
    if (dev < straightDev) {
      nextStraightDev = straightDev;
      straightDev = dev;
      straightAt = i;
    } else if (dev < nextStraightDev) nextStraightDev = dev;
  }
}

/**
 * Whether the route, arriving at a junction (`b`, its roads in the scratch) by directed edge `inDir` and
 * leaving by `outDir`, takes a sliproad there, as OSRM's SliproadHandler finds one: the road arrived by goes
 * on (same name and class) as the junction's obvious way, to a junction `c` close ahead; the route's road,
 * next to it, narrow (within 80° of straight on), not a service road, bends round `c`'s corner to a junction
 * `d` of three or four roads, where its way on is obvious and narrow, and a road there leads to `c` (or meets
 * the road off `c` at a sharp angle); the triangle `bcd` neither tiny nor too large for the sliproad's class;
 * and the names tell one road: a road at `c` has the name of a road at `d`. The scratch is left as it was.
 */
function sliproadFrom(g: GuidanceGraph, inDir: number, outDir: number, fork = false): boolean {
  locate(inDir, outDir);
  const inBack = locatedBack,
    outAt = locatedOut;
  if (inBack < 0 || outAt < 0) return false;
  const before = reverse(roadBearing[inBack]);
  const inLabel = labelOfDir(g, inDir),
    inKind = kindOfLabel(g, inLabel);
  // The main road: the obvious way on, the road arrived by going on (OSRM's roadContinues: same class, mode
  // and name, a name there is).
  straightestEntry(inBack, before);
  let main = straightAt;
  // At a fork of two, the branch the other cuts the corner of (OSRM's getObviousIndexWithSliproads).
  if (fork && roadCount === 3) main = forkMain(g, inBack, outAt, before);
  if (main < 0 || main === outAt) return false;
  const mainLabel = roadLabel[main];
  if ((roadKind[main] & (CLASS_MASK | LINK)) !== (inKind & (CLASS_MASK | LINK)) || !hasName(g, inLabel) || !hasName(g, mainLabel)) return false;
  if (!sameRoad(g, inLabel, mainLabel) || !sameModes(g, inDir, roadDir[main])) return false;
  // The sliproad, next to it (no road between them), narrow, no ring, no service road.
  const outKind = roadKind[outAt];
  const mainAngle = angleBetween(before, roadBearing[main]),
    outAngle = angleBetween(before, roadBearing[outAt]);
  if (Math.abs(180 - outAngle) > 80 || mainAngle === outAngle || isRound(outKind) || isRound(roadKind[main])) return false;
  const cls = outKind & CLASS_MASK;
  if (cls === SERVICE || cls === 0) return false;
  const right = outAngle < mainAngle;
  for (let i = 0; i < roadCount; i++) {
    if (i === inBack || i === main || i === outAt) continue;
    const a = angleBetween(before, roadBearing[i]);
    if (right ? a > outAngle && a < mainAngle : a < outAngle && a > mainAngle) return false;
  }
  const pts = g.shapes.pointsE7;
  const b = startPoint(g, outDir);
  const mainDir = roadDir[main];
  atB.save();
  const found = sliproadBeyond(g, inDir, mainDir, mainLabel, outDir, outKind, right, b, pts);
  atB.load();
  return found;
}

/**
 * OSRM's getObviousIndexWithSliproads at a fork of two (the scratch: three roads, `back` the way in, `out`
 * a branch, `before` the bearing in): the branch the other is a sliproad off, the one whose next junction
 * is no sliproad's target (`sliproadTarget`), the right one's looked at first; -1 where neither or both
 * lead to one, a branch ends or comes back. The scratch is left as it was.
 */
function forkMain(g: GuidanceGraph, back: number, out: number, before: number): number {
  const other = 3 - back - out;
  const [right, left] = angleBetween(before, roadBearing[out]) < angleBetween(before, roadBearing[other]) ? [out, other] : [other, out];
  const pts = g.shapes.pointsE7;
  const b = startPoint(g, roadDir[out]);
  const rightDir = roadDir[right],
    leftDir = roadDir[left];
  atB.save();
  let main = -1;
  if (walkRoad(g, rightDir, SLIPROAD_HOPS, Infinity) && roadCount > 1) {
    const rightTarget = sliproadTarget(walkIn),
      rightEnd = endPoint(g, walkIn);
    if (walkRoad(g, leftDir, SLIPROAD_HOPS, Infinity) && roadCount > 1) {
      const leftTarget = sliproadTarget(walkIn),
        leftEnd = endPoint(g, walkIn);
      if (rightTarget && !samePlace(pts, leftEnd, b)) main = left;
      else if (leftTarget && !samePlace(pts, rightEnd, b)) main = right;
    }
  }
  atB.load();
  return main;
}

/** OSRM's canBeTargetOfSliproad of the junction in the scratch, arrived at by directed edge `via`: three
 *  roads, a driver may take at most one of the two ahead. */
function sliproadTarget(via: number): boolean {
  if (roadCount !== 3) return false;
  let allowed = 0;
  for (let i = 0; i < roadCount; i++) if (roadEntry[i] && !isRoad(i, via ^ 1)) allowed++;
  return allowed < 2;
}

/**
 * OSRM's SliproadHandler at a fork where the other branch is a sliproad: the step on the route's branch
 * (`step`, at the scratch's junction, arrived at by `inDir`, leaving by `outDir`) is no fork but the obvious
 * way on: nothing said going on under the name within 5° of straight, else a continue; onto another name
 * a new name; onto no name nothing. Whether the step is to be dropped.
 */
function forkBesideSliproad(g: GuidanceGraph, step: RawStep, inDir: number, outDir: number): boolean {
  locate(inDir, outDir);
  const back = locatedBack,
    out = locatedOut;
  if (back < 0 || out < 0 || !roadEntry[3 - back - out]) return false;
  if (!sliproadFrom(g, inDir, roadDir[3 - back - out], true)) return false;
  const dev = deviation(reverse(roadBearing[back]), roadBearing[out]);
  const inLabel = labelOfDir(g, inDir);
  if (isNamed(g, inLabel) && isNamed(g, roadLabel[out]) && sameRoad(g, inLabel, roadLabel[out])) {
    if (Math.abs(dev) < 5) return true;
    step.type = 'continue';
  } else if (isNamed(g, roadLabel[out])) step.type = 'new name';
  else return true;
  step.modifier = turnDirection(dev);
  return false;
}

/** `sliproadFrom`'s look ahead, from the junction `b` (point index), whose roads it may overwrite. */
function sliproadBeyond(
  g: GuidanceGraph,
  inDir: number,
  mainDir: number,
  mainLabel: number,
  outDir: number,
  outKind: number,
  right: boolean,
  b: number,
  pts: Int32Array,
): boolean {
  // The junction cut (`c`), close enough along the main road (for its class).
  if (!walkRoad(g, mainDir, 1 << 10, sliproadMeters(kindOfLabel(g, mainLabel)))) return false;
  const c = endPoint(g, walkIn);
  if (samePlace(pts, c, b)) return false;
  const cIn = backOf(walkIn);
  if (cIn < 0) return false;
  let deadEnd = true;
  for (let i = 0; i < roadCount; i++) if (i !== cIn && roadEntry[i]) deadEnd = false;
  if (deadEnd) return false;
  // Its rightmost (leftmost) road, the one the sliproad's road crosses at `c`: one that may be driven from `c`.
  const cBefore = reverse(roadBearing[cIn]);
  let crossing = -1,
    crossingAngle = right ? 360 : 0,
    nextToCrossing = -1,
    nextAngle = right ? 360 : 0;
  for (let i = 0; i < roadCount; i++) {
    if (i === cIn) continue;
    const a = angleBetween(cBefore, roadBearing[i]);
    if (right ? a < crossingAngle : a > crossingAngle) {
      nextToCrossing = crossing;
      nextAngle = crossingAngle;
      crossing = i;
      crossingAngle = a;
    } else if (right ? a < nextAngle : a > nextAngle) {
      nextToCrossing = i;
      nextAngle = a;
    }
  }
  if (crossing < 0 || !drivable(g, roadDir[crossing])) return false;
  const crossingDir = roadDir[crossing],
    crossingBearing = roadBearing[crossing],
    nextToCrossingDir = nextToCrossing >= 0 ? roadDir[nextToCrossing] : -1,
    crossingDev = Math.abs(180 - crossingAngle);
  atC.save();
  // The sliproad's end (`d`): three or four roads, the same travel mode on.
  if (!walkRoad(g, outDir, SLIPROAD_HOPS, Infinity)) return false;
  const d = endPoint(g, walkIn),
    dIn = backOf(walkIn),
    followed = walkCount;
  if (dIn < 0 || roadCount < 3 || roadCount > 4) return false;
  if (samePlace(pts, b, d) || samePlace(pts, c, d)) return false;
  const dBefore = reverse(roadBearing[dIn]);
  // Its way on obvious (the only one, or straighter than the others by FUZZY_DEG) and narrow, no ring.
  straightestEntry(dIn, dBefore);
  const onto = straightAt,
    ontoDev = straightDev,
    otherDev = nextStraightDev;
  if (onto < 0 || ontoDev > 80 || otherDev - ontoDev < FUZZY_DEG || isRound(roadKind[onto])) return false;
  // Past GROUP_ANGLE, OSRM's findObviousTurn takes it only where it is distinct by its angle (IsDistinctWideTurn).
  if (ontoDev >= GROUP_DEG && !distinctWide(g, onto, dIn, dBefore, kindOf(g, walkIn), lanesOfDir(g, walkIn))) return false;
  if (!sameModes(g, outDir, roadDir[onto]) || !sameModes(g, inDir, outDir)) return false;
  atD.save();
  // Four roads at `d`: the crossing road from `c` ends there, and a road off `d` at a sharp angle ends where
  // the road next to it at `c` does.
  if (atD.count === 4) {
    if (atC.count < 3 || nextToCrossingDir < 0) return false;
    if (!walkRoad(g, crossingDir, SLIPROAD_HOPS, Infinity) || !samePlace(pts, endPoint(g, walkIn), d)) return false;
    if (!walkRoad(g, nextToCrossingDir, SLIPROAD_HOPS, Infinity)) return false;
    const e = endPoint(g, walkIn);
    let sharp = false;
    for (let i = 0; i < atD.count && !sharp; i++) {
      if (i === dIn) continue;
      const dev = Math.abs(deviation(dBefore, atD.bearing[i]));
      if (dev > 120 && dev < 179 && walkRoad(g, atD.dir[i], SLIPROAD_HOPS, Infinity) && samePlace(pts, endPoint(g, walkIn), e)) sharp = true;
    }
    if (!sharp) return false;
  }
  // It bends round the corner (no point of it beyond the line from its start to its end, on the side away
  // from `c`), where `c` is not at `b`; and the junction at `c` is not too skewed for a road that is no link.
  const cutM = metersBetween(pts, b, c);
  if (cutM >= 3) {
    const lat0 = pts[2 * b],
      lon0 = pts[2 * b + 1],
      lat1 = pts[2 * d],
      lon1 = pts[2 * d + 1];
    for (let k = 0; k < followed; k++) {
      const dir = walkDirs[k];
      const first = g.geomFirst[dir >> 1],
        last = g.geomLast[dir >> 1];
      for (let p = first; p <= last; p++) {
        if ((k === 0 && p === startPoint(g, dir)) || (k === followed - 1 && p === endPoint(g, dir))) continue;
        // OSRM's isCCW on (longitude, latitude).
        const ccw = (pts[2 * p + 1] - lon0) * (lat1 - lat0) - (pts[2 * p] - lat0) * (lon1 - lon0) > 0;
        if (right ? ccw : !ccw) return false;
      }
    }
    if (crossingDev > 140 && !(outKind & LINK)) return false;
  }
  // The triangle's area (OSRM's isValidSliproadArea).
  const area = (cutM * metersBetween(pts, c, d)) / 2;
  const most = sliproadMeters(outKind);
  if (area < 3 || area > most * most) return false;
  // A road at `d` leading to `c` (or meeting the crossing road's far end at a sharp angle), named as a road at `c`.
  const outLabel = labelOfDir(g, outDir);
  const outNamed = isNamed(g, outLabel) && isNamed(g, mainLabel);
  let crossingEnd = -1;
  for (let i = 0; i < atD.count; i++) {
    const label = atD.label[i];
    let named = false;
    for (let j = 0; j < atC.count && !named; j++) if (sameRoad(g, atC.label[j], label)) named = true;
    if (!named) continue;
    if (!(outKind & LINK) && outNamed && isNamed(g, label) && !sameRoad(g, mainLabel, outLabel) && !sameRoad(g, outLabel, label)) continue;
    if (outKind & LINK && atD.kind[i] & LINK) continue;
    if (!walkRoad(g, atD.dir[i], SLIPROAD_HOPS, Infinity)) continue;
    const end = endPoint(g, walkIn);
    if (samePlace(pts, end, c)) return true;
    if (crossingEnd < 0) {
      if (!walkRoad(g, crossingDir, SLIPROAD_HOPS, Infinity)) continue;
      crossingEnd = endPoint(g, walkIn);
    }
    const dev = Math.abs(deviation(dBefore, atD.bearing[i]));
    // (OSRM's util::bearing::angleBetween of the two bearings, as it is: one-sided.)
    if (samePlace(pts, end, crossingEnd) && (atD.bearing[i] - crossingBearing + 540) % 360 < FUZZY_DEG && dev > 120 && dev < 179) return true;
  }
  return false;
}

/**
 * OSRM's last obvious way on (findObviousTurn: "roads splitting up, all the same name"): at a node of three
 * roads all of the name (and ref, destinations, exits) arrived by, where the way on (`outAt`, deviation `dev`) is the only one a driver
 * may take, and the other two do not lie to both sides of a square turn (a segregated intersection's end
 * of the road). `inBack` is the road arrived by.
 */
function splitOfOneName(g: GuidanceGraph, inLabel: number, inBack: number, outAt: number, dev: number): boolean {
  if (roadCount !== 3 || inBack < 0 || outAt < 0 || !isNamed(g, inLabel)) return false;
  const sh = g.shapes;
  let other = -1;
  for (let i = 0; i < roadCount; i++) {
    // OSRM's name ids: one per name, ref, destinations and exits together.
    const l = roadLabel[i];
    if (
      l < 0 ||
      sh.labelName[l] !== sh.labelName[inLabel] ||
      sh.labelRef[l] !== sh.labelRef[inLabel] ||
      sh.labelDestinations[l] !== sh.labelDestinations[inLabel] ||
      sh.labelExits[l] !== sh.labelExits[inLabel]
    )
      return false;
    if (i !== inBack && i !== outAt) other = i;
  }
  if (roadEntry[other]) return false;
  // OSRM's turn angles (180 straight on, below it to the right) of the two roads, the smaller first.
  const a = 180 - dev,
    b = 180 - deviation(reverse(roadBearing[inBack]), roadBearing[other]);
  return Math.abs(Math.min(a, b) - 90) > NARROW_TURN_DEG || Math.abs(Math.max(a, b) - 270) > NARROW_TURN_DEG;
}

/** Meters in a straight line from directed edge `d`'s first node to its last (OSRM's greatCircleDistance
 *  between the nodes of a node-based edge). */
const chordMeters = (g: GuidanceGraph, d: number): number => metersBetween(g.shapes.pointsE7, g.geomFirst[d >> 1], g.geomLast[d >> 1]);

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

/** OSRM's getTurnDirection as it is, straight up to 20°: the modifier of entering and leaving a roundabout
 *  (its roundabout handler's), and of an obvious way on under a new name (getInstructionForObvious). Turns
 *  elsewhere keep `modifierOf`. */
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

/**
 * findObviousTurn's second look, where no road goes on under the name arrived by: whether the route's road
 * `c` (deviation `cDev`) is the straightest a driver could take of no lower class than the road arrived on
 * (`inKind`) and no `_link` of it, among `choiceAt`'s first `count`, and distinct from the rest
 * (IsDistinctNarrowTurn within GROUP_ANGLE of straight, else IsDistinctWideTurn; `back` the road arrived by).
 */
function straightestOfItsClass(
  g: GuidanceGraph,
  c: number,
  cDev: number,
  inLabel: number,
  inKind: number,
  inLanes: number,
  before: number,
  count: number,
  back: number,
): boolean {
  if (strictlyLess(roadKind[c], inKind) || linkTo(roadKind[c], inKind)) return false;
  for (let k = 0; k < count; k++) {
    const i = choiceAt[k];
    if (!strictlyLess(roadKind[i], inKind) && !linkTo(roadKind[i], inKind) && Math.abs(deviation(before, roadBearing[i])) < cDev) return false;
  }
  return distinctTurn(g, c, c, inLabel, inKind, inLanes, before, count, back);
}

/**
 * OSRM's IsDistinctTurn of road `r` of the scratch: within GROUP_ANGLE of straight, IsDistinctNarrowTurn
 * (no rival among `choiceAt`'s first `count`, the route's road `c` standing for `r` there, looks as
 * obvious: `similarNarrow`), else IsDistinctWideTurn (`distinctWide`; `back` the road arrived by).
 */
function distinctTurn(
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
  const rDev = Math.abs(deviation(before, roadBearing[r]));
  if (rDev >= GROUP_DEG) return distinctWide(g, r, back, before, inKind, inLanes);
  for (let k = 0; k < count; k++) {
    const i = choiceAt[k] === r ? c : choiceAt[k];
    if (similarNarrow(g, i, r, inLabel, inKind, inLanes, rDev, Math.abs(deviation(before, roadBearing[i])))) return false;
  }
  return true;
}

/** Whether road `s` of `choiceAt`'s first `count`, the straightest a driver could take, is within 35° of
 *  straight and no other, the route's road `c` among them, looks as obvious (`similarNarrow`). `choiceAt`
 *  is left as it was. */
function obviousOther(g: GuidanceGraph, s: number, c: number, inLabel: number, inKind: number, inLanes: number, before: number, count: number): boolean {
  // (Within 35° the narrow test alone: no road arrived by is read.)
  return Math.abs(deviation(before, roadBearing[s])) <= 35 && distinctTurn(g, s, c, inLabel, inKind, inLanes, before, count, -1);
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
  return distinctTurn(g, r, c, inLabel, inKind, inLanes, before, count, back);
}

/**
 * OSRM's IsDistinctWideTurn: road `r` of the scratch, bending GROUP_ANGLE or more from `before` (the bearing
 * arrived at, on a road of kind `inKind` with `inLanes` lanes; `back` the road arrived by), is distinct where
 * no other road, whether a driver may take it or not, bends less than twice as much, but for one not straight
 * on of a lower class with fewer lanes, or a `_link` of both (roadHasLowerClass).
 */
function distinctWide(g: GuidanceGraph, r: number, back: number, before: number, inKind: number, inLanes: number): boolean {
  const rDev = Math.abs(deviation(before, roadBearing[r]));
  for (let i = 0; i < roadCount; i++) {
    if (i === r || i === back) continue;
    const dev = Math.abs(deviation(before, roadBearing[i]));
    if (dev > 2 * rDev) continue;
    if (dev > 20) {
      const lanes = lanesOfDir(g, roadDir[i]);
      if (strictlyLess(roadKind[i], inKind) && strictlyLess(roadKind[i], roadKind[r]) && lanes > 0 && lanes + 1 < inLanes) continue;
      if (linkTo(roadKind[i], inKind) && linkTo(roadKind[i], roadKind[r])) continue;
    }
    return false;
  }
  return true;
}

/** The scratch's roads by OSRM's turn angle (`forkRange`): 0 the way back, 180 straight on. */
const forkOrder = new Int32Array(MAX_ROADS);
const forkAngle = new Float64Array(MAX_ROADS);

/**
 * Whether the route's road `out` of the scratch (arrived at by road `back`, at bearing `before`) lies in the
 * fork OSRM's findFork finds by the geometry: from the road closest to straight on (within NARROW_TURN_ANGLE),
 * the roads beside it out to the last that is within NARROW_TURN_ANGLE of straight or of the one before
 * (findOutermostForkCandidate), two or three of them, every one a driver may take, and no other road within
 * GROUP_ANGLE of the outer ones (separated_at_left_side, separated_at_right_side).
 */
function forkRange(out: number, back: number, before: number): boolean {
  let n = 0;
  for (let i = 0; i < roadCount; i++) {
    if (i === back) continue;
    const a = angleBetween(before, roadBearing[i]);
    let j = n++;
    for (; j > 0 && forkAngle[j - 1] > a; j--) {
      forkAngle[j] = forkAngle[j - 1];
      forkOrder[j] = forkOrder[j - 1];
    }
    forkAngle[j] = a;
    forkOrder[j] = i;
  }
  let straight = -1;
  for (let k = 0; k < n; k++) if (straight < 0 || Math.abs(forkAngle[k] - 180) < Math.abs(forkAngle[straight] - 180)) straight = k;
  if (straight < 0 || Math.abs(forkAngle[straight] - 180) > NARROW_TURN_DEG) return false;
  // isOutermostForkCandidate: the road further out (`b`) bends away from straight and from the one before.
  const outermost = (a: number, b: number): boolean =>
    Math.abs(forkAngle[b] - 180) > NARROW_TURN_DEG && (Math.abs(forkAngle[a] - forkAngle[b]) > NARROW_TURN_DEG || Math.abs(forkAngle[a] - 180) > GROUP_DEG);
  let right = straight,
    left = straight;
  while (right > 0 && !outermost(right, right - 1)) right--;
  while (left < n - 1 && !outermost(left, left + 1)) left++;
  if (left === right || left - right > 2) return false;
  // Separated from the roads beside it (the way back at 0° and 360°).
  const beyondRight = right > 0 ? forkAngle[right - 1] : 0,
    beyondLeft = left < n - 1 ? forkAngle[left + 1] : 360;
  if (forkAngle[right] - beyondRight < GROUP_DEG || beyondLeft - forkAngle[left] < GROUP_DEG) return false;
  let inside = false;
  for (let k = right; k <= left; k++) {
    if (!roadEntry[forkOrder[k]]) return false;
    if (forkOrder[k] === out) inside = true;
  }
  return inside;
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

/** Whether a road of `label` and `kind` goes on under the name arrived by, on a road of `inLabel` and
 *  `inKind` (findObviousTurn's continues_on_name_with_higher_class): of no lower class, not a `_link` of
 *  it, and a road without a name (not of a low class) goes on under none, nor does one from a road without
 *  one, though no name need be announced onto it. */
function continuesName(g: GuidanceGraph, inLabel: number, inKind: number, label: number, kind: number): boolean {
  const inNamed = hasName(g, inLabel),
    named = hasName(g, label);
  if ((!inNamed && !lowPriority(inKind)) || (!named && !lowPriority(kind)) || inNamed !== named) return false;
  if (strictlyLess(kind, inKind) || linkTo(kind, inKind)) return false;
  return sameRoad(g, inLabel, label);
}

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
  // The one of the last step first where the steps wrap round north.
  const discrete = inSteps();
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

/** Whether the scratch junction's bearings are shown in steps of 15°: where no two of its roads share a
 *  step (OSRM's bearing class, guidance/turn_classification.cpp). */
function inSteps(): boolean {
  for (let a = 0; a < roadCount; a++) {
    for (let b = a + 1; b < roadCount; b++) if (discreteBearing(Math.round(roadBearing[a])) === discreteBearing(Math.round(roadBearing[b]))) return false;
  }
  return true;
}

/** The bearing the junction's intersection shows for scratch road `i` (as `intersectionOf` gives it): its
 *  15° step (`inSteps`), else its degree. */
function shownBearing(i: number): number {
  const own = Math.round(roadBearing[i]);
  return inSteps() ? Math.round(discreteBearing(own) * DISCRETE_STEP) : own % 360;
}

/** The direction a route arrives by at an intersection as it shows it (the road arrived by, turned round);
 *  `otherwise` where it shows none. */
const shownArrival = (x: StepIntersection, otherwise: number): number => (x.in === undefined ? otherwise : reverse(x.bearings[x.in]));

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
  const kx = bearingScale(g.shapes.pointsE7[2 * (inDir & 1 ? g.geomLast[inDir >> 1] : g.geomFirst[inDir >> 1])]);
  return Math.abs(deviation(reverse(guidedBearing(g, prior.dir ^ 1, kx)), guidedBearing(g, inDir, kx))) > GROUP_DEG ? -1 : text;
}

/** The roads at the junction before a sliproad's lanes, while `sliproadLanesOf` reads it. */
const beforeSlip = new RoadsCopy();

/**
 * Where the road `inDir` (its own lanes `own`) is a sliproad, or the road beside one, at the junction it
 * leaves (OSRM's SLIPROAD scenario, turn_lane_handler.cpp deduceScenario, and handleSliproadTurn): both
 * roads' lanes side by side (the sliproad's to its side) and how many lanes to the right of its own they
 * start; null where not. That junction is findPreviousIntersection's: `inDir` at most 30 m, the road it
 * came from the one there nearly straight on, drivable towards it. The scratch is left as it was.
 */
function sliproadLanesOf(g: GuidanceGraph, inDir: number, own: number): { masks: number[]; offset: number } | null {
  if (g.geomCm[inDir >> 1] > PRIOR_LANES_CM) return null;
  if (!drivable(g, inDir)) return null;
  const v = edgeTail(g, g.origEdges[g.origFirst[inDir]]);
  beforeSlip.save();
  roadsAt(g, v, bearingScale(g.shapes.pointsE7[2 * endPoint(g, inDir ^ 1)]));
  let found: { masks: number[]; offset: number } | null = null;
  let via = -1;
  for (let i = 0; i < roadCount; i++) if (roadDir[i] === inDir) via = i;
  if (via >= 0 && roadCount > 2) {
    // The road before, nearly straight on behind `inDir`.
    const back = reverse(roadBearing[via]);
    let s = -1;
    for (let i = 0; i < roadCount; i++)
      if (i !== via && (s < 0 || Math.abs(deviation(back, roadBearing[i])) < Math.abs(deviation(back, roadBearing[s])))) s = i;
    const prevIn = s >= 0 ? roadDir[s] ^ 1 : -1;
    if (s >= 0 && Math.abs(deviation(back, roadBearing[s])) <= GROUP_DEG && drivable(g, prevIn)) {
      // The junction's roads as OSRM orders them, arriving by `prevIn`: the way back first, then by angle.
      const before = reverse(roadBearing[s]);
      const order: number[] = [];
      const angle = (i: number): number => (i === s ? 0 : angleBetween(before, roadBearing[i]));
      for (let i = 0; i < roadCount; i++) order.push(i);
      order.sort((a, b) => angle(a) - angle(b));
      // findPreviousIntersection's road beside a sliproad: the one next to it nearer by angle.
      const closest = (k: number): number =>
        k + 1 === order.length
          ? k - 1
          : k === 1
            ? k + 1
            : Math.abs(deviation(angle(order[k]), angle(order[k - 1]))) < Math.abs(deviation(angle(order[k]), angle(order[k + 1])))
              ? k - 1
              : k + 1;
      let slip = -1,
        matches = false;
      for (let k = 1; k < order.length; k++) {
        const i = order[k];
        if (!roadEntry[i] || !sliproadFrom(g, prevIn, roadDir[i])) continue;
        if (slip < 0) slip = k;
        if (order[k] === via || order[closest(k)] === via) matches = true;
      }
      if (matches) {
        const main = order[closest(slip)],
          road = order[slip];
        const mainText = labelLanesText(g.shapes, roadLabel[main], (roadDir[main] & 1) === 0),
          slipText = labelLanesText(g.shapes, roadLabel[road], (roadDir[road] & 1) === 0);
        const mainMasks = mainText >= 0 ? masksOf(g, mainText) : null,
          slipMasks = slipText >= 0 ? masksOf(g, slipText) : null;
        if (mainMasks && slipMasks) {
          // Lanes are counted from the right: the road on the right side's lanes come first.
          found =
            angle(main) > angle(road)
              ? { masks: [...mainMasks, ...slipMasks], offset: own === mainText ? slipMasks.length : 0 }
              : { masks: [...slipMasks, ...mainMasks], offset: own === slipText ? mainMasks.length : 0 };
        }
      }
    }
  }
  beforeSlip.load();
  return found;
}

/** Nodes of only the road on and back `nextRoadsOf` passes at most (OSRM's graph has none: it compresses them). */
const NEXT_HOPS = 8;

/**
 * The roads of the intersection at the end of directed edge `d` (past nodes of only the road on and back),
 * as the lane matching sees them (angles from the road arrived by), in OSRM's order; null where there is
 * none. The scratch is left as it was.
 */
function nextRoadsOf(g: GuidanceGraph, d: number): LaneRoad[] | null {
  kept.save();
  let arriving = d,
    roads: LaneRoad[] | null = null;
  for (let hop = 0; hop < NEXT_HOPS; hop++) {
    const w = g.origHead[arriving];
    if (w === undefined || w === NO_HEAD) break;
    roadsAt(g, w, bearingScale(g.shapes.pointsE7[2 * endPoint(g, arriving)]));
    let back = -1;
    for (let i = 0; i < roadCount; i++) if (isRoad(i, arriving ^ 1)) back = i;
    if (back < 0) break;
    if (roadCount === 2) {
      const on = 1 - back;
      if (!roadEntry[on]) break;
      arriving = roadDir[on];
      continue;
    }
    const before = reverse(roadBearing[back]);
    roads = [];
    for (let i = 0; i < roadCount; i++) {
      const angle = i === back ? 0 : (540 - deviation(before, roadBearing[i])) % 360;
      roads.push({ angle, entry: i !== back && roadEntry[i] === 1, modifier: i === back ? 'uturn' : directionOfAngle(angle), type: 'turn' });
    }
    roads.sort((a, b) => a.angle - b.angle);
    break;
  }
  kept.load();
  return roads;
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
  const own = text >= 0;
  if (text < 0 && prior.dir >= 0) text = priorLanesText(g, inDir, prior);
  if (text < 0) return undefined;
  const masks = masksOf(g, text);
  if (!masks) return undefined;
  const slip = own ? sliproadLanesOf(g, inDir, text) : null;
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
      dir: roadDir[i],
    });
  }
  if (takenAt < 0) return undefined;
  const taken = roads[takenAt];
  // OSRM's order: the way back first, the others from sharp right round to sharp left.
  const sorted = roads.slice().sort((a, b) => a.angle - b.angle);
  if (slip) {
    const lanes = sliproadTurnLanes(masks, slip.offset, sorted, sorted.indexOf(taken), uturnReversed, sameAhead);
    return lanes ? { masks: slip.masks, first: lanes.first, count: lanes.count } : undefined;
  }
  const lanes = turnLanes(masks, sorted, sorted.indexOf(taken), uturnReversed, sameAhead, own ? (i) => nextRoadsOf(g, sorted[i].dir!) : null);
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
    sliproad: false,
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
    const kx = bearingScale(line[2 * a + 1]);
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
  // The last intersection a step passed (where OSRM keeps a suppressed step): the step, the piece arriving
  // there, and the step's meters and tenths up to it.
  let crossedBy: RawStep | null = null,
    crossedK = -1,
    crossedMeters = 0,
    crossedTenths = 0;
  // Whether a step is on a segregated road.
  let segregated = false;
  // Whether a step turns onto a sliproad (`sliproadFrom`).
  let sliproads = false;
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
    // Unless the travel mode changes there (a ferry under the road's name): OSRM's notification says it.
    if (inLabel === outLabel && outDir !== (inDir ^ 1) && !(modes && modeOf(g, inDir) !== modeOf(g, outDir))) {
      const said = memo && relation < 0 ? saids[k] : UNKNOWN;
      if (said !== UNKNOWN && !current.segregated) {
        if (said === SILENT_CROSSED) {
          current.crossed++;
          crossedBy = current;
          crossedK = k;
          crossedMeters = tally[METERS];
          crossedTenths = tally[TENTHS];
        }
        continue;
      }
      if (onlyOnAndBack(g, v, inDir ^ 1, outDir)) {
        if (memo) keep(memo, inDir, SILENT);
        continue;
      }
    }
    // Every road here leaves the node's point, which is the line's point `at`: its latitude scales them all.
    roadsAhead(g, v, bearingScale(line[2 * at + 1]));
    const stepsBefore = steps.length;
    // The node's step, decided once (`break decide`); then, for the feature runner, the intersection passed.
    // biome-ignore lint/suspicious/noConfusingLabels: one labelled block per node, left where its step is decided
    decide: {
      back = inDir ^ 1;
      locate(inDir, outDir);
      const inBack = locatedBack,
        outAt = locatedOut;
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
          entryModifier = turnDirection(dev);
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
            // OSRM gives a roundabout turn the direction from entry to exit as their intersections show the roads
            // (in 15° steps, post_processing.cpp), a roundabout or rotary its entry's.
            round.modifier = turn
              ? turnDirection(deviation(shownArrival(round.intersection, round.bearingBefore), outAt >= 0 ? shownBearing(outAt) : bearingAfter))
              : entryModifier;
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
      // Through a node of a roundabout without driving on it: OSRM calls it leaving the roundabout, or the
      // rotary where the ring is one (its RoundaboutHandler gives every road off the ring the ring's type).
      let ring = -1;
      for (let i = 0; i < roadCount; i++) if (isRound(roadKind[i]) && (ring < 0 || roadEntry[i])) ring = i;
      if (ring >= 0) {
        const rotary = (roadKind[ring] & CIRCULAR) !== 0 || leftRotary(g, v, roadLabel[ring]);
        emit(make(rotary ? 'exit rotary' : 'exit roundabout', turnDirection(dev)));
        break decide;
      }
      // On a ferry where every road is a ferry's (its lines meeting at a harbour): nothing to say (OSRM's
      // SuppressModeHandler).
      if (inMode === 'ferry') {
        let allFerries = true;
        for (let i = 0; i < roadCount && allFerries; i++) if (mode(roadDir[i]) !== 'ferry') allFerries = false;
        if (allFerries) break decide;
      }
      const motorway = motorwayTurn(g, inLabel, inKind, inBack, outAt, bearingBefore, modeChange);
      if (motorway !== MOTORWAY_NONE) {
        if (motorway === MOTORWAY_STEP) emit(make(motorwayType, motorwayModifier));
        break decide;
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
        forbidden = 0,
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
          if (drivable(g, roadDir[i])) forbidden++;
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
        if (continuesName(g, inLabel, inKind, roadLabel[i], roadKind[i])) {
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
      // Or it meets only roads a turn restriction forbids (`splitForTurns`), from which it is distinct (OSRM's
      // findObviousTurn: past GROUP_ANGLE by IsDistinctWideTurn, which weighs roads no one may take; within
      // it IsDistinctNarrowTurn, which skips them within NARROW_TURN_ANGLE and beyond weighs their angle
      // twice the turn's: on a grid's squares and diagonals a tie, that OSRM's coordinates decide).
      if (
        others === 0 ||
        (others === forbidden &&
          outAt >= 0 &&
          inBack >= 0 &&
          (outDev < GROUP_DEG || distinctWide(g, outAt, inBack, bearingBefore, inKind, lanesOfDir(g, inDir))))
      ) {
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
        goesOn ||
        // The only way a driver may take, within NARROW_TURN_ANGLE: OSRM's IsDistinctNarrowTurn weighs no road
        // no one may take there.
        (choices === 0 && outAt >= 0 && outDev < NARROW_TURN_DEG && !lowOut && !motorwayish) ||
        splitOfOneName(g, inLabel, inBack, outAt, dev) ||
        // The straightest road of its class, beside a straighter one of a lower class.
        (!motorwayish &&
          straighter > 0 &&
          outAt >= 0 &&
          inBack >= 0 &&
          !(continues && continuingObvious(g, continuesAt, outAt, inLabel, inKind, lanesOfDir(g, inDir), bearingBefore, choices, inBack)) &&
          straightestOfItsClass(g, outAt, outDev, inLabel, inKind, lanesOfDir(g, inDir), bearingBefore, choices, inBack));
      if (obvious) {
        // Onto a road that goes on through the junction on both sides (OSRM's through street): a turn
        // straight onto it (a merge onto a motorway), however slight the bend.
        if (!same && throughStreet(g, outAt, inBack)) {
          if (isHighway(outKind) && !(outKind & LINK)) emit(make('merge', dev > 0 ? 'slight right' : 'slight left'));
          // From a ramp onto a ramp that goes on through: suppressed (but a change of mode).
          else if (isRamp(inKind) && isRamp(outKind)) {
            if (modeChange) emit(make('notification', turnDirection(dev)));
          }
          // Straight only if nearly so and the road goes on for a while (getInstructionForObvious), else
          // getTurnDirection's modifier.
          else emit(make('turn', outDev < NARROW_TURN_DEG && chordMeters(g, outDir) > THROUGH_STRAIGHT_M ? 'straight' : turnDirection(dev)));
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
      // A road without name or ref continues nothing: unnamed branches fork like any others. Nor does a named
      // road split in two branches that both keep its name, neither obvious (OSRM's handleThreeWayTurn forks
      // where findObviousTurn finds no way on, its names telling neither branch).
      const named = inLabel >= 0 && (g.shapes.labelName[inLabel] >= 0 || g.shapes.labelRef[inLabel] >= 0);
      // Nor is one beside a straighter road that is obvious (OSRM forks only where findObviousTurn finds none),
      // nor one with a road no one may take among its roads (findFork's only_valid_entries).
      // A road straight on between the two is no fork (OSRM's high-degree junctions): a turn off it. Nor are
      // two roads that both bend away by more than NARROW_TURN_ANGLE (OSRM's findFork).
      // Nor where the mode changes (its findFork: the roads of a fork share the mode arrived in).
      // The branch that keeps the name is the way on, no fork; but at a junction of three roads, the two
      // branches of one class and neither of low priority, only where it is obvious by its angle too
      // (findObviousTurn, `continuingObvious`): OSRM forks at Monaco's Rond-Point Sainte-Dévote, where
      // Boulevard Albert 1er goes on 15° to one side and the route 15° to the other (steps-vs-osrm, h65).
      const other = roadCount === 3 && outAt >= 0 && inBack >= 0 ? 3 - inBack - outAt : -1;
      const nameGoesOn =
        named &&
        (continues || same) &&
        !(same && continues && roadCount === 3) &&
        (other < 0 ||
          lowOut ||
          lowPriority(roadKind[other]) ||
          (roadKind[other] & CLASS_MASK) !== (outKind & CLASS_MASK) ||
          continuingObvious(g, continues ? continuesAt : outAt, outAt, inLabel, inKind, lanesOfDir(g, inDir), bearingBefore, choices, inBack));
      if (
        !modeChange &&
        !nameGoesOn &&
        outDev <= 60 &&
        Math.min(outDev, Math.abs(straightest)) <= 40 &&
        near > 0 &&
        !(outDev > 20 && Math.abs(straightest) <= 10) &&
        !closedFork(closed, dev, nearMin, nearMax) &&
        (outAt < 0 || inBack < 0 || forkRange(outAt, inBack, bearingBefore)) &&
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
    // Onto a sliproad (OSRM's SliproadHandler): the step is told with the turn off it (`withSliproadsCollapsed`).
    if (steps.length > stepsBefore && roadCount > 2 && sliproadTurn(current)) {
      const fork = current.type === 'fork' && roadCount === 3;
      if (sliproadFrom(g, inDir, outDir, fork)) current.sliproad = sliproads = true;
      else if (fork && forkBesideSliproad(g, current, inDir, outDir)) {
        // Nothing said here after all: the node is one the step before passes (counted below).
        steps.pop();
        current = steps[steps.length - 1];
        tally[METERS] += current.meters;
        tally[TENTHS] += current.tenths;
      }
    }
    // Onto a segregated road (a short one between carriageways), or off one: the node's step, or one that
    // says nothing (OSRM's suppressed), for the collapse of the intersection's turns into one
    // (`withSegregatedCollapsed`).
    if (roadCount > 2) {
      let outAt = -1;
      if (k + 1 < n - 1 && trace.meters[k + 1] <= SEGREGATED_MAX_M) for (let i = 0; i < roadCount; i++) if (roadDir[i] === outDir) outAt = i;
      const onto = outAt >= 0 && segregatedRoad(g, outDir, outAt, trace.node[k + 1], bearingScale(line[2 * trace.end[k + 1] + 1]));
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
      crossedBy = current;
      crossedK = k;
      crossedMeters = tally[METERS];
      crossedTenths = tally[TENTHS];
      if (passed) {
        const x = intersectionOf(at, inDir ^ 1, outDir);
        x.lanes = lanesAt(g, inDir, outDir, tally[BEFORE], 'suppressed', undefined, prior);
        (current.passed ??= []).push(x);
      }
    } else if (
      steps.length === stepsBefore + 1 &&
      relation < 0 &&
      !current.sliproad &&
      !current.segregated &&
      crossedBy === steps[steps.length - 2] &&
      ((current.type === 'new name' && crossedBy.meters - crossedMeters < NAME_AFTER_SUPPRESSED_M) ||
        (crossedBy.meters - crossedMeters <= MAX_COLLAPSE_M && choiceless(current)))
    ) {
      // A change of name just past an intersection the step before went straight through, or a step with no
      // choice just past one where it bent (OSRM's suppressed step there): told as a turn there
      // (`nameChangeAfterCrossing`).
      const was = crossedBy;
      const pulled = nameChangeAfterCrossing(g, line, trace, k0, crossedK, lastPoint, was, current, passed, was.meters - crossedMeters);
      if (pulled) {
        tally[METERS] += was.meters - crossedMeters;
        tally[TENTHS] += was.tenths - crossedTenths;
        was.meters = crossedMeters;
        was.tenths = crossedTenths;
        was.to = pulled.from;
        was.crossed--;
        steps[steps.length - 1] = current = pulled;
        quietName = null;
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
  const unsegregated = segregated ? withSegregatedCollapsed(g, steps, passed) : steps;
  return withoutShortNames(
    g,
    withEndsOfRoadTold(g, withLanesAnticipated(withTurnsCollapsed(g, sliproads ? withSliproadsCollapsed(g, unsegregated, passed) : unsegregated, passed))),
    passed,
  );
}

/** How far from where a leg starts (ends) the point asked for may lie for its depart (arrive) to say on which
 *  side (OSRM's assignRelativeLocations: MINIMAL_ and MAXIMAL_RELATIVE_DISTANCE, meters). */
const SIDE_MIN_M = 5,
  SIDE_MAX_M = 300;

/**
 * OSRM's assignRelativeLocations: the leg's depart says where the road leaves the point asked for (`from`),
 * its arrive where the point asked for (`to`) lies off the road's end — `left`, `straight` or `right` (its
 * bearingToDirectionModifier of computeAngle, `angleAt`, in its 1e-6° coordinates) — where that
 * point is 5–300 m from the road; nearer or farther, none. `line` is the route's (longitude, latitude pairs
 * in 1e-7°).
 */
export function withWaypointSides(steps: RawStep[], line: Int32Array, from: { lat: number; lon: number }, to: { lat: number; lon: number }): void {
  const depart = steps[0],
    arrive = steps[steps.length - 1];
  const asked = Coord.ofDegrees(from.lon, from.lat),
    reached = Coord.ofDegrees(to.lon, to.lat);
  const point = (i: number): Coord => new Coord(e6OfE7(line[2 * i]), e6OfE7(line[2 * i + 1]));
  const side = (a: Coord, b: Coord, c: Coord): string => {
    const angle = angleAt(a, b, c);
    return angle < 135 ? 'right' : angle <= 225 ? 'straight' : 'left';
  };
  const near = (a: Coord, b: Coord): boolean => {
    const m = distance(a.lon, a.lat, b.lon, b.lat);
    return m >= SIDE_MIN_M && m <= SIDE_MAX_M;
  };
  const last = arrive.from;
  if (last <= depart.from) return;
  const start = point(depart.from),
    end = point(last);
  if (near(asked, start)) depart.modifier = side(asked, start, point(depart.from + 1));
  if (near(reached, end)) arrive.modifier = side(point(last - 1), end, reached);
}

/** A step closeChoicelessTurnAfterTurn may move back to a bend before it: one way to take, not a roundabout's
 *  nor a suppressed one. */
const choiceless = (s: RawStep): boolean => !ROUND_TYPES.has(s.type) && s.type !== SUPPRESSED && allowedTurns(s) === 1;

/** Meters within which a change of name after an intersection passed straight is told there (OSRM's
 *  nameChangeImmediatelyAfterSuppressed: a quarter of MAX_COLLAPSE_DISTANCE). */
const NAME_AFTER_SUPPRESSED_M = 0.25 * 30;

/**
 * Two of OSRM's collapseTurnInstructions scenarios on the suppressed step it has at the intersection that
 * step `before` passed at piece `kc`, `gap` meters before step `named`: nameChangeImmediatelyAfterSuppressed
 * (`named` a new name within NAME_AFTER_SUPPRESSED_M of an intersection passed straight through) and
 * closeChoicelessTurnAfterTurn (`named` a step with one way to take, within MAX_COLLAPSE_M of an
 * intersection where the road bent: a road's bend onto a short link, then the link's end onto the road it
 * joins). `named` is told at that intersection, with the turn of both together (AdjustToCombinedTurnStrategy
 * on a suppressed step: a new name where straight, else a continue onto the name before or a turn). The step
 * that replaces `named`, or null where OSRM tells it otherwise: a new name after an intersection passed other
 * than straight, or whose turn with it is straight (it stays a new name); a bend to the side of `named`
 * where there was a choice (maneuverPreceededBySuppressedDirection comes first). Reads the intersection's
 * roads into the scratch.
 */
function nameChangeAfterCrossing(
  g: GuidanceGraph,
  line: Int32Array,
  trace: LegTrace,
  k0: number,
  kc: number,
  lastPoint: number,
  before: RawStep,
  named: RawStep,
  passed: boolean,
  gap: number,
): RawStep | null {
  const at = trace.end[kc],
    inDir = trace.dir[kc],
    outDir = trace.dir[kc + 1];
  roadsAt(g, trace.node[kc], bearingScale(line[2 * at + 1]));
  locate(inDir, outDir);
  const inBack = locatedBack,
    outAt = locatedOut;
  if (inBack < 0 || outAt < 0) return null;
  const bearingBefore = reverse(roadBearing[inBack]),
    bearingAfter = roadBearing[outAt];
  const bend = turnDirection(deviation(bearingBefore, bearingAfter));
  const nameAfter = named.type === 'new name' && gap < NAME_AFTER_SUPPRESSED_M && bend === 'straight';
  const x = intersectionOf(at, inDir ^ 1, outDir);
  if (!nameAfter) {
    if (bend === 'straight' || !choiceless(named)) return null;
    let choices = 0;
    for (const entry of x.entry) if (entry) choices++;
    if (choices > 1 && sameSide(bend, named.modifier ?? 'straight')) return null;
  }
  const step = rawStep('turn', undefined, at, lastPoint, Math.round(bearingBefore) % 360, Math.round(bearingAfter) % 360, named.label, x);
  // (The caller gives it its meters; findTotalTurnAngle reads them.)
  step.meters = gap;
  const modifier = turnDirection(180 - totalTurnAngle(step, named));
  if (nameAfter && modifier === 'straight') return null;
  const prior: PriorPiece = { dir: kc > k0 ? trace.dir[kc - 1] : -1, node: kc > k0 ? trace.node[kc - 1] : -1 };
  x.lanes = lanesAt(g, inDir, outDir, bearingBefore, 'suppressed', undefined, prior);
  if (passed) before.passed?.pop();
  step.type = modifier === 'straight' ? 'new name' : sameName(g, before.label, named.label) ? 'continue' : 'turn';
  step.modifier = modifier;
  if (named.mode) step.mode = named.mode;
  step.crossed = 1;
  if (passed) step.passed = [named.intersection];
  return step;
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
    else if (nameOscillation(g, steps[h], steps[i], steps[j])) {
      // OSRM suppresses both name changes: the step before takes their stretches.
      takeStretch(steps[h], steps[i], passed);
      takeStretch(steps[h], steps[j], passed);
      (gone ??= new Uint8Array(steps.length))[i] = 1;
      gone[j] = 1;
      continue;
    } else if (precededByNameChange(steps[h], steps[i], steps[j])) {
      // The maneuver after the name change takes the turn of both; the step before takes the name change's stretch.
      combinedTurn(g, steps[h], steps[j], steps[i]);
      takeStretch(steps[h], steps[i], passed);
      (gone ??= new Uint8Array(steps.length))[i] = 1;
      continue;
    } else if (
      succeededByNameChange(steps[i], steps[j]) ||
      closeChoicelessTurnAfterTurn(steps[i], steps[j]) ||
      straightTurnFollowedByChoiceless(steps[i], steps[j])
    ) {
      combinedTurn(g, steps[h], steps[i], steps[j]);
      steps[i].label = steps[j].label;
      takeStretch(steps[i], steps[j], passed);
      (gone ??= new Uint8Array(steps.length))[j] = 1;
    }
    // Found late, after a name change: the step before this one turned back with this one.
    if (!isWaypoint(steps[h]) && isUTurn(g, steps[previous(h)], steps[h], steps[i])) combine(h, i, 'continue', 'uturn');
  }
  return gone ? steps.filter((_, i) => !gone![i]) : steps;
}

/** OSRM's basicCollapsePreconditions of steps in a row: no roundabout's, one travel mode, no U-turn beside
 *  anything but a new name. (A step here is OSRM's next only where the one before it passed no
 *  intersection: OSRM keeps a suppressed step at each, which no scenario below takes.) */
const collapsible = (first: RawStep, second: RawStep): boolean =>
  !ROUND_TYPES.has(first.type) &&
  !ROUND_TYPES.has(second.type) &&
  !isWaypoint(first) &&
  !isWaypoint(second) &&
  first.mode === second.mode &&
  !badUTurnPair(first, second);

/** OSRM's name changes in its collapse scenarios: a new name, or a turn straight onto another road. */
const nameChange = (s: RawStep): boolean => s.type === 'new name' || (s.type === 'turn' && s.modifier === 'straight');

/**
 * OSRM's isNameOszillation: a name change (`entering`, passing no intersection) right followed by another
 * back to the name before it (`prior`'s); both go into `prior` (collapseTurnInstructions suppresses both).
 */
function nameOscillation(g: GuidanceGraph, prior: RawStep, entering: RawStep, leaving: RawStep): boolean {
  if (ROUND_TYPES.has(prior.type) || ROUND_TYPES.has(entering.type) || ROUND_TYPES.has(leaving.type)) return false;
  if (prior.mode !== entering.mode || entering.mode !== leaving.mode || entering.crossed > 0) return false;
  if (badUTurnPair(prior, entering) && badUTurnPair(entering, leaving)) return false;
  if (!nameChange(entering) || !nameChange(leaving)) return false;
  return prior.label === leaving.label || sameName(g, prior.label, leaving.label);
}

/**
 * OSRM's maneuverSucceededByNameChange: a maneuver right followed (passing no intersection) by a change of
 * name within 30 m, a new name straight on or without a choice within 45 m; the maneuver takes the new
 * name (and the stretch after it).
 */
function succeededByNameChange(entering: RawStep, leaving: RawStep): boolean {
  if (!collapsible(entering, leaving) || entering.crossed > 0 || !nameChange(leaving)) return false;
  if (entering.meters <= MAX_COLLAPSE_M) return true;
  if (leaving.type !== 'new name' || entering.meters > 1.5 * MAX_COLLAPSE_M) return false;
  let allowed = 0;
  for (const entry of leaving.intersection.entry) if (entry) allowed++;
  return leaving.modifier === 'straight' || allowed === 1;
}

/** OSRM's maneuverPreceededByNameChange: a name change within 30 m before a maneuver, passing no intersection. */
function precededByNameChange(prior: RawStep, entering: RawStep, leaving: RawStep): boolean {
  if (ROUND_TYPES.has(prior.type) || ROUND_TYPES.has(entering.type) || ROUND_TYPES.has(leaving.type)) return false;
  if (prior.mode !== entering.mode || entering.mode !== leaving.mode) return false;
  if (badUTurnPair(prior, entering) && badUTurnPair(entering, leaving)) return false;
  const change = entering.type === 'new name' || ((entering.type === 'turn' || entering.type === 'continue') && entering.modifier === 'straight');
  return change && entering.meters <= MAX_COLLAPSE_M && entering.crossed === 0 && !isWaypoint(leaving);
}

/** The roads a driver may take at a step's maneuver (OSRM's numberOfAllowedTurns). */
const allowedTurns = (s: RawStep): number => {
  let n = 0;
  for (const entry of s.intersection.entry) if (entry) n++;
  return n;
};

/** OSRM's closeChoicelessTurnAfterTurn: a turn (not straight) within 30 m, passing no intersection, before a
 *  maneuver where there is no other way to take. */
const closeChoicelessTurnAfterTurn = (entering: RawStep, leaving: RawStep): boolean =>
  collapsible(entering, leaving) &&
  entering.meters <= MAX_COLLAPSE_M &&
  entering.crossed === 0 &&
  entering.modifier !== 'straight' &&
  allowedTurns(leaving) === 1 &&
  leaving.type !== SUPPRESSED;

/** OSRM's straightTurnFollowedByChoiceless: a turn or continue straight within 60 m, passing no intersection,
 *  before a maneuver where there is no other way to take. */
const straightTurnFollowedByChoiceless = (entering: RawStep, leaving: RawStep): boolean =>
  collapsible(entering, leaving) &&
  entering.meters <= 2 * MAX_COLLAPSE_M &&
  entering.crossed === 0 &&
  (entering.type === 'turn' || entering.type === 'continue') &&
  entering.modifier === 'straight' &&
  allowedTurns(leaving) === 1;

/** OSRM's findTotalTurnAngle of two steps in a row: the turn from the first's way in to the second's way out
 *  where that is a turn and the first is short (or both bend alike), else the first's own. */
function totalTurnAngle(entering: RawStep, leaving: RawStep): number {
  const x = entering.intersection,
    y = leaving.intersection;
  const entryIn = reverse(x.bearings[x.in!]);
  const entryAngle = angleBetween(entryIn, x.bearings[x.out!]),
    exitAngle = angleBetween(reverse(y.bearings[y.in!]), y.bearings[y.out!]);
  const total = angleBetween(entryIn, y.bearings[y.out!]);
  if (Math.abs(total - 180) < 0.5 * NARROW_TURN_DEG) return entryAngle;
  if (entering.meters < MAX_COLLAPSE_M || (entryAngle <= 185 && exitAngle <= 185) || (entryAngle >= 175 && exitAngle >= 175)) return total;
  return entryAngle;
}
/** OSRM's NARROW_TURN_ANGLE. */
const NARROW_TURN_DEG = 40;

/**
 * OSRM's AdjustToCombinedTurnStrategy: step `at` (after `prior`) takes the turn of step `from` after it: the
 * modifier of the combined turn (a fork's or merge's kept), and a continue or turn as the names before and
 * after tell.
 */
function combinedTurn(g: GuidanceGraph, prior: RawStep, at: RawStep, from: RawStep): void {
  const x = at.intersection,
    y = from.intersection;
  if (x.in === undefined || x.out === undefined || y.in === undefined || y.out === undefined) return;
  const [first, second] = at.from <= from.from ? [at, from] : [from, at];
  const modifier = at.type === 'fork' || at.type === 'merge' ? at.modifier : turnDirection(180 - totalTurnAngle(first, second));
  const nonTurn = (s: RawStep): boolean => s.type === 'new name' || ((s.type === 'turn' || s.type === 'continue') && s.modifier === 'straight');
  const same = sameName(g, prior.label, from.label);
  if (nonTurn(from) || nonTurn(at)) {
    if (at.type === 'continue' && !same) at.type = 'turn';
    else if (at.type === 'turn' && same) at.type = 'continue';
  } else if (from.type === 'on ramp') at.type = 'on ramp';
  else if (at.type === 'turn' && from.type === 'turn' && same) at.type = 'continue';
  else if (at.type === 'continue' && from.type === 'turn' && !same) at.type = 'turn';
  at.modifier = modifier;
}

/** Whether a step may turn onto a sliproad: OSRM marks none that enters a roundabout, nor a U-turn. */
const sliproadTurn = (s: RawStep): boolean => !ROUND_TYPES.has(s.type) && s.modifier !== 'uturn' && s.type !== SUPPRESSED;

/**
 * The turns onto sliproads told with the turn off them (OSRM's handleSliproad, the first of its
 * collapseTurnInstructions' scenarios): before the arrival a "turn" with its own modifier; else the next
 * step's stretch, name and lanes taken, a "continue" where the road before the sliproad and the one after
 * it have one name, else a "turn", the modifier that of both turns together (AdjustToCombinedTurnAngleStrategy).
 */
function withSliproadsCollapsed(g: GuidanceGraph, steps: RawStep[], passed: boolean): RawStep[] {
  let gone: Uint8Array | null = null;
  for (let i = 1; i < steps.length - 1; i++) {
    const s = steps[i];
    if (!s.sliproad || gone?.[i]) continue;
    s.sliproad = false;
    const x = steps[i + 1];
    if (isWaypoint(x)) {
      s.type = 'turn';
      continue;
    }
    // (OSRM's sliproad checks keep one travel mode, and its collapse takes no roundabout.)
    if (x.mode !== s.mode || ROUND_TYPES.has(x.type)) {
      s.type = 'turn';
      continue;
    }
    let h = i - 1;
    while (gone?.[h]) h--;
    s.type = sameName(g, steps[h].label, x.label) ? 'continue' : 'turn';
    s.modifier = turnDirection(180 - totalTurnAngle(s, x));
    s.label = x.label;
    s.ring = x.ring;
    s.intersection.lanes = x.intersection.lanes;
    takeStretch(s, x, passed);
    (gone ??= new Uint8Array(steps.length))[i + 1] = 1;
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
