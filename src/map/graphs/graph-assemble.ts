// Turns a list of geometries between graph nodes (plus turn restrictions) into the search graph:
// directed edges, node splitting at restricted via nodes, the forward CSR and the main network. A via-way
// restriction splits its first node by incoming edge too, and gives the path from the from-way along the
// via way a copy of the via way's far node without the banned turns. The
// contraction hierarchy is added afterwards. Used for
// OSM extracts and for the synthetic graphs of the benchmark alike.
import { mainNetwork } from './main-network.js';
import { NO_HEAD, noHierarchy, type RoadGraph, type Shapes } from './road-graph.js';
import { buildGuide } from './road-guide.js';

export interface GraphInput {
  nodeCount: number;
  /** lat, lon per graph node. */
  nodeCoords: Float64Array;
  /** Per geometry: first and last graph node, durations along/against (tenths of a second, 0 = closed), way id. */
  geomA: Uint32Array;
  geomB: Uint32Array;
  geomFwd: Uint32Array;
  geomBwd: Uint32Array;
  geomWay: Float64Array;
  /** Length in whole centimeters. */
  geomCm: Uint32Array;
  /** First and last point of each geometry in the shared shapes (inclusive). */
  geomFirst: Uint32Array;
  geomLast: Uint32Array;
  restrictions: Array<{ via: number; fromWay: number; toWay: number; only: boolean }>;
  /**
   * Restrictions along via ways: from-way into graph node `nodes[0]`, then via way i as one geometry from
   * `nodes[i]` to `nodes[i + 1]`, then the to-way.
   */
  viaWayRestrictions?: Array<{ nodes: number[]; fromWay: number; viaWays: number[]; toWay: number; only: boolean }>;
  /** Geometries with physical limits (ascending) and their height, width, length, weight (4 each); see RoadGraph. */
  limitGeom?: Uint32Array;
  limitValue?: Float64Array;
  /** Per geometry its exclude classes (bits of EXCLUDE_BIT); none when left out. */
  geomClass?: Uint8Array;
  /** Per geometry its way's number of lanes (profile-ways.ts `laneCountOf`), read by `buildGuide` only. */
  geomLanes?: Uint8Array;
  /** The maneuver relations' records (maneuvers.ts `resolveManeuvers`); none when left out. */
  maneuvers?: Int32Array;
  /** Whether the graph carries turn guidance's records (`geomGuide`; `guided` in profiles.ts). */
  guided?: boolean;
}

