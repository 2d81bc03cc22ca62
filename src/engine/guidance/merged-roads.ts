// The two carriageways of one road, told as one road at a junction (OSRM's mergeable road detector,
// extractor/intersection/mergable_road_detector.cpp and intersection_analysis.cpp): a road drawn as two
// one-way ways meeting at the node, one in and one out, of the same name and class, running on side by
// side, is one road to a driver. OSRM gives the pair one bearing (the bisector of theirs) and lists the
// way out only; every angle at the junction, and so every turn's modifier, is measured to it.
//
// Followed: IsDistinctFrom on both neighbours of the pair, CanMergeRoad's road checks (no ring, the same
// travel mode, name and class, one in and one out, no loop), IsTrafficIsland and HaveSameDirection (both ways followed
// 120 m along their name, sampled every 5 m, parallel by least squares and at most a road's width + 12 m
// apart, 3.25 m a lane of their ways' `lanes`), IsNarrowTriangle, findMergedBearing, and the bearing of a
// road of at most 30 m turned as its far end's merge turns it there. Not followed (docs/directions.md):
// link roads, circular shapes.
import type { RoadGraph } from '../../map/graphs/road-graph.js';
import { ASSUMED_LANE_WIDTH, NARROW_TURN_ANGLE } from '../../map/graphs/road-coordinate.js';
import { edgeTail, junctionCopies, NO_HEAD } from '../../map/graphs/road-graph.js';
import { geometryOfPoint, segmentsNearCircle } from '../../map/graphs/segment-grid.js';
import { METERS_PER_DEGREE } from '../../lib/geo/sphere.js';
import { angleBetween, deviation, reverse } from './bearings.js';

type MergeGraph = Pick<RoadGraph, 'firstOut' | 'orig' | 'origFirst' | 'origEdges' | 'origHead' | 'geomFirst' | 'geomLast' | 'geomCm' | 'shapes'> & {
  rFirst: Uint32Array;
  rEdge: Uint32Array;
};

/** A node's roads, as turn guidance's scratch holds them: each the directed geometry leaving the node,
 *  its bearing there, whether a route may leave along it, its kind and label; `alias` the way in that a
 *  merged road stands for too (-1 none). */
export interface JunctionRoads {
  count: number;
  dir: Int32Array;
  bearing: Float64Array;
  entry: Uint8Array;
  kind: Uint8Array;
  label: Int32Array;
  alias: Int32Array;
}

/** What the merge reads through turn guidance (steps.ts). */
export interface MergeReads {
  /** Bearing of directed geometry `d` leaving its first node, east-west scale `kx`. */
  bearing(d: number, kx: number): number;
  label(d: number): number;
  /** The lanes of `d`'s way, 0 where none are given. */
  lanes(d: number): number;
  /** OSRM's HaveIdenticalNames: both named, the same name. */
  identical(a: number, b: number): boolean;
  mode(d: number): string | undefined;
  /** Whether a route may leave along `d`. */
  drivable(d: number): boolean;
  /** The road kind of a label. */
  kind(label: number): number;
  /** Kind bits that make a ring, and the bits of a road's class (class and link). */
  ring: number;
  classBits: number;
}

/** OSRM's MERGABLE_ANGLE_DIFFERENCE. */
const MERGABLE_DEV = 95;
/** OSRM's MAXIMAL_ALLOWED_NO_TURN_DEVIATION: a way straight on from the opposite road keeps its bearing. */
const NO_TURN_DEV = 3;
/** HaveSameDirection's lengths: followed this far, sampled this often, at least this long. */
const EXTRACT_M = 120;
const SAMPLE_M = 5;
const MIN_PARALLEL_M = 40;
/** OSRM's MAXIMAL_ALLOWED_SEPARATION_WIDTH. */
const SEPARATION_M = 12;
/** OSRM's GROUP_ANGLE and FUZZY_ANGLE_DIFFERENCE. */
const GROUP_DEV = 60;
const FUZZY_DEV = 25;

/** Degrees between two bearings, 0 to 180. */
const dev = (a: number, b: number): number => Math.abs(deviation(a, b));
const bisector = (a: number, b: number): number => {
  const x = Math.cos((a * Math.PI) / 180) + Math.cos((b * Math.PI) / 180),
    y = Math.sin((a * Math.PI) / 180) + Math.sin((b * Math.PI) / 180);
  return ((Math.atan2(y, x) * 180) / Math.PI + 360) % 360;
};

