// Shortest-path kernels over the road graph held in shared memory.
// The graph (CSR arrays, contraction hierarchy) is read in place; every call gets the profile descriptor
// and the calling worker's own scratch region, so instances on several threads never write the same bytes.
// Keys are f64 (durations in tenths of a second, plus A* potentials); INF = no label.
//
// Profile descriptor: u32 words read by name (ProfileDescriptor, generated from solver-as/layouts.json
// profileDescriptor): the graph's counts and arrays, the contraction hierarchy's (upEdgeCount: CH edge ids
// ≥ it are downward; upCm and dnCm u32), its unpacking pairs chA and chB, the reverse graph made at load.
// Lengths are whole centimeters in the graph and in labels (sums of them are exact, so every search breaks
// ties alike); seeds' meters come in and results go out in meters.
// Scratch (Scratch): the capacity C (the profile's N) at capacityAt, the per-node records and arrays from
// arraysAt (rounded up to arraysAlignBytes), in at most bytesPerNode x (C + 1) bytes.
// Seeds are Seed records (node, cost); their meters come as a separate f64 array.
// Every layout shared with the TypeScript side (the descriptor, scratch, node records, seeds, bucket
// entries) is read by name from the constants generated from solver-as/layouts.json.
// Element access: lib/memory.ts (inlined); the kernel allocates nothing.

import { f64At, setF64, setU32, u32At } from '../lib/memory';
import { BucketEntry, NodeRecord, ProfileDescriptor, Scratch, Seed } from './generated/layouts';

// A field of node v's record (a search side's labels of node v, NodeRecord.BYTES of them); `field` points at
// that field in node 0's record.
@inline function nU32(field: usize, v: u32): u32 { return load<u32>(field + <usize>v * NodeRecord.BYTES); }
@inline function nSetU32(field: usize, v: u32, x: u32): void { store<u32>(field + <usize>v * NodeRecord.BYTES, x); }
@inline function nF64(field: usize, v: u32): f64 { return load<f64>(field + <usize>v * NodeRecord.BYTES); }
@inline function nSetF64(field: usize, v: u32, x: f64): void { store<f64>(field + <usize>v * NodeRecord.BYTES, x); }

// Seed i's node and cost in an array of Seed records at `seeds`.
@inline function seedNode(seeds: usize, i: i32): u32 { return load<u32>(seeds + <usize>i * Seed.BYTES + Seed.node); }
@inline function seedCost(seeds: usize, i: i32): f64 { return load<f64>(seeds + <usize>i * Seed.BYTES + Seed.cost); }

const INF: f64 = Infinity;
const NONE: u32 = 0xffffffff;
const MAX_SEEDS: i32 = Seed.maxPerSide;

// Per-instance (per-worker) state: wasm globals are not in the shared memory.
let epoch: u32 = 0;
let cap: usize = 0;
let sStampF: usize = 0; let sStampB: usize = 0;
let sDistF: usize = 0; let sDistB: usize = 0;
let sParF: usize = 0; let sParB: usize = 0;
let sPosF: usize = 0; let sPosB: usize = 0;
let sHeapNF: usize = 0; let sHeapKF: usize = 0;
let sHeapNB: usize = 0; let sHeapKB: usize = 0;
let sPot: usize = 0; let sPotStamp: usize = 0;
let sCm: usize = 0; let sCmB: usize = 0;
let sBucketHead: usize = 0; let sBucketStamp: usize = 0;
// The spare word of each side's node records: equal to the epoch where the alternatives' memo of the
// node's distance to the other end is set (viaDistance).
let sMemoF: usize = 0; let sMemoB: usize = 0;
let sHdr: usize = 0;
let sizeF: i32 = 0; let sizeB: i32 = 0;

// Graph pointers of the current call.
let gN: u32 = 0; let gFirstOut: usize = 0; let gHead: usize = 0; let gWeight: usize = 0; let gOrig: usize = 0;
let gGeomCm: usize = 0;
let gBlocked: usize = 0;
let hU: u32 = 0; let hUpFirst: usize = 0; let hUpHead: usize = 0; let hUpWeight: usize = 0; let hUpCm: usize = 0;
let hDnFirst: usize = 0; let hDnTail: usize = 0; let hDnWeight: usize = 0; let hDnCm: usize = 0;
let hChA: usize = 0; let hChB: usize = 0;

// Query state for path extraction.
let meetNode: u32 = NONE;
let lastFound: bool = false;
let lastWasCh: bool = false;
let settledCount: i32 = 0;

/** End of this module's static data: the loader places the graph above it. */
export function heapBase(): usize {
  return __heap_base;
}

/** The number of nodes the last search settled (for measurements). */
export function settled(): i32 {
  return settledCount;
}

/** Where this thread's per-node arrays lie in its scratch region (computed again when the region changes). */
function layOut(scratch: usize): void {
  if (sHdr != scratch) {
    sHdr = scratch;
    cap = <usize>load<u32>(scratch + Scratch.capacityAt);
    // Records on a 64-byte boundary never straddle a cache line (the region leaves room for the rounding).
    let p = (scratch + Scratch.arraysAt + Scratch.arraysAlignBytes - 1) & ~(Scratch.arraysAlignBytes - 1);
    // Each side's labels of a node share one record (NodeRecord: stamp, heap position, duration,
    // centimeters, parent edge, memo stamp): relaxing an edge touches one cache line, not five arrays.
    sStampF = p + NodeRecord.stamp; sPosF = p + NodeRecord.heapPosition; sDistF = p + NodeRecord.duration;
    sCm = p + NodeRecord.centimeters; sParF = p + NodeRecord.parent; sMemoF = p + NodeRecord.memo; p += cap * NodeRecord.BYTES;
    sStampB = p + NodeRecord.stamp; sPosB = p + NodeRecord.heapPosition; sDistB = p + NodeRecord.duration;
    sCmB = p + NodeRecord.centimeters; sParB = p + NodeRecord.parent; sMemoB = p + NodeRecord.memo; p += cap * NodeRecord.BYTES;
    sHeapKF = p; p += (cap + 1) << 3;
    sHeapKB = p; p += (cap + 1) << 3;
    sPot = p; p += cap << 3;
    sHeapNF = p; p += (cap + 1) << 2;
    sHeapNB = p; p += (cap + 1) << 2;
    sPotStamp = p; p += cap << 2;
    sBucketHead = p; p += cap << 2;
    sBucketStamp = p; p += cap << 2;
    // The TypeScript side claimed the region by Scratch.bytesPerNode: arrays that grew past it would write
    // over its seeds and buffers, so stop at the first search instead (in every build).
    if (p > scratch + Scratch.arraysAt + Scratch.arraysAlignBytes + (cap + 1) * Scratch.bytesPerNode) unreachable();
  }
}

/** An atomic add of 0 to one byte of each 4 KiB page of [from, to): a write, so each page not yet in is
 *  faulted in once, for writing, and what the pages hold stays. Returns the bytes covered. */
function touchPages(from: usize, to: usize): usize {
  for (let a = from; a < to; a += 4096) atomic.add<u8>(a, 0);
  return to - from;
}

/**
 * Makes the per-node arrays a search reaches by node resident in `scratch`: both sides' records, the
 * potentials and their stamps, the buckets. Not the heaps, whose entries are used from the front (a
 * search's queue, not its nodes). Returns the bytes covered.
 */
export function pageIn(scratch: usize): usize {
  layOut(scratch);
  const records = sStampF - NodeRecord.stamp;
  return touchPages(records, records + 2 * cap * NodeRecord.BYTES) + touchPages(sPot, sPot + (cap << 3)) + touchPages(sPotStamp, sBucketStamp + (cap << 2));
}

