// ALT landmarks: chosen far apart by repeated farthest-node selection, then one forward and one
// backward Dijkstra each (run by the route kernel) fill the node-major lower-bound tables.
import { claimRegion, placeGraphs } from '../routing/graph-memory.js';
import { RouteKernel } from '../routing/route-kernel.js';
import type { RoadGraph } from './road-graph.js';

const UNREACHED = 0xffffffff;

export function addLandmarks(graph: RoadGraph, count: number): RoadGraph {
  const N = graph.nodeCount;
  const L = Math.min(count, N);
  if (L === 0 || graph.edgeCount === 0) return graph;
  const shared = placeGraphs({ g: { ...graph, landmarkCount: 0, lmFrom: new Uint32Array(0), lmTo: new Uint32Array(0) } });
  const layout = shared.layout.graphs.g;
  const kernel = new RouteKernel(shared);
  const outFwd = claimRegion(shared.memory, N * 4);
  const outBwd = claimRegion(shared.memory, N * 4);
  const lmFrom = new Uint32Array(N * L).fill(UNREACHED);
  const lmTo = new Uint32Array(N * L).fill(UNREACHED);
  // Separation score: the smallest round-trip bound to any landmark chosen so far.
  const score = new Float64Array(N).fill(Infinity);
  let start = 0;
  for (let v = 0; v < N; v++) if (graph.firstOut[v + 1] - graph.firstOut[v] > graph.firstOut[start + 1] - graph.firstOut[start]) start = v;
  kernel.sssp(layout, start, false, outFwd);
  let next = farthest(new Uint32Array(shared.memory.buffer, outFwd, N), null, score);
  for (let l = 0; l < L && next >= 0; l++) {
    kernel.sssp(layout, next, false, outFwd);
    kernel.sssp(layout, next, true, outBwd);
    const buffer = shared.memory.buffer;
    const fwd = new Uint32Array(buffer, outFwd, N), bwd = new Uint32Array(buffer, outBwd, N);
    for (let v = 0; v < N; v++) {
      lmFrom[v * L + l] = fwd[v];
      lmTo[v * L + l] = bwd[v];
      const roundTrip = fwd[v] === UNREACHED || bwd[v] === UNREACHED ? Infinity : fwd[v] + bwd[v];
      if (roundTrip < score[v]) score[v] = roundTrip;
    }
    score[next] = 0;
    next = farthest(fwd, bwd, score);
  }
  return { ...graph, landmarkCount: L, lmFrom, lmTo };
}

/** The node reached from the last landmark (and back) with the highest finite separation score. */
function farthest(fwd: Uint32Array, bwd: Uint32Array | null, score: Float64Array): number {
  let best = -1, bestScore = -1;
  for (let v = 0; v < fwd.length; v++) {
    if (fwd[v] === UNREACHED || (bwd && bwd[v] === UNREACHED)) continue;
    const s = bwd ? score[v] : fwd[v];
    if (s > bestScore && s !== Infinity) { bestScore = s; best = v; }
  }
  return bestScore > 0 ? best : -1;
}
