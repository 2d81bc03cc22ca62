// Contraction hierarchies for unblocked queries, built at map build time over the search graph as stored
// (turn restrictions are already node splits, so nothing special is needed for them).
//
// Costs are lexicographic (duration, meters): a path's meters only break ties between equally fast paths.
// That makes every CH query (point-to-point and the bucket matrix) return the same fastest path for the
// same pair, so a matrix distance is the distance of the route the engine would return.
//
// The node ordering and the shortcuts come from the `contract` WASM kernel (its header describes the
// ordering; AssemblyScript because preprocessing a 10^6-node grid is minutes of witness searches); this
// module hands it the graph and splits the edge pool it returns into the upward and downward CSR with CH
// edge ids for unpacking.
import { Worker } from 'node:worker_threads';
import { KERNEL_LAYOUTS } from '../../lib/kernel-records.js';
import { instantiate } from '../../lib/wasm.js';
import { distPath } from '../../lib/paths.js';
import { asBoundHierarchy, CLOSED_PENALTY, type Contraction, type RoadGraph } from './road-graph.js';

export type { Contraction } from './road-graph.js';

const NONE = 0xffffffff;
/** The kernel's packed edge cost (solver-as/layouts.json contractionCost): its u32 words per edge, and which holds what. */
const COST = KERNEL_LAYOUTS.contractionCost;
const COST_WORDS = COST.bytes / 4;

export interface ContractionOptions {
  /** Settled-node limit of the witness searches that decide a node's priority. */
  simulateLimit?: number;
  /** Settled-node limit of the witness searches that decide which shortcuts are added. */
  contractLimit?: number;
  /** Geometries closed to the profile's default vehicle: their edges weigh CLOSED_PENALTY more here. */
  closed?: Uint32Array;
}

/** Nodes contracted so far of all. */
export type ContractionProgress = (done: number, total: number) => void;

/** Nodes contracted between two progress reports. */
const SLICE = 20_000;

interface ContractExports extends WebAssembly.Exports {
  memory: WebAssembly.Memory;
  allocate(bytes: number): number;
  contractStart(
    n: number,
    firstOut: number,
    head: number,
    weight: number,
    orig: number,
    geomCm: number,
    m: number,
    simulateLimit: number,
    contractLimit: number,
  ): void;
  contractSome(count: number): number;
  poolCount(): number;
  poolFrom(): number;
  poolTo(): number;
  poolCost(): number;
  poolA(): number;
  poolB(): number;
  rank(): number;
  listCompactions(): number;
}

/**
 * The edge pool left by the kernel: every edge, original or shortcut, with its unpacking pair. `cost` holds
 * two u32 per edge, little-endian halves of the kernel's packed u64: centimeters, then duration (tenths).
 */
interface EdgePool {
  from: Uint32Array;
  to: Uint32Array;
  cost: Uint32Array;
  a: Uint32Array;
  b: Uint32Array;
}

/**
 * The graph with its contraction hierarchy; with `closed` geometries also the bound hierarchy over the true
 * weights (what the map build makes for the lorry graph). @internal (tests, benchmarks)
 */
export function addHierarchy(graph: RoadGraph, options: ContractionOptions = {}): RoadGraph {
  const bound = options.closed?.length ? asBoundHierarchy(contractGraph(graph, { ...options, closed: undefined })) : {};
  return { ...graph, ...contractGraph(graph, options), ...bound };
}

/** What a contraction reads of a graph. */
export type ContractionInput = Pick<RoadGraph, 'nodeCount' | 'edgeCount' | 'firstOut' | 'head' | 'weight' | 'orig' | 'geomCm'> & ContractionOptions;

/** Copies of what a contraction reads of a graph: the graph itself can go while the contraction waits or runs. */
export function contractionInput(g: RoadGraph, options: ContractionOptions = {}): ContractionInput {
  return {
    nodeCount: g.nodeCount,
    edgeCount: g.edgeCount,
    firstOut: g.firstOut.slice(),
    head: g.head.slice(),
    weight: g.weight.slice(),
    orig: g.orig.slice(),
    geomCm: g.geomCm.slice(),
    ...options,
  };
}

/** Bytes a contraction's kernel holds at most (measured: adjacency lists and edge pool by edges, the rest by nodes). */
export const contractionBytes = (input: Pick<ContractionInput, 'nodeCount' | 'edgeCount'>): number => 164 * input.edgeCount + 64 * input.nodeCount;

/**
 * Contracts in a worker thread of its own (the input's arrays are transferred there; the hierarchy comes
 * back transferred), leaving this thread free to assemble the next graph.
 */
export function contractInWorker(input: ContractionInput, onProgress: ContractionProgress = () => {}): Promise<Contraction> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(distPath('map', 'graphs', 'contraction-thread.js'));
    worker.on('message', (msg: { progress: [number, number] } | { done: Contraction }) => {
      if ('progress' in msg) return onProgress(...msg.progress);
      resolve(msg.done);
      void worker.terminate();
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`contraction worker exited with code ${code}`)));
    const transfer = [input.firstOut, input.head, input.weight, input.orig, input.geomCm].map((a) => a.buffer as ArrayBuffer);
    worker.postMessage(input, transfer);
  });
}