function setup(desc: usize, scratch: usize, blocked: usize): void {
  layOut(scratch);
  gN = load<u32>(desc, ProfileDescriptor.nodeCount);
  gFirstOut = <usize>load<u32>(desc, ProfileDescriptor.firstOut);
  gHead = <usize>load<u32>(desc, ProfileDescriptor.head);
  gWeight = <usize>load<u32>(desc, ProfileDescriptor.weight);
  gOrig = <usize>load<u32>(desc, ProfileDescriptor.orig);
  gGeomCm = <usize>load<u32>(desc, ProfileDescriptor.geomCm);
  hU = load<u32>(desc, ProfileDescriptor.upEdgeCount);
  hUpFirst = <usize>load<u32>(desc, ProfileDescriptor.upFirst);
  hUpHead = <usize>load<u32>(desc, ProfileDescriptor.upHead);
  hUpWeight = <usize>load<u32>(desc, ProfileDescriptor.upWeight);
  hUpCm = <usize>load<u32>(desc, ProfileDescriptor.upCm);
  hDnFirst = <usize>load<u32>(desc, ProfileDescriptor.dnFirst);
  hDnTail = <usize>load<u32>(desc, ProfileDescriptor.dnTail);
  hDnWeight = <usize>load<u32>(desc, ProfileDescriptor.dnWeight);
  hDnCm = <usize>load<u32>(desc, ProfileDescriptor.dnCm);
  hChA = <usize>load<u32>(desc, ProfileDescriptor.chA);
  hChB = <usize>load<u32>(desc, ProfileDescriptor.chB);
  gBlocked = blocked;
  epoch++;
  if (epoch == 0) epoch = 1; // stamps of 0 mean "never"; a wrap would need 4 billion queries
  settledCount = 0;
}

@inline function isBlocked(e: u32): bool {
  if (gBlocked == 0) return false;
  const g = u32At(gOrig, e) >> 1;
  return (load<u8>(gBlocked + (<usize>g >> 3)) & (<u8>1 << <u8>(g & 7))) != 0;
}

// ---- binary min-heaps with decrease-key; pos[v] = heap index + 1, 0 = not queued --------------------

@inline function heapUp(hn: usize, hk: usize, pos: usize, i0: i32, v: u32, k: f64): void {
  let i = i0;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    const pk = f64At(hk, <u32>parent);
    if (pk <= k) break;
    const pv = u32At(hn, <u32>parent);
    setU32(hn, <u32>i, pv);
    setF64(hk, <u32>i, pk);
    nSetU32(pos, pv, <u32>i + 1);
    i = parent;
  }
  setU32(hn, <u32>i, v);
  setF64(hk, <u32>i, k);
  nSetU32(pos, v, <u32>i + 1);
}

/** Removes the top; returns the new size. */
@inline function heapPop(hn: usize, hk: usize, pos: usize, size: i32): i32 {
  const top = u32At(hn, 0);
  nSetU32(pos, top, 0);
  const n = size - 1;
  if (n == 0) return 0;
  const v = u32At(hn, <u32>n);
  const k = f64At(hk, <u32>n);
  let i = 0;
  while (true) {
    const l = 2 * i + 1;
    if (l >= n) break;
    let c = l;
    let ck = f64At(hk, <u32>l);
    const r = l + 1;
    if (r < n) {
      const rk = f64At(hk, <u32>r);
      if (rk < ck) { c = r; ck = rk; }
    }
    if (ck >= k) break;
    const cv = u32At(hn, <u32>c);
    setU32(hn, <u32>i, cv);
    setF64(hk, <u32>i, ck);
    nSetU32(pos, cv, <u32>i + 1);
    i = c;
  }
  setU32(hn, <u32>i, v);
  setF64(hk, <u32>i, k);
  nSetU32(pos, v, <u32>i + 1);
  return n;
}

// ---- point-to-point with blocked geometries: A* with exact potentials from the hierarchy --------------
// Blocked geometries invalidate the hierarchy's shortcuts, but not its distances as lower bounds: every
// node's unblocked distance to the target is a consistent A* potential on the blocked graph (CH-Potentials,
// Strasser, Zeitz and Zündorf 2021). One backward upward search from the target seeds runs first; the
// potential of a node is the best of its upward paths into that search space, memoized per query. So the
// search settles the nodes near the route and around the blocked places, not a region that grows with the
// map. Without a hierarchy the potential is 0 (plain Dijkstra).

let usePot: bool = false;

// The A* of the current p2p call, on the F side. Forward, it leaves the source seeds over out-edges with
// potentials toward the targets (a backward hierarchy search); backward, it leaves the target seeds over
// the reverse graph's in-edges with potentials from the sources (a forward hierarchy search). The two
// settle very different numbers of nodes on one query (the blocked places sit nearer one end), so a
// caller may run both on two threads and keep the first answer. The hierarchy search keeps its labels on
// the B side either way, and the B heap is the potential's stack: a thread's wide search always touches
// the same pages of its scratch.
let aBack: bool = false;
let aFirst: usize = 0; let aNext: usize = 0; let aEdge: usize = 0;
let aEndSeeds: usize = 0; let aEnds: i32 = 0;
let aMu: f64 = INF;
// The hierarchy edges from a node towards higher ones on the way to the potential's seeds: upward edges
// forward; backward, edges from higher tails (the downward lists).
let pFirst: usize = 0; let pNext: usize = 0; let pWeight: usize = 0;
// The reverse graph of the current call (descriptor words 18-20): per node its in-edges' tails and
// forward edge ids.
let rFirst: usize = 0; let rTail: usize = 0; let rEdge: usize = 0;

/** The distance between v and the base search's seeds over the unblocked graph (INF when no path),
 *  memoized in sPot for this query. */
function potential(v: u32): f64 {
  if (!usePot) return 0;
  if (u32At(sPotStamp, v) == epoch) return f64At(sPot, v);
  // Depth-first over edges to higher nodes: ranks rise along them, so the stack never holds a node
  // twice and stays below N.
  const stack = sHeapNB;
  setU32(stack, 0, v);
  let top = 1;
  while (top > 0) {
    const x = u32At(stack, <u32>(top - 1));
    let best: f64 = nU32(sStampB, x) == epoch ? nF64(sDistB, x) : INF;
    let pending: u32 = NONE;
    const end = u32At(pFirst, x + 1);
    for (let i = u32At(pFirst, x); i < end; i++) {
      const w = u32At(pNext, i);
      if (u32At(sPotStamp, w) != epoch) { pending = w; break; }
      const c = <f64>u32At(pWeight, i) + f64At(sPot, w);
      if (c < best) best = c;
    }
    if (pending != NONE) { setU32(stack, <u32>top, pending); top++; continue; }
    setF64(sPot, x, best);
    setU32(sPotStamp, x, epoch);
    top--;
  }
  return f64At(sPot, v);
}

/**
 * Shortest path from the source seeds to the target seeds (each seed: a node with its initial cost; their
 * meters at `srcMeters` / `tgtMeters`) avoiding the geometries set in `blocked` (0: none). `mu0` is an
 * upper bound already known (e.g. source and target on the same edge). `backward` searches from the
 * targets over the reverse graph (same answer, other work). Settles at most `budget` nodes: returns
 * whether the search is done; `resume` goes on. Then `cost()` is the best cost, and `found()` tells
 * whether the graph gave a path cheaper than mu0 (then `pathEdges` writes it).
 */
export function p2p(desc: usize, scratch: usize, blocked: usize, srcSeeds: usize, nSrc: i32, srcMeters: usize, tgtSeeds: usize, nTgt: i32, tgtMeters: usize, mu0: f64, hierarchy: bool, backward: bool, budget: i32): bool {
  setup(desc, scratch, blocked);
  const nSrcSeeds = nSrc < MAX_SEEDS ? nSrc : MAX_SEEDS;
  const nTgtSeeds = nTgt < MAX_SEEDS ? nTgt : MAX_SEEDS;
  lastFound = false;
  lastWasCh = false;
  meetNode = NONE;
  usePot = hierarchy;
  aBack = backward;
  if (backward) {
    rFirst = <usize>load<u32>(desc, ProfileDescriptor.rFirst); rTail = <usize>load<u32>(desc, ProfileDescriptor.rTail); rEdge = <usize>load<u32>(desc, ProfileDescriptor.rEdge);
    aFirst = rFirst; aNext = rTail; aEdge = rEdge;
    aEndSeeds = srcSeeds; aEnds = nSrcSeeds;
    pFirst = hDnFirst; pNext = hDnTail; pWeight = hDnWeight;
    if (usePot) {
      sizeB = chSeed(sStampB, sDistB, sCmB, sParB, sPosB, sHeapNB, sHeapKB, 0, srcSeeds, srcMeters, nSrcSeeds);
      while (sizeB > 0) chForwardStepOnB();
    }
  } else {
    aFirst = gFirstOut; aNext = gHead; aEdge = 0;
    aEndSeeds = tgtSeeds; aEnds = nTgtSeeds;
    pFirst = hUpFirst; pNext = hUpHead; pWeight = hUpWeight;
    if (usePot) {
      sizeB = chSeed(sStampB, sDistB, sCmB, sParB, sPosB, sHeapNB, sHeapKB, 0, tgtSeeds, tgtMeters, nTgtSeeds);
      while (sizeB > 0) chBackwardStep();
    }
  }
  aMu = mu0;
  sizeF = 0;
  const starts = backward ? tgtSeeds : srcSeeds;
  const nStarts = backward ? nTgtSeeds : nSrcSeeds;
  for (let i = 0; i < nStarts; i++) {
    const v = seedNode(starts, i); const c = seedCost(starts, i);
    const known = nU32(sStampF, v) == epoch;
    if (known && nF64(sDistF, v) <= c) continue;
    const pv = potential(v);
    if (pv == INF) continue;
    const p = known ? nU32(sPosF, v) : 0;
    nSetU32(sStampF, v, epoch); nSetF64(sDistF, v, c); nSetU32(sParF, v, NONE);
    if (p == 0) { heapUp(sHeapNF, sHeapKF, sPosF, sizeF, v, c + pv); sizeF++; } else heapUp(sHeapNF, sHeapKF, sPosF, <i32>p - 1, v, c + pv);
  }
  return resume(budget);
}

