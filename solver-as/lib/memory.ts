// What every kernel needs of its linear memory: a bump region that grows the memory as it fills, and
// element access by index. The kernels that own their memory (contract, kmeans) bump from their static
// data on; the route kernel reads a shared memory in place, allocates nothing and uses only the accessors.
// The accessors are @inline: a kernel's hot loops compile to the bare load or store, as if written in place
// (in the release build; the checked build checks each, below).

let top: usize = 0;

/** Starts the region at `start`, dropping whatever was allocated after it. */
export function bumpFrom(start: usize): void {
  top = start;
}

/** The first byte not yet handed out. */
export function bumpTop(): usize {
  return top;
}

/**
 * `bytes` at the next 16-byte boundary (from the end of the static data when nothing was bumped yet);
 * grows the memory when they end past it, and traps when it cannot (past 4 GiB, or past the maximum).
 */
export function bump(bytes: usize): usize {
  if (top == 0) top = __heap_base;
  const p = (top + 15) & ~(<usize>15);
  const end = p + bytes;
  if (end < p) unreachable();
  top = end;
  const pages = <i32>((<u64>end + 0xffff) >> 16);
  const have = memory.size();
  if (pages > have && memory.grow(pages - have) < 0) unreachable();
  return p;
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