/**
 * Merges the node's pairs of carriageways in `roads` (node `v`, east-west scale `kx`): the pair's way out
 * keeps its place with the merged bearing and the way in as its `alias`; the way in leaves the list.
 */
export function mergeCarriageways(g: MergeGraph, v: number, kx: number, roads: JunctionRoads, r: MergeReads): void {
  const n = roads.count;
  if (n < 2 || n > MAX_ROADS) return;
  // A node's roads are its own whatever the route: where nothing was merged or turned, nothing will be,
  // and where something was, the same will be.
  let quiet = quietNodes.get(g.firstOut);
  if (!quiet) quietNodes.set(g.firstOut, (quiet = new Uint8Array((g.firstOut.length + 7) >> 3)));
  if (quiet[v >> 3] & (1 << (v & 7))) return;
  let done = mergedNodes.get(g.firstOut);
  if (!done) mergedNodes.set(g.firstOut, (done = new Map()));
  const kept = done.get(v);
  if (kept) {
    copyRoads(kept, roads);
    return;
  }
  let changed = false;
  merged.fill(0, 0, n);
  if (n >= 3 && pairOfOneName(roads, r, -1)) {
    byBearing(roads, order);
    for (let p = 0; p < n; p++) {
      const l = order[p],
        rt = order[(p + 1) % n];
      if (!pairMergeable(g, v, kx, roads, r, order, p)) continue;
      roads.bearing[l] = roads.bearing[rt] = mergedBearing(roads, l, rt, false).bearing;
      const out = roads.entry[l] ? l : rt,
        into = out === l ? rt : l;
      roads.alias[out] = roads.dir[into];
      merged[l] = merged[rt] = 1;
      merged[into] = 2;
      changed = true;
    }
  }
  // A short road to a node where it is merged with another: its bearing here turned as far as the merge
  // turns it there (OSRM's PRUNING_DISTANCE of 30 m).
  for (let i = 0; i < n; i++) {
    // Only a named road can be one of a pair there (the pair's names must be one).
    if (merged[i] || g.geomCm[roads.dir[i] >> 1] > PRUNING_CM || !r.identical(roads.label[i], roads.label[i])) continue;
    const w = farNode(g, roads.dir[i]);
    if (w < 0 || w === v || !roadsOf(g, w, kx, r, neighbour, roads.dir[i] ^ 1)) continue;
    const m = neighbour.count;
    let curr = -1;
    for (let j = 0; j < m; j++) if (neighbour.dir[j] === (roads.dir[i] ^ 1)) curr = j;
    if (curr < 0) continue;
    byBearing(neighbour, neighbourOrder);
    let at = 0;
    while (neighbourOrder[at] !== curr) at++;
    const prev = (at + m - 1) % m;
    let turn = 0;
    if (pairMergeable(g, w, kx, neighbour, r, neighbourOrder, prev)) {
      const merge = mergedBearing(neighbour, neighbourOrder[prev], curr, true);
      if (merge.ok) turn = -dev(merge.bearing, neighbour.bearing[curr]);
    } else if (pairMergeable(g, w, kx, neighbour, r, neighbourOrder, at)) {
      const merge = mergedBearing(neighbour, curr, neighbourOrder[(at + 1) % m], true);
      if (merge.ok) turn = dev(merge.bearing, neighbour.bearing[curr]);
    }
    if (turn) {
      roads.bearing[i] = (roads.bearing[i] + 360 + turn) % 360;
      changed = true;
    }
  }
  if (!changed) {
    quiet[v >> 3] |= 1 << (v & 7);
    return;
  }
  let k = 0;
  for (let i = 0; i < n; i++) {
    if (merged[i] === 2) continue;
    roads.dir[k] = roads.dir[i];
    roads.bearing[k] = roads.bearing[i];
    roads.entry[k] = roads.entry[i];
    roads.kind[k] = roads.kind[i];
    roads.label[k] = roads.label[i];
    roads.alias[k] = roads.alias[i];
    k++;
  }
  roads.count = k;
  if (done.size >= MAX_MERGED_NODES) done.clear();
  done.set(v, copyRoads(roads, emptyRoads(k)));
}

/** Nodes whose merged roads a thread keeps per graph (a few MB at most). */
const MAX_MERGED_NODES = 50_000;
/** Per graph and thread, the roads of nodes where something was merged or turned, as they came out. */
const mergedNodes = new WeakMap<object, Map<number, JunctionRoads>>();

