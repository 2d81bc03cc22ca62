// Contraction-hierarchy preprocessing (node ordering and shortcuts) over a search graph copied into this
// kernel's own memory; src/map/graphs/contraction.ts drives it and builds the upward/downward CSR from the edge
// pool it leaves behind.
//
// Costs are lexicographic (duration in tenths, length in whole centimeters), packed in one u64 with the
// duration in the high word (packCost, by ContractionCost generated from solver-as/layouts.json): adding
// two packed costs adds both parts (a path of 42,949 km would carry into the duration) and one integer
// comparison orders them. Node order: a priority queue on 4·(edge difference) + deleted neighbours +
// level, with lazy updates (a popped node whose neighbourhood changed since its last simulation is
// simulated again and put back when it is no longer the smallest).
// Witness searches: the direct edges first, then a Dijkstra limited by a settled-node count.
//
// Memory: the region of lib/memory.ts after the static data; the edge pool and the adjacency lists give
// their old blocks back when they outgrow them (take/give/regrow), and the lists drop their holes and the
// lists of contracted nodes when they run out of room, so memory follows what is live rather than
// everything ever grown. A fresh instance is used per build and then dropped.

import { bump, f64At, give, regrow, setF64, setU32, setU64, take, u32At, u64At } from '../lib/memory';
import { ContractionCost } from './generated/layouts';

const NONE: u32 = 0xffffffff;
/** Packed sums saturate here: edges closed to the default lorry weigh 2^26 tenths more each (see
 *  CLOSED_PENALTY), and a path over many of them must not wrap round to a small cost. */
const CAP: u64 = 0xf000000000000000;

/** A packed cost: each part in its u32 word of the u64 (ContractionCost), as src/map/graphs/contraction.ts reads them. */
@inline function packCost(tenths: u32, centimeters: u32): u64 {
  return (<u64>tenths << (32 * <u64>ContractionCost.durationWord)) | (<u64>centimeters << (32 * <u64>ContractionCost.centimetersWord));
}

@inline function addCost(a: u64, b: u64): u64 {
  const s = a + b;
  return s < a || s > CAP ? CAP : s;
}

/** Reserves `bytes` (16-byte aligned), growing the memory as needed: the caller's input arrays. */
export function allocate(bytes: usize): usize {
  return bump(bytes);
}

// ---- edge pool: tail, head, packed cost, unpacking pair ------------------------------------------------
let pFrom: usize = 0; let pTo: usize = 0; let pC: usize = 0; let pA: usize = 0; let pB: usize = 0;
let pCount: u32 = 0; let pCap: u32 = 0;

function poolAdd(from: u32, to: u32, c: u64, a: u32, b: u32): u32 {
  if (pCount == pCap) {
    // By half: the old blocks are given back, but a block half as big again still fits where a doubled one
    // would not.
    const cap = pCap + (pCap >> 1);
    const n = <usize>pCount, old = <usize>pCap;
    pFrom = regrow(pFrom, n << 2, old << 2, <usize>cap << 2); pTo = regrow(pTo, n << 2, old << 2, <usize>cap << 2);
    pC = regrow(pC, n << 3, old << 3, <usize>cap << 3);
    pA = regrow(pA, n << 2, old << 2, <usize>cap << 2); pB = regrow(pB, n << 2, old << 2, <usize>cap << 2);
    pCap = cap;
  }
  const e = pCount++;
  setU32(pFrom, e, from); setU32(pTo, e, to); setU64(pC, e, c); setU32(pA, e, a); setU32(pB, e, b);
  return e;
}

// ---- adjacency lists (out and in), entries inline: edge, other end, packed cost --------------------------
// Per list set, a descriptor of 8-byte words: 0 edge, 1 other, 2 cost, 4 start, 5 len, 6 cap, 7 end, 8 capacity.
let outL: usize = 0;
let inL: usize = 0;

@inline function lw(l: usize, k: i32): usize { return load<usize>(l + (<usize>k << 3)); }
@inline function setLw(l: usize, k: i32, v: usize): void { store<usize>(l + (<usize>k << 3), v); }

