// Places road graphs in one shared WebAssembly.Memory that every worker instantiates the route kernel
// over, and gives typed-array views of them back. Layout: the kernel's static data below 64 KiB, then per
// profile a 128-byte descriptor (read by the kernel) and its arrays; worker scratch regions are appended
// later by each worker growing the memory (grow is atomic, so the old size is that worker's own region).
import { GRAPH_ARRAYS, type GraphArrayName, type GridParams, type RoadGraph } from '../map/road-graph.js';

const PAGE = 65536;
const MAX_PAGES = 65536;
const DATA_START = PAGE;
const DESCRIPTOR_BYTES = 128;

export interface ArraySlot { offset: number; length: number }
export interface GraphLayout {
  desc: number;
  nodeCount: number;
  edgeCount: number;
  geomCount: number;
  landmarkCount: number;
  /** Whether the graph has a contraction hierarchy (unblocked queries use it). */
  hierarchy: boolean;
  grid: GridParams;
  arrays: Record<GraphArrayName, ArraySlot>;
}
export interface MemoryLayout {
  graphs: Record<string, GraphLayout>;
  /** Largest node count: sizes the per-worker scratch. */
  capacity: number;
  /** Largest geometry count: sizes the blocked bitset. */
  maxGeoms: number;
}
export interface SharedGraphs { memory: WebAssembly.Memory; layout: MemoryLayout }

const BYTES = { u32: 4, f64: 8 } as const;
const align8 = (n: number): number => (n + 7) & ~7;

/** Copies the graphs into a new shared memory. */
export function placeGraphs(graphs: Record<string, RoadGraph>): SharedGraphs {
  let offset = DATA_START;
  const layouts: Record<string, GraphLayout> = {};
  for (const [name, g] of Object.entries(graphs)) {
    const desc = offset;
    offset += DESCRIPTOR_BYTES;
    const arrays = {} as Record<GraphArrayName, ArraySlot>;
    for (const [key, type] of GRAPH_ARRAYS) {
      offset = align8(offset);
      arrays[key] = { offset, length: g[key].length };
      offset += g[key].length * BYTES[type];
    }
    layouts[name] = {
      desc, nodeCount: g.nodeCount, edgeCount: g.edgeCount, geomCount: g.geomCount, landmarkCount: g.landmarkCount,
      hierarchy: g.chA.length > 0 && g.rank.length === g.nodeCount, grid: g.grid, arrays,
    };
  }
  const pages = Math.ceil(offset / PAGE) + 1;
  if (pages > MAX_PAGES) throw new Error(`road graphs need ${pages} pages, more than the 4 GiB a wasm32 memory holds`);
  const memory = new WebAssembly.Memory({ initial: pages, maximum: MAX_PAGES, shared: true });
  const buffer = memory.buffer;
  for (const [name, g] of Object.entries(graphs)) {
    const l = layouts[name];
    for (const [key, type] of GRAPH_ARRAYS) {
      const slot = l.arrays[key];
      if (type === 'u32') new Uint32Array(buffer, slot.offset, slot.length).set(g[key] as Uint32Array);
      else new Float64Array(buffer, slot.offset, slot.length).set(g[key] as Float64Array);
    }
    const a = l.arrays;
    new Uint32Array(buffer, l.desc, 24).set([
      g.nodeCount, g.edgeCount, a.firstOut.offset, a.head.offset, a.weight.offset, a.orig.offset,
      a.firstIn.offset, a.inEdge.offset, a.inTail.offset, g.landmarkCount, a.lmFrom.offset, a.lmTo.offset, a.geomLength.offset,
      g.upHead.length, a.upFirst.offset, a.upHead.offset, a.upWeight.offset, a.upMeters.offset,
      a.dnFirst.offset, a.dnTail.offset, a.dnWeight.offset, a.dnMeters.offset, a.chA.offset, a.chB.offset,
    ]);
  }
  const all = Object.values(graphs);
  return {
    memory,
    layout: {
      graphs: layouts,
      capacity: Math.max(1, ...all.map((g) => g.nodeCount)),
      maxGeoms: Math.max(1, ...all.map((g) => g.geomCount)),
    },
  };
}

/** Typed-array views of one placed graph (valid in any thread holding the memory). */
export function viewGraph(memory: WebAssembly.Memory, l: GraphLayout): RoadGraph {
  const buffer = memory.buffer;
  const views = {} as Record<GraphArrayName, Uint32Array | Float64Array>;
  for (const [key, type] of GRAPH_ARRAYS) {
    const slot = l.arrays[key];
    views[key] = type === 'u32' ? new Uint32Array(buffer, slot.offset, slot.length) : new Float64Array(buffer, slot.offset, slot.length);
  }
  return { nodeCount: l.nodeCount, edgeCount: l.edgeCount, geomCount: l.geomCount, landmarkCount: l.landmarkCount, grid: l.grid, ...views } as RoadGraph;
}

/** Reserves `bytes` at the end of the memory for the calling thread alone; returns the start offset. */
export function claimRegion(memory: WebAssembly.Memory, bytes: number): number {
  return memory.grow(Math.ceil(bytes / PAGE)) * PAGE;
}
