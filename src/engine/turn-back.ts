// Turns: those OSRM never takes, kept out of routes, and what the others cost.
// Kept out: turning back (a path that arrives at a node along a road and leaves along the same road back)
// except where the road ends (a dead end, a node of one road), as OSRM's car, bicycle and foot profiles do;
// and, for the driving profiles, going from a road to another at a node of a roundabout across the ring
// (turning against its flow) without driving on it (OSRM's guidance features route round the ring there).
// Priced, for the driving and cycling profiles: every turn, as OSRM 6.0.0's car.lua and bicycle.lua
// `process_turn` price it (turnPrice), in the leg's duration.
// The hierarchy searches a node-based graph, which cannot tell how a node was reached; so a leg is searched
// again here, on the road graph with the arriving road as part of the state (an edge-based search, labels
// kept sparse in maps): a short leg always when its profile prices turns, with the hierarchy's distances as
// A* potentials (turn prices only add, so they stay consistent lower bounds); otherwise only a leg whose
// hierarchy path takes a kept-out turn. The best path without such turns is never cheaper than the best
// path with any, so a leg whose hierarchy path takes none is already exact for those; a far leg's turns
// are priced along its path. docs/directions.md ("Turns") has the design, its limits and its measurements.
import type { RoadGraph } from '../map/graphs/road-graph.js';
import { bearingScale } from '../map/graphs/road-coordinate.js';
import { deviation } from './guidance/bearings.js';
import { type GuidanceGraph, guidedBearing, leaveBearing } from './guidance/steps.js';

type TurnGraph = GuidanceGraph & Pick<RoadGraph, 'weight'>;

/** A profile's prices of turns. */
export interface TurnPrice {
  /** Tenths of a second, rounded as OSRM rounds turn durations, for a turn by its angle (degrees from
   *  straight on, positive to the right), the roads meeting at the node and whether it turns back. */
  of(angle: number, roads: number, uTurn: boolean): number;
  /** Whether a turn that does not turn back is priced where at most two roads meet (car.lua's is not: most
   *  nodes of a far route, whose turns then cost no bearing). */
  atEveryNode: boolean;
}

/** Degrees from straight on below which car.lua's price of a turn rounds to 0 (29.5° to the right, 13.4°
 *  to the left, where 7.5 / (1 + e^…) reaches 0.05 s). */
export const CAR_FREE_RIGHT = 29;
export const CAR_FREE_LEFT = 13;

/** car.lua (6.0.0): a sigmoid of the angle up to `turn_penalty` 7.5 s, right turns cheaper by `turn_bias`
 *  1.075, where more than two roads meet or turning back (+ `u_turn_penalty` 20 s). Traffic signals and
 *  stop signs are not in the map, so not priced. */
export const carTurnPrice: TurnPrice = {
  atEveryNode: false,
  of: (angle, roads, uTurn) => {
    if (roads <= 2 && !uTurn) return 0;
    // Below these the sigmoid is under 0.05 s, a price that rounds to nothing: most junctions of a far
    // route go on nearly straight, and their exp is skipped (turn-prices.test.ts checks every angle up to them).
    if (!uTurn && (angle >= 0 ? angle < CAR_FREE_RIGHT : -angle < CAR_FREE_LEFT)) return 0;
    const s =
      angle >= 0 ? 7.5 / (1 + Math.exp(-(((13 / 1.075) * angle) / 180 - 6.5 * 1.075))) : 7.5 / (1 + Math.exp(-((13 * 1.075 * -angle) / 180 - 6.5 / 1.075)));
    return Math.round(10 * (s + (uTurn ? 20 : 0)));
  },
};

/** bicycle.lua (6.0.0): (angle / 90)² × `turn_penalty` 6 s, ÷ `turn_bias` 1.4 to the right, × 1.4 to the
 *  left, at every node (+ `u_turn_penalty` 20 s turning back). */
