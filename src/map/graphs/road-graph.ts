// The in-memory shape of one profile's road graph: flat typed arrays, exactly as written to and read
// from the map directory, and as placed in the shared WASM memory; and the shapes every profile shares
// (the routable ways' points and a grid over their segments), stored once for all profiles.
//
// Terms: a *geometry* g is a piece of an OSM way between two graph nodes (its shape points included).
// A *directed original edge* is 2g (along the way's node order) or 2g+1 (against it). The search graph
// expands graph nodes that are the via node of a turn restriction into one copy per incoming edge, so
// several search edges can share one directed original edge (`orig`); blocking works on geometries.
/**
 * Contraction hierarchy for unblocked queries (empty arrays: none; searches then run plain Dijkstra).
 * Upward edges v→w (w contracted after v) at v, downward edges u→v (u contracted after v) at v; CH edge ids are the upward
 * positions, then U + the downward positions. chA/chB unpack a CH edge: one search edge (chB = 0xffffffff)
 * or two CH edges in travel order. Meters only break ties between equally fast paths.
 */
export interface Contraction {
  upFirst: Uint32Array;
  upHead: Uint32Array;
  upWeight: Uint32Array;
  /** Centimeters (whole: sums stay exact, so CH and plain searches break ties alike). */
  upCm: Uint32Array;
  /** Downward edges are stored at their lower end v, with their tails in dnTail. */
  dnFirst: Uint32Array;
  dnTail: Uint32Array;
  dnWeight: Uint32Array;
  dnCm: Uint32Array;
  chA: Uint32Array;
  chB: Uint32Array;
}

/**
 * A second hierarchy, for potentials only (no unpacking pairs), over the true weights of every edge: in the
 * lorry graph, whose main hierarchy weighs down the edges closed to the default lorry (CLOSED_PENALTY),
 * its distances are lower bounds for every lorry, so that a lorry smaller than the default one is searched
 * over the graph guided by them. Empty arrays elsewhere.
 */
export interface BoundHierarchy {
  lbUpFirst: Uint32Array;
  lbUpHead: Uint32Array;
  lbUpWeight: Uint32Array;
  lbUpCm: Uint32Array;
  lbDnFirst: Uint32Array;
  lbDnTail: Uint32Array;
  lbDnWeight: Uint32Array;
  lbDnCm: Uint32Array;
}

/** A contraction's arrays as the bound hierarchy's. */
export function asBoundHierarchy(ch: Contraction): BoundHierarchy {
  return {
    lbUpFirst: ch.upFirst,
    lbUpHead: ch.upHead,
    lbUpWeight: ch.upWeight,
    lbUpCm: ch.upCm,
    lbDnFirst: ch.dnFirst,
    lbDnTail: ch.dnTail,
    lbDnWeight: ch.dnWeight,
    lbDnCm: ch.dnCm,
  };
}