const emptyRoads = (n: number): JunctionRoads => ({
  count: 0,
  dir: new Int32Array(n),
  bearing: new Float64Array(n),
  entry: new Uint8Array(n),
  kind: new Uint8Array(n),
  label: new Int32Array(n),
  alias: new Int32Array(n),
});

/** `from`'s roads into `to`; `to`. */
function copyRoads(from: JunctionRoads, to: JunctionRoads): JunctionRoads {
  const n = (to.count = from.count);
  to.dir.set(from.dir.subarray(0, n));
  to.bearing.set(from.bearing.subarray(0, n));
  to.entry.set(from.entry.subarray(0, n));
  to.kind.set(from.kind.subarray(0, n));
  to.label.set(from.label.subarray(0, n));
  to.alias.set(from.alias.subarray(0, n));
  return to;
}

/** The most roads at a node that are looked at (turn guidance's scratch holds as many). */
const MAX_ROADS = 32;
/** Per graph (keyed by its `firstOut`) and thread, one bit per node where nothing is merged or turned. */
const quietNodes = new WeakMap<object, Uint8Array>();
// Scratch: per road 1 merged, 2 merged away; the roads' places by bearing, here and at a neighbour.
const merged = new Uint8Array(MAX_ROADS);
const order = new Int32Array(MAX_ROADS);
const neighbourOrder = new Int32Array(MAX_ROADS);

/** OSRM's PRUNING_DISTANCE, centimeters. */
const PRUNING_CM = 3000;

/** The roads' places ordered by bearing, into `into` (an insertion sort: a node has a few). */
function byBearing(roads: JunctionRoads, into: Int32Array): void {
  for (let i = 0; i < roads.count; i++) {
    let j = i;
    while (j > 0 && roads.bearing[into[j - 1]] > roads.bearing[i]) {
      into[j] = into[j - 1];
      j--;
    }
    into[j] = i;
  }
}

/** OSRM's isRoadsPairMergeable: the roads at sorted positions p and p + 1 of node `v` (`order`). */
function pairMergeable(g: MergeGraph, v: number, kx: number, roads: JunctionRoads, r: MergeReads, order: Int32Array, p: number): boolean {
  const n = roads.count;
  if (n < 3) return false;
  const distinct = (a: number, b: number): boolean => dev(roads.bearing[a], roads.bearing[b]) > MERGABLE_DEV || !r.identical(roads.label[a], roads.label[b]);
  const ll = order[(p + n - 1) % n],
    l = order[p],
    rt = order[(p + 1) % n],
    rr = order[(p + 2) % n];
  return distinct(ll, l) && distinct(rt, rr) && canMerge(g, v, kx, roads, r, l, rt);
}

/**
 * OSRM's findMergedBearing of the pair `l`, `rt`: the bisector of their bearings, but the way out's own
 * where it goes straight on from the road opposite (within 3°; not `ok`); at a neighbouring node
 * (`neighbour`), not `ok` either where the bisector would not bring both turns from the road opposite
 * closer to straight on.
 */
function mergedBearing(roads: JunctionRoads, l: number, rt: number, neighbour: boolean): { ok: boolean; bearing: number } {
  const out = roads.entry[l] ? l : rt;
  let opposite = 0,
    best = Infinity;
  for (let i = 0; i < roads.count; i++) {
    const d = dev(roads.bearing[i], reverse(roads.bearing[out]));
    if (d < best) [best, opposite] = [d, reverse(roads.bearing[i])];
  }
  if (dev(angleBetween(opposite, roads.bearing[out]), 180) < NO_TURN_DEV) return { ok: false, bearing: roads.bearing[out] };
  const merged = bisector(roads.bearing[l], roads.bearing[rt]);
  if (neighbour) {
    const straightness = (b: number) => dev(angleBetween(opposite, b), 180);
    if (straightness(roads.bearing[l]) < straightness(merged) || straightness(roads.bearing[rt]) < straightness(merged))
      return { ok: false, bearing: opposite };
  }
  return { ok: true, bearing: merged };
}

/** A neighbouring node's roads, read for the bearing adjustments. */
const neighbour = emptyRoads(MAX_ROADS);

/** Whether some way in only and some way out (with `with` among them, where not -1) have one name: the
 *  least a pair needs. */
function pairOfOneName(roads: JunctionRoads, r: MergeReads, withRoad: number): boolean {
  for (let i = 0; i < roads.count; i++) {
    if (roads.entry[i]) continue;
    for (let j = 0; j < roads.count; j++)
      if (roads.entry[j] && (withRoad < 0 || i === withRoad || j === withRoad) && r.identical(roads.label[i], roads.label[j])) return true;
  }
  return false;
}

