// What every kernel needs of its linear memory: a bump region that grows the memory as it fills, and
// element access by index. The kernels that own their memory (contract, kmeans) bump from their static
// data on; the route kernel reads a shared memory in place, allocates nothing and uses only the accessors.
// The accessors are @inline: a kernel's hot loops compile to the bare load or store, as if written in place
// (in the release build; the checked build checks each, below).

let top: usize = 0;

/** Starts the region at `start`, dropping whatever was allocated after it (and every block given back). */
export function bumpFrom(start: usize): void {
  top = start;
  freeCount = 0;
}

/** The first byte not yet handed out. */
export function bumpTop(): usize {
  return top;
}

/**
 * `bytes` (rounded up to 16) at the next 16-byte boundary (from the end of the static data when nothing was bumped yet);
 * grows the memory when they end past it, and traps when it cannot (past 4 GiB, or past the maximum).
 */
export function bump(bytes: usize): usize {
  if (top == 0) top = __heap_base;
  const p = (top + 15) & ~(<usize>15);
  const end = p + rounded(bytes);
  if (end < p || bytes > end - p) unreachable();
  top = end;
  const pages = <i32>((<u64>end + 0xffff) >> 16);
  const have = memory.size();
  if (pages > have && memory.grow(pages - have) < 0) unreachable();
  return p;
}

// ---- blocks given back ---------------------------------------------------------------------------------
// A kernel whose arrays outgrow their room (contract's edge pool and adjacency lists) gives the old block
// back, and later blocks are taken from what was given back before the region grows: a bump region alone
// keeps every outgrown copy, which is what ran the contraction of an edge-based country graph out of
// wasm32's 4 GiB. Blocks are few and large, so the free ones are a short array of ranges kept in address
// order and merged with their neighbours; a block given back at the end of the region lowers the end.
const MAX_FREE: i32 = 128;
const freeRanges = memory.data(MAX_FREE * 8); // (start, bytes) pairs of u32
let freeCount: i32 = 0;

@inline function rangeStart(i: i32): usize { return load<u32>(freeRanges + (<usize>i << 3)); }
@inline function rangeBytes(i: i32): usize { return load<u32>(freeRanges + (<usize>i << 3) + 4); }
@inline function setRange(i: i32, start: usize, bytes: usize): void {
  store<u32>(freeRanges + (<usize>i << 3), <u32>start);
  store<u32>(freeRanges + (<usize>i << 3) + 4, <u32>bytes);
}
function dropRange(i: i32): void {
  memory.copy(freeRanges + (<usize>i << 3), freeRanges + (<usize>(i + 1) << 3), <usize>(freeCount - i - 1) << 3);
  freeCount--;
}
@inline function rounded(bytes: usize): usize { return (bytes + 15) & ~(<usize>15); }

/** `bytes` from the smallest block given back that holds them, else from the end of the region (bump). */
export function take(bytes: usize): usize {
  const need = rounded(bytes);
  let best: i32 = -1;
  for (let i: i32 = 0; i < freeCount; i++) {
    if (rangeBytes(i) >= need && (best < 0 || rangeBytes(i) < rangeBytes(best))) best = i;
  }
  if (best < 0) return bump(need);
  const p = rangeStart(best);
  if (rangeBytes(best) == need) dropRange(best);
  else setRange(best, p + need, rangeBytes(best) - need);
  return p;
}

/** Gives back the block of `bytes` at `p` (from take or bump), for later blocks to reuse. */
export function give(p: usize, bytes: usize): void {
  let end = p + rounded(bytes);
  let start = p;
  // Insert in address order, merged with the ranges it touches.
  let i: i32 = 0;
  while (i < freeCount && rangeStart(i) < start) i++;
  if (i > 0 && rangeStart(i - 1) + rangeBytes(i - 1) == start) {
    start = rangeStart(i - 1);
    dropRange(--i);
  }
  if (i < freeCount && rangeStart(i) == end) {
    end = rangeStart(i) + rangeBytes(i);
    dropRange(i);
  }
  if (end >= top) {
    top = start;
    return;
  }
  if (freeCount == MAX_FREE) return; // kept out of reuse, as the bump region alone would: never seen
  memory.copy(freeRanges + (<usize>(i + 1) << 3), freeRanges + (<usize>i << 3), <usize>(freeCount - i) << 3);
  freeCount++;
  setRange(i, start, end - start);
}