export interface RoadGraph extends Contraction, BoundHierarchy {
  nodeCount: number;
  edgeCount: number;
  geomCount: number;
  /** Search graph, forward CSR. */
  firstOut: Uint32Array;
  head: Uint32Array;
  /** Duration of the edge in tenths of a second (≥ 1). */
  weight: Uint32Array;
  /** Directed original edge of each search edge. */
  orig: Uint32Array;
  /** Points of geometry g in the shared shapes: shapes.pointsE7 pairs geomFirst[g] … geomLast[g], in way order. Increasing in g. */
  geomFirst: Uint32Array;
  geomLast: Uint32Array;
  /** Length in whole centimeters (4 bytes instead of 8; every sum of lengths is exact). */
  geomCm: Uint32Array;
  /** Search edges of directed original edge d: origEdges[origFirst[d]..origFirst[d+1]). */
  origFirst: Uint32Array;
  origEdges: Uint32Array;
  /** Per directed original edge: its duration (tenths of a second; 0 = not allowed that way) and the search node it ends at. */
  origWeight: Uint32Array;
  origHead: Uint32Array;
  /**
   * 1 for nodes of the main network (the largest strongly connected part), else 0: snapping prefers it,
   * and a waypoint cut off from it is moved onto it.
   */
  mainNet: Uint8Array;
  /**
   * Geometries whose way has a physical limit (ascending; `driving-hgv` only, empty for the others) and per
   * geometry its height, width, length (m) and weight (t) limits in `limitValue`, Infinity where none: a
   * route blocks those its lorry exceeds (the default lorry's are also weighed down in the hierarchy).
   */
  limitGeom: Uint32Array;
  limitValue: Float64Array;
  /** Per geometry the classes of its way a request may exclude (`exclude`: bits of EXCLUDE_BIT in profiles.ts). */
  geomClass: Uint8Array;
  /**
   * Per geometry what turn guidance reads of it at a junction, GUIDE_WORDS words together (road-guide.ts):
   * its label and each direction's bearing offset. The driving graphs only (`guided` in profiles.ts);
   * empty elsewhere, where guidance reads the shapes.
   */
  geomGuide: Int32Array;
  /**
   * OSM's maneuver relations on this graph (maneuvers.ts): per record MANEUVER_HEAD words (the count of its
   * directed geometries, the index of the one the instruction is given at the start of, its type and
   * modifier codes), then those geometries. Empty where the extract has none (most).
   */
  maneuvers: Int32Array;
  /** The shapes shared by every profile of the map. */
  shapes: Shapes;
}

/**
 * The points of every routable way, each way's run of points contiguous (1e-7-degree lat, lon pairs), and
 * a uniform grid over the segments some profile uses (for snapping and blocking): CSR of cells → first
 * point index of each segment. A profile finds its geometry of a segment by binary search in geomFirst.
 * The ways' `name` and `ref` tags are kept per run of points (`roadLabelAt` in road-labels.ts).
 */
export interface Shapes extends RoadLabels {
  pointsE7: Int32Array;
  grid: GridParams;
  gridFirst: Uint32Array;
  gridItems: Uint32Array;
}

/**
 * The `name` and `ref` of the ways the points belong to. Runs of points, each of consecutive ways with the
 * same label (ways with none included): run r starts at point labelFirst[r] (increasing, the first 0) and
 * has label labelIndex[r]. Label l has name labelName[l] and ref labelRef[l], indexes of texts (-1 =
 * none; label 0 has neither); text s is the UTF-8 bytes labelText[labelTextFirst[s] .. labelTextFirst[s + 1]).
 */
export interface RoadLabels {
  labelFirst: Uint32Array;
  labelIndex: Uint32Array;
  labelName: Int32Array;
  labelRef: Int32Array;
  /** Per label, the way's road kind: class, link, roundabout bits (`roadKindOf` in profile-ways.ts). */
  labelKind: Uint8Array;
  /**
   * Per label, the destinations signposted along the way (a text, -1 none: OSRM's `destinations`), shown
   * to the profiles of bit p (PROFILES[p]) of labelDestinationsShown, and its exit numbers (`exits`).
   */
  labelDestinations: Int32Array;
  labelDestinationsShown: Uint8Array;
  labelExits: Int32Array;
  /** Per label, the turn lanes of a road cars may use (a text, -1 none: OSRM's intersection `lanes`),
   *  travelled along its way and against it. */
  labelLanesForward: Int32Array;
  labelLanesBackward: Int32Array;
  labelTextFirst: Uint32Array;
  labelText: Uint8Array;
}

/**
 * Tenths of a second added to the hierarchy's weight of each edge closed to the profile's default vehicle
 * (`driving-hgv`: the ways below the default lorry's size, which the graph keeps for smaller lorries). The
 * hierarchy then never takes such an edge while an open path exists, and a cost at or above this says
 * that none does; searches over the graph itself see the true weights.
 */
export const CLOSED_PENALTY = 2 ** 26;