/** Node `w`'s roads into `into`; false where the road `back` (leaving `w`) can be in no merged pair there. */
function roadsOf(g: MergeGraph, w: number, kx: number, r: MergeReads, into: JunctionRoads, back: number): boolean {
  const dirs = dirsAt(g, w);
  if (dirs.length < 3 || dirs.length > into.dir.length) return false;
  let at = -1;
  for (const [j, d] of dirs.entries()) {
    into.dir[j] = d;
    into.entry[j] = r.drivable(d) ? 1 : 0;
    into.label[j] = r.label(d);
    if (d === back) at = j;
  }
  into.count = dirs.length;
  if (at < 0 || !pairOfOneName(into, r, at)) return false;
  for (const [j, d] of dirs.entries()) {
    into.kind[j] = r.kind(into.label[j]);
    into.bearing[j] = r.bearing(d, kx);
    into.alias[j] = -1;
  }
  return true;
}

/** CanMergeRoad of the roads at places `l` and `rt` (as far as it is followed, above). */
function canMerge(g: MergeGraph, v: number, kx: number, roads: JunctionRoads, r: MergeReads, l: number, rt: number): boolean {
  if (dev(roads.bearing[l], roads.bearing[rt]) > MERGABLE_DEV) return false;
  // One way in and one out by the roads' own directions (OSRM's `reversed`), not by what a restriction
  // lets the route arriving take.
  if (r.drivable(roads.dir[l]) === r.drivable(roads.dir[rt]) || roads.alias[l] >= 0 || roads.alias[rt] >= 0) return false;
  if ((roads.kind[l] | roads.kind[rt]) & r.ring) return false;
  if ((roads.kind[l] & r.classBits) !== (roads.kind[rt] & r.classBits)) return false;
  if (r.mode(roads.dir[l]) !== r.mode(roads.dir[rt]) || !r.identical(roads.label[l], roads.label[rt])) return false;
  if (farNode(g, roads.dir[l]) === v || farNode(g, roads.dir[rt]) === v) return false;
  return trafficIsland(g, v, kx, roads, r, l, rt) || narrowTriangle(g, v, kx, roads, r, l, rt) || sameDirection(g, v, kx, roads, r, l, rt);
}

/** IsNarrowTriangle's walks stop at the first junction of more than two roads, or after this many nodes. */
const TRIANGLE_HOPS = 5;
/** How far from the junction the left side's junction may be (OSRM's RANGE_TO_TRIANGLE_LIMIT), meters. */
const TRIANGLE_RANGE_M = 80;
/** What a traffic island between the triangle's far corners may add to the roads' widths, meters. */
const TRIANGLE_ISLAND_M = 10;

/** Where a walk of IsNarrowTriangle stopped: the node, the directed geometry it arrived by (-1: nowhere). */
let walkedNode = -1,
  walkedVia = -1;

/**
 * OSRM's IntersectionFinderAccumulator walked by TraverseRoad: from node `from` along directed geometry `d`,
 * on through nodes of two roads along the road the selector takes (`straightmost`, without its stop at
 * ambiguous turns), to the first junction of more roads or the TRIANGLE_HOPS-th node; into `walkedNode`,
 * `walkedVia` (-1 where the road leads nowhere, or back to `from`).
 */
function walkToJunction(g: MergeGraph, from: number, d: number, label: number, initial: number, kx: number, r: MergeReads): void {
  walkedNode = walkedVia = -1;
  let cur = d;
  for (let hops = 1; ; hops++) {
    const w = farNode(g, cur);
    if (w < 0 || w === from) return;
    walkedNode = w;
    walkedVia = cur;
    const dirs = dirsAt(g, w);
    if (hops === TRIANGLE_HOPS || dirs.length + (dirs.includes(cur ^ 1) ? 0 : 1) > 2) return;
    const next = straightmost(g, w, cur, label, initial, kx, r, false);
    if (next < 0) return;
    cur = next;
  }
}

/** The road at node `w`, arrived at along `via`, whose turn angle (OSRM's: 180 straight on, below it to the
 *  right) is closest to `angle`, and that angle: into `closestDir`, `closestAngle`. */
let closestDir = -1,
  closestAngle = 0;
