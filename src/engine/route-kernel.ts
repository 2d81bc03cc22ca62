// One thread's handle on the route kernel for one profile: a WASM instance over that profile's shared
// graph memory plus this thread's own scratch region in it (search state, seeds, blocked bitset, path and
// matrix buffers).
import { KERNEL_LAYOUTS, writeRecord } from '../lib/kernel-records.js';
import { instantiate } from '../lib/wasm.js';
import { claimRegion, type GraphLayout, type ProfileMemory } from './graph-memory.js';

interface RouteExports extends WebAssembly.Exports {
  heapBase(): number;
  pageIn(scratch: number): number;
  settled(): number;
  p2p(
    desc: number,
    scratch: number,
    blocked: number,
    src: number,
    nSrc: number,
    srcMeters: number,
    tgt: number,
    nTgt: number,
    tgtMeters: number,
    mu0: number,
    hierarchy: number,
    backward: number,
    budget: number,
  ): number;
  resume(budget: number): number;
  cost(): number;
  found(): number;
  pathEdges(out: number): number;
  pathStart(): number;
  oneToMany(
    desc: number,
    scratch: number,
    blocked: number,
    src: number,
    nSrc: number,
    srcMeters: number,
    targets: number,
    nTargets: number,
    outDur: number,
    outDist: number,
  ): void;
  reach(
    desc: number,
    scratch: number,
    blocked: number,
    src: number,
    nSrc: number,
    srcMeters: number,
    maxDur: number,
    maxCm: number,
    byMeters: number,
    backward: number,
    out: number,
    outCap: number,
  ): number;
  labelRecords(): number;
  reached(v: number): number;
  chP2p(desc: number, scratch: number, src: number, nSrc: number, srcMeters: number, tgt: number, nTgt: number, tgtMeters: number, mu0: number): number;
  potentialsTo(desc: number, scratch: number, tgt: number, nTgt: number, tgtMeters: number): void;
  potentialOf(v: number): number;
  chBelow(desc: number, scratch: number, src: number, nSrc: number, srcMeters: number, tgt: number, nTgt: number, tgtMeters: number, mu0: number): number;
  chAlternatives(
    desc: number,
    scratch: number,
    src: number,
    nSrc: number,
    srcMeters: number,
    tgt: number,
    nTgt: number,
    tgtMeters: number,
    stretch: number,
    mainEdges: number,
    nMain: number,
    mainGeoms: number,
    shareLimit: number,
  ): number;
  altNext(out: number, room: number): number;
  altViaIndex(): number;
  altStartNode(): number;
  altDuration(): number;
  altSharedCentimeters(): number;
  chBuckets(desc: number, scratch: number, seeds: number, seedMeters: number, starts: number, nTargets: number, entries: number, cap: number): number;
  chRow(desc: number, scratch: number, src: number, nSrc: number, srcMeters: number, nTargets: number, outDur: number, outDist: number): void;
}

/** A matrix row: per column the duration (tenths) and meters of the best path from the row's seeds to
 *  the column's, the seeds' own costs included; Infinity where none. Valid until the next row. */
export interface RowResult {
  durations: Float64Array;
  meters: Float64Array;
}
/** The columns of a matrix, ready for rows from any number of sources. */
export interface MatrixTargets {
  row(src: Seed[]): RowResult;
}

/** The nodes a bounded search settled, in settling order, and every node's labels (read only those of
 *  settled nodes): views of the kernel's memory, valid until the next search on the same kernel. */
export interface ReachResult {
  nodes: Uint32Array;
  /** Tenths of a second to node v. */
  duration(v: number): number;
  /** Centimeters to node v. */
  centimeters(v: number): number;
}

