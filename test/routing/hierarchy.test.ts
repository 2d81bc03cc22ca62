// The contraction hierarchy on the real Liechtenstein graphs, in-process (no pool): unpacked CH paths are
// connected chains of search edges with the reference cost and a continuous geometry, the bucket matrix
// equals the reference, and avoidance still searches the plain graph with the blocked bitset.
import { beforeAll, describe, expect, it } from 'vitest';
import { contractGraph } from '../../src/map/graphs/contraction.js';
import { edgeTail, type RoadGraph } from '../../src/map/graphs/road-graph.js';
import { placeGraphs, type SharedGraphs } from '../../src/engine/graph-memory.js';
import { edgeShape } from '../../src/engine/phantom.js';
import { RouteCore } from '../../src/engine/route-core.js';
import { RouteKernel, SearchStopped } from '../../src/engine/route-kernel.js';
import { dijkstra, rng, testMap, type TestGraph } from './helpers.js';
import { pairsOf } from '../../src/engine/line-json.js';

let graphs: Record<string, TestGraph>;
let shared: SharedGraphs;

beforeAll(async () => {
  graphs = (await testMap()).graphs;
  shared = placeGraphs(graphs);
});

/** Nodes on the main network (its largest strongly connected part) with no split copy. */
function mainNodes(g: TestGraph): number[] {
  const copies = new Map<string, number>();
  const key = (v: number): string => `${g.nodeCoords[2 * v]},${g.nodeCoords[2 * v + 1]}`;
  for (let v = 0; v < g.nodeCount; v++) copies.set(key(v), (copies.get(key(v)) ?? 0) + 1);
  const out: number[] = [];
  for (let v = 0; v < g.nodeCount; v++) {
    // The main network is strongly connected: its nodes have edges in and out.
    if (g.mainNet[v] === 1 && copies.get(key(v)) === 1) out.push(v);
  }
  return out;
}

/** A search graph of `nodeCount` nodes from [tail, head, tenths] edges, each its own geometry of `cmPerTenth` × tenths centimeters. */
function graphOf(nodeCount: number, edges: number[][], cmPerTenth: number): RoadGraph {
  edges.sort((x, y) => x[0] - y[0]);
  const firstOut = new Uint32Array(nodeCount + 1);
  for (const [v] of edges) firstOut[v + 1]++;
  for (let v = 0; v < nodeCount; v++) firstOut[v + 1] += firstOut[v];
  return {
    nodeCount,
    edgeCount: edges.length,
    firstOut,
    head: Uint32Array.from(edges.map((e) => e[1])),
    weight: Uint32Array.from(edges.map((e) => e[2])),
    orig: Uint32Array.from(edges.map((_, i) => 2 * i)),
    geomCm: Uint32Array.from(edges.map((e) => e[2] * cmPerTenth)),
  } as unknown as RoadGraph;
}

