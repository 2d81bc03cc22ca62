// Turning back only where a road ends, as OSRM's car, bicycle and foot profiles do: a path that arrives
// at a node along a road and leaves along the same road back is a U-turn, allowed only at a dead end (a
// node of one road). The hierarchy searches a node-based graph, which cannot tell how a node was reached;
// so a leg's path is checked after the search (a turn-back at a node with other roads, or at the waypoint
// pieces' ends), and only such a leg is searched again here, on the road graph with the arriving road as
// part of the state (an edge-based Dijkstra, labels kept sparse in maps). The best path without a turn-back
// is never cheaper than the best path with any, so a leg whose hierarchy path has none is already exact;
// a leg searched again is exact too, unless it settles more than the budget's states (then the hierarchy's
// path is kept). docs/directions.md ("Turn costs") has the design, its limits and its measurements.
import type { RoadGraph } from '../map/graphs/road-graph.js';
import type { ReverseView } from './guidance/steps.js';

type TurnGraph = Pick<RoadGraph, 'firstOut' | 'head' | 'weight' | 'orig'> & ReverseView;

/** A seed with the directed original edge its waypoint piece runs along (-1: the waypoint is the node). */
export interface DirectedSeed {
  node: number;
  cost: number;
  /** Sources: the edge arriving at `node` from the waypoint; targets: the edge leaving `node` towards it. */
  dir: number;
}

/** States a search again may settle before the hierarchy's path is kept (a few MB of maps at most). */
const BUDGET = 400_000;

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

/** Whether arriving at v along directed edge `a` and leaving along `d` turns back where that is not allowed. */
const forbidden = (g: TurnGraph, v: number, a: number, d: number): boolean => a >= 0 && d === (a ^ 1) && !deadEnd(g, v);

/** Whether a path (its start node, search edges, and the waypoint pieces' edges at either end) turns back
 *  anywhere but at a dead end. */
export function turnsBack(g: TurnGraph, startDir: number, start: number, edges: Uint32Array, endDir: number): boolean {
  let a = startDir,
    v = start;
  for (let i = 0; i < edges.length; i++) {
    const d = g.orig[edges[i]];
    if (forbidden(g, v, a, d)) return true;
    a = d;
    v = g.head[edges[i]];
  }
  return endDir >= 0 && forbidden(g, v, a, endDir);
}

/**
 * The cheapest path from the sources to the targets that turns back only at dead ends, below `bound`:
 * its cost, search edges and first node; null when there is none below `bound`, 'budget' when the search
 * gave up.
 */
export function withoutTurnBack(
  g: TurnGraph,
  sources: DirectedSeed[],
  targets: DirectedSeed[],
  bound: number,
): { cost: number; edges: Uint32Array; start: number } | null | 'budget' {
  // A state is a search edge (its head and the way it arrived), or M + i for source seed i.
  const M = g.head.length;
  const dist = new Map<number, number>();
  const parent = new Map<number, number>();
  const heapCost: number[] = [],
    heapKey: number[] = [];
  const push = (c: number, k: number): void => {
    let i = heapCost.length;
    heapCost.push(c);
    heapKey.push(k);
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (heapCost[p] <= c) break;
      heapCost[i] = heapCost[p];
      heapKey[i] = heapKey[p];
      i = p;
    }
    heapCost[i] = c;
    heapKey[i] = k;
  };
  const pop = (): void => {
    const c = heapCost.pop()!,
      k = heapKey.pop()!;
    const n = heapCost.length;
    if (n === 0) return;
    let i = 0;
    for (;;) {
      let m = 2 * i + 1;
      if (m >= n) break;
      if (m + 1 < n && heapCost[m + 1] < heapCost[m]) m++;
      if (heapCost[m] >= c) break;
      heapCost[i] = heapCost[m];
      heapKey[i] = heapKey[m];
      i = m;
    }
    heapCost[i] = c;
    heapKey[i] = k;
  };
  const byNode = new Map<number, DirectedSeed[]>();
  for (const t of targets) {
    const list = byNode.get(t.node);
    if (list) list.push(t);
    else byNode.set(t.node, [t]);
  }
  sources.forEach((s, i) => {
    if ((dist.get(M + i) ?? Infinity) <= s.cost) return;
    dist.set(M + i, s.cost);
    push(s.cost, M + i);
  });
  let best = bound,
    bestKey = -1,
    settled = 0;
  while (heapCost.length) {
    const c = heapCost[0],
      k = heapKey[0];
    pop();
    if (c >= best) break;
    if (c > (dist.get(k) ?? Infinity)) continue;
    if (++settled > BUDGET) return 'budget';
    const v = k < M ? g.head[k] : sources[k - M].node;
    const a = k < M ? g.orig[k] : sources[k - M].dir;
    for (const t of byNode.get(v) ?? []) {
      if (!forbidden(g, v, a, t.dir) && c + t.cost < best) {
        best = c + t.cost;
        bestKey = k;
      }
    }
    for (let e = g.firstOut[v]; e < g.firstOut[v + 1]; e++) {
      if (forbidden(g, v, a, g.orig[e])) continue;
      const nc = c + g.weight[e];
      if (nc >= (dist.get(e) ?? Infinity) || nc >= best) continue;
      dist.set(e, nc);
      parent.set(e, k);
      push(nc, e);
    }
  }
  if (bestKey < 0) return null;
  const edges: number[] = [];
  let k = bestKey;
  while (k < M) {
    edges.push(k);
    k = parent.get(k)!;
  }
  return { cost: best, edges: Uint32Array.from(edges.reverse()), start: sources[k - M].node };
}