export const bicycleTurnPrice: TurnPrice = {
  atEveryNode: true,
  of: (angle, _roads, uTurn) => {
    const x = angle / 90;
    return Math.round(10 * (x * x * (x >= 0 ? 6 / 1.4 : 6 * 1.4) + (uTurn ? 20 : 0)));
  },
};

/** The turn prices of a profile: foot.lua prices only turning back (2 s), which it does only at dead ends. */
export function turnPriceOf(profile: string): TurnPrice | null {
  if (profile === 'driving-car' || profile === 'driving-hgv') return carTurnPrice;
  if (profile === 'cycling-regular') return bicycleTurnPrice;
  return null;
}

/** Road kind bits of a ring (map/graphs/profile-ways.ts ROAD_ROUNDABOUT | ROAD_CIRCULAR). */
const RING_KINDS = 32 | 64;

/** A profile's graph and what its turns may not do. */
export interface TurnRules {
  g: TurnGraph;
  /** One bit per geometry, set on roundabouts; null where crossing a ring's node is allowed. */
  ring: Uint8Array | null;
  /** One bit per node, set where a ring passes (so that the path's other nodes cost a bit test). */
  ringNodes: Uint8Array | null;
  /** What a turn costs; null where turns are free. */
  price: TurnPrice | null;
  /** With a price that only junctions pay: one bit per node, set where more than two roads meet (read
   *  once per node of a far path instead of its roads). */
  junctions: Uint8Array | null;
}

/** The rules of a profile's graph: ring geometries found once, walking the label runs along the points. */
export function turnRules(g: TurnGraph, driving: boolean, price: TurnPrice | null = null): TurnRules {
  const N = g.firstOut.length - 1;
  const r: TurnRules = { g, ring: null, ringNodes: null, price, junctions: null };
  if (driving) {
    const G = g.geomFirst.length;
    const ring = (r.ring = new Uint8Array((G + 7) >> 3));
    const { labelFirst, labelIndex, labelKind } = g.shapes;
    // Geometries' first points increase with the geometry, so one pass over the runs finds each's label.
    let run = 0;
    for (let x = 0; x < G; x++) {
      const p = g.geomFirst[x];
      while (run + 1 < labelFirst.length && labelFirst[run + 1] <= p) run++;
      if (labelFirst.length && labelKind[labelIndex[run]] & RING_KINDS) ring[x >> 3] |= 1 << (x & 7);
    }
  }
  const ringNodes = driving ? new Uint8Array((N + 7) >> 3) : null;
  const junctions = price && !price.atEveryNode ? new Uint8Array((N + 7) >> 3) : null;
  if (ringNodes || junctions) {
    // One look at each node's roads for both (their edges read once).
    for (let v = 0; v < N; v++) {
      const roads = roadsAt(r, v, ringNodes !== null);
      if (junctions && (roads & 3) > 2) junctions[v >> 3] |= 1 << (v & 7);
      if (ringNodes && roads & ON_RING) ringNodes[v >> 3] |= 1 << (v & 7);
    }
  }
  r.ringNodes = ringNodes;
  r.junctions = junctions;
  return r;
}

const onRing = (r: TurnRules, d: number): boolean => (r.ring![d >> 4] & (1 << ((d >> 1) & 7))) !== 0;
const ringNode = (r: TurnRules, v: number): boolean => (r.ringNodes![v >> 3] & (1 << (v & 7))) !== 0;

/**
 * Whether going from road `a` to road `d` at node v (neither on a ring) crosses a ring through v: it turns
 * against the ring's flow (left off a counter-clockwise ring's node, right off a clockwise one's), where a
 * driver would cut across the ring. Turning with the flow, the exit is taken without driving the ring.
 */