function closestTurn(g: MergeGraph, w: number, via: number, angle: number, kx: number, r: MergeReads): void {
  const dirs = dirsAt(g, w);
  if (!dirs.includes(via ^ 1)) dirs.push(via ^ 1);
  const arriving = reverse(r.bearing(via ^ 1, kx));
  let best = Infinity;
  closestDir = -1;
  for (const d of dirs) {
    const a = angleBetween(arriving, r.bearing(d, kx));
    if (dev(a, angle) < best) [best, closestDir, closestAngle] = [dev(a, angle), d, a];
  }
}

/** Meters between the points where directed geometries `a` and `b` end (two nodes' places). */
function metersBetweenEnds(g: MergeGraph, a: number, b: number, kx: number): number {
  const pts = g.shapes.pointsE7;
  const p = a & 1 ? g.geomFirst[a >> 1] : g.geomLast[a >> 1],
    q = b & 1 ? g.geomFirst[b >> 1] : g.geomLast[b >> 1];
  return Math.hypot((pts[2 * q + 1] - pts[2 * p + 1]) * kx, pts[2 * q] - pts[2 * p]) * 1e-7 * METERS_PER_DEGREE;
}

/**
 * OSRM's IsNarrowTriangle: the pair at places `l` (the left one, counter-clockwise) and `rt` of node `v` is a
 * road split in two just before a junction, its carriageways reaching two junctions close together and
 * joined by a road turning right off the left one (a roundabout's flare, where the two ways meet its ring):
 *
 *    b ..... c
 *     \     /
 *      \   /
 *        a
 */
function narrowTriangle(g: MergeGraph, v: number, kx: number, roads: JunctionRoads, r: MergeReads, l: number, rt: number): boolean {
  const label = roads.label[l],
    initial = roads.bearing[l];
  // Each side to its junction, and past it once where it offers no turn towards the other side.
  const side = (d: number, towards: number): number => {
    walkToJunction(g, v, d, label, initial, kx, r);
    if (walkedVia < 0) return -1;
    closestTurn(g, walkedNode, walkedVia, towards, kx, r);
    if (dev(closestAngle, towards) > NARROW_TURN_ANGLE) {
      const at = walkedNode;
      closestTurn(g, at, walkedVia, 180, kx, r);
      walkToJunction(g, at, closestDir, label, initial, kx, r);
    }
    return walkedVia;
  };
  const left = side(roads.dir[l], 90);
  if (left < 0) return false;
  const leftNode = walkedNode;
  const start = roads.dir[l] ^ 1;
  if (metersBetweenEnds(g, start, left, kx) > TRIANGLE_RANGE_M) return false;
  const right = side(roads.dir[rt], 270);
  if (right < 0) return false;
  closestTurn(g, leftNode, left, 90, kx, r);
  if (dev(closestAngle, 90) > NARROW_TURN_ANGLE) return false;
  const width = (Math.max(1, r.lanes(roads.dir[l])) + Math.max(1, r.lanes(roads.dir[rt]))) * ASSUMED_LANE_WIDTH;
  if (metersBetweenEnds(g, left, right, kx) > width + TRIANGLE_ISLAND_M) return false;
  // The connector from the left junction reaches the right one (at the same place: a junction split for a
  // turn restriction is one).
  walkToJunction(g, leftNode, closestDir, label, initial, kx, r);
  return walkedVia >= 0 && metersBetweenEnds(g, walkedVia, right, kx) === 0;
}

/** OSRM's IsTrafficIsland: both ways reach the same node past nodes of two roads only, and at one end (both
 *  ends) every one of three roads has the name; the ends within 15 m (30 m). */
function trafficIsland(g: MergeGraph, v: number, kx: number, roads: JunctionRoads, r: MergeReads, l: number, rt: number): boolean {
  const a = pastTwoRoadNodes(g, v, roads.dir[l]),
    b = pastTwoRoadNodes(g, v, roads.dir[rt]);
  if (a.node < 0 || a.node !== b.node || a.node === v) return false;
  const here = threeOfOneName(g, v, r),
    there = threeOfOneName(g, a.node, r);
  if (!here && !there) return false;
  const pts = g.shapes.pointsE7;
  const from = roads.dir[l] & 1 ? g.geomLast[roads.dir[l] >> 1] : g.geomFirst[roads.dir[l] >> 1];
  const meters = Math.hypot((pts[2 * a.point + 1] - pts[2 * from + 1]) * kx, pts[2 * a.point] - pts[2 * from]) * 1e-7 * METERS_PER_DEGREE;
  return meters < (here && there ? 30 : 15);
}