function listsNew(n: u32, room: u32): usize {
  const l = bump(9 << 3);
  setLw(l, 0, bump(<usize>room << 2)); setLw(l, 1, bump(<usize>room << 2));
  setLw(l, 2, bump(<usize>room << 3));
  setLw(l, 4, bump(<usize>n << 2)); setLw(l, 5, bump(<usize>n << 2)); setLw(l, 6, bump(<usize>n << 2));
  memory.fill(lw(l, 4), 0, <usize>n << 2); memory.fill(lw(l, 5), 0, <usize>n << 2); memory.fill(lw(l, 6), 0, <usize>n << 2);
  setLw(l, 7, 0); setLw(l, 8, room);
  return l;
}

function listPush(l: usize, v: u32, e: u32, other: u32, c: u64): void {
  const startA = lw(l, 4), lenA = lw(l, 5), capA = lw(l, 6);
  let len = u32At(lenA, v);
  if (len == u32At(capA, v)) {
    const c = u32At(capA, v);
    const cap: u32 = c < 2 ? 4 : 2 * c;
    let end = <u32>lw(l, 7);
    const capacity = <u32>lw(l, 8);
    if (end + cap > capacity) {
      listsCompact(l, cap);
      end = <u32>lw(l, 7);
    }
    const s = u32At(startA, v);
    memory.copy(lw(l, 0) + (<usize>end << 2), lw(l, 0) + (<usize>s << 2), <usize>len << 2);
    memory.copy(lw(l, 1) + (<usize>end << 2), lw(l, 1) + (<usize>s << 2), <usize>len << 2);
    memory.copy(lw(l, 2) + (<usize>end << 3), lw(l, 2) + (<usize>s << 3), <usize>len << 3);
    setU32(startA, v, end);
    setU32(capA, v, cap);
    setLw(l, 7, end + cap);
  }
  const i = u32At(startA, v) + len;
  setU32(lw(l, 0), i, e); setU32(lw(l, 1), i, other); setU64(lw(l, 2), i, c);
  setU32(lenA, v, len + 1);
}

/**
 * Moves the lists of the nodes not yet contracted, in node order, into new arrays with room for `extra` more
 * entries and half as many again as they hold, and gives the old arrays back: the slots that lists left
 * when they moved, and the lists of contracted nodes (never read again), are dropped. Each list keeps its
 * entries' order, so the contraction is the same as without it.
 */
function listsCompact(l: usize, extra: u32): void {
  compactions++;
  const startA = lw(l, 4), lenA = lw(l, 5), capA = lw(l, 6);
  let live: u64 = 0;
  for (let v: u32 = 0; v < nodes; v++) if (u32At(rankP, v) == NONE) live += <u64>u32At(capA, v);
  const want: u64 = live + (live >> 1) + <u64>extra + 16;
  if (want > <u64>0x3fffffff) unreachable();
  const size = <u32>want;
  const oldSize = <usize>lw(l, 8);
  const edge = take(<usize>size << 2), other = take(<usize>size << 2), cost = take(<usize>size << 3);
  const oEdge = lw(l, 0), oOther = lw(l, 1), oCost = lw(l, 2);
  let end: u32 = 0;
  for (let v: u32 = 0; v < nodes; v++) {
    if (u32At(rankP, v) != NONE) {
      setU32(startA, v, 0); setU32(lenA, v, 0); setU32(capA, v, 0);
      continue;
    }
    const s = u32At(startA, v), len = u32At(lenA, v);
    memory.copy(edge + (<usize>end << 2), oEdge + (<usize>s << 2), <usize>len << 2);
    memory.copy(other + (<usize>end << 2), oOther + (<usize>s << 2), <usize>len << 2);
    memory.copy(cost + (<usize>end << 3), oCost + (<usize>s << 3), <usize>len << 3);
    setU32(startA, v, end);
    end += u32At(capA, v);
  }
  give(oEdge, oldSize << 2); give(oOther, oldSize << 2); give(oCost, oldSize << 3);
  setLw(l, 0, edge); setLw(l, 1, other); setLw(l, 2, cost);
  setLw(l, 7, end); setLw(l, 8, size);
}

function listFind(l: usize, v: u32, e: u32): u32 {
  const edge = lw(l, 0);
  const s = u32At(lw(l, 4), v), end = s + u32At(lw(l, 5), v);
  for (let i = s; i < end; i++) if (u32At(edge, i) == e) return i;
  return NONE;
}