function crossesRing(r: TurnRules, v: number, a: number, d: number): boolean {
  const g = r.g;
  let ringOut = -1,
    ringIn = -1;
  for (let e = g.firstOut[v]; e < g.firstOut[v + 1] && ringOut < 0; e++) if (onRing(r, g.orig[e])) ringOut = g.orig[e];
  if (g.rFirst.length > v + 1) for (let i = g.rFirst[v]; i < g.rFirst[v + 1] && ringIn < 0; i++) if (onRing(r, g.orig[g.rEdge[i]])) ringIn = g.orig[g.rEdge[i]];
  if (ringOut < 0 || ringIn < 0) return false;
  // Along the ring through v: bending left, it runs counter-clockwise.
  const counterClockwise = deviation((leaveBearing(g, ringIn ^ 1) + 180) % 360, leaveBearing(g, ringOut)) < 0;
  const turn = deviation((leaveBearing(g, a ^ 1) + 180) % 360, leaveBearing(g, d));
  return counterClockwise ? turn < 0 : turn > 0;
}

/** A seed with the directed original edge its waypoint piece runs along (-1: the waypoint is the node). */
export interface DirectedSeed {
  node: number;
  cost: number;
  /** Sources: the edge arriving at `node` from the waypoint; targets: the edge leaving `node` towards it. */
  dir: number;
}

/**
 * When a leg is searched again whole (exact): legs of at most `wholeMaxCost` tenths of a second (20 min),
 * settling at most `wholeBudget` states (~10 ms). A far leg would need far more (a 1,000 km leg took
 * 370 ms to settle 400,000 states and still had not arrived): it is repaired around its turn instead
 * (repairForbiddenTurns). Mutable for tests, which compare the repairs with the exact search.
 */
export const WHOLE_LEG = { wholeMaxCost: 12_000, wholeBudget: 25_000 };
/** States a repair around one turn may settle before its window is widened. */
const REPAIR_BUDGET = 50_000;
/** The first repair window: the path this many tenths of a second before and after the turn. */
const REPAIR_WINDOW = 3_000;
/** Windows tried, each 4 × the one before (5 min, 20 min, 80 min of driving either side). */
const REPAIR_WIDENINGS = 3;
/** Turns repaired in one leg before it is left as the hierarchy found it. */
const MAX_REPAIRS = 8;

/** Whether node v is a dead end: every edge into and out of it is one road (one geometry). */
export function deadEnd(g: TurnGraph, v: number): boolean {
  let geom = -1;
  for (let e = g.firstOut[v]; e < g.firstOut[v + 1]; e++) {
    const x = g.orig[e] >> 1;
    if (geom >= 0 && x !== geom) return false;
    geom = x;
  }
  if (g.rFirst.length > v + 1) {
    for (let i = g.rFirst[v]; i < g.rFirst[v + 1]; i++) {
      const x = g.orig[g.rEdge[i]] >> 1;
      if (geom >= 0 && x !== geom) return false;
      geom = x;
    }
  }
  return true;
}

/** Whether arriving at v along directed edge `a` and leaving along `d` is a turn the rules keep out. */
function forbidden(r: TurnRules, v: number, a: number, d: number): boolean {
  if (a < 0 || d < 0) return false;
  if (d === (a ^ 1)) return !deadEnd(r.g, v);
  return r.ring !== null && ringNode(r, v) && !onRing(r, a) && !onRing(r, d) && crossesRing(r, v, a, d);
}

/** roadsAt's bit for a node a ring passes. */
const ON_RING = 4;

/**
 * The roads meeting at node v: the distinct geometries of its edges out and in, counted up to 3 (past three
 * the count no longer changes a price: more than two roads is all that counts); with `ring` (the rules'
 * rings found), + ON_RING where one of them is a ring's.
 */
function roadsAt(r: TurnRules, v: number, ring = false): number {
  const g = r.g;
  let n = 0,
    on = !ring,
    a = -1,
    b = -1;
  const outEnd = g.firstOut[v + 1],
    inEnd = g.rFirst.length > v + 1 ? g.rFirst[v + 1] : 0;
  for (let k = g.firstOut[v], i = inEnd ? g.rFirst[v] : 0; (n < 3 || !on) && (k < outEnd || i < inEnd); ) {
    const d = k < outEnd ? g.orig[k++] : g.orig[g.rEdge[i++]];
    if (!on) on = onRing(r, d);
    const x = d >> 1;
    if (n === 3 || x === a || x === b) continue;
    if (n === 0) a = x;
    else if (n === 1) b = x;
    n++;
  }
  return ring && on ? n | ON_RING : n;
}