/** Goes on with the last p2p for at most `budget` more settled nodes; returns whether it is done. */
export function resume(budget: i32): bool {
  let left = budget;
  while (sizeF > 0 && f64At(sHeapKF, 0) < aMu) {
    if (left-- <= 0) return false;
    const v = u32At(sHeapNF, 0);
    sizeF = heapPop(sHeapNF, sHeapKF, sPosF, sizeF);
    nSetU32(sPosF, v, NONE); // settled
    settledCount++;
    const dv = nF64(sDistF, v);
    for (let i = 0; i < aEnds; i++) {
      if (seedNode(aEndSeeds, i) != v) continue;
      const total = dv + seedCost(aEndSeeds, i);
      if (total < aMu) { aMu = total; meetNode = v; lastFound = true; }
    }
    const end = u32At(aFirst, v + 1);
    for (let i = u32At(aFirst, v); i < end; i++) {
      // Backward, i indexes the reverse graph; labels and paths keep forward edge ids.
      const e = aBack ? u32At(aEdge, i) : i;
      if (isBlocked(e)) continue;
      const w = u32At(aNext, i);
      const dw = dv + <f64>u32At(gWeight, e);
      if (nU32(sStampF, w) != epoch) {
        const pw = potential(w);
        if (pw == INF) continue;
        nSetU32(sStampF, w, epoch); nSetF64(sDistF, w, dw); nSetU32(sParF, w, e); nSetU32(sPosF, w, 0);
        heapUp(sHeapNF, sHeapKF, sPosF, sizeF, w, dw + pw); sizeF++;
      } else if (dw < nF64(sDistF, w)) {
        const p = nU32(sPosF, w);
        if (p == NONE) continue; // settled: consistent potentials make this impossible but be safe
        nSetF64(sDistF, w, dw); nSetU32(sParF, w, e);
        heapUp(sHeapNF, sHeapKF, sPosF, <i32>p - 1, w, dw + potential(w));
      }
    }
  }
  return true;
}

/**
 * Readies `potentialOf`: the hierarchy's distance from each node to the target seeds (their costs
 * included), by one backward upward search from them, each node's then memoized on first ask. A search
 * that prices turns (the caller's, edge-based) takes these as its A* potentials: turn prices only add, so
 * they stay lower bounds, and consistent. Valid until the next call on this kernel.
 */
export function potentialsTo(desc: usize, scratch: usize, tgtSeeds: usize, nTgt: i32, tgtMeters: usize): void {
  setup(desc, scratch, 0);
  lastFound = false;
  lastWasCh = false;
  meetNode = NONE;
  usePot = true;
  pFirst = hUpFirst; pNext = hUpHead; pWeight = hUpWeight;
  sizeB = chSeed(sStampB, sDistB, sCmB, sParB, sPosB, sHeapNB, sHeapKB, 0, tgtSeeds, tgtMeters, nTgt < MAX_SEEDS ? nTgt : MAX_SEEDS);
  while (sizeB > 0) chBackwardStep();
}

/** Node v's distance to the targets of the last `potentialsTo` (INF: no path). */
export function potentialOf(v: u32): f64 {
  return potential(v);
}

/** The best cost the last p2p found (its mu0 when none beat it). */
export function cost(): f64 {
  return aMu;
}

export function found(): bool {
  return lastFound;
}

/** Writes the edges of the last p2p path in travel order at `out`; returns their count. */
export function pathEdges(out: usize): i32 {
  if (!lastFound) return 0;
  if (lastWasCh) return chPathEdges(out);
  let n = 0;
  let v = meetNode;
  if (aBack) {
    // Backward labels chain from a source seed to a target seed: already in travel order.
    while (true) {
      const e = nU32(sParF, v);
      if (e == NONE) return n;
      setU32(out, <u32>n, e);
      n++;
      v = u32At(gHead, e);
    }
  }
  while (true) {
    const e = nU32(sParF, v);
    if (e == NONE) break;
    setU32(out, <u32>n, e);
    n++;
    v = ownerOf(gFirstOut, e);
  }
  for (let i = 0, j = n - 1; i < j; i++, j--) {
    const a = u32At(out, <u32>i);
    setU32(out, <u32>i, u32At(out, <u32>j));
    setU32(out, <u32>j, a);
  }
  return n;
}

/** The first node of the last path (one of the source seeds). */
export function pathStart(): u32 {
  if (lastWasCh) return chPathStart();
  if (aBack) return meetNode;
  let v = meetNode;
  while (true) {
    const e = nU32(sParF, v);
    if (e == NONE) return v;
    v = ownerOf(gFirstOut, e);
  }
}

// ---- one-to-many (matrix rows) and full single-source searches ----------------------------------------

/**
 * Dijkstra from the source seeds until every node listed at `targets` is settled. Writes per target
 * the duration (f64, INF when unreachable) at `outDur` and the meters of that path at `outDist`.
 */
export function oneToMany(desc: usize, scratch: usize, blocked: usize, srcSeeds: usize, nSrc: i32, srcMeters: usize, targets: usize, nTargets: i32, outDur: usize, outDist: usize): void {
  setup(desc, scratch, blocked);
  // Mark targets with the reverse stamp so settling one is O(1) to detect.
  let remaining = 0;
  for (let i = 0; i < nTargets; i++) {
    const t = u32At(targets, <u32>i);
    if (nU32(sStampB, t) != epoch) { nSetU32(sStampB, t, epoch); remaining++; }
  }
  sizeF = 0;
  for (let i = 0; i < nSrc; i++) {
    const v = seedNode(srcSeeds, i); const c = seedCost(srcSeeds, i);
    if (nU32(sStampF, v) == epoch && nF64(sDistF, v) <= c) continue;
    const p = nU32(sStampF, v) == epoch ? nU32(sPosF, v) : 0;
    nSetU32(sStampF, v, epoch); nSetF64(sDistF, v, c); nSetF64(sCm, v, f64At(srcMeters, <u32>i) * 100);
    if (p == 0) { heapUp(sHeapNF, sHeapKF, sPosF, sizeF, v, c); sizeF++; } else heapUp(sHeapNF, sHeapKF, sPosF, <i32>p - 1, v, c);
  }
  while (sizeF > 0 && remaining > 0) {
    const v = u32At(sHeapNF, 0);
    sizeF = heapPop(sHeapNF, sHeapKF, sPosF, sizeF);
    nSetU32(sPosF, v, NONE);
    settledCount++;
    if (nU32(sStampB, v) == epoch) remaining--;
    const dv = nF64(sDistF, v);
    const mv = nF64(sCm, v);
    const end = u32At(gFirstOut, v + 1);
    for (let e = u32At(gFirstOut, v); e < end; e++) {
      if (isBlocked(e)) continue;
      const w = u32At(gHead, e);
      const dw = dv + <f64>u32At(gWeight, e);
      if (nU32(sStampF, w) != epoch) {
        nSetU32(sStampF, w, epoch); nSetF64(sDistF, w, dw);
        nSetF64(sCm, w, mv + <f64>u32At(gGeomCm, u32At(gOrig, e) >> 1));
        heapUp(sHeapNF, sHeapKF, sPosF, sizeF, w, dw); sizeF++;
      } else if (dw < nF64(sDistF, w)) {
        const p = nU32(sPosF, w);
        if (p == NONE) continue;
        nSetF64(sDistF, w, dw);
        nSetF64(sCm, w, mv + <f64>u32At(gGeomCm, u32At(gOrig, e) >> 1));
        heapUp(sHeapNF, sHeapKF, sPosF, <i32>p - 1, w, dw);
      }
    }
  }
  for (let i = 0; i < nTargets; i++) {
    const t = u32At(targets, <u32>i);
    const reached = nU32(sStampF, t) == epoch && nU32(sPosF, t) == NONE;
    setF64(outDur, <u32>i, reached ? nF64(sDistF, t) : INF);
    setF64(outDist, <u32>i, reached ? nF64(sCm, t) * 0.01 : INF);
  }
}

