// Shared by the routing tests: the Liechtenstein map (built once, cached by the extract's hash under
// data/test-maps), its raw graphs, a plain reference Dijkstra and a geometric distance check.
import { join } from 'node:path';
import { DEFAULT_EXTRACT, ensureMap } from '../../src/map/build.js';
import { readGraphFiles, readManifest, readShapeFiles } from '../../src/map/map-dir.js';
import { nodePositionsE7, toDegrees, type RoadGraph } from '../../src/map/graphs/road-graph.js';
import { projectRoot } from '../../src/lib/paths.js';

/**
 * A graph with its nodes' positions (1e-7 degrees and degrees) and its coordinates in degrees, as the tests
 * read them: geomCoords[2p] is point p of the shared shapes.
 */
export type TestGraph = RoadGraph & { nodeE7: Int32Array; nodeCoords: Float64Array; geomCoords: Float64Array };

/** Node v's position as a waypoint. */
export const nodeAt = (g: TestGraph, v: number): { lat: number; lon: number } => ({ lat: g.nodeCoords[2 * v], lon: g.nodeCoords[2 * v + 1] });

export function withDegrees(g: RoadGraph): TestGraph {
  const nodeE7 = nodePositionsE7(g);
  return Object.assign(g, { nodeE7, nodeCoords: toDegrees(nodeE7), geomCoords: toDegrees(g.shapes.pointsE7) });
}

/**
 * The OSM way of each geometry (the map keeps no way ids: only its build needs them), found by the
 * geometry's first segment among the ways' segments; NaN where none matches.
 */
export function geometryWays(
  g: RoadGraph,
  ways: ReadonlyArray<{ id: number; refs: ArrayLike<number> }>,
  coord: (ref: number) => ArrayLike<number> | undefined,
): Float64Array {
  const key = (lat: number, lon: number): string => `${Math.round(lat * 1e7)},${Math.round(lon * 1e7)}`;
  const wayOfSegment = new Map<string, number>();
  for (const w of ways) {
    for (let i = 1; i < w.refs.length; i++) {
      const a = coord(w.refs[i - 1]),
        b = coord(w.refs[i]);
      if (!a || !b) continue;
      wayOfSegment.set(`${key(a[0], a[1])} ${key(b[0], b[1])}`, w.id);
      wayOfSegment.set(`${key(b[0], b[1])} ${key(a[0], a[1])}`, w.id);
    }
  }
  const p = g.shapes.pointsE7;
  return Float64Array.from({ length: g.geomCount }, (_, geom) => {
    const f = g.geomFirst[geom];
    return wayOfSegment.get(`${p[2 * f]},${p[2 * f + 1]} ${p[2 * f + 2]},${p[2 * f + 3]}`) ?? NaN;
  });
}

/** Every profile of a map directory, over its shapes. */
export async function readGraphs(dir: string): Promise<Record<string, TestGraph>> {
  const manifest = await readManifest(dir);
  const shapes = await readShapeFiles(dir);
  const graphs: Record<string, TestGraph> = {};
  for (const [profile, meta] of Object.entries(manifest.profiles)) graphs[profile] = withDegrees(await readGraphFiles(dir, profile, meta, shapes));
  return graphs;
}

export async function testMap(): Promise<{ dir: string; graphs: Record<string, TestGraph> }> {
  const dir = await ensureMap(join(projectRoot, 'data', 'test-maps'), DEFAULT_EXTRACT);
  return { dir, graphs: await readGraphs(dir) };
}

/**
 * Textbook Dijkstra (binary heap with lazy deletion) over the search graph: tenths of a second per node.
 * Edges on a `blocked` geometry are skipped; with a `target` it stops once that node is settled.
 */
export function dijkstra(g: RoadGraph, source: number, options: { blocked?: Set<number>; target?: number } = {}): Float64Array {
  const { blocked, target } = options;
  const dist = new Float64Array(g.nodeCount).fill(Infinity);
  const heap: Array<[number, number]> = [];
  const push = (d: number, v: number): void => {
    heap.push([d, v]);
    let i = heap.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (heap[p][0] <= heap[i][0]) break;
      [heap[p], heap[i]] = [heap[i], heap[p]];
      i = p;
    }
  };
  const pop = (): [number, number] => {
    const top = heap[0];
    const last = heap.pop()!;
    if (heap.length) {
      heap[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1,
          r = l + 1;
        let m = i;
        if (l < heap.length && heap[l][0] < heap[m][0]) m = l;
        if (r < heap.length && heap[r][0] < heap[m][0]) m = r;
        if (m === i) break;
        [heap[m], heap[i]] = [heap[i], heap[m]];
        i = m;
      }
    }
    return top;
  };
  dist[source] = 0;
  push(0, source);
  while (heap.length) {
    const [d, v] = pop();
    if (d > dist[v]) continue;
    if (v === target) break;
    for (let e = g.firstOut[v]; e < g.firstOut[v + 1]; e++) {
      if (blocked?.has(g.orig[e] >> 1)) continue;
      const w = g.head[e],
        nd = d + g.weight[e];
      if (nd < dist[w]) {
        dist[w] = nd;
        push(nd, w);
      }
    }
  }
  return dist;
}

/** Meters from a point to the segment a–b ([lon, lat] ends), on a local tangent plane with a spherical Earth. */
export function pointSegmentMeters(lat: number, lon: number, a: [number, number], b: [number, number]): number {
  const R = 6371008.8,
    rad = Math.PI / 180;
  const x = (p: [number, number]): number => (p[0] - lon) * rad * R * Math.cos(lat * rad);
  const y = (p: [number, number]): number => (p[1] - lat) * rad * R;
  const ax = x(a),
    ay = y(a),
    bx = x(b),
    by = y(b);
  const dx = bx - ax,
    dy = by - ay;
  const len2 = dx * dx + dy * dy;
  const t = len2 === 0 ? 0 : Math.max(0, Math.min(1, -(ax * dx + ay * dy) / len2));
  return Math.hypot(ax + t * dx, ay + t * dy);
}

export function lineDistanceMeters(lat: number, lon: number, line: Array<[number, number]>): number {
  let best = Infinity;
  for (let i = 0; i + 1 < line.length; i++) best = Math.min(best, pointSegmentMeters(lat, lon, line[i], line[i + 1]));
  if (line.length === 1) best = pointSegmentMeters(lat, lon, line[0], line[0]);
  return best;
}

/** Deterministic pseudo-random numbers (mulberry32), so failures reproduce. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Nodes a waypoint placed exactly on them snaps to unambiguously: real junctions of the main network, no
 *  split copies, with an edge open to the profile's default vehicle. */
export function plainNodes(g: TestGraph, closed: ReadonlySet<number> = new Set()): number[] {
  const seen = new Map<string, number>();
  for (let v = 0; v < g.nodeCount; v++) {
    const key = `${g.nodeCoords[2 * v]},${g.nodeCoords[2 * v + 1]}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
  }
  const out: number[] = [];
  for (let v = 0; v < g.nodeCount; v++) {
    const key = `${g.nodeCoords[2 * v]},${g.nodeCoords[2 * v + 1]}`;
    // The main network is strongly connected: its nodes have edges in and out.
    let open = false;
    for (let e = g.firstOut[v]; e < g.firstOut[v + 1] && !open; e++) open = !closed.has(g.orig[e] >> 1);
    if (g.mainNet[v] === 1 && seen.get(key) === 1 && open) out.push(v);
  }
  return out;
}