/** The block at `p` of `oldBytes` made `newBytes` long, its first `usedBytes` kept: in place when it ends the
 *  region, else copied into a block taken and the old one given back. */
export function regrow(p: usize, usedBytes: usize, oldBytes: usize, newBytes: usize): usize {
  if (p + rounded(oldBytes) == top) {
    bump(rounded(newBytes) - rounded(oldBytes));
    return p;
  }
  const q = take(newBytes);
  memory.copy(q, p, usedBytes);
  give(p, oldBytes);
  return q;
}

// In the checked build (solver-as/build.mjs --checked) every access below first checks that its bytes lie
// inside what was handed out (or, in a memory nothing was bumped in, such as the route kernel's shared one,
// inside the memory) and traps otherwise; the release build (--noAssert) compiles the check away.
@inline function inBounds(p: usize, bytes: usize): bool {
  const end: usize = top != 0 ? top : <usize>memory.size() << 16;
  return p + bytes <= end && p + bytes >= p;
}

// Element `i` of an array at `base`, by signed index (kmeans) …
@inline export function ldf(base: usize, i: i32): f64 {
  if (!ASC_NO_ASSERT) assert(i >= 0 && inBounds(base + (<usize>i << 3), 8));
  return load<f64>(base + (<usize>i << 3));
}
@inline export function stf(base: usize, i: i32, v: f64): void {
  if (!ASC_NO_ASSERT) assert(i >= 0 && inBounds(base + (<usize>i << 3), 8));
  store<f64>(base + (<usize>i << 3), v);
}
@inline export function ldi(base: usize, i: i32): i32 {
  if (!ASC_NO_ASSERT) assert(i >= 0 && inBounds(base + (<usize>i << 2), 4));
  return load<i32>(base + (<usize>i << 2));
}
@inline export function sti(base: usize, i: i32, v: i32): void {
  if (!ASC_NO_ASSERT) assert(i >= 0 && inBounds(base + (<usize>i << 2), 4));
  store<i32>(base + (<usize>i << 2), v);
}

// … and by node or edge id (route, contract): u32 ids, u32 and u64 words.
@inline export function u32At(base: usize, i: u32): u32 {
  if (!ASC_NO_ASSERT) assert(inBounds(base + (<usize>i << 2), 4));
  return load<u32>(base + (<usize>i << 2));
}
@inline export function u64At(base: usize, i: u32): u64 {
  if (!ASC_NO_ASSERT) assert(inBounds(base + (<usize>i << 3), 8));
  return load<u64>(base + (<usize>i << 3));
}
@inline export function f64At(base: usize, i: u32): f64 {
  if (!ASC_NO_ASSERT) assert(inBounds(base + (<usize>i << 3), 8));
  return load<f64>(base + (<usize>i << 3));
}
@inline export function setU32(base: usize, i: u32, v: u32): void {
  if (!ASC_NO_ASSERT) assert(inBounds(base + (<usize>i << 2), 4));
  store<u32>(base + (<usize>i << 2), v);
}
@inline export function setU64(base: usize, i: u32, v: u64): void {
  if (!ASC_NO_ASSERT) assert(inBounds(base + (<usize>i << 3), 8));
  store<u64>(base + (<usize>i << 3), v);
}
@inline export function setF64(base: usize, i: u32, v: f64): void {
  if (!ASC_NO_ASSERT) assert(inBounds(base + (<usize>i << 3), 8));
  store<f64>(base + (<usize>i << 3), v);
}