function listRemove(l: usize, v: u32, e: u32): void {
  const i = listFind(l, v, e);
  if (i == NONE) return;
  const lenA = lw(l, 5);
  const last = u32At(lw(l, 4), v) + u32At(lenA, v) - 1;
  setU32(lenA, v, u32At(lenA, v) - 1);
  setU32(lw(l, 0), i, u32At(lw(l, 0), last)); setU32(lw(l, 1), i, u32At(lw(l, 1), last));
  setU64(lw(l, 2), i, u64At(lw(l, 2), last));
}

function listSetCost(l: usize, v: u32, e: u32, c: u64): void {
  setU64(lw(l, 2), listFind(l, v, e), c);
}

/** The edge u→w in the remaining graph, or NONE. */
function findEdge(u: u32, w: u32): u32 {
  const other = lw(outL, 1);
  const s = u32At(lw(outL, 4), u), end = s + u32At(lw(outL, 5), u);
  for (let i = s; i < end; i++) if (u32At(other, i) == w) return u32At(lw(outL, 0), i);
  return NONE;
}

/** Adds u→w or improves an existing u→w; parallel edges keep only the lexicographically cheapest. */
function addEdge(u: u32, w: u32, c: u64, a: u32, b: u32): void {
  const e = findEdge(u, w);
  if (e == NONE) {
    const id = poolAdd(u, w, c, a, b);
    listPush(outL, u, id, w, c);
    listPush(inL, w, id, u, c);
  } else if (c < u64At(pC, e)) {
    setU64(pC, e, c); setU32(pA, e, a); setU32(pB, e, b);
    listSetCost(outL, u, e, c);
    listSetCost(inL, w, e, c);
  }
}

// ---- witness search: bounded Dijkstra on packed costs with a lazy heap --------------------------------
let sKey: usize = 0; let sStamp: usize = 0; let sDone: usize = 0; let sTarget: usize = 0;
let hNode: usize = 0; let hKey: usize = 0; let hCap: u32 = 0; let hSize: u32 = 0;
let epoch: u32 = 0;

function heapPush(v: u32, k: u64): void {
  if (hSize == hCap) {
    const cap = hCap * 2;
    hNode = regrow(hNode, <usize>hSize << 2, <usize>hCap << 2, <usize>cap << 2);
    hKey = regrow(hKey, <usize>hSize << 3, <usize>hCap << 3, <usize>cap << 3);
    hCap = cap;
  }
  let i = hSize++;
  while (i > 0) {
    const p = (i - 1) >> 1;
    const pk = u64At(hKey, p);
    if (k >= pk) break;
    setU32(hNode, i, u32At(hNode, p)); setU64(hKey, i, pk);
    i = p;
  }
  setU32(hNode, i, v); setU64(hKey, i, k);
}

function heapPop(): u32 {
  const v = u32At(hNode, 0);
  const n = --hSize;
  if (n > 0) {
    const lv = u32At(hNode, n), lk = u64At(hKey, n);
    let i: u32 = 0;
    while (true) {
      let c: u32 = 2 * i + 1;
      if (c >= n) break;
      let ck = u64At(hKey, c);
      if (c + 1 < n) {
        const rk = u64At(hKey, c + 1);
        if (rk < ck) { c++; ck = rk; }
      }
      if (ck >= lk) break;
      setU32(hNode, i, u32At(hNode, c)); setU64(hKey, i, ck);
      i = c;
    }
    setU32(hNode, i, lv); setU64(hKey, i, lk);
  }
  return v;
}