/** The bearing at which directed original edge `a` arrives at its end, and that end's east-west scale. */
function arrival(g: TurnGraph, a: number): { bearing: number; kx: number } {
  const kx = arrivalScale(g, a);
  return { bearing: arrivalBearing(g, a, kx), kx };
}
/** The east-west scale at the node directed edge `a` arrives at. */
const arrivalScale = (g: TurnGraph, a: number): number => bearingScale(g.shapes.pointsE7[2 * (a & 1 ? g.geomFirst[a >> 1] : g.geomLast[a >> 1])]);
const arrivalBearing = (g: TurnGraph, a: number, kx: number): number => (guidedBearing(g, a ^ 1, kx) + 180) % 360;

/**
 * What arriving at v along directed edge `a` and leaving along `d` costs, in tenths of a second: Infinity
 * for a turn the rules keep out, 0 at a waypoint's own piece (a or d < 0) or where turns are free.
 * `roads` and `into` (`arrival(a)`) may be given when the caller looks at several turns from one state.
 */
export function turnCost(r: TurnRules, v: number, a: number, d: number, roads = -1, into?: { bearing: number; kx: number }): number {
  return turnCostAt(r, v, a, d, roads, into, Number.NaN);
}

/** turnCost, with the latitude (1e-7°) of the node the turn is at when known (NaN: read where the arriving
 *  road ends): turnPrices reads those of a path's turns ahead, in a loop of their own. */
function turnCostAt(r: TurnRules, v: number, a: number, d: number, roads: number, into: { bearing: number; kx: number } | undefined, latE7: number): number {
  if (a < 0 || d < 0) return 0;
  if (forbidden(r, v, a, d)) return Infinity;
  if (!r.price) return 0;
  const g = r.g;
  const uTurn = d === (a ^ 1);
  // (3 stands for "more than two" where only that is known.)
  const meeting = roads >= 0 ? roads : r.junctions ? (r.junctions[v >> 3] & (1 << (v & 7)) ? 3 : 2) : roadsAt(r, v);
  if (!uTurn && meeting <= 2 && !r.price.atEveryNode) return 0;
  if (uTurn) return r.price.of(180, meeting, true);
  if (into) return r.price.of(deviation(into.bearing, guidedBearing(g, d, into.kx)), meeting, false);
  // As `arrival` without its object: a path's every turn comes here, and a far one's objects were a quarter
  // of a megabyte of garbage.
  const kx = Number.isNaN(latE7) ? arrivalScale(g, a) : bearingScale(latE7);
  return r.price.of(deviation(arrivalBearing(g, a, kx), guidedBearing(g, d, kx)), meeting, false);
}

// turnPrices' scratch, grown as far paths need: the path's directed edges and nodes, its turns to price,
// and where each of those arrives.
let pathDirs = new Int32Array(1024),
  pathNodes = new Int32Array(1024),
  priced = new Int32Array(1024),
  arrivals = new Int32Array(1024);
const atLeast = (a: Int32Array<ArrayBuffer>, n: number): Int32Array<ArrayBuffer> => (a.length >= n ? a : new Int32Array(Math.max(n, 2 * a.length)));

/**
 * The price of each turn a path takes (turnCost): entry i the turn before its edge i (the start's first),
 * the last the turn into the waypoint's piece at its end; a kept-out turn (kept where it could not be
 * repaired) free. null where turns are free. `beside`: a path it runs beside and that path's prices; the
 * turns between the edges both begin with, and between those both end with, are the same turns at the same
 * prices and are copied (an alternative runs with its route most of its way, and a far one has tens of
 * thousands of edges).
 */