/**
 * Dijkstra from the source seeds by duration (tenths) or, with `byMeters`, by length (centimeters), over
 * the nodes within `maxDur` tenths (by duration: each node's labels are its fastest path's, ties to the
 * shorter) or within `maxCm` centimeters (by length: its shortest path's, ties to the faster); with
 * `backward`, towards the seeds over the reverse graph (labels are then the paths' to the seeds). Writes the settled nodes
 * at `out` in settling order, at most `outCap` of them, and returns how many settled (more than `outCap`
 * means the list is cut: call again with room for that many). Each settled node's duration and
 * centimeters stay in the scratch (`labelRecords`) until the next search.
 */
export function reach(desc: usize, scratch: usize, blocked: usize, srcSeeds: usize, nSrc: i32, srcMeters: usize, maxDur: f64, maxCm: f64, byMeters: bool, backward: bool, out: usize, outCap: i32): i32 {
  // Only the key is a bound: a length limit on a search by duration would label nodes by slower paths.
  if (!byMeters) maxCm = INF;
  setup(desc, scratch, blocked);
  // Backward, over the reverse graph: each node's in-edges, their tails and forward edge ids.
  const first = backward ? <usize>load<u32>(desc, ProfileDescriptor.rFirst) : gFirstOut;
  const next = backward ? <usize>load<u32>(desc, ProfileDescriptor.rTail) : gHead;
  const edgeOf = backward ? <usize>load<u32>(desc, ProfileDescriptor.rEdge) : 0;
  sizeF = 0;
  for (let i = 0; i < nSrc; i++) {
    const v = seedNode(srcSeeds, i); const c = seedCost(srcSeeds, i); const cm = f64At(srcMeters, <u32>i) * 100;
    if (c > maxDur || (byMeters && cm > maxCm)) continue;
    const k = byMeters ? cm : c;
    const p = nU32(sStampF, v) == epoch ? nU32(sPosF, v) : 0;
    if (p != 0 && f64At(sHeapKF, p - 1) <= k) continue;
    nSetU32(sStampF, v, epoch); nSetF64(sDistF, v, c); nSetF64(sCm, v, cm);
    if (p == 0) { heapUp(sHeapNF, sHeapKF, sPosF, sizeF, v, k); sizeF++; } else heapUp(sHeapNF, sHeapKF, sPosF, <i32>p - 1, v, k);
  }
  let count = 0;
  while (sizeF > 0) {
    const v = u32At(sHeapNF, 0);
    sizeF = heapPop(sHeapNF, sHeapKF, sPosF, sizeF);
    nSetU32(sPosF, v, NONE);
    if (count < outCap) setU32(out, <u32>count, v);
    count++;
    const dv = nF64(sDistF, v);
    const mv = nF64(sCm, v);
    const end = u32At(first, v + 1);
    for (let i = u32At(first, v); i < end; i++) {
      const e = backward ? u32At(edgeOf, i) : i;
      if (isBlocked(e)) continue;
      const w = u32At(next, i);
      const dw = dv + <f64>u32At(gWeight, e);
      const mw = mv + <f64>u32At(gGeomCm, u32At(gOrig, e) >> 1);
      if (dw > maxDur || (byMeters && mw > maxCm)) continue;
      const kw = byMeters ? mw : dw;
      if (nU32(sStampF, w) != epoch) {
        nSetU32(sStampF, w, epoch); nSetF64(sDistF, w, dw); nSetF64(sCm, w, mw);
        heapUp(sHeapNF, sHeapKF, sPosF, sizeF, w, kw); sizeF++;
      } else {
        const p = nU32(sPosF, w);
        if (p == NONE) continue;
        // Ties on the key go to the other measure's smaller value, as the routes and matrices break them.
        const kOld = byMeters ? nF64(sCm, w) : nF64(sDistF, w);
        const tOld = byMeters ? nF64(sDistF, w) : nF64(sCm, w);
        const tw = byMeters ? dw : mw;
        if (kw > kOld || (kw == kOld && tw >= tOld)) continue;
        nSetF64(sDistF, w, dw); nSetF64(sCm, w, mw);
        heapUp(sHeapNF, sHeapKF, sPosF, <i32>p - 1, w, kw);
      }
    }
  }
  settledCount = count;
  return count;
}

/** Where the last `reach` left its labels: node v's NodeRecord (the F side's) at this + v x NodeRecord.BYTES. */
export function labelRecords(): usize {
  return sStampF - NodeRecord.stamp;
}

/** Whether node `v` was settled by the last `reach` (its labels are then final). */
export function reached(v: u32): bool {
  return nU32(sStampF, v) == epoch && nU32(sPosF, v) == NONE;
}

// ---- contraction hierarchy: unblocked point-to-point and bucket many-to-many ---------------------------
// Labels are lexicographic (duration, meters): meters only break ties between equally fast paths, so the
// route and the matrix pick the same path. Heap keys are durations alone: every edge costs at least one
// tenth, so a node's label cannot improve once its duration is the smallest queued. The slack absorbs
// summation-order noise of fractional seed costs.

const EPS_D: f64 = 1e-7;
const EPS_M: f64 = 1e-7;

@inline function lexLess(d1: f64, m1: f64, d2: f64, m2: f64): bool {
  return d1 < d2 - EPS_D || (d1 <= d2 + EPS_D && m1 < m2 - EPS_M);
}

/** Seeds a search side: per node the lexicographically best (cost, meters) among its seeds. */
function chSeed(stamp: usize, dist: usize, meters: usize, par: usize, pos: usize, hn: usize, hk: usize, size: i32, seeds: usize, seedMeters: usize, n: i32): i32 {
  for (let i = 0; i < n; i++) {
    const v = seedNode(seeds, i); const c = seedCost(seeds, i); const m = f64At(seedMeters, <u32>i) * 100;
    const known = nU32(stamp, v) == epoch;
    if (known && !lexLess(c, m, nF64(dist, v), nF64(meters, v))) continue;
    nSetU32(stamp, v, epoch); nSetF64(dist, v, c); nSetF64(meters, v, m); nSetU32(par, v, NONE);
    const p = known ? nU32(pos, v) : 0;
    if (p == 0) { heapUp(hn, hk, pos, size, v, c); size++; } else heapUp(hn, hk, pos, <i32>p - 1, v, c);
  }
  return size;
}

/** Whether the node settled by the last step was stalled (its label provably not shortest). */
let chStalled: bool = false;

/** The node the last step settled. */
let chSettled: u32 = NONE;

/**
 * One step of an upward search: settles the top of the side's heap (`hn`, `hk`, `pos`; returns the new
 * size) and relaxes the node's edges to higher nodes (`first`, `next`, `weight`, `cms`) unless, with
 * `stall`, a higher node reaches it cheaper over the opposite lists (`stallFirst` …: stall-on-demand). `chSettled` is the
 * node, `chStalled` whether it stalled. A forward search goes over the upward lists and stalls over the
 * downward ones; a backward search the other way round.
 */
@inline function chStep(
  first: usize, next: usize, weight: usize, cms: usize, stallFirst: usize, stallNext: usize, stallWeight: usize,
  stamp: usize, dist: usize, cm: usize, par: usize, pos: usize, hn: usize, hk: usize, size: i32, stall: bool,
): i32 {
  const v = u32At(hn, 0);
  size = heapPop(hn, hk, pos, size);
  nSetU32(pos, v, NONE);
  settledCount++;
  chSettled = v;
  const dv = nF64(dist, v), mv = nF64(cm, v);
  // Stall: an edge between v and a higher node u with d(u) + w < d(v) proves v's label is not shortest.
  const sEnd = stall ? u32At(stallFirst, v + 1) : 0;
  for (let i = stall ? u32At(stallFirst, v) : 0; i < sEnd; i++) {
    const u = u32At(stallNext, i);
    if (nU32(stamp, u) == epoch && nF64(dist, u) + <f64>u32At(stallWeight, i) < dv - EPS_D) { chStalled = true; return size; }
  }
  chStalled = false;
  const end = u32At(first, v + 1);
  for (let i = u32At(first, v); i < end; i++) {
    const w = u32At(next, i);
    const dw = dv + <f64>u32At(weight, i), mw = mv + <f64>u32At(cms, i);
    if (nU32(stamp, w) != epoch) {
      nSetU32(stamp, w, epoch); nSetF64(dist, w, dw); nSetF64(cm, w, mw); nSetU32(par, w, i);
      heapUp(hn, hk, pos, size, w, dw); size++;
    } else if (lexLess(dw, mw, nF64(dist, w), nF64(cm, w))) {
      const p = nU32(pos, w);
      if (p == NONE) continue;
      nSetF64(dist, w, dw); nSetF64(cm, w, mw); nSetU32(par, w, i);
      heapUp(hn, hk, pos, <i32>p - 1, w, dw);
    }
  }
  return size;
}

