// Places each profile's road graph in a shared WebAssembly.Memory of its own, which every worker
// instantiates the route kernel over, and gives typed-array views of it back. One memory per profile
// keeps each under the 4 GiB a wasm32 memory can address, whatever the number of profiles.
// Layout: the kernel's static data below 64 KiB, then the descriptors (read by the kernel; see
// solver-as/layouts.json: the graph's, and at +128 the same graph with the bound hierarchy) and the graph's arrays; worker scratch regions are appended later by each worker growing the memory (grow is
// atomic, so the old size is that worker's own region). Map files are read straight into place; the
// reverse graph (per node its in-edges, for searches that run from the target) is made in the memory by
// the first compute thread that needs it (`ensureReverse`; the warm-up's threads take them in turn).
import { join } from 'node:path';
import { buildStates, claimBuild, whenBuilt } from '../lib/built-once.js';
import { KERNEL_LAYOUTS } from '../lib/kernel-records.js';
import type { MapDir } from '../map/map-dir.js';
import { ARRAY_TYPES, GRAPH_ARRAYS, SHAPE_ARRAYS, type GraphArrayName, type RoadGraph, type Shapes } from '../map/graphs/road-graph.js';

const PAGE = 65536;
const MAX_PAGES = 65536;
const DATA_START = PAGE;
/** The descriptors' words (solver-as/layouts.json profileDescriptor, generated). */
const DESCRIPTOR = KERNEL_LAYOUTS.profileDescriptor;

export interface ArraySlot {
  offset: number;
  length: number;
}
export interface GraphLayout {
  desc: number;
  nodeCount: number;
  edgeCount: number;
  geomCount: number;
  /** Whether the graph has a contraction hierarchy (unblocked queries use it; blocked ones its potentials). */
  hierarchy: boolean;
  /** The descriptor of the graph with the bound hierarchy in the hierarchy's words; 0 when it has none. */
  boundDesc: number;
  arrays: Record<GraphArrayName | ReverseArrayName, ArraySlot>;
}
/** One profile's graph in its own shared memory. */
export interface ProfileMemory {
  memory: WebAssembly.Memory;
  layout: GraphLayout;
  /** Whether the reverse graph is made yet (lib/built-once.ts): by a compute thread for a loaded map, at
   *  once for a placed one. */
  reverse: Int32Array;
}
/**
 * Every loaded profile, by name, and the shapes they share (in SharedArrayBuffers: the kernels never read
 * them, the workers' JavaScript does).
 */
export interface SharedGraphs {
  profiles: Record<string, ProfileMemory>;
  shapes: Shapes;
}

/** The counts a layout needs besides the array lengths. */
export interface GraphCounts {
  nodeCount: number;
  edgeCount: number;
  geomCount: number;
}

const BYTES = { u8: 1, i32: 4, u32: 4, f64: 8 } as const;
const align8 = (n: number): number => (n + 7) & ~7;

/** The reverse graph, made at load (not a map file): `rFirst` per node (and one more) the start of its
 *  in-edges, `rTail` their tails, `rEdge` their forward edge ids. Empty when the graph is not a CSR. */
const REVERSE_ARRAYS = ['rFirst', 'rTail', 'rEdge'] as const;
type ReverseArrayName = (typeof REVERSE_ARRAYS)[number];

function layoutOf(counts: GraphCounts, lengths: Record<GraphArrayName, number>): { layout: GraphLayout; bytes: number } {
  const desc = DATA_START;
  let offset = desc + DESCRIPTOR.bytes;
  const arrays = {} as Record<GraphArrayName | ReverseArrayName, ArraySlot>;
  for (const [key, type] of GRAPH_ARRAYS) {
    offset = align8(offset);
    arrays[key] = { offset, length: lengths[key] };
    offset += lengths[key] * BYTES[type];
  }
  const csr = lengths.firstOut === counts.nodeCount + 1 && lengths.head === counts.edgeCount;
  for (const key of REVERSE_ARRAYS) {
    const length = !csr ? 0 : key === 'rFirst' ? counts.nodeCount + 1 : counts.edgeCount;
    offset = align8(offset);
    arrays[key] = { offset, length };
    offset += length * 4;
  }
  const hierarchy = lengths.chA > 0 && lengths.upFirst === counts.nodeCount + 1;
  const boundDesc = lengths.lbUpFirst === counts.nodeCount + 1 && counts.nodeCount > 0 ? desc + DESCRIPTOR.boundAt : 0;
  return { layout: { desc, ...counts, hierarchy, boundDesc, arrays }, bytes: offset };
}