// The layouts shared with the kernel (solver-as/layouts.json, generated).
const { scratch: SCRATCH, nodeRecord: NODE_RECORD, seed: SEED, bucketEntry: BUCKET_ENTRY } = KERNEL_LAYOUTS;
// The kernel's per-node label record in f64 words: its size, and where the duration and centimeters are.
const RECORD_F64 = NODE_RECORD.bytes / 8;
const DURATION_F64 = NODE_RECORD.fields.duration.at / 8;
const CENTIMETERS_F64 = NODE_RECORD.fields.centimeters.at / 8;

function labelsOf(records: Float64Array): Pick<ReachResult, 'duration' | 'centimeters'> {
  return {
    duration: (v) => records[v * RECORD_F64 + DURATION_F64],
    centimeters: (v) => records[v * RECORD_F64 + CENTIMETERS_F64],
  };
}

/** A via-node alternative (RouteKernel.viaCandidates): a path over the graph, a shortest one to its via node
 *  then one from it. */
export interface ViaCandidate {
  /** Search edges in travel order, and the node the first leaves from (a source seed's). */
  edges: Uint32Array;
  start: number;
  /** How many of `edges` come before the via node. */
  viaAt: number;
  /** Tenths of a second, the seeds' costs included. */
  cost: number;
  /** Centimeters of the whole geometries it runs over that are among the main route's. */
  sharedCentimeters: number;
}

/** A search seed: a node reached at `cost` (tenths of a second), `meters` along the way there. */
export interface Seed {
  node: number;
  cost: number;
  meters: number;
}

const MAX_SEEDS = SEED.maxPerSide;
const SETTLED_PER_LOOK = 4096;

/** A search given up because its `stop` signal came (another thread answered the same query first). */
export class SearchStopped extends Error {
  constructor() {
    super('search stopped: another thread answered first');
    this.name = 'SearchStopped';
  }
}

/** How a search over the graph runs: from the targets over the reverse graph (same answer, other work),
 *  and a signal that makes it give up (throwing SearchStopped), looked at before it starts and every
 *  `slice` settled nodes (4,096, about a millisecond). */
export interface SearchOptions {
  backward?: boolean;
  stop?: () => boolean;
  slice?: number;
}
/** Target seeds of a matrix, over all its columns: two for each of 2,000 stops and 200 vehicles fit. */
const MAX_MATRIX_TARGETS = 16_384;
const F64 = Float64Array.BYTES_PER_ELEMENT;
const U32 = Uint32Array.BYTES_PER_ELEMENT;

/** Bytes of the kernel's part of a scratch region for graphs of up to `capacity` nodes: its header, then
 *  its per-node arrays (see layouts.json scratch), on an 8-byte boundary for what follows. */
function kernelScratchBytes(capacity: number): number {
  return Math.ceil((SCRATCH.arraysAt + SCRATCH.arraysAlignBytes + (capacity + 1) * SCRATCH.bytesPerNode) / 8) * 8;
}

export class RouteKernel {
  private readonly k: RouteExports;
  /** Where the candidates of the last viaCandidates keep their edges, one buffer each, reused. */
  private readonly candidateEdges: Uint32Array[] = [];
  private readonly scratch: number;
  private readonly srcPtr: number;
  private readonly tgtPtr: number;
  private readonly srcMetersPtr: number;
  private readonly tgtMetersPtr: number;
  private bucketPtr = 0;
  private bucketCap = 0;
  /** Searches run so far, by kind: over the hierarchy, over the graph with the blocked bitset, over the plain graph. */
  readonly searches = { hierarchy: 0, blocked: 0, plain: 0 };
  private readonly blockedPtr: number;
  private readonly blockedBytes: number;
  private readonly pathPtr: number;
  private readonly targetsPtr: number;
  private readonly targetMetersPtr: number;
  private readonly targetStartsPtr: number;
  private readonly outDurPtr: number;
  private readonly outDistPtr: number;

  private readonly g: GraphLayout;
  /** Room for the node list of `reach`, claimed on the first one and grown (claimed anew) when short. */
  private reachPtr = 0;
  private reachCap = 0;