export function turnPrices(
  r: TurnRules,
  startDir: number,
  start: number,
  edges: Uint32Array,
  endDir: number,
  beside?: { edges: Uint32Array; prices: Float64Array },
): Float64Array | null {
  if (!r.price) return null;
  const g = r.g;
  const n = edges.length;
  const base = beside?.edges ?? edges.subarray(0, 0);
  let head = 0,
    tail = 0;
  while (head < n && head < base.length && edges[head] === base[head]) head++;
  while (head + tail < n && head + tail < base.length && edges[n - 1 - tail] === base[base.length - 1 - tail]) tail++;
  const out = new Float64Array(n + 1);
  const shift = base.length - n;
  // A far path has tens of thousands of edges, each read far from the one before: the reads are made in
  // loops of nothing else, whose misses the processor overlaps, rather than one by one between prices.
  // Turn i is at node nodes[i], arriving along dirs[i] and leaving along dirs[i + 1].
  const dirs = (pathDirs = atLeast(pathDirs, n + 2)),
    nodes = (pathNodes = atLeast(pathNodes, n + 1));
  const { head: heads, orig, geomFirst, geomLast } = g;
  dirs[0] = startDir;
  for (let i = 0; i < n; i++) dirs[i + 1] = orig[edges[i]];
  dirs[n + 1] = endDir;
  nodes[0] = start;
  for (let i = 0; i < n; i++) nodes[i + 1] = heads[edges[i]];
  // The turns to price: not those copied from `beside`, and not those where two roads meet under a price
  // that only junctions pay (turnCost's answer is 0 there, a kept-out turn's 0 here too: most nodes of a
  // far path).
  const junctions = r.junctions;
  const todo = (priced = atLeast(priced, n + 1));
  let m = 0;
  for (let i = 0; i <= n; i++) {
    // Entry i is the turn between edges i - 1 and i: shared when both lie in the same stretch.
    if (i >= 1 && i < head) out[i] = beside!.prices[i];
    else if (i > n - tail && i < n) out[i] = beside!.prices[i + shift];
    else {
      const a = dirs[i],
        d = dirs[i + 1],
        v = nodes[i];
      if (junctions === null || a < 0 || d < 0 || d === (a ^ 1) || (junctions[v >> 3] & (1 << (v & 7))) !== 0) todo[m++] = i;
    }
  }
  // The latitude of each priced turn's node (its bearings' east-west scale), at the end its arriving road
  // has there.
  const at = (arrivals = atLeast(arrivals, m));
  for (let k = 0; k < m; k++) {
    const a = dirs[todo[k]];
    at[k] = a < 0 ? -1 : a & 1 ? geomFirst[a >> 1] : geomLast[a >> 1];
  }
  const pts = g.shapes.pointsE7;
  for (let k = 0; k < m; k++) at[k] = at[k] < 0 ? 0 : pts[2 * at[k]];
  for (let k = 0; k < m; k++) {
    const i = todo[k];
    const turn = turnCostAt(r, nodes[i], dirs[i], dirs[i + 1], -1, undefined, at[k]);
    out[i] = turn === Infinity ? 0 : turn;
  }
  return out;
}

/** Whether a path (its start node, search edges, and the waypoint pieces' edges at either end) takes a
 *  turn the rules keep out. */
export function takesForbiddenTurn(r: TurnRules, startDir: number, start: number, edges: Uint32Array, endDir: number): boolean {
  return firstForbiddenTurn(r, startDir, start, edges, endDir) >= 0;
}

/** Whether a path takes a turn at a node between two of its edges that the rules keep out. */
export function turnsBetween(r: TurnRules, edges: Uint32Array): boolean {
  const g = r.g;
  for (let i = 1; i < edges.length; i++) if (forbidden(r, g.head[edges[i - 1]], g.orig[edges[i - 1]], g.orig[edges[i]])) return true;
  return false;
}