function newMemory(name: string, bytes: number): WebAssembly.Memory {
  const pages = Math.ceil(bytes / PAGE) + 1;
  if (pages > MAX_PAGES) throw new Error(`profile ${name}: its graph needs ${pages} pages, more than the 4 GiB a wasm32 memory holds`);
  return new WebAssembly.Memory({ initial: pages, maximum: MAX_PAGES, shared: true });
}

type HierarchySlots = Record<'upFirst' | 'upHead' | 'upWeight' | 'upCm' | 'dnFirst' | 'dnTail' | 'dnWeight' | 'dnCm', ArraySlot>;

function writeDescriptor(memory: WebAssembly.Memory, l: GraphLayout): void {
  const a = l.arrays;
  // The words of solver-as/layouts.json's profileDescriptor, by name: the graph's, then a hierarchy's, then its unpacking pairs.
  const put = (at: number, h: HierarchySlots, pairs: [number, number]) => {
    const words: Record<keyof typeof DESCRIPTOR.words, number> = {
      nodeCount: l.nodeCount,
      edgeCount: l.edgeCount,
      firstOut: a.firstOut.offset,
      head: a.head.offset,
      weight: a.weight.offset,
      orig: a.orig.offset,
      geomCm: a.geomCm.offset,
      upEdgeCount: h.upHead.length,
      upFirst: h.upFirst.offset,
      upHead: h.upHead.offset,
      upWeight: h.upWeight.offset,
      upCm: h.upCm.offset,
      dnFirst: h.dnFirst.offset,
      dnTail: h.dnTail.offset,
      dnWeight: h.dnWeight.offset,
      dnCm: h.dnCm.offset,
      chA: pairs[0],
      chB: pairs[1],
      rFirst: a.rFirst.offset,
      rTail: a.rTail.offset,
      rEdge: a.rEdge.offset,
    };
    const view = new Uint32Array(memory.buffer, at, DESCRIPTOR.bytes / 4);
    for (const [name, word] of Object.entries(DESCRIPTOR.words)) view[word] = words[name as keyof typeof words];
  };
  put(l.desc, a, [a.chA.offset, a.chB.offset]);
  // The bound hierarchy is read for potentials only: no unpacking pairs.
  if (l.boundDesc) {
    const bound = {
      upFirst: a.lbUpFirst,
      upHead: a.lbUpHead,
      upWeight: a.lbUpWeight,
      upCm: a.lbUpCm,
      dnFirst: a.lbDnFirst,
      dnTail: a.lbDnTail,
      dnWeight: a.lbDnWeight,
      dnCm: a.lbDnCm,
    };
    put(l.boundDesc, bound, [0, 0]);
  }
}

/** Fills the reverse graph from the forward one already in the memory: in-edges by tail, in order. On
 *  the 32x32 country 0.3–0.5 s a profile: made on the main thread at load, it held up the reader threads'
 *  work on 2 cores and, during a map swap, the requests being served. */
function writeReverse(memory: WebAssembly.Memory, l: GraphLayout): void {
  const a = l.arrays;
  if (a.rFirst.length === 0) return;
  const n = l.nodeCount;
  const u32 = (s: ArraySlot) => new Uint32Array(memory.buffer, s.offset, s.length);
  const firstOut = u32(a.firstOut),
    head = u32(a.head),
    first = u32(a.rFirst),
    tail = u32(a.rTail),
    edge = u32(a.rEdge);
  for (let e = 0; e < head.length; e++) first[head[e] + 1]++;
  for (let v = 0; v < n; v++) first[v + 1] += first[v];
  const next = first.slice(0, n);
  for (let v = 0; v < n; v++) {
    for (let e = firstOut[v]; e < firstOut[v + 1]; e++) {
      const at = next[head[e]]++;
      tail[at] = v;
      edge[at] = e;
    }
  }
}

/** Copies one graph into a new shared memory. */
export function placeGraph(name: string, g: RoadGraph): ProfileMemory {
  const lengths = Object.fromEntries(GRAPH_ARRAYS.map(([key]) => [key, g[key].length])) as Record<GraphArrayName, number>;
  const { layout, bytes } = layoutOf(g, lengths);
  const memory = newMemory(name, bytes);
  for (const [key] of GRAPH_ARRAYS) {
    const src = g[key];
    new Uint8Array(memory.buffer, layout.arrays[key].offset, src.byteLength).set(new Uint8Array(src.buffer, src.byteOffset, src.byteLength));
  }
  writeDescriptor(memory, layout);
  const reverse = buildStates(1);
  claimBuild(reverse, 0, () => writeReverse(memory, layout));
  return { memory, layout, reverse };
}