  constructor(private readonly shared: ProfileMemory) {
    this.k = instantiate<RouteExports>('route', { env: { memory: shared.memory } });
    if (this.k.heapBase() > 65536) throw new Error('route kernel static data overlaps the graph area');
    this.g = shared.layout;
    const capacity = Math.max(1, this.g.nodeCount),
      maxGeoms = Math.max(1, this.g.geomCount);
    // The region: the kernel's part, then this side's buffers one after another (offsets from its start).
    let size = kernelScratchBytes(capacity);
    const next = (bytes: number): number => {
      size += bytes;
      return size - bytes;
    };
    const src = next(MAX_SEEDS * SEED.bytes),
      tgt = next(MAX_SEEDS * SEED.bytes),
      srcMeters = next(MAX_SEEDS * F64),
      tgtMeters = next(MAX_SEEDS * F64),
      outDur = next(MAX_MATRIX_TARGETS * F64),
      outDist = next(MAX_MATRIX_TARGETS * F64);
    // The blocked bitset in whole u64 words.
    this.blockedBytes = Math.ceil(maxGeoms / 64) * 8;
    const blocked = next(this.blockedBytes),
      targets = next(MAX_MATRIX_TARGETS * SEED.bytes),
      targetMeters = next(MAX_MATRIX_TARGETS * F64),
      targetStarts = next((MAX_MATRIX_TARGETS + 1) * U32),
      // A path has at most one edge per node (and altNext is given room for one more).
      path = next((capacity + 1) * U32);
    this.scratch = claimRegion(shared.memory, size);
    new DataView(shared.memory.buffer).setUint32(this.scratch + SCRATCH.capacityAt, capacity, true);
    this.srcPtr = this.scratch + src;
    this.tgtPtr = this.scratch + tgt;
    this.srcMetersPtr = this.scratch + srcMeters;
    this.tgtMetersPtr = this.scratch + tgtMeters;
    this.outDurPtr = this.scratch + outDur;
    this.outDistPtr = this.scratch + outDist;
    this.blockedPtr = this.scratch + blocked;
    this.targetsPtr = this.scratch + targets;
    this.targetMetersPtr = this.scratch + targetMeters;
    this.targetStartsPtr = this.scratch + targetStarts;
    this.pathPtr = this.scratch + path;
  }

  /**
   * Makes the per-node arrays of this thread's scratch that a search reaches by node resident (the kernel's
   * pageIn: one write to each 4 KiB page, what it holds kept). Returns the bytes covered. A search touches
   * only the pages of the nodes it reaches, so without this each search into a part of the map no search had
   * reached paid their page faults on the way (docs/operations.md, "Warm before ready").
   */
  pageIn(): number {
    return this.k.pageIn(this.scratch);
  }

  /** The memory may have grown since the last call (other workers claiming scratch): take a fresh buffer. */
  private get buffer(): ArrayBufferLike {
    return this.shared.memory.buffer;
  }

  /** This thread's blocked-geometry bitset, and the bytes of it set since it was last cleared: clearing
   *  touches only those (a request blocks hundreds of geometries; the bitset covers millions). */
  private bits: Uint8Array | null = null;
  private readonly dirtyBytes: number[] = [];

  /** A view of the bitset over the memory's current buffer. */
  private bitset(): Uint8Array {
    return new Uint8Array(this.buffer, this.blockedPtr, this.blockedBytes);
  }

  /** Unblocks every geometry. */
  clearBlocked(): void {
    const bits = (this.bits = this.bitset());
    for (const i of this.dirtyBytes) bits[i] = 0;
    this.dirtyBytes.length = 0;
  }

  /** Blocks geometry g for the searches that read the bitset, until the next clearBlocked. */
  blockGeometry(g: number): void {
    const bits = (this.bits ??= this.bitset());
    const i = g >> 3;
    if (bits[i] === 0) this.dirtyBytes.push(i);
    bits[i] |= 1 << (g & 7);
  }