/**
 * takesForbiddenTurn of a path beside another, `base`, that takes none between its edges (turnsBetween): the
 * turns between the edges both begin with, and between those both end with, are the same turns and are not
 * looked at again (an alternative runs with its route most of its way, and a far one has tens of
 * thousands of edges).
 */
export function takesForbiddenTurnBeside(r: TurnRules, startDir: number, start: number, edges: Uint32Array, endDir: number, base: Uint32Array): boolean {
  const n = edges.length;
  if (n === 0) return takesForbiddenTurn(r, startDir, start, edges, endDir);
  let head = 0,
    tail = 0;
  while (head < n && head < base.length && edges[head] === base[head]) head++;
  while (head + tail < n && head + tail < base.length && edges[n - 1 - tail] === base[base.length - 1 - tail]) tail++;
  const g = r.g;
  // The turn at the path's node i (0: its start, n: its end), as firstForbiddenTurn takes them.
  const at = (i: number): boolean =>
    forbidden(r, i === 0 ? start : g.head[edges[i - 1]], i === 0 ? startDir : g.orig[edges[i - 1]], i === n ? endDir : g.orig[edges[i]]);
  if (at(0)) return true;
  for (let i = Math.max(1, head); i <= n - tail; i++) if (at(i)) return true;
  return tail > 0 && at(n);
}

/** The index of the path's node (0: its start, edges.length: its end) where it takes the first turn the
 *  rules keep out; -1 for none. */
function firstForbiddenTurn(r: TurnRules, startDir: number, start: number, edges: Uint32Array, endDir: number): number {
  const g = r.g;
  let a = startDir,
    v = start;
  for (let i = 0; i < edges.length; i++) {
    const d = g.orig[edges[i]];
    if (forbidden(r, v, a, d)) return i;
    a = d;
    v = g.head[edges[i]];
  }
  return endDir >= 0 && forbidden(r, v, a, endDir) ? edges.length : -1;
}

/** A leg's path: its first node, search edges and cost (the seeds' included), and the seeds it uses. */
export interface TurnPath {
  cost: number;
  edges: Uint32Array;
  start: number;
  first: DirectedSeed;
  last: DirectedSeed;
}

/**
 * The leg's path with its turns settled, `found` being the hierarchy's best path from `sources` to
 * `targets`: without the turns the rules keep out, and where the profile prices turns, the cheapest with
 * them priced. A short leg (WHOLE_LEG) is searched again whole, exactly: always when turns are priced (an A*
 * with the hierarchy's distances, `potentials()`), else when `found` takes a kept-out turn. A longer one
 * keeps the hierarchy's path, repaired turn by turn where it takes a kept-out turn: the stretch of the
 * path from some minutes before the turn to some minutes after it is searched again without kept-out turns
 * (edge-based, leaving the path at the stretch's start, or at any source when the stretch starts at the
 * leg's start, and joining it at any of its nodes after the turn, or at any target), and the rest of the
 * path is kept. The stretch widens (5, 20, 80 minutes either side) while the search finds nothing or runs
 * out of states. A repaired leg is the best path that differs from the hierarchy's only within that
 * stretch: the detour around a turn restriction or a one-way street is local, so this is the exact answer
 * in practice, at a cost of a search over a few minutes of roads instead of the whole leg. Only a path
 * searched again whole has its turns' prices in its cost; the caller prices the others' along them
 * (turnPrices). null when no path exists below `bound`; `found` itself when its turns cannot be repaired.
 */