describe('contraction hierarchy', () => {
  it('every map profile has one; contracting its graph again gives the same edges, ranks forming a permutation', () => {
    for (const g of Object.values(graphs)) {
      expect(g.chA.length).toBe(g.upHead.length + g.dnTail.length);
      // Only parallel edges and loops of the search graph may be dropped.
      expect(g.chA.length).toBeGreaterThanOrEqual(g.edgeCount * 0.9);
      // The map keeps no node order: a fresh contraction (deterministic) shows the one it was built with.
      const ch = contractGraph(g);
      expect(Array.from(ch.upHead)).toEqual(Array.from(g.upHead));
      expect(Array.from(ch.dnCm)).toEqual(Array.from(g.dnCm));
      const seen = new Uint8Array(g.nodeCount);
      for (const r of ch.rank) seen[r]++;
      expect(seen.every((c) => c === 1)).toBe(true);
      // Upward edges go up, downward edges come down.
      for (let v = 0; v < g.nodeCount; v++) {
        for (let i = g.upFirst[v]; i < g.upFirst[v + 1]; i++) expect(ch.rank[g.upHead[i]]).toBeGreaterThan(ch.rank[v]);
        for (let i = g.dnFirst[v]; i < g.dnFirst[v + 1]; i++) expect(ch.rank[g.dnTail[i]]).toBeGreaterThan(ch.rank[v]);
      }
    }
  });

  it.each(['driving-car', 'foot-walking'])(
    "%s: unpacked CH paths and A* paths over the hierarchy's potentials (from either end) are connected, cost the reference and have a continuous geometry",
    (profile) => {
      const g = graphs[profile];
      expect(shared.profiles[profile].layout.hierarchy).toBe(true);
      const kernel = new RouteKernel(shared.profiles[profile]);
      kernel.clearBlocked(); // cleared: the A* search below must find the unblocked optimum
      const nodes = mainNodes(g);
      const rand = rng(11);
      let checked = 0;
      for (let i = 0; i < 20; i++) {
        const s = nodes[Math.floor(rand() * nodes.length)];
        const ref = dijkstra(g, s);
        for (let k = 0; k < 10; k++) {
          const t = nodes[Math.floor(rand() * nodes.length)];
          for (const [search, backward] of [
            ['hierarchy', false],
            ['guided', false],
            ['guided', true],
          ] as const) {
            const found = kernel.shortestPath([{ node: s, cost: 0, meters: 0 }], [{ node: t, cost: 0, meters: 0 }], Infinity, search, { backward });
            if (ref[t] === Infinity) {
              expect(found).toBeNull();
              continue;
            }
            expect(found).not.toBeNull();
            const { cost, edges, start } = found!;
            expect(cost).toBe(ref[t]);
            expect(start).toBe(s);
            let sum = 0,
              at = s;
            let last: [number, number] | null = null;
            for (const e of edges) {
              expect(edgeTail(g, e)).toBe(at);
              at = g.head[e];
              sum += g.weight[e];
              const shape = edgeShape(g, g.orig[e]);
              if (last) expect(shape[0]).toEqual(last);
              last = shape[shape.length - 1];
            }
            expect(at).toBe(t);
            expect(sum).toBe(ref[t]);
            checked++;
          }
        }
      }
      expect(kernel.searches.hierarchy).toBe(200);
      expect(kernel.searches.blocked).toBe(400);
      // A search that looks at its stop signal every few nodes finds the same path, and gives up when told.
      for (const backward of [false, true]) {
        const s = nodes[0],
          t = nodes[nodes.length - 1];
        const whole = kernel.shortestPath([{ node: s, cost: 0, meters: 0 }], [{ node: t, cost: 0, meters: 0 }], Infinity, 'guided', { backward });
        let looks = 0;
        const sliced = kernel.shortestPath([{ node: s, cost: 0, meters: 0 }], [{ node: t, cost: 0, meters: 0 }], Infinity, 'guided', {
          backward,
          slice: 3,
          stop: () => (looks++, false),
        });
        expect(whole).not.toBeNull();
        expect(sliced).toEqual(whole);
        const settled = kernel.settled();
        expect(looks).toBeGreaterThan(20);
        const stopAt = Math.floor(looks / 2);
        looks = 0;
        expect(() =>
          kernel.shortestPath([{ node: s, cost: 0, meters: 0 }], [{ node: t, cost: 0, meters: 0 }], Infinity, 'guided', {
            backward,
            slice: 3,
            stop: () => looks++ >= stopAt,
          }),
        ).toThrow(SearchStopped);
        expect(kernel.settled()).toBeLessThan(settled);
        looks = 0;
        expect(() =>
          kernel.shortestPath([{ node: s, cost: 0, meters: 0 }], [{ node: t, cost: 0, meters: 0 }], Infinity, 'guided', { backward, stop: () => true }),
        ).toThrow(SearchStopped);
      }
      expect(kernel.searches.plain).toBe(0);
      expect(checked).toBeGreaterThan(450);
    },
  );

  it.each(['driving-car', 'foot-walking'])(
    "%s: hierarchyBelow (the alternatives' T-test) says whether the reference distance is below the bound",
    (profile) => {
      const g = graphs[profile];
      const kernel = new RouteKernel(shared.profiles[profile]);
      const nodes = mainNodes(g);
      const rand = rng(36);
      let below = 0,
        notBelow = 0;
      for (let i = 0; i < 10; i++) {
        const s = nodes[Math.floor(rand() * nodes.length)];
        const ref = dijkstra(g, s);
        for (let k = 0; k < 10; k++) {
          const t = k === 0 ? s : nodes[Math.floor(rand() * nodes.length)];
          // Durations are whole tenths: half a tenth either side of the reference decides.
          for (const bound of [ref[t] + 0.5, ref[t] - 0.5, ref[t] + 1000, ref[t] / 2]) {
            const answer = kernel.hierarchyBelow(s, t, bound);
            expect(answer).toBe(ref[t] < bound);
            if (answer) below++;
            else notBelow++;
          }
        }
      }
      // Two bounds above and two at or under the distance per pair (a node to itself, 0, is not below 0).
      expect(below).toBe(200);
      expect(notBelow).toBe(200);
    },
  );

  // The warm-up pages the default profile's scratch in before a map serves (RouteCore.pageInDefault): the
  // pages must become resident then, once, and what the searches left in them must stay as it was.
  it("pageIn makes a kernel's per-node scratch resident, once, and leaves the searches' labels as they were", () => {
    // Residency: a scratch claimed for a country's 2 M nodes (Liechtenstein's is too small for the process's
    // RSS to tell), never searched.
    const pm = shared.profiles['driving-car'];
    const big = new RouteKernel({ ...pm, layout: { ...pm.layout, nodeCount: 2_000_000 } });
    const before = process.memoryUsage.rss();
    const bytes = big.pageIn();
    const grown = process.memoryUsage.rss() - before;
    // Both sides' labels of each node at least (layouts.json nodeRecord: 32 bytes a side), within the
    // region claimed (scratch.bytesPerNode: 108 bytes a node).
    expect(bytes).toBeGreaterThanOrEqual(2 * 32 * 2_000_000);
    expect(bytes).toBeLessThanOrEqual(108 * 2_000_000);
    // A fresh region is claimed untouched: all of it came in now.
    expect(grown).toBeGreaterThan(0.95 * bytes);
    expect(big.pageIn()).toBe(bytes);
    expect(process.memoryUsage.rss() - before - grown).toBeLessThan(0.02 * bytes);

    // Contents: a search answers the same after its pages were written over with what they held.
    const g = graphs['driving-car'];
    const kernel = new RouteKernel(pm);
    kernel.clearBlocked();
    const nodes = mainNodes(g);
    const ask = () =>
      kernel.shortestPath([{ node: nodes[0], cost: 0, meters: 0 }], [{ node: nodes[nodes.length - 1], cost: 0, meters: 0 }], Infinity, 'guided');
    const first = ask();
    expect(first).not.toBeNull();
    kernel.pageIn();
    const second = ask();
    expect(second!.cost).toBe(first!.cost);
    expect(Array.from(second!.edges)).toEqual(Array.from(first!.edges));
  });

  // An optimize plan is built on the matrix, which snaps every point to the main network; its tours must be
  // routed the same way, or a stop on a piece the main network cannot leave (a oneway stub, a driveway
  // behind a barrier) has a matrix entry but no route, and the plan fails with 502 (seen at 32x32).
  it('a route snapped to the main network joins off-network points the matrix joins, with its durations', () => {
    const g = graphs['driving-car'];
    const core = new RouteCore(shared, { turnPrices: false });
    const main = mainNodes(g);
    const rand = rng(5);
    let compared = 0;
    for (let tries = 0; tries < 5000 && compared < 5; tries++) {
      const v = Math.floor(rand() * g.nodeCount);
      if (g.mainNet[v] === 1) continue;
      const w = main[Math.floor(rand() * main.length)];
      const a = { lat: g.nodeCoords[2 * v], lon: g.nodeCoords[2 * v + 1] },
        b = { lat: g.nodeCoords[2 * w], lon: g.nodeCoords[2 * w + 1] };
      if (core.route({ profile: 'driving-car', waypoints: [a, b, a] }).ok) continue;
      const m = core.matrix({ profile: 'driving-car', points: [a, b] });
      if (!m.ok || m.value.durations[0][1] === null || m.value.durations[1][0] === null) continue;
      const tour = core.route({ profile: 'driving-car', waypoints: [a, b, a], mainNetwork: true });
      expect(tour.ok).toBe(true);
      if (!tour.ok) return;
      expect(tour.value.legs[0].duration).toBeCloseTo(m.value.durations[0][1]!, 1);
      expect(tour.value.legs[1].duration).toBeCloseTo(m.value.durations[1][0]!, 1);
      compared++;
    }
    expect(compared).toBe(5);
  });

  // 24 points keep the buckets chained; 80 (over 64 target nodes) has them laid out per node first.
  it.each([24, 80])('the bucket matrix of %i points equals the reference Dijkstra between graph nodes', (count) => {
    const g = graphs['driving-car'];
    const core = new RouteCore(shared, { turnPrices: false });
    const nodes = mainNodes(g);
    const rand = rng(3);
    const picked = Array.from({ length: count }, () => nodes[Math.floor(rand() * nodes.length)]);
    const points = picked.map((v) => ({ lat: g.nodeCoords[2 * v], lon: g.nodeCoords[2 * v + 1] }));
    const m = core.matrix({ profile: 'driving-car', points });
    if (!m.ok) throw new Error('matrix failed');
    expect(core.searches.hierarchy).toBe(points.length);
    for (let i = 0; i < points.length; i++) {
      // Points snap to a geometry end at their node; the reference runs from that node.
      const ref = dijkstra(g, picked[i]);
      for (let j = 0; j < points.length; j++) {
        const expected = i === j ? 0 : ref[picked[j]] / 10;
        expect(m.value.durations[i][j]).toBeCloseTo(expected, 6);
      }
    }
  });

  it('avoidance searches the plain graph with the blocked bitset; plain queries use the hierarchy', () => {
    const core = new RouteCore(shared, { turnPrices: false });
    const a = { lat: 47.1412, lon: 9.5215 },
      b = { lat: 47.1655, lon: 9.51 };
    const plain = core.route({ profile: 'driving-car', waypoints: [a, b] });
    if (!plain.ok) throw new Error('expected a route');
    expect(core.searches).toEqual({ hierarchy: 1, blocked: 0, plain: 0, turns: 0 });
    // A circle on the middle of the plain route: the plain leg touches it, so the leg is searched again, blocked.
    const [lon, lat] = pairsOf(plain.value.geometry)[Math.floor(pairsOf(plain.value.geometry).length / 2)];
    const avoided = core.route({ profile: 'driving-car', waypoints: [a, b], avoid: { circles: [{ lat, lon, radius: 30 }] } });
    if (!avoided.ok) throw new Error('expected an avoided route');
    expect(core.searches).toEqual({ hierarchy: 2, blocked: 1, plain: 0, turns: 0 });
    expect(avoided.value.duration).toBeGreaterThanOrEqual(plain.value.duration);
    expect(pairsOf(avoided.value.geometry)).not.toEqual(pairsOf(plain.value.geometry));
    const m = core.matrix({ profile: 'driving-car', points: [a, b, { lat: 47.15, lon: 9.515 }], avoid: { circles: [{ lat, lon, radius: 30 }] } });
    expect(m.ok).toBe(true);
    expect(core.searches).toEqual({ hierarchy: 2, blocked: 4, plain: 0, turns: 0 });
  });

  it("contracts a dense random graph exactly while its edge pool grows and its lists run out of room (the kernel's memory given back and reused)", () => {
    // Random long edges make no road network: contraction adds shortcuts well past the room sized for road
    // graphs (2.2 pool edges, 2.6 list entries per input edge), so the pool grows and the lists are compacted.
    const n = 1500;
    const next = rng(7);
    const edges: number[][] = [];
    for (let v = 0; v < n; v++) {
      for (let k = 0; k < 3; k++) {
        const w = Math.floor(next() * n);
        if (w !== v) edges.push([v, w, 1 + Math.floor(next() * 1000)]);
      }
    }
    const g = graphOf(n, edges, 100);
    const ch = contractGraph(g);
    expect(ch.listCompactions).toBeGreaterThan(0);
    expect(ch.chA.length).toBeGreaterThan(2.2 * edges.length);
    // The hierarchy's two halves as graphs of their own: upward edges from a node, downward edges read at their lower end.
    const up = { nodeCount: n, firstOut: ch.upFirst, head: ch.upHead, weight: ch.upWeight } as unknown as RoadGraph;
    const down = { nodeCount: n, firstOut: ch.dnFirst, head: ch.dnTail, weight: ch.dnWeight } as unknown as RoadGraph;
    let reached = 0;
    for (let k = 0; k < 25; k++) {
      const s = Math.floor(next() * n);
      const ref = dijkstra(g, s);
      const fwd = dijkstra(up, s);
      for (let j = 0; j < 8; j++) {
        const t = Math.floor(next() * n);
        const bwd = dijkstra(down, t);
        let best = Infinity;
        for (let v = 0; v < n; v++) best = Math.min(best, fwd[v] + bwd[v]);
        expect(best).toBe(ref[t]);
        if (ref[t] < Infinity) reached++;
      }
    }
    expect(reached).toBeGreaterThan(150);
  });

  it('contracts a small graph with a parallel edge and a self loop to exact shortest paths', () => {
    // 0→1 twice (10 and 4 tenths), 1→1 loop, 1→2 (5), 0→2 (12), 2→0 (3): 0→2 costs 9 via 1.
    const edges = [
      [0, 1, 10],
      [0, 1, 4],
      [0, 2, 12],
      [1, 1, 2],
      [1, 2, 5],
      [2, 0, 3],
    ];
    const ch = contractGraph(graphOf(3, edges, 1000));
    // Upward from 0 and downward into 2 must meet at a cost of 9 (4 + 5); the 10-tenth parallel edge and the loop are gone.
    const weights = [...ch.upWeight, ...ch.dnWeight];
    expect(weights).not.toContain(10);
    expect(weights).not.toContain(2);
    expect(ch.chA.length).toBe(ch.upHead.length + ch.dnTail.length);
    const up = (v: number) =>
      Array.from({ length: ch.upFirst[v + 1] - ch.upFirst[v] }, (_, k) => [ch.upHead[ch.upFirst[v] + k], ch.upWeight[ch.upFirst[v] + k]]);
    const down = (v: number) =>
      Array.from({ length: ch.dnFirst[v + 1] - ch.dnFirst[v] }, (_, k) => [ch.dnTail[ch.dnFirst[v] + k], ch.dnWeight[ch.dnFirst[v] + k]]);
    // Best up-down path 0 → 2 over the hierarchy (3 nodes: at most one meeting node in between).
    let best = Infinity;
    const fwd = new Map<number, number>([[0, 0]]);
    for (const [w, c] of up(0)) fwd.set(w, c);
    for (const [w, c] of [...fwd]) for (const [x, c2] of up(w)) if (!fwd.has(x) || fwd.get(x)! > c + c2) fwd.set(x, c + c2);
    const bwd = new Map<number, number>([[2, 0]]);
    for (const [u, c] of down(2)) bwd.set(u, c);
    for (const [u, c] of [...bwd]) for (const [x, c2] of down(u)) if (!bwd.has(x) || bwd.get(x)! > c + c2) bwd.set(x, c + c2);
    for (const [v, c] of fwd) if (bwd.has(v)) best = Math.min(best, c + bwd.get(v)!);
    expect(best).toBe(9);
  });
});