/** The node a way from node `v` along `d` reaches past nodes of two roads only (OSRM's skipDegreeTwoNodes),
 *  and the point of the line it ends at; -1 none. */
function pastTwoRoadNodes(g: MergeGraph, v: number, d: number): { node: number; point: number } {
  let cur = d;
  for (let hops = 0; hops < 64; hops++) {
    const w = farNode(g, cur);
    const point = cur & 1 ? g.geomFirst[cur >> 1] : g.geomLast[cur >> 1];
    if (w < 0) return { node: -1, point };
    const dirs = dirsAt(g, w);
    if (dirs.length !== 2 || w === v) return { node: w, point };
    cur = dirs[0] === (cur ^ 1) ? dirs[1] : dirs[0];
  }
  return { node: -1, point: 0 };
}

/** Whether node `w` has three roads, each named as the first. */
function threeOfOneName(g: MergeGraph, w: number, r: MergeReads): boolean {
  const dirs = dirsAt(g, w);
  if (dirs.length !== 3) return false;
  const first = r.label(dirs[0]);
  return dirs.every((d) => r.identical(r.label(d), first));
}

/** The directed geometries leaving node `w`, may a route take them or not (each road once). */
function dirsAt(g: MergeGraph, w: number): number[] {
  const dirs: number[] = [];
  for (let e = g.firstOut[w]; e < g.firstOut[w + 1]; e++) if (!dirs.includes(g.orig[e])) dirs.push(g.orig[e]);
  if (g.rFirst.length > w + 1)
    for (let i = g.rFirst[w]; i < g.rFirst[w + 1]; i++) {
      const d = g.orig[g.rEdge[i]] ^ 1;
      if (!dirs.includes(d)) dirs.push(d);
    }
  // A junction a turn restriction splits into copies of its node (map/graphs/graph-assemble.ts), each with
  // some of its roads: OSRM's graph has one node with them all (a carriageway of a roundabout's flare, split
  // for its no-U-turn, arrives at another copy than the one the other carriageway leaves). Its roads are
  // every geometry that ends at its place.
  if (junctionCopies(g, w, copies) > 1 && dirs.length > 0) roadsAtPlace(g, dirs[0], dirs);
  return dirs;
}
/** `dirsAt`'s copies of a junction, and the segments near its place. */
const copies = new Int32Array(MAX_ROADS);
const nearPlace: number[] = [];

/** Adds to `dirs` each directed geometry leaving the place where directed geometry `d` starts (a geometry
 *  with an end there), found in the shapes' grid of segments. */
function roadsAtPlace(g: MergeGraph, d: number, dirs: number[]): void {
  const pts = g.shapes.pointsE7;
  const at = d & 1 ? g.geomLast[d >> 1] : g.geomFirst[d >> 1];
  const lat = pts[2 * at],
    lon = pts[2 * at + 1];
  for (const p of segmentsNearCircle(g, lat * 1e-7, lon * 1e-7, 0.5, nearPlace)) {
    const geom = geometryOfPoint(g, p);
    if (geom < 0) continue;
    for (const end of [0, 1]) {
      const q = end ? g.geomLast[geom] : g.geomFirst[geom];
      const out = 2 * geom + end;
      if (pts[2 * q] === lat && pts[2 * q + 1] === lon && !dirs.includes(out)) dirs.push(out);
    }
  }
}

/** The node at the other end of directed geometry `d` (may it be driven that way or not), -1 none. */
function farNode(g: MergeGraph, d: number): number {
  if (g.origHead[d] !== NO_HEAD) return g.origHead[d];
  const back = d ^ 1;
  return g.origFirst[back] < g.origFirst[back + 1] ? edgeTail(g, g.origEdges[g.origFirst[back]]) : -1;
}

/** HaveSameDirection: both ways followed along their name run side by side. */
function sameDirection(g: MergeGraph, v: number, kx: number, roads: JunctionRoads, r: MergeReads, l: number, rt: number): boolean {
  const a = follow(g, v, roads.dir[l], roads.label[l], roads.bearing[l], kx, r);
  const b = follow(g, v, roads.dir[rt], roads.label[rt], roads.bearing[l], kx, r);
  if (a.meters <= MIN_PARALLEL_M) return false;
  if (b.meters <= MIN_PARALLEL_M) return false;
  const meet = a.points[a.points.length - 2] === b.points[b.points.length - 2] && a.points[a.points.length - 1] === b.points[b.points.length - 1];
  let sa = sample(a.points),
    sb = sample(b.points);
  // A pair that meets again keeps its first third (pruning it would weigh the join too much).
  if (!meet) {
    sa = sa.slice(2 * Math.floor(sa.length / 6));
    sb = sb.slice(2 * Math.floor(sb.length / 6));
  }
  if (sa.length < 4 || sb.length < 4 || !parallel(sa, sb)) return false;
  const mid = (s: number[]) => 2 * Math.floor(s.length / 4);
  const gap = Math.min(closest(sa, mid(sa), sb), closest(sb, mid(sb), sa));
  const width = 0.5 * (Math.max(1, r.lanes(roads.dir[l])) + Math.max(1, r.lanes(roads.dir[rt]))) * ASSUMED_LANE_WIDTH;
  return gap <= width + SEPARATION_M;
}