export function settleTurns(
  r: TurnRules,
  sources: DirectedSeed[],
  targets: DirectedSeed[],
  found: TurnPath,
  bound: number,
  potentials: () => (v: number) => number,
): TurnPath | null {
  const forbiddenAt = firstForbiddenTurn(r, found.first.dir, found.start, found.edges, found.last.dir);
  if (found.cost <= WHOLE_LEG.wholeMaxCost && (r.price || forbiddenAt >= 0)) {
    const whole = turnSearch(r, sources, targets, bound, WHOLE_LEG.wholeBudget, r.price ? potentials() : null);
    if (whole === null) return null;
    if (whole !== 'budget') return { cost: whole.cost, edges: whole.edges, start: whole.start, first: sources[whole.source], last: targets[whole.target] };
  }
  let path = found;
  for (let repairs = 0; repairs < MAX_REPAIRS; repairs++) {
    const at = repairs === 0 ? forbiddenAt : firstForbiddenTurn(r, path.first.dir, path.start, path.edges, path.last.dir);
    if (at < 0) return path;
    // Cost along the path from its start to each of its nodes.
    const along = new Float64Array(path.edges.length + 1);
    for (let i = 0; i < path.edges.length; i++) along[i + 1] = along[i] + r.g.weight[path.edges[i]];
    let repaired: TurnPath | null = null;
    for (let w = 0, window = REPAIR_WINDOW; w < REPAIR_WIDENINGS && !repaired; w++, window *= 4)
      repaired = repairAround(r, sources, targets, path, along, at, window);
    if (!repaired) return found;
    path = repaired;
  }
  return firstForbiddenTurn(r, path.first.dir, path.start, path.edges, path.last.dir) < 0 ? path : found;
}

/** The path with the stretch `window` tenths of a second either side of its node `at` searched again
 *  without kept-out turns (`along`: the cost along the path to each node); null when that search finds
 *  nothing within its budget. */
function repairAround(
  r: TurnRules,
  sources: DirectedSeed[],
  targets: DirectedSeed[],
  path: TurnPath,
  along: Float64Array,
  at: number,
  window: number,
): TurnPath | null {
  const g = r.g;
  const { edges } = path;
  const n = edges.length;
  const node = (i: number): number => (i === 0 ? path.start : g.head[edges[i - 1]]);
  let lo = at;
  while (lo > 0 && along[at] - along[lo] < window) lo--;
  let hi = at;
  while (hi < n && along[hi] - along[at] < window) hi++;
  // From the stretch's start: the leg's sources when it is the path's start, else the path's state there.
  const from: DirectedSeed[] = lo === 0 ? sources : [{ node: node(lo), cost: 0, dir: g.orig[edges[lo - 1]] }];
  // Joining the path at node j (at or after the turn) and going on along it, costed to the stretch's end;
  // at the leg's end, any target.
  const to: DirectedSeed[] = [];
  const joins: number[] = [];
  const tail = hi === n ? path.last.cost : 0;
  for (let j = at; j < hi || (j === hi && hi < n); j++) {
    to.push({ node: node(j), cost: along[hi] - along[j] + tail, dir: g.orig[edges[j]] });
    joins.push(j);
  }
  if (hi === n) {
    for (const t of targets) {
      to.push(t);
      joins.push(n);
    }
  }
  const found = turnSearch(r, from, to, Infinity, REPAIR_BUDGET);
  if (found === null || found === 'budget') return null;
  const j = joins[found.target];
  const spliced = new Uint32Array(lo + found.edges.length + (n - j));
  spliced.set(edges.subarray(0, lo), 0);
  spliced.set(found.edges, lo);
  spliced.set(edges.subarray(j), lo + found.edges.length);
  const first = lo === 0 ? sources[found.source] : path.first;
  const last = hi === n && found.target >= joins.length - targets.length ? to[found.target] : path.last;
  let cost = first.cost + last.cost;
  for (let i = 0; i < spliced.length; i++) cost += g.weight[spliced[i]];
  return { cost, edges: spliced, start: lo === 0 ? found.start : path.start, first, last };
}

/**
 * The cheapest path from the sources to the targets without a turn the rules keep out, its turns priced,
 * below `bound`: its cost, search edges and first node; null when there is none below `bound`, 'budget'
 * when the search gave up. With `potential` (a node's lower bound on the cost to the targets), an A*.
 */