/** Copies several graphs over the same shapes, each into its own memory, and the shapes into shared buffers. */
export function placeGraphs(graphs: Record<string, RoadGraph>): SharedGraphs {
  const shapes = Object.values(graphs)[0].shapes;
  const share = <T extends Int32Array | Uint32Array | Uint8Array>(a: T): T => {
    const copy = new (a.constructor as new (b: SharedArrayBuffer) => T)(new SharedArrayBuffer(a.byteLength));
    copy.set(a);
    return copy;
  };
  return {
    profiles: Object.fromEntries(Object.entries(graphs).map(([name, g]) => [name, placeGraph(name, g)])),
    shapes: { grid: shapes.grid, ...Object.fromEntries(SHAPE_ARRAYS.map(([key]) => [key, share(shapes[key])])) } as Shapes,
  };
}

/**
 * Reads one profile's array files (`<profile>/<array>.<type>` of the map) straight into a new shared
 * memory: no parsing, no copy through the JS heap; the map checks each against its manifest.
 */
export async function loadGraph(name: string, map: MapDir, counts: GraphCounts): Promise<ProfileMemory> {
  const files = GRAPH_ARRAYS.map(([key, type]) => {
    const rel = `${name}/${key}.${type}`;
    const size = map.size(rel);
    if (size % BYTES[type] !== 0) throw new Error(`profile ${name}: ${join(map.dir, rel)} has ${size} bytes, not a whole number of ${type} values`);
    return { key, rel, size, length: size / BYTES[type] };
  });
  const lengths = Object.fromEntries(files.map((f) => [f.key, f.length])) as Record<GraphArrayName, number>;
  const { layout, bytes } = layoutOf(counts, lengths);
  const memory = newMemory(name, bytes);
  await Promise.all(files.map((f) => map.readInto(f.rel, new Uint8Array(memory.buffer, layout.arrays[f.key].offset, f.size))));
  writeDescriptor(memory, layout);
  return { memory, layout, reverse: buildStates(1) };
}

const writeReverseOf = (pm: ProfileMemory) => () => writeReverse(pm.memory, pm.layout);

/** Makes `pm`'s reverse graph unless it is made or another thread is at it; true when this thread made it. */
export const claimReverse = (pm: ProfileMemory): boolean => claimBuild(pm.reverse, 0, writeReverseOf(pm));

/** Returns once `pm`'s reverse graph is made: here when no other thread is at it, else waiting for that one.
 *  Before anything searches the graph (a compute thread's first use of the profile). */
export const ensureReverse = (pm: ProfileMemory): void => whenBuilt(pm.reverse, 0, writeReverseOf(pm));

/** Typed-array views of one placed graph over the shared shapes (valid in any thread holding the memory). */
export function viewGraph(pm: ProfileMemory, shapes: Shapes): RoadGraph {
  const { memory, layout: l } = pm;
  const buffer = memory.buffer;
  const views = {} as Record<GraphArrayName, ArrayBufferView>;
  for (const [key, type] of GRAPH_ARRAYS) views[key] = new ARRAY_TYPES[type](buffer, l.arrays[key].offset, l.arrays[key].length);
  return { nodeCount: l.nodeCount, edgeCount: l.edgeCount, geomCount: l.geomCount, shapes, ...views } as unknown as RoadGraph;
}

/** The reverse graph's in-edges per node (empty arrays when the graph has none): what turn guidance
 *  reads to see the ways that only enter a node. */
export function reverseView(pm: ProfileMemory): { rFirst: Uint32Array; rEdge: Uint32Array } {
  const a = pm.layout.arrays;
  const u32 = (s: ArraySlot) => new Uint32Array(pm.memory.buffer, s.offset, s.length);
  return { rFirst: u32(a.rFirst), rEdge: u32(a.rEdge) };
}

/** Reserves `bytes` at the end of the memory for the calling thread alone; returns the start offset. */
export function claimRegion(memory: WebAssembly.Memory, bytes: number): number {
  return memory.grow(Math.ceil(bytes / PAGE)) * PAGE;
}