/** Forward step over the upward graph, on the F side. Returns the settled node. */
function chForwardStep(): u32 {
  sizeF = chStep(hUpFirst, hUpHead, hUpWeight, hUpCm, hDnFirst, hDnTail, hDnWeight, sStampF, sDistF, sCm, sParF, sPosF, sHeapNF, sHeapKF, sizeF, true);
  return chSettled;
}

/** Backward step over the downward graph (edges u→v into v from higher nodes u), on the B side. */
function chBackwardStep(): u32 {
  sizeB = chStep(hDnFirst, hDnTail, hDnWeight, hDnCm, hUpFirst, hUpHead, hUpWeight, sStampB, sDistB, sCmB, sParB, sPosB, sHeapNB, sHeapKB, sizeB, true);
  return chSettled;
}

/** Forward step over the upward graph kept on the B side (the sources' potentials for a backward A*,
 *  which searches on the F side). */
function chForwardStepOnB(): void {
  sizeB = chStep(hUpFirst, hUpHead, hUpWeight, hUpCm, hDnFirst, hDnTail, hDnWeight, sStampB, sDistB, sCmB, sParB, sPosB, sHeapNB, sHeapKB, sizeB, true);
}

/**
 * Shortest unblocked path from the source seeds to the target seeds over the hierarchy. Only a path
 * faster than `mu0` counts (`found()`); returns its duration, and `pathEdges` unpacks it to search edges.
 */
export function chP2p(desc: usize, scratch: usize, srcSeeds: usize, nSrc: i32, srcMeters: usize, tgtSeeds: usize, nTgt: i32, tgtMeters: usize, mu0: f64): f64 {
  setup(desc, scratch, 0);
  lastFound = false;
  lastWasCh = true;
  meetNode = NONE;
  let mu = mu0, muM: f64 = -INF;
  sizeF = chSeed(sStampF, sDistF, sCm, sParF, sPosF, sHeapNF, sHeapKF, 0, srcSeeds, srcMeters, nSrc < MAX_SEEDS ? nSrc : MAX_SEEDS);
  sizeB = chSeed(sStampB, sDistB, sCmB, sParB, sPosB, sHeapNB, sHeapKB, 0, tgtSeeds, tgtMeters, nTgt < MAX_SEEDS ? nTgt : MAX_SEEDS);
  while (true) {
    const fOpen = sizeF > 0 && f64At(sHeapKF, 0) <= mu + EPS_D;
    const bOpen = sizeB > 0 && f64At(sHeapKB, 0) <= mu + EPS_D;
    if (!fOpen && !bOpen) break;
    const forward = fOpen && (!bOpen || f64At(sHeapKF, 0) <= f64At(sHeapKB, 0));
    const v = forward ? chForwardStep() : chBackwardStep();
    // Meeting test on settling (stalled nodes included: their label on this side may still be the best).
    if (nU32(sStampF, v) == epoch && nU32(sStampB, v) == epoch) {
      const d = nF64(sDistF, v) + nF64(sDistB, v), m = nF64(sCm, v) + nF64(sCmB, v);
      if (lexLess(d, m, mu, muM)) { mu = d; muM = m; meetNode = v; lastFound = true; }
    }
  }
  return mu;
}

/**
 * Whether chP2p with the same arguments would find a path below `mu0` (1) or not (0): the same search,
 * ended at the first meeting below it (the alternatives' T-test asks no more, and most fail there).
 */
export function chBelow(desc: usize, scratch: usize, srcSeeds: usize, nSrc: i32, srcMeters: usize, tgtSeeds: usize, nTgt: i32, tgtMeters: usize, mu0: f64): i32 {
  setup(desc, scratch, 0);
  lastFound = false;
  lastWasCh = true;
  meetNode = NONE;
  sizeF = chSeed(sStampF, sDistF, sCm, sParF, sPosF, sHeapNF, sHeapKF, 0, srcSeeds, srcMeters, nSrc < MAX_SEEDS ? nSrc : MAX_SEEDS);
  sizeB = chSeed(sStampB, sDistB, sCmB, sParB, sPosB, sHeapNB, sHeapKB, 0, tgtSeeds, tgtMeters, nTgt < MAX_SEEDS ? nTgt : MAX_SEEDS);
  while (true) {
    const fOpen = sizeF > 0 && f64At(sHeapKF, 0) <= mu0 + EPS_D;
    const bOpen = sizeB > 0 && f64At(sHeapKB, 0) <= mu0 + EPS_D;
    if (!fOpen && !bOpen) return 0;
    const forward = fOpen && (!bOpen || f64At(sHeapKF, 0) <= f64At(sHeapKB, 0));
    const v = forward ? chForwardStep() : chBackwardStep();
    if (nU32(sStampF, v) == epoch && nU32(sStampB, v) == epoch) {
      const d = nF64(sDistF, v) + nF64(sDistB, v), m = nF64(sCm, v) + nF64(sCmB, v);
      if (lexLess(d, m, mu0, -INF)) { meetNode = v; lastFound = true; return 1; }
    }
  }
  return 0; // not reached
}

/** The node whose CSR range [first[v], first[v+1]) holds index i. */
function ownerOf(first: usize, i: u32): u32 {
  let lo: u32 = 0, hi: u32 = gN - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (u32At(first, mid) <= i) lo = mid; else hi = mid - 1;
  }
  return lo;
}

/** Appends the search edges of CH edge `e` in travel order; the heap area of the F side is the stack. */
function unpack(e: u32, out: usize, n: i32): i32 {
  const stack = sHeapNF;
  let top = 0;
  setU32(stack, 0, e); top = 1;
  while (top > 0) {
    top--;
    const x = u32At(stack, <u32>top);
    const b = u32At(hChB, x);
    if (b == NONE) { setU32(out, <u32>n, u32At(hChA, x)); n++; continue; }
    setU32(stack, <u32>top, b);
    setU32(stack, <u32>top + 1, u32At(hChA, x));
    top += 2;
  }
  return n;
}

function chPathEdges(out: usize): i32 {
  // CH edges of the forward half, from the meeting node back to the source, are kept at the end of the
  // B-side heap area (free after the search) and unpacked in travel order.
  const chain = sHeapNB;
  let k = 0;
  let v = meetNode;
  while (true) {
    const i = nU32(sParF, v);
    if (i == NONE) break;
    setU32(chain, <u32>k, i); k++;
    v = ownerOf(hUpFirst, i);
  }
  let n = 0;
  for (let j = k - 1; j >= 0; j--) n = unpack(u32At(chain, <u32>j), out, n);
  v = meetNode;
  while (true) {
    const i = nU32(sParB, v);
    if (i == NONE) break;
    n = unpack(hU + i, out, n);
    v = ownerOf(hDnFirst, i);
  }
  return n;
}

function chPathStart(): u32 {
  let v = meetNode;
  while (true) {
    const i = nU32(sParF, v);
    if (i == NONE) return v;
    v = ownerOf(hUpFirst, i);
  }
}