/** The search graph of `input`, over the map's shared `shapes` (while building, possibly not complete yet). */
export function assembleGraph(input: GraphInput, shapes: Shapes): RoadGraph {
  const { nodeCount, geomA, geomB, geomFwd, geomBwd, geomWay } = input;
  const G = geomA.length;
  const D = 2 * G;
  const tailOfD = (d: number): number => (d & 1 ? geomB[d >> 1] : geomA[d >> 1]);
  const headOfD = (d: number): number => (d & 1 ? geomA[d >> 1] : geomB[d >> 1]);
  const weightOfD = (d: number): number => (d & 1 ? geomBwd[d >> 1] : geomFwd[d >> 1]);

  // Restrictions grouped by via node; only those nodes get split. The flags and the copy table are typed
  // arrays: every directed edge is looked up, and a Map per lookup costs more than the rest of the loop.
  const byVia = new Map<number, Array<{ fromWay: number; toWay: number; only: boolean }>>();
  const isVia = new Uint8Array(nodeCount);
  for (const r of input.restrictions) {
    let list = byVia.get(r.via);
    if (!list) byVia.set(r.via, (list = []));
    list.push(r);
    isVia[r.via] = 1;
  }
  const viaWays = input.viaWayRestrictions ?? [];
  for (const r of viaWays) {
    if (!byVia.has(r.nodes[0])) byVia.set(r.nodes[0], []);
    isVia[r.nodes[0]] = 1;
  }
  // Incoming directed edges of each restricted node, and the copy node each of them ends at.
  const incoming = new Map<number, number[]>();
  for (let d = 0; d < D; d++) {
    if (weightOfD(d) === 0) continue;
    const h = headOfD(d);
    if (isVia[h]) {
      let list = incoming.get(h);
      if (!list) incoming.set(h, (list = []));
      list.push(d);
    }
  }
  const copyOf = new Int32Array(D).fill(-1); // directed edge → copy node at its head
  const copies: number[] = [];
  let N = nodeCount;
  for (const list of incoming.values())
    for (const d of list) {
      copyOf[d] = N++;
      copies.push(d);
    }

  // Via-way plans: arriving at the first via node over the from-way (a copy node) and going along the
  // via ways leads, way by way, to new copies of their far nodes; the last one's way on leaves out the
  // banned turns, the others' lead on as their originals do. Keyed by the node left and the edge taken.
  const plans = new Map<string, { node: number; d: number; bans: Array<{ toWay: number; only: boolean }> }>();
  const outOf = new Map<number, number[]>();
  // The open directed edges of each via way, found in one pass over the edges.
  const edgesOfWay = new Map<number, number[]>();
  for (const r of viaWays) for (const w of r.viaWays) edgesOfWay.set(w, []);
  if (edgesOfWay.size) for (let d = 0; d < D; d++) if (weightOfD(d) > 0) edgesOfWay.get(geomWay[d >> 1])?.push(d);
  for (const r of viaWays) {
    // Each via way from its first node to its last, piece by piece where junctions split it (a side road
    // joining it in the middle): every piece becomes a step of the plan, so turning off at such a
    // junction leaves the restriction as turning off after a via way does.
    const along: number[] = [];
    let whole = true;
    for (let i = 0; whole && i + 1 < r.nodes.length; i++) {
      const pieces = edgesOfWay.get(r.viaWays[i])!;
      let at = r.nodes[i];
      let last = -1;
      while (whole && at !== r.nodes[i + 1]) {
        const e = pieces.find((d) => tailOfD(d) === at && d !== (last ^ 1));
        // Not open that way, or not running from the one end to the other (a loop, a fork).
        if (e === undefined || along.length > pieces.length + r.nodes.length) whole = false;
        else {
          along.push(e);
          last = e;
          at = headOfD(e);
        }
      }
    }
    if (!whole) continue;
    for (const f of incoming.get(r.nodes[0]) ?? []) {
      if (geomWay[f >> 1] !== r.fromWay) continue;
      let at = copyOf[f];
      let plan: { node: number; d: number; bans: Array<{ toWay: number; only: boolean }> } | undefined;
      for (const d of along) {
        const key = `${at}:${d}`;
        plan = plans.get(key);
        if (!plan) plans.set(key, (plan = { node: N++, d, bans: [] }));
        outOf.set(headOfD(d), []);
        at = plan.node;
      }
      plan!.bans.push({ toWay: r.toWay, only: r.only });
    }
  }
  if (outOf.size) for (let d = 0; d < D; d++) if (weightOfD(d) > 0) outOf.get(tailOfD(d))?.push(d);
  const planEdges = (plan: { d: number; bans: Array<{ toWay: number; only: boolean }> }): number[] => {
    const at = headOfD(plan.d);
    // Not back along the via way either: turning there would undo the restriction one node later.
    return outOf
      .get(at)!
      .filter(
        (e) =>
          e !== (plan.d ^ 1) &&
          plan.bans.every((b) => (b.only ? geomWay[e >> 1] === b.toWay : geomWay[e >> 1] !== b.toWay)) &&
          (!byVia.get(at)?.length || allowed(plan.d, e, at)),
      );
  };

  const allowed = (f: number, d: number, via: number): boolean => {
    for (const r of byVia.get(via)!) {
      if (geomWay[f >> 1] !== r.fromWay) continue;
      // from = to is a U-turn ban: it forbids reversing onto the same piece, not going on along the way.
      if (r.fromWay === r.toWay) {
        if (d >> 1 === f >> 1) return false;
      } else if (r.only ? geomWay[d >> 1] !== r.toWay : geomWay[d >> 1] === r.toWay) return false;
    }
    return true;
  };

  // Search edges: (tail, head, weight, orig); counted first so the arrays are allocated once.
  const sourcesOf = (d: number): number[] => {
    const t = tailOfD(d);
    const inc = incoming.get(t);
    if (!inc) return byVia.has(t) ? [] : [t];
    return inc.filter((f) => allowed(f, d, t)).map((f) => copyOf[f]);
  };
  let M = 0;
  for (let d = 0; d < D; d++) {
    if (weightOfD(d) === 0) continue;
    M += isVia[tailOfD(d)] ? sourcesOf(d).length : 1;
  }
  const planOut = [...plans.values()].map((plan) => ({ plan, edges: planEdges(plan) }));
  for (const { edges } of planOut) M += edges.length;
  const eTail = new Uint32Array(M),
    eHead = new Uint32Array(M),
    eWeight = new Uint32Array(M),
    eOrig = new Uint32Array(M);
  const origWeight = new Uint32Array(D);
  const origHead = new Uint32Array(D).fill(NO_HEAD);
  let m = 0;
  for (let d = 0; d < D; d++) {
    const w = weightOfD(d);
    if (w === 0) continue;
    const h = copyOf[d] >= 0 ? copyOf[d] : headOfD(d);
    origWeight[d] = w;
    origHead[d] = h;
    const t = tailOfD(d);
    if (!isVia[t]) {
      eTail[m] = t;
      eHead[m] = h;
      eWeight[m] = w;
      eOrig[m] = d;
      m++;
      continue;
    }
    for (const s of sourcesOf(d)) {
      eTail[m] = s;
      eHead[m] = plans.get(`${s}:${d}`)?.node ?? h;
      eWeight[m] = w;
      eOrig[m] = d;
      m++;
    }
  }
  for (const { plan, edges } of planOut) {
    for (const e of edges) {
      eTail[m] = plan.node;
      eHead[m] = plans.get(`${plan.node}:${e}`)?.node ?? (copyOf[e] >= 0 ? copyOf[e] : headOfD(e));
      eWeight[m] = weightOfD(e);
      eOrig[m] = e;
      m++;
    }
  }

  // Forward CSR by counting sort on the tail (stable, so edges keep the geometry order).
  const firstOut = new Uint32Array(N + 1);
  for (let e = 0; e < M; e++) firstOut[eTail[e] + 1]++;
  for (let v = 0; v < N; v++) firstOut[v + 1] += firstOut[v];
  const fill = firstOut.slice(0, N);
  const head = new Uint32Array(M),
    weight = new Uint32Array(M),
    orig = new Uint32Array(M);
  for (let e = 0; e < M; e++) {
    const i = fill[eTail[e]]++;
    head[i] = eHead[e];
    weight[i] = eWeight[e];
    orig[i] = eOrig[e];
  }
  // Directed original edge → its search edges.
  const origFirst = new Uint32Array(D + 1);
  for (let e = 0; e < M; e++) origFirst[orig[e] + 1]++;
  for (let d = 0; d < D; d++) origFirst[d + 1] += origFirst[d];
  const fillO = origFirst.slice(0, D);
  const origEdges = new Uint32Array(M);
  for (let e = 0; e < M; e++) origEdges[fillO[orig[e]]++] = e;

  return {
    nodeCount: N,
    edgeCount: M,
    geomCount: G,
    firstOut,
    head,
    weight,
    orig,
    geomFirst: input.geomFirst,
    geomLast: input.geomLast,
    geomCm: input.geomCm,
    origFirst,
    origEdges,
    origWeight,
    origHead,
    mainNet: mainNetwork(N, firstOut, head),
    limitGeom: input.limitGeom ?? new Uint32Array(0),
    limitValue: input.limitValue ?? new Float64Array(0),
    geomClass: input.geomClass ?? new Uint8Array(G),
    geomGuide: input.guided ? buildGuide(input, shapes) : new Int32Array(0),
    maneuvers: input.maneuvers ?? new Int32Array(0),
    ...noHierarchy(),
    shapes,
  };
}