/** From `source`, never through `skip`, until `targets` are settled, keys pass maxK, or `limit` nodes settle. */
function witness(source: u32, skip: u32, maxK: u64, targets: u32, limit: u32): void {
  const ep = epoch;
  const other = lw(outL, 1), cA = lw(outL, 2), startA = lw(outL, 4), lenA = lw(outL, 5);
  hSize = 0;
  setU32(sStamp, source, ep); setU64(sKey, source, 0);
  heapPush(source, 0);
  let settled: u32 = 0, left = targets;
  while (hSize > 0) {
    const k = u64At(hKey, 0);
    if (k > maxK) break;
    const v = heapPop();
    if (u32At(sDone, v) == ep || k != u64At(sKey, v)) continue;
    setU32(sDone, v, ep);
    if (u32At(sTarget, v) == ep) { left--; if (left == 0) break; }
    if (++settled > limit) break;
    const s = u32At(startA, v), end = s + u32At(lenA, v);
    for (let i = s; i < end; i++) {
      const w = u32At(other, i);
      if (w == skip) continue;
      const nk = addCost(k, u64At(cA, i));
      if (nk > maxK) continue;
      if (u32At(sStamp, w) != ep || nk < u64At(sKey, w)) {
        setU32(sStamp, w, ep); setU64(sKey, w, nk);
        heapPush(w, nk);
      }
    }
  }
}

// ---- contraction ----------------------------------------------------------------------------------------
let need: usize = 0; let covered: usize = 0;
let deleted: usize = 0; let level: usize = 0; let edgeDiff: usize = 0; let dirty: usize = 0;
// Copies of the lists of the node being contracted (they may move while shortcuts are added).
let cEdge: usize = 0; let cOther: usize = 0; let cCost: usize = 0; let cCap: u32 = 0;

function copyLists(v: u32, inN: u32, outN: u32): void {
  const n = inN + outN;
  if (n > cCap) {
    if (cCap > 0) { give(cEdge, <usize>cCap << 2); give(cOther, <usize>cCap << 2); give(cCost, <usize>cCap << 3); }
    cCap = n * 2;
    cEdge = take(<usize>cCap << 2); cOther = take(<usize>cCap << 2); cCost = take(<usize>cCap << 3);
  }
  const si = u32At(lw(inL, 4), v), so = u32At(lw(outL, 4), v);
  memory.copy(cEdge, lw(inL, 0) + (<usize>si << 2), <usize>inN << 2);
  memory.copy(cOther, lw(inL, 1) + (<usize>si << 2), <usize>inN << 2);
  memory.copy(cCost, lw(inL, 2) + (<usize>si << 3), <usize>inN << 3);
  memory.copy(cEdge + (<usize>inN << 2), lw(outL, 0) + (<usize>so << 2), <usize>outN << 2);
  memory.copy(cOther + (<usize>inN << 2), lw(outL, 1) + (<usize>so << 2), <usize>outN << 2);
  memory.copy(cCost + (<usize>inN << 3), lw(outL, 2) + (<usize>so << 3), <usize>outN << 3);
}

/** Shortcuts needed to contract v (added when `apply`). */
function shortcuts(v: u32, limit: u32, apply: bool): i32 {
  const inN = u32At(lw(inL, 5), v), outN = u32At(lw(outL, 5), v);
  if (inN == 0 || outN == 0) return 0;
  copyLists(v, inN, outN);
  let count = 0;
  for (let a: u32 = 0; a < inN; a++) {
    const u = u32At(cOther, a);
    const ca = u64At(cCost, a);
    epoch++;
    const ep = epoch;
    let maxK: u64 = 0;
    let targets: u32 = 0;
    for (let b = inN; b < inN + outN; b++) {
      const w = u32At(cOther, b);
      if (w == u) continue;
      setU32(sTarget, w, ep);
      const nk = addCost(ca, u64At(cCost, b));
      setU64(need, w, nk);
      targets++;
      if (nk > maxK) maxK = nk;
    }
    if (targets == 0) continue;
    // Direct edges u→w are the commonest witnesses (dense upper levels): only the rest needs a search.
    const other = lw(outL, 1), costA = lw(outL, 2);
    const s = u32At(lw(outL, 4), u), end = s + u32At(lw(outL, 5), u);
    for (let i = s; i < end; i++) {
      const w = u32At(other, i);
      if (u32At(sTarget, w) == ep && u64At(costA, i) <= u64At(need, w)) {
        setU32(covered, w, ep);
        setU32(sTarget, w, 0);
        targets--;
      }
    }
    if (targets > 0) witness(u, v, maxK, targets, limit);
    for (let b = inN; b < inN + outN; b++) {
      const w = u32At(cOther, b);
      if (w == u) continue;
      const nk = u64At(need, w);
      if (u32At(covered, w) == ep) continue;
      if (targets > 0 && u32At(sStamp, w) == ep && u64At(sKey, w) <= nk) continue;
      count++;
      if (apply) addEdge(u, w, nk, u32At(cEdge, a), u32At(cEdge, b));
    }
  }
  return count;
}