// ---- alternatives: via nodes of one bidirectional hierarchy search -------------------------------------
// Abraham, Delling, Goldberg and Werneck, "Alternative Routes in Road Networks" (ACM JEA 18, 2013): via-node
// alternatives over a contraction hierarchy (their X-CHV; OSRM's CH `alternative_path` is the same
// method). The two upward searches of a plain query do not stop at the first meeting but go on until
// their keys pass `stretch` times the shortest duration; a node v of their search spaces gives the
// candidate P_v = s → v → t. X-CHV takes only the nodes both searches settle, and the upward search spaces
// of a hierarchy meet at few nodes (15 per route of 3 km or more on Liechtenstein, most on the route
// itself); here every node either search settled is a via node, its distance to the other end exact: for
// a node the forward search settled, d(v, t) is the best over its edges to higher nodes of the edge plus
// the higher node's d(·, t), or the backward label where v has one (as CH-Potentials compute distances
// from a hierarchy, memoized), and the path follows those edges up to the backward search's tree; a node
// the backward search settled likewise over the edges from higher nodes into it.
// Candidates are taken by duration. Before one is unpacked, its sharing with the main route is bounded
// from below on its hierarchy edges (whole edges between nodes of the main route from either end, then
// the edge where it leaves by halving, as OSRM measures sharing): most candidates are the main route with
// a detour and are dropped there. Each one unpacked has its nodes marked, and a via node on the main
// route or on a path already taken is skipped (its path is that one again). It comes with its sharing
// with the main route (whole geometries in the caller's bitset, as alternative-rules.ts measures it); the
// caller checks the rest (sharing with the other alternatives, Abraham et al.'s local-optimality T-test
// at the via node, forbidden turns).
// Both searches run without stalling: a stalled node's label is not its shortest, and what it would
// have reached is more via nodes. Scratch use, all free after a hierarchy search: the nodes settled
// forward are listed from the start of sPot (as u32) and those settled backward from its end; the
// distances to the other end are kept by node in the F heap's key area (to the targets) and the B one's
// (from the sources), memoized where the records' spare words equal the epoch; marks are in sPotStamp
// (the potentials of blocked searches); the memo's depth-first stack, then a candidate's hierarchy edges,
// are in the B heap's node area, unpacking's stack in the F one's.

let altShareLimit: f64 = INF;
let altF: u32 = 0;
let altB: u32 = 0;
let altMainGeoms: usize = 0;
let altLimit: f64 = INF;
let altViaAt: i32 = 0;
let altStart: u32 = NONE;
let altCost: f64 = 0;
let altShared: f64 = 0;

// Marks: a node of the main route has sPotStamp == epoch, one of a path already taken altTaken (an
// epoch skipped, so that no search takes it for its own stamp).
let altTaken: u32 = 0;
@inline function onMain(v: u32): bool { return u32At(sPotStamp, v) == epoch; }
@inline function marked(v: u32): bool { const m = u32At(sPotStamp, v); return m == epoch || m == altTaken; }
@inline function markTaken(v: u32): void { if (u32At(sPotStamp, v) != epoch) setU32(sPotStamp, v, altTaken); }

/**
 * The distance from v to the backward search's seeds (toTargets) over edges to higher nodes, or from the
 * forward search's seeds over edges from higher nodes, memoized (INF: none within the searches).
 */
function viaDistance(v: u32, toTargets: bool): f64 {
  const memo = toTargets ? sHeapKF : sHeapKB;
  const done = toTargets ? sMemoF : sMemoB;
  if (nU32(done, v) == epoch) return f64At(memo, v);
  const first = toTargets ? hUpFirst : hDnFirst, next = toTargets ? hUpHead : hDnTail, weight = toTargets ? hUpWeight : hDnWeight;
  const stamp = toTargets ? sStampB : sStampF, dist = toTargets ? sDistB : sDistF;
  const stack = sHeapNB;
  setU32(stack, 0, v);
  let top = 1;
  while (top > 0) {
    const x = u32At(stack, <u32>(top - 1));
    let best: f64 = nU32(stamp, x) == epoch ? nF64(dist, x) : INF;
    let pending: u32 = NONE;
    const end = u32At(first, x + 1);
    for (let i = u32At(first, x); i < end; i++) {
      const w = u32At(next, i);
      if (nU32(done, w) != epoch) { pending = w; break; }
      const c = <f64>u32At(weight, i) + f64At(memo, w);
      if (c < best) best = c;
    }
    if (pending != NONE) { setU32(stack, <u32>top, pending); top++; continue; }
    setF64(memo, x, best);
    nSetU32(done, x, epoch);
    top--;
  }
  return f64At(memo, v);
}

/** The duration of via node `id`'s path (the forward side's node v, or the backward side's as ~v). */
@inline function viaLength(id: u32): f64 {
  if ((id & 0x80000000) == 0) return nF64(sDistF, id) + f64At(sHeapKF, id);
  const v = ~id;
  return f64At(sHeapKB, v) + nF64(sDistB, v);
}

/**
 * The search of the alternatives between the source and target seeds: settles every node of either
 * upward search within `stretch` times the shortest duration and lists them as via nodes. `mainEdges`
 * are the main route's `nMain` search edges (their nodes are marked) and `mainGeoms` the bitset of its
 * geometries. Returns how many via nodes were listed; `altNext` gives their paths.
 */
export function chAlternatives(desc: usize, scratch: usize, srcSeeds: usize, nSrc: i32, srcMeters: usize, tgtSeeds: usize, nTgt: i32, tgtMeters: usize, stretch: f64, mainEdges: usize, nMain: i32, mainGeoms: usize, shareLimit: f64): i32 {
  epoch++;
  if (epoch == 0) epoch = 1;
  altTaken = epoch;
  setup(desc, scratch, 0);
  lastFound = false;
  lastWasCh = true;
  meetNode = NONE;
  for (let i = 0; i < nMain; i++) setU32(sPotStamp, u32At(gHead, u32At(mainEdges, <u32>i)), epoch);
  altMainGeoms = mainGeoms;
  let mu = INF, muM: f64 = -INF;
  sizeF = chSeed(sStampF, sDistF, sCm, sParF, sPosF, sHeapNF, sHeapKF, 0, srcSeeds, srcMeters, nSrc < MAX_SEEDS ? nSrc : MAX_SEEDS);
  sizeB = chSeed(sStampB, sDistB, sCmB, sParB, sPosB, sHeapNB, sHeapKB, 0, tgtSeeds, tgtMeters, nTgt < MAX_SEEDS ? nTgt : MAX_SEEDS);
  const lists = sPot;
  const last = <u32>(2 * cap - 1);
  let nF: u32 = 0, nB: u32 = 0;
  while (true) {
    const limit = mu * stretch + EPS_D;
    const fOpen = sizeF > 0 && f64At(sHeapKF, 0) <= limit;
    const bOpen = sizeB > 0 && f64At(sHeapKB, 0) <= limit;
    if (!fOpen && !bOpen) break;
    const forward = fOpen && (!bOpen || f64At(sHeapKF, 0) <= f64At(sHeapKB, 0));
    if (forward) sizeF = chStep(hUpFirst, hUpHead, hUpWeight, hUpCm, hDnFirst, hDnTail, hDnWeight, sStampF, sDistF, sCm, sParF, sPosF, sHeapNF, sHeapKF, sizeF, false);
    else sizeB = chStep(hDnFirst, hDnTail, hDnWeight, hDnCm, hUpFirst, hUpHead, hUpWeight, sStampB, sDistB, sCmB, sParB, sPosB, sHeapNB, sHeapKB, sizeB, false);
    const v = chSettled;
    if (forward) { setU32(lists, nF, v); nF++; } else { setU32(lists, last - nB, v); nB++; }
    if (nU32(sStampF, v) == epoch && nU32(sStampB, v) == epoch) {
      const d = nF64(sDistF, v) + nF64(sDistB, v), m = nF64(sCm, v) + nF64(sCmB, v);
      if (lexLess(d, m, mu, muM)) { mu = d; muM = m; meetNode = v; lastFound = true; }
    }
  }
  // The heaps are done with: their key areas now hold the memos.
  for (let i: u32 = 0; i < nF; i++) viaDistance(u32At(lists, i), true);
  for (let i: u32 = 0; i < nB; i++) viaDistance(u32At(lists, last - i), false);
  altF = nF;
  altB = nB;
  altLimit = mu * stretch + EPS_D;
  altShareLimit = shareLimit;
  // The via nodes within the limit and not on the main route, as a heap by (duration, place in the
  // lists) between the two lists: altNext takes them in that order, which a scan of the lists per
  // candidate also gave, but that scan was a third of the alternatives' CPU on a far route (tens of
  // thousands of via nodes, scanned again for each of the candidates dropped on their sharing). Marks
  // only grow, so one marked when it comes to the top is dropped then. Lists too long to leave the room
  // (never on a road map: a search settles a small part of the nodes) are scanned as before.
  altHeaped = nF + nB <= <u32>cap;
  altHeapSize = 0;
  if (altHeaped) {
    altHeap = lists + (<usize>nF << 2);
    for (let i: u32 = 0; i < nF + nB; i++) {
      const id = altId(i);
      if (viaLength(id) > altLimit || marked(i < nF ? id : ~id)) continue;
      setU32(altHeap, altHeapSize, i);
      altHeapSize++;
    }
    if (altHeapSize > 1) for (let k = <i32>(altHeapSize >> 1) - 1; k >= 0; k--) altSiftDown(<u32>k);
  }
  return <i32>(nF + nB);
}