function turnSearch(
  r: TurnRules,
  sources: DirectedSeed[],
  targets: DirectedSeed[],
  bound: number,
  budget: number,
  potential: ((v: number) => number) | null = null,
): { cost: number; edges: Uint32Array; start: number; source: number; target: number } | null | 'budget' {
  const g = r.g;
  // A state is a search edge (its head and the way it arrived), or M + i for source seed i.
  const M = g.head.length;
  const dist = new Map<number, number>();
  const parent = new Map<number, number>();
  // The heap's keys (cost + potential), with each entry's cost and state.
  const heapKey: number[] = [],
    heapCost: number[] = [],
    heapState: number[] = [];
  const push = (key: number, c: number, k: number): void => {
    let i = heapKey.length;
    heapKey.push(key);
    heapCost.push(c);
    heapState.push(k);
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (heapKey[p] <= key) break;
      heapKey[i] = heapKey[p];
      heapCost[i] = heapCost[p];
      heapState[i] = heapState[p];
      i = p;
    }
    heapKey[i] = key;
    heapCost[i] = c;
    heapState[i] = k;
  };
  const pop = (): void => {
    const key = heapKey.pop()!,
      c = heapCost.pop()!,
      k = heapState.pop()!;
    const n = heapKey.length;
    if (n === 0) return;
    let i = 0;
    for (;;) {
      let m = 2 * i + 1;
      if (m >= n) break;
      if (m + 1 < n && heapKey[m + 1] < heapKey[m]) m++;
      if (heapKey[m] >= key) break;
      heapKey[i] = heapKey[m];
      heapCost[i] = heapCost[m];
      heapState[i] = heapState[m];
      i = m;
    }
    heapKey[i] = key;
    heapCost[i] = c;
    heapState[i] = k;
  };
  const byNode = new Map<number, number[]>();
  targets.forEach((t, i) => {
    const list = byNode.get(t.node);
    if (list) list.push(i);
    else byNode.set(t.node, [i]);
  });
  sources.forEach((s, i) => {
    if ((dist.get(M + i) ?? Infinity) <= s.cost) return;
    const p = potential ? potential(s.node) : 0;
    if (p === Infinity) return;
    dist.set(M + i, s.cost);
    push(s.cost + p, s.cost, M + i);
  });
  let best = bound,
    bestKey = -1,
    bestTarget = -1,
    settled = 0;
  while (heapKey.length) {
    const key = heapKey[0],
      c = heapCost[0],
      k = heapState[0];
    pop();
    if (key >= best) break;
    if (c > (dist.get(k) ?? Infinity)) continue;
    if (++settled > budget) return 'budget';
    const v = k < M ? g.head[k] : sources[k - M].node;
    const a = k < M ? g.orig[k] : sources[k - M].dir;
    const roads = r.price ? roadsAt(r, v) : 0;
    const into = r.price && a >= 0 && (roads > 2 || r.price.atEveryNode) ? arrival(g, a) : undefined;
    for (const t of byNode.get(v) ?? []) {
      const total = c + turnCost(r, v, a, targets[t].dir, roads, into) + targets[t].cost;
      if (total < best) {
        best = total;
        bestKey = k;
        bestTarget = t;
      }
    }
    for (let e = g.firstOut[v]; e < g.firstOut[v + 1]; e++) {
      const nc = c + turnCost(r, v, a, g.orig[e], roads, into) + g.weight[e];
      if (nc >= (dist.get(e) ?? Infinity) || nc >= best) continue;
      const p = potential ? potential(g.head[e]) : 0;
      if (nc + p >= best) continue;
      dist.set(e, nc);
      parent.set(e, k);
      push(nc + p, nc, e);
    }
  }
  if (bestKey < 0) return null;
  const edges: number[] = [];
  let k = bestKey;
  while (k < M) {
    edges.push(k);
    k = parent.get(k)!;
  }
  return { cost: best, edges: Uint32Array.from(edges.reverse()), start: sources[k - M].node, source: k - M, target: bestTarget };
}