  /** Writes seed records (node, cost) at `ptr` and, when `metersPtr` is given, their meters there. */
  private writeSeeds(ptr: number, seeds: Seed[], metersPtr = 0): number {
    const n = Math.min(seeds.length, MAX_SEEDS);
    const view = new DataView(this.buffer);
    const m = metersPtr ? new Float64Array(this.buffer, metersPtr, n) : null;
    for (let i = 0; i < n; i++) {
      writeRecord(view, ptr, i, SEED, seeds[i]);
      if (m) m[i] = seeds[i].meters;
    }
    return n;
  }

  /**
   * Cheapest path from any source seed to any target seed (costs include the seeds'), or null when none
   * beats `upperBound`. `edges` are search-edge ids in travel order; `start` is the node the path leaves from.
   * `hierarchy`: over the hierarchy (its weights); `guided`: over the graph with the blocked bitset, the
   * hierarchy's distances as potentials (a lower bound only while the bitset keeps every edge it weighs
   * down blocked); `bounded`: over the graph with the bitset, the bound hierarchy's distances (true weights
   * of every edge) as potentials, or none when the graph has no bound hierarchy.
   */
  shortestPath(
    src: Seed[],
    tgt: Seed[],
    upperBound: number,
    search: 'hierarchy' | 'guided' | 'bounded',
    options: SearchOptions = {},
  ): { cost: number; edges: Uint32Array; start: number } | null {
    const cost = this.cheapest(src, tgt, upperBound, search, options);
    if (cost === null) return null;
    const n = this.k.pathEdges(this.pathPtr);
    return { cost, edges: new Uint32Array(this.buffer, this.pathPtr, n).slice(), start: this.k.pathStart() };
  }

  /**
   * Whether the hierarchy has a path from node `from` to node `to` cheaper than `bound` tenths (its
   * weights): one query that goes no further than the bound and unpacks nothing, as the alternatives'
   * T-test needs no more (a path to unpack is half a far route), ended at the first path found below it
   * (the kernel's chBelow: most T-tests fail, often long before the search would end).
   */
  hierarchyBelow(from: number, to: number, bound: number): boolean {
    const src = [{ node: from, cost: 0, meters: 0 }],
      tgt = [{ node: to, cost: 0, meters: 0 }];
    const g = this.g;
    if (!g.hierarchy) return this.cheapest(src, tgt, bound, 'hierarchy') !== null;
    const nSrc = this.writeSeeds(this.srcPtr, src, this.srcMetersPtr);
    const nTgt = this.writeSeeds(this.tgtPtr, tgt, this.tgtMetersPtr);
    if (nSrc === 0 || nTgt === 0) return false;
    this.count(false);
    return this.k.chBelow(g.desc, this.scratch, this.srcPtr, nSrc, this.srcMetersPtr, this.tgtPtr, nTgt, this.tgtMetersPtr, bound) === 1;
  }

  /**
   * The hierarchy's distance from each node to the target seeds, as a function of the node (Infinity: no
   * path), for an A* that prices turns (turn-back.ts). Without a hierarchy every node's is 0. Valid until
   * the next search on this kernel.
   */
  distancesTo(tgt: Seed[]): (v: number) => number {
    const g = this.g;
    const nTgt = this.writeSeeds(this.tgtPtr, tgt, this.tgtMetersPtr);
    if (!g.hierarchy || nTgt === 0) return () => 0;
    this.count(false);
    this.k.potentialsTo(g.desc, this.scratch, this.tgtPtr, nTgt, this.tgtMetersPtr);
    return this.k.potentialOf;
  }