/**
 * The points (lon, lat in degrees, pairs) of the way from node `v` along directed geometry `d`, on along
 * the straightmost road of label `label` at each node (OSRM's SelectStraightmostRoadByNameAndOnlyChoice,
 * stopping at ambiguous turns), up to EXTRACT_M; and the meters followed.
 */
function follow(g: MergeGraph, v: number, d: number, label: number, initial: number, kx: number, r: MergeReads): { points: number[]; meters: number } {
  const points: number[] = [];
  const pts = g.shapes.pointsE7;
  let meters = 0,
    at = v,
    cur = d;
  for (let hops = 0; hops < 32 && meters < EXTRACT_M; hops++) {
    const first = g.geomFirst[cur >> 1],
      last = g.geomLast[cur >> 1];
    const step = cur & 1 ? -1 : 1;
    let p = cur & 1 ? last : first;
    const end = cur & 1 ? first : last;
    let lon = pts[2 * p + 1] * 1e-7,
      lat = pts[2 * p] * 1e-7;
    points.push(lon, lat);
    for (; p !== end && meters < EXTRACT_M; ) {
      p += step;
      const lon2 = pts[2 * p + 1] * 1e-7,
        lat2 = pts[2 * p] * 1e-7;
      const m = Math.hypot((lon2 - lon) * kx, lat2 - lat) * METERS_PER_DEGREE;
      if (meters + m > EXTRACT_M) {
        const f = (EXTRACT_M - meters) / m;
        points.push(lon + (lon2 - lon) * f, lat + (lat2 - lat) * f);
        meters = EXTRACT_M;
        break;
      }
      points.push(lon2, lat2);
      meters += m;
      lon = lon2;
      lat = lat2;
    }
    if (meters >= EXTRACT_M) break;
    const w = farNode(g, cur);
    if (w < 0 || w === at) break;
    const next = straightmost(g, w, cur, label, initial, kx, r);
    if (next < 0) break;
    at = w;
    cur = next;
  }
  return { points, meters };
}

/** The road on from node `w`, arrived at along `cur`, that OSRM's selector takes, -1 none. */
function straightmost(g: MergeGraph, w: number, cur: number, label: number, initial: number, kx: number, r: MergeReads, ambiguousStops = true): number {
  const dirs = dirsAt(g, w);
  const back = cur ^ 1;
  if (!dirs.includes(back)) dirs.push(back);
  if (dirs.length === 1) return -1;
  const arriving = reverse(r.bearing(back, kx));
  const named = (d: number) => r.identical(r.label(d), label) || r.label(d) === label;
  let count = 0;
  for (const d of dirs) if (named(d)) count++;
  if (count > 2) return -1;
  let min = -1,
    minScore = Infinity,
    closestDev = Infinity,
    closest = -1;
  for (const d of dirs) {
    if (d === back) continue;
    const angleDev = dev(angleBetween(arriving, r.bearing(d, kx)), 180);
    const score = (named(d) ? 0 : 180) + angleDev;
    if (score < minScore) [minScore, min] = [score, d];
    if (angleDev < closestDev) [closestDev, closest] = [angleDev, d];
  }
  if (min < 0) return -1;
  const minDev = dev(angleBetween(arriving, r.bearing(min, kx)), 180);
  if ((dirs.length === 2 || closest === min) && minDev < NARROW_TURN_ANGLE && dev(initial, r.bearing(min, kx)) < NARROW_TURN_ANGLE) return min;
  const onlyChoice = count <= 2 && named(min) && minDev < 100;
  if (ambiguousStops && minDev > GROUP_DEV) {
    // A turn with one as sharp to the other side, or a way straight on beside it, is no continuation.
    const minAngle = angleBetween(arriving, r.bearing(min, kx));
    let opposite = minAngle,
      nearest = Infinity;
    for (const d of dirs) {
      const a = angleBetween(arriving, r.bearing(d, kx));
      if (dev(a, reverse(minAngle)) < nearest) [nearest, opposite] = [dev(a, reverse(minAngle)), a];
    }
    if (dev(minAngle, opposite) > 180 - FUZZY_DEV || closestDev < FUZZY_DEV) return -1;
  }
  return onlyChoice ? min : -1;
}