function priority(v: u32, simLimit: u32): f64 {
  if (load<u8>(dirty + <usize>v) != 0) {
    setF64(edgeDiff, v, <f64>shortcuts(v, simLimit, false) - <f64>u32At(lw(inL, 5), v) - <f64>u32At(lw(outL, 5), v));
    store<u8>(dirty + <usize>v, 0);
  }
  return 4 * f64At(edgeDiff, v) + <f64>u32At(deleted, v) + <f64>u32At(level, v);
}

// ---- the node queue: indexed binary min-heap on priorities ------------------------------------------
let qHeap: usize = 0; let qPos: usize = 0; let qKey: usize = 0; let qSize: u32 = 0;

function qUp(i0: u32): void {
  let i = i0;
  const v = u32At(qHeap, i), k = f64At(qKey, v);
  while (i > 0) {
    const p = (i - 1) >> 1, pv = u32At(qHeap, p);
    if (f64At(qKey, pv) <= k) break;
    setU32(qHeap, i, pv); setU32(qPos, pv, i); i = p;
  }
  setU32(qHeap, i, v); setU32(qPos, v, i);
}

function qDown(i0: u32): void {
  let i = i0;
  const v = u32At(qHeap, i), k = f64At(qKey, v);
  while (true) {
    let c: u32 = 2 * i + 1;
    if (c >= qSize) break;
    if (c + 1 < qSize && f64At(qKey, u32At(qHeap, c + 1)) < f64At(qKey, u32At(qHeap, c))) c++;
    const cv = u32At(qHeap, c);
    if (f64At(qKey, cv) >= k) break;
    setU32(qHeap, i, cv); setU32(qPos, cv, i); i = c;
  }
  setU32(qHeap, i, v); setU32(qPos, v, i);
}

function qSet(v: u32, k: f64): void {
  const p = u32At(qPos, v);
  setF64(qKey, v, k);
  if (p == NONE) {
    setU32(qHeap, qSize, v); setU32(qPos, v, qSize); qSize++;
    qUp(qSize - 1);
  } else {
    qUp(p);
    qDown(u32At(qPos, v));
  }
}

function qPop(): u32 {
  const v = u32At(qHeap, 0);
  setU32(qPos, v, NONE);
  qSize--;
  if (qSize > 0) {
    const last = u32At(qHeap, qSize);
    setU32(qHeap, 0, last); setU32(qPos, last, 0);
    qDown(0);
  }
  return v;
}

let rankP: usize = 0;
let nodes: u32 = 0;
let compactions: u32 = 0;
let order: u32 = 0;
let gSimLimit: u32 = 0;
let gConLimit: u32 = 0;

/**
 * Starts contracting the graph given as forward CSR (firstOut, head, weight tenths, orig directed
 * original edge) with centimeters per geometry (geomCm, u32, indexed by orig >> 1): loads it and queues every
 * node. `contractSome` then does the work in slices, so the caller can report progress between them.
 */