  /** shortestPath's search: the cost of the path found below `upperBound` (the kernel holds the path), or null. */
  private cheapest(src: Seed[], tgt: Seed[], upperBound: number, search: 'hierarchy' | 'guided' | 'bounded', options: SearchOptions = {}): number | null {
    const g = this.g;
    const nSrc = this.writeSeeds(this.srcPtr, src, this.srcMetersPtr);
    const nTgt = this.writeSeeds(this.tgtPtr, tgt, this.tgtMetersPtr);
    if (nSrc === 0 || nTgt === 0) return null;
    // Blocked edges invalidate the hierarchy's shortcuts: avoidance searches the graph with the blocked
    // bitset, guided by the hierarchy's distances.
    const useBlocked = search !== 'hierarchy';
    this.count(useBlocked);
    const cost =
      !useBlocked && g.hierarchy
        ? this.k.chP2p(g.desc, this.scratch, this.srcPtr, nSrc, this.srcMetersPtr, this.tgtPtr, nTgt, this.tgtMetersPtr, upperBound)
        : this.graphSearch(nSrc, nTgt, upperBound, useBlocked, search, options);
    return this.k.found() ? cost : null;
  }

  /**
   * Alternatives to the main route between the seeds by the via-node method over the hierarchy (the
   * kernel's chAlternatives: one bidirectional search that goes on to `stretch` times the shortest
   * duration). `main` are the main route's search edges and `mainGeoms` its geometries. Candidates come by
   * duration, each unpacked once (none only through nodes of the main route or of candidates before it);
   * those `keep` takes are answered, at most `want`, after at most `maxUnpacked` unpacked. Uses the
   * blocked-geometry bitset (cleared) for the main route's geometries. Empty without a hierarchy. The
   * candidates' edges are this kernel's: valid until its next viaCandidates.
   */
  viaCandidates(
    src: Seed[],
    tgt: Seed[],
    stretch: number,
    main: Uint32Array,
    mainGeoms: readonly number[],
    shareLimit: number,
    keep: (c: ViaCandidate) => boolean,
    want: number,
    maxUnpacked: number,
  ): ViaCandidate[] {
    const g = this.g;
    const nSrc = this.writeSeeds(this.srcPtr, src, this.srcMetersPtr);
    const nTgt = this.writeSeeds(this.tgtPtr, tgt, this.tgtMetersPtr);
    if (nSrc === 0 || nTgt === 0 || !g.hierarchy) return [];
    this.clearBlocked();
    for (const geom of mainGeoms) this.blockGeometry(geom);
    new Uint32Array(this.buffer, this.pathPtr, main.length).set(main);
    this.count(false);
    this.k.chAlternatives(
      g.desc,
      this.scratch,
      this.srcPtr,
      nSrc,
      this.srcMetersPtr,
      this.tgtPtr,
      nTgt,
      this.tgtMetersPtr,
      stretch,
      this.pathPtr,
      main.length,
      this.blockedPtr,
      shareLimit,
    );
    const out: ViaCandidate[] = [];
    const room = g.nodeCount + 1;
    for (let tried = 0; out.length < want && tried < maxUnpacked; tried++) {
      const n = this.k.altNext(this.pathPtr, room);
      if (n < 0) break;
      const c: ViaCandidate = {
        edges: new Uint32Array(this.buffer, this.pathPtr, n),
        start: this.k.altStartNode(),
        viaAt: this.k.altViaIndex(),
        cost: this.k.altDuration(),
        sharedCentimeters: this.k.altSharedCentimeters(),
      };
      if (!keep(c)) continue;
      // Those kept out of the kernel's memory, into this kernel's own buffers: a far candidate is thousands
      // of edges, and fresh copies of the two dozen unpacked were much of the garbage of a request with
      // alternatives.
      const i = out.length;
      if ((this.candidateEdges[i]?.length ?? 0) < n) this.candidateEdges[i] = new Uint32Array(Math.max(n, 2 * (this.candidateEdges[i]?.length ?? 0)));
      this.candidateEdges[i].set(c.edges);
      c.edges = this.candidateEdges[i].subarray(0, n);
      out.push(c);
    }
    this.clearBlocked();
    return out;
  }