/**
 * A hierarchy with its node order (`rank`: 0 = contracted first), which the map does not keep: queries need
 * only the edges; and what the kernel's memory came to (`kernelBytes`, how often its lists were compacted).
 */
export type RankedContraction = Contraction & { rank: Uint32Array; kernelBytes: number; listCompactions: number };

/** Builds the contraction hierarchy of a search graph (in a kernel instance of its own, dropped afterwards). */
export function contractGraph(
  g: ContractionInput,
  options: ContractionOptions = g,
  onProgress: ContractionProgress = () => {},
  onCopied: () => void = () => {},
): RankedContraction {
  const k = instantiate<ContractExports>('contract');
  const put = (arr: Uint32Array): number => {
    const p = k.allocate(arr.byteLength) >>> 0;
    new Uint8Array(k.memory.buffer, p, arr.byteLength).set(new Uint8Array(arr.buffer, arr.byteOffset, arr.byteLength));
    return p;
  };
  const firstOut = put(g.firstOut),
    head = put(g.head),
    weight = put(g.weight),
    orig = put(g.orig),
    geomCm = put(g.geomCm);
  onCopied();
  if (options.closed?.length) penalise(new Uint32Array(k.memory.buffer, weight, g.edgeCount), g.orig, g.geomCm.length, options.closed);
  k.contractStart(g.nodeCount, firstOut, head, weight, orig, geomCm, g.edgeCount, options.simulateLimit ?? 30, options.contractLimit ?? 100);
  for (let done = 0; done < g.nodeCount; ) {
    done = k.contractSome(SLICE);
    onProgress(done, g.nodeCount);
  }
  const K = k.poolCount() >>> 0;
  const buffer = k.memory.buffer;
  // Pointers come back as signed 32-bit numbers: past 2 GiB they read negative.
  const u32 = (p: number): Uint32Array => new Uint32Array(buffer, p >>> 0, K);
  const pool: EdgePool = {
    from: u32(k.poolFrom()),
    to: u32(k.poolTo()),
    cost: new Uint32Array(buffer, k.poolCost() >>> 0, COST_WORDS * K),
    a: u32(k.poolA()),
    b: u32(k.poolB()),
  };
  return {
    ...hierarchy(g, pool, new Uint32Array(buffer, k.rank() >>> 0, g.nodeCount).slice()),
    kernelBytes: buffer.byteLength,
    listCompactions: k.listCompactions(),
  };
}

/** Adds CLOSED_PENALTY to the weight of every edge whose geometry is closed (the kernel's sums saturate). */
function penalise(weight: Uint32Array, orig: Uint32Array, geomCount: number, closed: Uint32Array): void {
  const isClosed = new Uint8Array(geomCount);
  for (let i = 0; i < closed.length; i++) isClosed[closed[i]] = 1;
  for (let e = 0; e < weight.length; e++) if (isClosed[orig[e] >> 1]) weight[e] += CLOSED_PENALTY;
}

/** Splits the pool into the upward and downward CSR and maps the unpacking pairs to CH edge ids. */
function hierarchy(g: ContractionInput, pool: EdgePool, rank: Uint32Array): Contraction & { rank: Uint32Array } {
  const N = g.nodeCount,
    K = pool.from.length;
  const upFirst = new Uint32Array(N + 1),
    dnFirst = new Uint32Array(N + 1);
  for (let e = 0; e < K; e++) {
    if (rank[pool.from[e]] < rank[pool.to[e]]) upFirst[pool.from[e] + 1]++;
    else dnFirst[pool.to[e] + 1]++;
  }
  for (let v = 0; v < N; v++) {
    upFirst[v + 1] += upFirst[v];
    dnFirst[v + 1] += dnFirst[v];
  }
  const U = upFirst[N],
    D = dnFirst[N];
  const upHead = new Uint32Array(U),
    upWeight = new Uint32Array(U),
    upCm = new Uint32Array(U);
  const dnTail = new Uint32Array(D),
    dnWeight = new Uint32Array(D),
    dnCm = new Uint32Array(D);
  const id = new Uint32Array(K);
  const upFill = upFirst.slice(0, N),
    dnFill = dnFirst.slice(0, N);
  for (let e = 0; e < K; e++) {
    const a = pool.from[e],
      b = pool.to[e];
    if (rank[a] < rank[b]) {
      const i = upFill[a]++;
      upHead[i] = b;
      upWeight[i] = pool.cost[COST_WORDS * e + COST.durationWord];
      upCm[i] = pool.cost[COST_WORDS * e + COST.centimetersWord];
      id[e] = i;
    } else {
      const i = dnFill[b]++;
      dnTail[i] = a;
      dnWeight[i] = pool.cost[COST_WORDS * e + COST.durationWord];
      dnCm[i] = pool.cost[COST_WORDS * e + COST.centimetersWord];
      id[e] = U + i;
    }
  }
  const chA = new Uint32Array(K),
    chB = new Uint32Array(K);
  for (let e = 0; e < K; e++) {
    const shortcut = pool.b[e] !== NONE;
    chA[id[e]] = shortcut ? id[pool.a[e]] : pool.a[e];
    chB[id[e]] = shortcut ? id[pool.b[e]] : NONE;
  }
  return { rank, upFirst, upHead, upWeight, upCm, dnFirst, dnTail, dnWeight, dnCm, chA, chB };
}