export function contractStart(n: u32, firstOut: usize, head: usize, weight: usize, orig: usize, geomCm: usize, m: u32, simLimit: u32, conLimit: u32): void {
  gSimLimit = simLimit;
  gConLimit = conLimit;
  nodes = n;
  order = 0;
  // Road graphs end with about 1.9 edges in the pool per input edge: room for 2.2 saves a growth.
  pCap = m * 2 + m / 5 + 16; pCount = 0;
  pFrom = bump(<usize>pCap << 2); pTo = bump(<usize>pCap << 2); pC = bump(<usize>pCap << 3);
  pA = bump(<usize>pCap << 2); pB = bump(<usize>pCap << 2);
  // Room for the adjacency lists: road graphs used 2.24–2.37 entries per input edge over a whole
  // contraction (lists move to the end when they outgrow their slot), so they never need a compaction.
  // Less room saves little and risks more: on the 32x32 car graph room for 2.0 held the lists after two
  // compactions (kernel 1.30 → 1.20 GB), 1.8 did not (1.58 GB: each compaction's new arrays beside the
  // old). Compacting in place, growing only when that was not enough, took the edge-based 32x32 graph's
  // kernel to 2.93 GB against 2.45 GB with new arrays sized to what is live.
  outL = listsNew(n, m * 13 / 5 + 16);
  inL = listsNew(n, m * 13 / 5 + 16);
  const nb4 = <usize>n << 2, nb8 = <usize>n << 3;
  sKey = bump(nb8);
  sStamp = bump(nb4); sDone = bump(nb4); sTarget = bump(nb4);
  memory.fill(sStamp, 0, nb4); memory.fill(sDone, 0, nb4); memory.fill(sTarget, 0, nb4);
  hCap = 1024; hSize = 0;
  hNode = bump(<usize>hCap << 2); hKey = bump(<usize>hCap << 3);
  need = bump(nb8); covered = bump(nb4); memory.fill(covered, 0, nb4);
  deleted = bump(nb4); level = bump(nb4); edgeDiff = bump(nb8); dirty = bump(<usize>n);
  memory.fill(deleted, 0, nb4); memory.fill(level, 0, nb4); memory.fill(dirty, 1, <usize>n);
  qHeap = bump(nb4); qPos = bump(nb4); qKey = bump(nb8); qSize = 0;
  memory.fill(qPos, 0xff, nb4);
  rankP = bump(nb4);
  memory.fill(rankP, 0xff, nb4); // NONE until contracted (listsCompact drops the lists of contracted nodes)

  for (let v: u32 = 0; v < n; v++) {
    const end = u32At(firstOut, v + 1);
    for (let e = u32At(firstOut, v); e < end; e++) {
      const w = u32At(head, e);
      if (w != v) addEdge(v, w, packCost(u32At(weight, e), u32At(geomCm, u32At(orig, e) >> 1)), e, NONE);
    }
  }

  for (let v: u32 = 0; v < n; v++) qSet(v, priority(v, simLimit));
}

/**
 * Contracts up to `count` more nodes; returns how many nodes are contracted so far. When that is all of
 * them, the edge pool (poolFrom() … poolB(), `poolCount()` edges) and the order (rank()) are final.
 */
export function contractSome(count: u32): u32 {
  const stop = order + count;
  while (qSize > 0 && order < stop) {
    const v = qPop();
    // Lazy update: the stored priority may be stale; put v back if it no longer is the smallest.
    const p = priority(v, gSimLimit);
    if (qSize > 0 && p > f64At(qKey, u32At(qHeap, 0))) {
      qSet(v, p);
      continue;
    }
    shortcuts(v, gConLimit, true);
    setU32(rankP, v, order++);
    // Detach v: its edges are final now (kept in the pool); neighbours count one more deleted neighbour.
    const lv = u32At(level, v) + 1;
    {
      const s = u32At(lw(inL, 4), v), end = s + u32At(lw(inL, 5), v);
      for (let i = s; i < end; i++) {
        const e = u32At(lw(inL, 0), i), u = u32At(lw(inL, 1), i);
        listRemove(outL, u, e);
        setU32(deleted, u, u32At(deleted, u) + 1);
        store<u8>(dirty + <usize>u, 1);
        if (u32At(level, u) < lv) setU32(level, u, lv);
      }
    }
    {
      const s = u32At(lw(outL, 4), v), end = s + u32At(lw(outL, 5), v);
      for (let i = s; i < end; i++) {
        const e = u32At(lw(outL, 0), i), w = u32At(lw(outL, 1), i);
        listRemove(inL, w, e);
        setU32(deleted, w, u32At(deleted, w) + 1);
        store<u8>(dirty + <usize>w, 1);
        if (u32At(level, w) < lv) setU32(level, w, lv);
      }
    }
  }
  return order;
}

export function poolCount(): u32 { return pCount; }

export function poolFrom(): usize { return pFrom; }
export function poolTo(): usize { return pTo; }
/** Packed costs (u64 each: packCost). */
export function poolCost(): usize { return pC; }
export function poolA(): usize { return pA; }
export function poolB(): usize { return pB; }
export function rank(): usize { return rankP; }
/** How many times the adjacency lists ran out of room and were compacted (tests: a dense graph must). */
export function listCompactions(): u32 { return compactions; }