  /** The A* (or Dijkstra) over the graph, a slice of settled nodes at a time while `stop` stays false. */
  private graphSearch(
    nSrc: number,
    nTgt: number,
    upperBound: number,
    useBlocked: boolean,
    search: 'guided' | 'bounded' | 'hierarchy',
    options: SearchOptions,
  ): number {
    const g = this.g;
    const backward = options.backward === true && g.arrays.rFirst.length > 0;
    const budget = options.stop ? (options.slice ?? SETTLED_PER_LOOK) : 0x7fffffff;
    if (options.stop?.()) throw new SearchStopped();
    let done = this.k.p2p(
      search === 'bounded' && g.boundDesc ? g.boundDesc : g.desc,
      this.scratch,
      useBlocked ? this.blockedPtr : 0,
      this.srcPtr,
      nSrc,
      this.srcMetersPtr,
      this.tgtPtr,
      nTgt,
      this.tgtMetersPtr,
      upperBound,
      search === 'bounded' ? (g.boundDesc ? 1 : 0) : g.hierarchy ? 1 : 0,
      backward ? 1 : 0,
      budget,
    );
    while (!done) {
      if (options.stop?.()) throw new SearchStopped();
      done = this.k.resume(budget);
    }
    return this.k.cost();
  }

  /**
   * A matrix's columns, each given by its target seeds. Without blocking and with a hierarchy, one backward
   * search per column from its seeds fills the buckets once and each row is one upward search; otherwise
   * each row is a Dijkstra (with the blocked bitset) until every target seed settles, the columns then
   * the best of their seeds. Valid until the next call on this kernel.
   */
  matrixTargets(columns: Seed[][], useBlocked: boolean): MatrixTargets {
    const g = this.g;
    const cols = columns.length;
    const total = columns.reduce((n, list) => n + Math.min(list.length, MAX_SEEDS), 0);
    if (total > MAX_MATRIX_TARGETS || cols > MAX_MATRIX_TARGETS) throw new Error(`at most ${MAX_MATRIX_TARGETS} matrix target seeds`);
    if (useBlocked || !g.hierarchy) {
      // Each target node searched for once, however many columns share it.
      const nodes = [...new Set(columns.flatMap((list) => list.slice(0, MAX_SEEDS).map((s) => s.node)))];
      const slot = new Map(nodes.map((node, i) => [node, i]));
      new Uint32Array(this.buffer, this.targetsPtr, nodes.length).set(nodes);
      const slots = columns.map((list) => list.slice(0, MAX_SEEDS).map((s) => slot.get(s.node)!));
      const durations = new Float64Array(cols),
        meters = new Float64Array(cols);
      return {
        row: (src) => {
          this.count(useBlocked);
          const nSrc = this.writeSeeds(this.srcPtr, src, this.srcMetersPtr);
          this.k.oneToMany(
            g.desc,
            this.scratch,
            useBlocked ? this.blockedPtr : 0,
            this.srcPtr,
            nSrc,
            this.srcMetersPtr,
            this.targetsPtr,
            nodes.length,
            this.outDurPtr,
            this.outDistPtr,
          );
          const reach = this.rowResult(nodes.length);
          for (let j = 0; j < cols; j++) {
            let best = Infinity,
              m = Infinity;
            const list = columns[j],
              at = slots[j];
            // Ties on duration go to the shorter path, as in the searches, so cells match single routes.
            for (let s = 0; s < at.length; s++) {
              const c = reach.durations[at[s]] + list[s].cost,
                cm = reach.meters[at[s]] + list[s].meters;
              if (c < best || (c === best && cm < m)) {
                best = c;
                m = cm;
              }
            }
            durations[j] = best;
            meters[j] = m;
          }
          return { durations, meters };
        },
      };
    }
    const starts = new Uint32Array(this.buffer, this.targetStartsPtr, cols + 1);
    let at = 0;
    for (let j = 0; j < cols; j++) {
      starts[j] = at;
      at += this.writeSeeds(this.targetsPtr + at * SEED.bytes, columns[j], this.targetMetersPtr + at * F64);
    }
    starts[cols] = at;
    for (;;) {
      const needed = this.k.chBuckets(g.desc, this.scratch, this.targetsPtr, this.targetMetersPtr, this.targetStartsPtr, cols, this.bucketPtr, this.bucketCap);
      if (needed <= this.bucketCap) break;
      // Room for the buckets is claimed once per thread and only ever grows.
      this.bucketCap = Math.max(2 * this.bucketCap, needed, 1 << 16);
      this.bucketPtr = claimRegion(this.shared.memory, this.bucketCap * BUCKET_ENTRY.bytes);
    }
    return {
      row: (src) => {
        this.count(false);
        const nSrc = this.writeSeeds(this.srcPtr, src, this.srcMetersPtr);
        this.k.chRow(g.desc, this.scratch, this.srcPtr, nSrc, this.srcMetersPtr, cols, this.outDurPtr, this.outDistPtr);
        return this.rowResult(cols);
      },
    };
  }