/** Names and element types of the shared shape arrays, in file order. */
export const SHAPE_ARRAYS = [
  ['pointsE7', 'i32'],
  ['gridFirst', 'u32'],
  ['gridItems', 'u32'],
  ['labelFirst', 'u32'],
  ['labelIndex', 'u32'],
  ['labelName', 'i32'],
  ['labelRef', 'i32'],
  ['labelKind', 'u8'],
  ['labelDestinations', 'i32'],
  ['labelDestinationsShown', 'u8'],
  ['labelExits', 'i32'],
  ['labelLanesForward', 'i32'],
  ['labelLanesBackward', 'i32'],
  ['labelTextFirst', 'u32'],
  ['labelText', 'u8'],
] as const;

/** Bytes of the shared shapes' arrays. */
export function shapeBytes(shapes: Shapes): number {
  return SHAPE_ARRAYS.reduce((sum, [key]) => sum + shapes[key].byteLength, 0);
}

/** The typed array of each element type a graph array file holds. */
export const ARRAY_TYPES = { u8: Uint8Array, i32: Int32Array, u32: Uint32Array, f64: Float64Array } as const;

/** The node a search edge leaves from (binary search in the forward CSR). */
export function edgeTail(g: Pick<RoadGraph, 'firstOut'>, e: number): number {
  let lo = 0,
    hi = g.firstOut.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (g.firstOut[mid] <= e) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** `origHead` of a directed original edge closed to traffic. */
export const NO_HEAD = 0xffffffff;

/** The tail of search edge `e`, most often node `u` itself: then without `edgeTail`'s search of the whole
 *  graph. */
const tailFrom = (g: Pick<RoadGraph, 'firstOut'>, e: number, u: number): number => (e >= g.firstOut[u] && e < g.firstOut[u + 1] ? u : edgeTail(g, e));

/**
 * The search nodes standing for the same junction as node v, v first, into `copies` (as many as it holds);
 * how many. A turn restriction through a junction splits its node into copies, each with the ways out
 * allowed after the ways in it keeps, and a via-way restriction copies the via way's far node (map/graphs/
 * graph-assemble.ts): they are found from v's ways, where each way out is left from (the tails of its
 * search edges) and where each way in arrives (its head), and so on from every node found. A node not split
 * is its only copy.
 */
export function junctionCopies(
  g: Pick<RoadGraph, 'firstOut' | 'orig' | 'origFirst' | 'origEdges' | 'origHead'> & { rFirst: Uint32Array; rEdge: Uint32Array },
  v: number,
  copies: Int32Array,
): number {
  let count = 0;
  const add = (u: number): void => {
    if (u === NO_HEAD || count === copies.length) return;
    for (let i = 0; i < count; i++) if (copies[i] === u) return;
    copies[count++] = u;
  };
  add(v);
  for (let k = 0; k < count; k++) {
    const u = copies[k];
    for (let e = g.firstOut[u]; e < g.firstOut[u + 1]; e++) {
      const out = g.orig[e];
      for (let i = g.origFirst[out]; i < g.origFirst[out + 1]; i++) add(tailFrom(g, g.origEdges[i], u));
      add(g.origHead[out ^ 1]);
    }
    if (g.rFirst.length <= u + 1) continue;
    for (let i = g.rFirst[u]; i < g.rFirst[u + 1]; i++) {
      const back = g.orig[g.rEdge[i]] ^ 1;
      for (let j = g.origFirst[back]; j < g.origFirst[back + 1]; j++) add(tailFrom(g, g.origEdges[j], u));
    }
  }
  return count;
}

/** Degrees per unit of the 1e-7-degree integer coordinates (OSM's own precision). */
export const E7 = 1e-7;

/**
 * Each search node's position (1e-7-degree lat, lon pairs), where its edges' geometries start or end: the
 * map stores none, as serving never needs them; tools and tests do. Copies of a node for turn
 * restrictions get its position; a node without edges stays at 0, 0. @internal (tests, benchmarks)
 */
export function nodePositionsE7(g: Pick<RoadGraph, 'nodeCount' | 'firstOut' | 'head' | 'orig' | 'geomFirst' | 'geomLast' | 'shapes'>): Int32Array {
  const out = new Int32Array(2 * g.nodeCount);
  const p = g.shapes.pointsE7;
  const put = (v: number, point: number): void => {
    out[2 * v] = p[2 * point];
    out[2 * v + 1] = p[2 * point + 1];
  };
  for (let v = 0; v < g.nodeCount; v++) {
    for (let e = g.firstOut[v]; e < g.firstOut[v + 1]; e++) {
      // Directed original edge 2g runs along the geometry's points, 2g+1 against them.
      const d = g.orig[e],
        geom = d >> 1;
      put(v, d & 1 ? g.geomLast[geom] : g.geomFirst[geom]);
      put(g.head[e], d & 1 ? g.geomFirst[geom] : g.geomLast[geom]);
    }
  }
  return out;
}

/** Coordinates in 1e-7 degrees as degrees (tools and tests). */
export function toDegrees(e7: Int32Array): Float64Array {
  return Float64Array.from(e7, (v) => v * E7);
}

export interface GridParams {
  minLat: number;
  minLon: number;
  cellLat: number;
  cellLon: number;
  rows: number;
  cols: number;
}

/** Names and element types of the arrays of a RoadGraph, in file and memory order. */
export const GRAPH_ARRAYS = [
  ['firstOut', 'u32'],
  ['head', 'u32'],
  ['weight', 'u32'],
  ['orig', 'u32'],
  ['geomFirst', 'u32'],
  ['geomLast', 'u32'],
  ['geomCm', 'u32'],
  ['origFirst', 'u32'],
  ['origEdges', 'u32'],
  ['origWeight', 'u32'],
  ['origHead', 'u32'],
  ['mainNet', 'u8'],
  ['limitGeom', 'u32'],
  ['limitValue', 'f64'],
  ['geomClass', 'u8'],
  ['geomGuide', 'i32'],
  ['maneuvers', 'i32'],
  ['upFirst', 'u32'],
  ['upHead', 'u32'],
  ['upWeight', 'u32'],
  ['upCm', 'u32'],
  ['dnFirst', 'u32'],
  ['dnTail', 'u32'],
  ['dnWeight', 'u32'],
  ['dnCm', 'u32'],
  ['chA', 'u32'],
  ['chB', 'u32'],
  ['lbUpFirst', 'u32'],
  ['lbUpHead', 'u32'],
  ['lbUpWeight', 'u32'],
  ['lbUpCm', 'u32'],
  ['lbDnFirst', 'u32'],
  ['lbDnTail', 'u32'],
  ['lbDnWeight', 'u32'],
  ['lbDnCm', 'u32'],
] as const;

/** The arrays of a graph without a contraction hierarchy (nor a bound hierarchy). */
export function noHierarchy(): Contraction & BoundHierarchy {
  const u = (): Uint32Array => new Uint32Array(0);
  const none = { upFirst: u(), upHead: u(), upWeight: u(), upCm: u(), dnFirst: u(), dnTail: u(), dnWeight: u(), dnCm: u(), chA: u(), chB: u() };
  return { ...none, ...asBoundHierarchy({ ...none }) };
}

export type GraphArrayName = (typeof GRAPH_ARRAYS)[number][0];

const speedRanges = new WeakMap<Pick<RoadGraph, 'origWeight' | 'geomCm'>, { fastest: number; slowest: number }>();

/**
 * Meters per second of the graph's fastest and slowest way (the slowest at least 0.1): straight-line
 * bounds of what a time reaches, and the time a length can take. Measured once per graph.
 */
export function speedRange(g: Pick<RoadGraph, 'origWeight' | 'geomCm'>): { fastest: number; slowest: number } {
  let range = speedRanges.get(g);
  if (!range) {
    let fastest = 0,
      slowest = Infinity;
    for (let d = 0; d < g.origWeight.length; d++) {
      const w = g.origWeight[d];
      if (w === 0 || g.geomCm[d >> 1] === 0) continue;
      const speed = (g.geomCm[d >> 1] * 10) / (100 * w);
      if (speed > fastest) fastest = speed;
      if (speed < slowest) slowest = speed;
    }
    range = { fastest, slowest: Math.max(0.1, Number.isFinite(slowest) ? slowest : 1) };
    speedRanges.set(g, range);
  }
  return range;
}