// altNext's heap (chAlternatives): list places (forward ones first, then backward ones from the end).
let altHeaped: bool = false;
let altHeap: usize = 0;
let altHeapSize: u32 = 0;
/** The via node id (chAlternatives's lists: v forward, ~v backward) at list place i. */
@inline function altId(i: u32): u32 { return i < altF ? u32At(sPot, i) : ~u32At(sPot, <u32>(2 * cap - 1) - (i - altF)); }
/** Whether list place i comes before j: by duration, then by place (the scan's order). */
@inline function altBefore(i: u32, j: u32): bool {
  const a = viaLength(altId(i)), b = viaLength(altId(j));
  return a < b || (a == b && i < j);
}
function altSiftDown(k: u32): void {
  const x = u32At(altHeap, k);
  while (true) {
    let c: u32 = 2 * k + 1;
    if (c >= altHeapSize) break;
    let y = u32At(altHeap, c);
    if (c + 1 < altHeapSize) {
      const z = u32At(altHeap, c + 1);
      if (altBefore(z, y)) { c++; y = z; }
    }
    if (!altBefore(y, x)) break;
    setU32(altHeap, k, y);
    k = c;
  }
  setU32(altHeap, k, x);
}

/** The next via node (its id) by duration not marked, taken off the list; NONE when none is left. */
function altPop(): u32 {
  if (altHeaped) {
    while (altHeapSize > 0) {
      const i = u32At(altHeap, 0);
      altHeapSize--;
      if (altHeapSize > 0) {
        setU32(altHeap, 0, u32At(altHeap, altHeapSize));
        altSiftDown(0);
      }
      const id = altId(i);
      if (!marked(i < altF ? id : ~id)) return id;
    }
    return NONE;
  }
  const lists = sPot;
  const last = <u32>(2 * cap - 1);
  let best: u32 = NONE, bestD = INF, bestAt: u32 = 0;
  for (let i: u32 = 0; i < altF + altB; i++) {
    const at = i < altF ? i : last - (i - altF);
    const x = u32At(lists, at);
    if (x == NONE) continue;
    const id = i < altF ? x : ~x;
    const d = viaLength(id);
    if (d > altLimit || marked(x)) { setU32(lists, at, NONE); continue; }
    if (d < bestD) { bestD = d; best = id; bestAt = at; }
  }
  if (best != NONE) setU32(lists, bestAt, NONE);
  return best;
}

/** Appends the search edges of CH edge `e` at `out` from index n, at most `room` in all; -1 when they do not fit. */
function unpackWithin(e: u32, out: usize, n: i32, room: i32): i32 {
  const stack = sHeapNF;
  let top = 1;
  setU32(stack, 0, e);
  while (top > 0) {
    top--;
    const x = u32At(stack, <u32>top);
    const b = u32At(hChB, x);
    if (b == NONE) {
      if (n >= room) return -1;
      setU32(out, <u32>n, u32At(hChA, x)); n++;
      continue;
    }
    setU32(stack, <u32>top, b);
    setU32(stack, <u32>top + 1, u32At(hChA, x));
    top += 2;
  }
  return n;
}

// Hierarchy edges by one id: up edge i is i, down edge i is U + i (as chA and chB name them).
@inline function chTail(e: u32): u32 { return e < hU ? ownerOf(hUpFirst, e) : u32At(hDnTail, e - hU); }
@inline function chHead(e: u32): u32 { return e < hU ? u32At(hUpHead, e) : ownerOf(hDnFirst, e - hU); }
@inline function chCm(e: u32): f64 { return <f64>(e < hU ? u32At(hUpCm, e) : u32At(hDnCm, e - hU)); }

/** Centimeters of edge e's unpacked path that run over the main route's nodes from its start (fromStart,
 *  e starting on the main route) or to its end, found by halving it (OSRM's partial unpacking). */
function partlyOnMain(e: u32, fromStart: bool): f64 {
  let cm: f64 = 0;
  while (true) {
    const a = u32At(hChA, e), b = u32At(hChB, e);
    if (b == NONE) return (fromStart ? onMain(u32At(gHead, a)) : onMain(ownerOf(gFirstOut, a))) ? cm + chCm(e) : cm;
    if (onMain(chHead(a))) { cm += chCm(fromStart ? a : b); e = fromStart ? b : a; } else e = fromStart ? a : b;
  }
  return cm; // not reached
}

/** The edge whose weight and far end's memo make up x's memo (NONE: x's own label does). */
function viaStep(x: u32, toTargets: bool): u32 {
  const memo = toTargets ? sHeapKF : sHeapKB;
  const d = f64At(memo, x);
  const stamp = toTargets ? sStampB : sStampF, dist = toTargets ? sDistB : sDistF;
  if (nU32(stamp, x) == epoch && nF64(dist, x) <= d + EPS_D) return NONE;
  const first = toTargets ? hUpFirst : hDnFirst, next = toTargets ? hUpHead : hDnTail, weight = toTargets ? hUpWeight : hDnWeight;
  const end = u32At(first, x + 1);
  for (let i = u32At(first, x); i < end; i++) {
    if (<f64>u32At(weight, i) + f64At(memo, u32At(next, i)) <= d + EPS_D) return i;
  }
  return NONE; // not reached: the memo is one of those
}

/** Reverses the u32s of `list` from i to j (inclusive). */
function reverseU32(list: usize, i: i32, j: i32): void {
  for (; i < j; i++, j--) {
    const t = u32At(list, <u32>i);
    setU32(list, <u32>i, u32At(list, <u32>j));
    setU32(list, <u32>j, t);
  }
}

/**
 * Via node `id`'s path as hierarchy edges in travel order, in the B heap's node area; returns their count
 * and sets altStart, altEnd (the seeds' nodes it leaves and reaches) and where the forward tree's part
 * ends and the backward tree's starts (as indexes of those edges). The part from the via node to the
 * other tree is the memo's shortest path, so P_v is a shortest path to v then one from v.
 */
let packedJoinA: i32 = 0, packedJoinB: i32 = 0;
let altEnd: u32 = NONE;
function packedPath(id: u32): i32 {
  const list = sHeapNB;
  const forward = (id & 0x80000000) == 0;
  const v = forward ? id : ~id;
  let k = 0;
  // The memo's edges: forward, from v up to the backward tree (travel order); backward, from v up to
  // the forward tree (reverse order), kept after the forward tree's part once that is known.
  let x = v;
  let top = x;
  if (!forward) {
    while (true) {
      const i = viaStep(x, false);
      if (i == NONE) break;
      x = u32At(hDnTail, i);
    }
    top = x;
  }
  // The forward tree from its root to `top`.
  x = top;
  while (true) {
    const i = nU32(sParF, x);
    if (i == NONE) break;
    setU32(list, <u32>k, i); k++;
    x = ownerOf(hUpFirst, i);
  }
  altStart = x;
  reverseU32(list, 0, k - 1);
  packedJoinA = k;
  x = top;
  if (forward) {
    while (true) {
      const i = viaStep(x, true);
      if (i == NONE) break;
      setU32(list, <u32>k, i); k++;
      x = u32At(hUpHead, i);
    }
  } else {
    const from = k;
    x = v;
    while (true) {
      const i = viaStep(x, false);
      if (i == NONE) break;
      setU32(list, <u32>k, hU + i); k++;
      x = u32At(hDnTail, i);
    }
    reverseU32(list, from, k - 1);
    x = v;
  }
  packedJoinB = k;
  while (true) {
    const i = nU32(sParB, x);
    if (i == NONE) break;
    setU32(list, <u32>k, hU + i); k++;
    x = ownerOf(hDnFirst, i);
  }
  altEnd = x;
  return k;
}

/**
 * The next candidate of the last chAlternatives, by duration: writes its search edges in travel order
 * at `out` (at most `room`) and returns their count, or -1 when none is left; the functions below
 * describe it.
 */