  /**
   * Every node within `maxDur` tenths of a second and `maxCm` centimeters of the source seeds, searched by
   * duration or, with `byMeters`, by length; over the graph, and with `useBlocked` off the geometries in
   * the blocked bitset. `backward`: the seeds are where paths end (labels are the costs to them).
   */
  reach(src: Seed[], maxDur: number, maxCm: number, byMeters: boolean, useBlocked: boolean, backward = false): ReachResult {
    if (backward && this.g.arrays.rFirst.length === 0) throw new Error('this graph has no reverse graph for a backward search');
    const nSrc = this.writeSeeds(this.srcPtr, src, this.srcMetersPtr);
    this.count(useBlocked);
    for (;;) {
      const settled = this.k.reach(
        this.g.desc,
        this.scratch,
        useBlocked ? this.blockedPtr : 0,
        this.srcPtr,
        nSrc,
        this.srcMetersPtr,
        maxDur,
        maxCm,
        byMeters ? 1 : 0,
        backward ? 1 : 0,
        this.reachPtr,
        this.reachCap,
      );
      if (settled <= this.reachCap) {
        const n = this.g.nodeCount;
        return {
          nodes: new Uint32Array(this.buffer, this.reachPtr, settled),
          ...labelsOf(new Float64Array(this.buffer, this.k.labelRecords(), n * RECORD_F64)),
        };
      }
      // Claimed regions are never given back: grow geometrically so that the waste stays under the need.
      this.reachCap = Math.min(Math.max(2 * this.reachCap, settled, 1 << 16), this.g.nodeCount);
      this.reachPtr = claimRegion(this.shared.memory, this.reachCap * U32);
    }
  }

  /** Whether the last `reach` settled node `v` (its labels are then its own). */
  reached(v: number): boolean {
    return this.k.reached(v) !== 0;
  }

  /** Whether geometry g is in the blocked bitset. */
  isBlocked(g: number): boolean {
    const bits = (this.bits ??= this.bitset());
    return (bits[g >> 3] & (1 << (g & 7))) !== 0;
  }

  private count(useBlocked: boolean): void {
    if (useBlocked) this.searches.blocked++;
    else if (this.g.hierarchy) this.searches.hierarchy++;
    else this.searches.plain++;
  }

  /** Views of the kernel's output, valid until the next row: a 2,000-point matrix would otherwise copy
   *  (and collect) 2,000 pairs of rows. */
  private rowResult(n: number): RowResult {
    return {
      durations: new Float64Array(this.buffer, this.outDurPtr, n),
      meters: new Float64Array(this.buffer, this.outDistPtr, n),
    };
  }

  /** Nodes settled by the last search (for measurements). */
  settled(): number {
    return this.k.settled();
  }
}