/** Points every SAMPLE_M along a line (lon, lat pairs), its first included. */
function sample(points: number[]): number[] {
  const out = [points[0], points[1]];
  const kx = Math.cos((points[1] * Math.PI) / 180);
  let carry = 0;
  for (let i = 2; i < points.length; i += 2) {
    const x0 = points[i - 2],
      y0 = points[i - 1],
      x1 = points[i],
      y1 = points[i + 1];
    const m = Math.hypot((x1 - x0) * kx, y1 - y0) * METERS_PER_DEGREE;
    let at = SAMPLE_M - carry;
    for (; at <= m; at += SAMPLE_M) out.push(x0 + ((x1 - x0) * at) / m, y0 + ((y1 - y0) * at) / m);
    carry = m - (at - SAMPLE_M);
  }
  return out;
}

/** OSRM's leastSquareRegression: two points of the line fitted to the points (lon, lat pairs). */
function regression(points: number[]): [number, number, number, number] {
  const n = points.length / 2;
  let minX = Infinity,
    maxX = -Infinity,
    minY = Infinity,
    maxY = -Infinity;
  for (let i = 0; i < n; i++) {
    minX = Math.min(minX, points[2 * i]);
    maxX = Math.max(maxX, points[2 * i]);
    minY = Math.min(minY, points[2 * i + 1]);
    maxY = Math.max(maxY, points[2 * i + 1]);
  }
  // Nearly north-south: fitted turned a quarter, then turned back.
  if (maxY - minY > 2 * (maxX - minX)) {
    const turned: number[] = [];
    for (let i = 0; i < n; i++) turned.push(points[2 * i + 1], -points[2 * i]);
    const [ax, ay, bx, by] = regression(turned);
    return [-ay, ax, -by, bx];
  }
  let mx = 0,
    my = 0;
  for (let i = 0; i < n; i++) {
    mx += points[2 * i] / n;
    my += points[2 * i + 1] / n;
  }
  let sxx = 0,
    sxy = 0;
  for (let i = 0; i < n; i++) {
    sxx += (points[2 * i] - mx) ** 2;
    sxy += (points[2 * i] - mx) * (points[2 * i + 1] - my);
  }
  if (sxx < Number.EPSILON) return [points[0], points[1], points[2 * n - 2], points[2 * n - 1]];
  const slope = sxy / sxx;
  return [minX, my + slope * (minX - mx), maxX, my + slope * (maxX - mx)];
}

/** OSRM's areParallel: the second line's slope under a fifth once the first is turned east-west. */
function parallel(a: number[], b: number[]): boolean {
  const [ax0, ay0, ax1, ay1] = regression(a),
    [bx0, by0, bx1, by1] = regression(b);
  const turn = Math.atan2(ax0 - ax1, ay0 - ay1) - Math.PI / 2;
  const dx = bx0 - bx1,
    dy = by0 - by1;
  const x = Math.cos(turn) * dx - Math.sin(turn) * dy,
    y = Math.sin(turn) * dx + Math.cos(turn) * dy;
  return x !== 0 && Math.abs(y / x) < 0.2;
}

/** Meters from point `at` of `a` (an index of its pairs) to the nearest segment of line `b`. */
function closest(a: number[], at: number, b: number[]): number {
  const px = a[at],
    py = a[at + 1];
  const kx = Math.cos((py * Math.PI) / 180);
  let best = Infinity;
  for (let i = 2; i < b.length; i += 2) {
    const x0 = (b[i - 2] - px) * kx,
      y0 = b[i - 1] - py,
      x1 = (b[i] - px) * kx,
      y1 = b[i + 1] - py;
    const dx = x1 - x0,
      dy = y1 - y0;
    const t = dx || dy ? Math.max(0, Math.min(1, -(x0 * dx + y0 * dy) / (dx * dx + dy * dy))) : 0;
    best = Math.min(best, Math.hypot(x0 + t * dx, y0 + t * dy));
  }
  return best * METERS_PER_DEGREE;
}