export function altNext(out: usize, room: i32): i32 {
  while (true) {
    const best = altPop();
    if (best == NONE) return -1;
    const bestD = viaLength(best);
    const k = packedPath(best);
    const packed = sHeapNB;
    // Before unpacking: what it runs on the main route from its start and up to its end (whole edges
    // between nodes of the main route, and the part of the first other edge found by halving it, as
    // OSRM's CH alternatives measure sharing) is shared; a candidate sharing more than the limit that way
    // is dropped unpacked: most are the main route with a detour.
    let pre: f64 = nF64(sCm, altStart), suf: f64 = nF64(sCmB, altEnd);
    let j = 0;
    for (; j < k; j++) {
      const e = u32At(packed, <u32>j);
      if (!onMain(chHead(e))) { pre += partlyOnMain(e, true); break; }
      pre += chCm(e);
    }
    if (j < k) {
      for (let i = k - 1; i > j; i--) {
        const e = u32At(packed, <u32>i);
        if (!onMain(chTail(e))) { suf += partlyOnMain(e, false); break; }
        suf += chCm(e);
      }
    }
    if (pre + suf > altShareLimit) continue;
    // The via node: where the forward tree's part ends, or the backward tree's starts.
    const via = (best & 0x80000000) == 0 ? packedJoinA : packedJoinB;
    let n = 0;
    for (let i = 0; i < k && n >= 0; i++) {
      if (i == via) altViaAt = n;
      n = unpackWithin(u32At(packed, <u32>i), out, n, room);
    }
    if (via == k) altViaAt = n;
    if (n < 0) continue;
    let shared: f64 = 0;
    markTaken(altStart);
    for (let i = 0; i < n; i++) {
      const e = u32At(out, <u32>i);
      markTaken(u32At(gHead, e));
      const g = u32At(gOrig, e) >> 1;
      if ((load<u8>(altMainGeoms + (<usize>g >> 3)) & (<u8>1 << <u8>(g & 7))) != 0) shared += <f64>u32At(gGeomCm, g);
    }
    altCost = bestD;
    altShared = shared;
    return n;
  }
  return -1; // not reached: the loop returns
}

/** Of the last altNext: how many of its edges come before its via node, the node it leaves from, its
 *  duration (tenths, the seeds' included), and the centimeters of its geometries on the main route's. */
export function altViaIndex(): i32 { return altViaAt; }
export function altStartNode(): u32 { return altStart; }
export function altDuration(): f64 { return altCost; }
export function altSharedCentimeters(): f64 { return altShared; }

// Buckets of the last chBuckets call: entries (next u32, target u32, duration f64, meters f64) chained
// per node from sBucketHead, valid where sBucketStamp equals bucketEpoch.
let bucketEpoch: u32 = 0;
let bucketEntries: usize = 0;

/**
 * One backward search per target (a matrix column) from its seeds — seed records at `seeds`, their meters
 * at `seedMeters`, target j's from index starts[j] to starts[j + 1] — fills the buckets of the nodes it
 * settles with j and the label there (the seed's cost included). Writes at most `cap` entries at `entries`;
 * returns how many were needed (more than cap: call again with room).
 */
export function chBuckets(desc: usize, scratch: usize, seeds: usize, seedMeters: usize, starts: usize, nTargets: i32, entries: usize, cap: i32): i32 {
  setup(desc, scratch, 0);
  bucketEpoch++;
  if (bucketEpoch == 0) bucketEpoch = 1;
  bucketEntries = entries;
  let count = 0;
  // The nodes that have a bucket, in the order they got one, kept in the F side's heap area (unused here)
  // for compactBuckets.
  let nodes: u32 = 0;
  for (let j = 0; j < nTargets; j++) {
    if (j > 0) { epoch++; if (epoch == 0) epoch = 1; }
    const s0 = u32At(starts, <u32>j), s1 = u32At(starts, <u32>j + 1);
    sizeB = chSeed(sStampB, sDistB, sCmB, sParB, sPosB, sHeapNB, sHeapKB, 0, seeds + <usize>s0 * Seed.BYTES, seedMeters + (<usize>s0 << 3), <i32>(s1 - s0));
    while (sizeB > 0) {
      const v = chBackwardStep();
      if (chStalled) continue;
      if (count < cap) {
        const rec = entries + <usize>count * BucketEntry.BYTES;
        const known = u32At(sBucketStamp, v) == bucketEpoch;
        if (!known) { setU32(sHeapNF, nodes, v); nodes++; }
        store<u32>(rec + BucketEntry.next, known ? u32At(sBucketHead, v) : NONE);
        store<u32>(rec + BucketEntry.target, <u32>j);
        store<f64>(rec + BucketEntry.duration, nF64(sDistB, v));
        store<f64>(rec + BucketEntry.centimeters, nF64(sCmB, v));
        setU32(sBucketHead, v, <u32>count);
        setU32(sBucketStamp, v, bucketEpoch);
      }
      count++;
    }
  }
  if (count > cap) return count;
  // Room for the copy that lays each node's bucket out contiguously (asked for like the entries).
  if (2 * count > cap) return 2 * count;
  compactBuckets(entries, count, nodes);
  return count;
}

/**
 * Lays the entries of each node's bucket out one after another (the `nodes` listed in sHeapNF, through a
 * copy after the entries): a row then reads each bucket from consecutive memory instead of chasing entries
 * scattered over the whole array, which is what a large matrix spends its time on. Chains keep their shape
 * (next is the following record), so chRow reads them as before.
 */
function compactBuckets(entries: usize, count: i32, nodes: u32): void {
  const tmp = entries + <usize>count * BucketEntry.BYTES;
  let pos: u32 = 0;
  for (let i: u32 = 0; i < nodes; i++) {
    const v = u32At(sHeapNF, i);
    let k = u32At(sBucketHead, v);
    setU32(sBucketHead, v, pos);
    while (k != NONE) {
      const src = entries + <usize>k * BucketEntry.BYTES, dst = tmp + <usize>pos * BucketEntry.BYTES;
      const next = load<u32>(src + BucketEntry.next);
      store<u32>(dst + BucketEntry.next, next == NONE ? NONE : pos + 1);
      store<u32>(dst + BucketEntry.target, load<u32>(src + BucketEntry.target));
      store<f64>(dst + BucketEntry.duration, load<f64>(src + BucketEntry.duration));
      store<f64>(dst + BucketEntry.centimeters, load<f64>(src + BucketEntry.centimeters));
      pos++;
      k = next;
    }
  }
  memory.copy(entries, tmp, <usize>count * BucketEntry.BYTES);
}

/**
 * One matrix row over the buckets of the last chBuckets call: an upward search from the source seeds
 * (seed meters at `srcMeters`) scans the bucket of every node it settles. Writes per target the duration
 * (INF when unreachable) at `outDur` and the meters of that path at `outDist`.
 */
export function chRow(desc: usize, scratch: usize, srcSeeds: usize, nSrc: i32, srcMeters: usize, nTargets: i32, outDur: usize, outDist: usize): void {
  setup(desc, scratch, 0);
  for (let j = 0; j < nTargets; j++) { setF64(outDur, <u32>j, INF); setF64(outDist, <u32>j, INF); }
  sizeF = chSeed(sStampF, sDistF, sCm, sParF, sPosF, sHeapNF, sHeapKF, 0, srcSeeds, srcMeters, nSrc);
  // Once every target has a duration, nothing settled at more than the largest of them can improve one
  // (bucket labels are not negative): the search stops there instead of climbing to the hierarchy's top,
  // which is most of a row's work when the targets are near. `worst` is INF until all are found.
  let found = 0, worst = INF, stale = false;
  while (sizeF > 0) {
    if (stale) { worst = 0; for (let j = 0; j < nTargets; j++) worst = max(worst, f64At(outDur, <u32>j)); stale = false; }
    if (f64At(sHeapKF, 0) > worst + EPS_D) break;
    const v = chForwardStep();
    if (chStalled || u32At(sBucketStamp, v) != bucketEpoch) continue;
    const dv = nF64(sDistF, v), mv = nF64(sCm, v);
    let k = u32At(sBucketHead, v);
    while (k != NONE) {
      const rec = bucketEntries + <usize>k * BucketEntry.BYTES;
      const j = load<u32>(rec + BucketEntry.target);
      const d = dv + load<f64>(rec + BucketEntry.duration), m = mv + load<f64>(rec + BucketEntry.centimeters);
      const was = f64At(outDur, j);
      if (lexLess(d, m, was, f64At(outDist, j))) {
        setF64(outDur, j, d); setF64(outDist, j, m);
        if (was == INF) { found++; stale = found == nTargets; } else if (found == nTargets && was >= worst) stale = true;
      }
      k = load<u32>(rec + BucketEntry.next);
    }
  }
  for (let j = 0; j < nTargets; j++) setF64(outDist, <u32>j, f64At(outDist, <u32>j) * 0.01);
}
