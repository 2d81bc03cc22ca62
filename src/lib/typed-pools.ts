// Growable typed arrays for the map build's big pools. Plain `number[]`s cost 8+ bytes per element plus
// the engine's growth slack and are scanned by the garbage collector; these hold raw numbers only, and
// what survives the load ends up in SharedArrayBuffers so profile builds may later move to worker threads
// without copying.

export type TypedArray = Float64Array | Float32Array | Int32Array | Uint32Array | Uint16Array | Uint8Array;

interface TypedArrayConstructor<T extends TypedArray> {
  new (length: number): T;
  new (buffer: ArrayBufferLike, byteOffset?: number, length?: number): T;
  readonly BYTES_PER_ELEMENT: number;
}

/** A zero-filled typed array over a SharedArrayBuffer. */
export function sharedArray<T extends TypedArray>(ctor: TypedArrayConstructor<T>, length: number): T {
  return new ctor(new SharedArrayBuffer(Math.max(1, length) * ctor.BYTES_PER_ELEMENT), 0, length);
}

/**
 * A set of ids with a bitmap in front: most ways are in no turn restriction and no boundary, and a
 * bit test in 128 KB answers for them without hashing a double into a large Set.
 */
export class IdSet {
  private readonly bits = new Uint8Array(1 << 17);
  private readonly ids = new Set<number>();

  add(id: number): void {
    const h = (id >>> 0) & 0xfffff;
    this.bits[h >>> 3] |= 1 << (h & 7);
    this.ids.add(id);
  }

  has(id: number): boolean {
    const h = (id >>> 0) & 0xfffff;
    return (this.bits[h >>> 3] & (1 << (h & 7))) !== 0 && this.ids.has(id);
  }
}

/** A copy of `a` in shared memory. */
export function toShared<T extends TypedArray>(a: T): T {
  const out = sharedArray(a.constructor as TypedArrayConstructor<T>, a.length);
  (out as Float64Array).set(a as Float64Array);
  return out;
}

/** An append-only typed array that grows by half its size, so a pool near its final size wastes little. */
export class Growable<T extends TypedArray> {
  data: T;
  length = 0;

  constructor(
    private readonly ctor: TypedArrayConstructor<T>,
    initial = 1024,
  ) {
    this.data = new ctor(initial);
  }

  push(v: number): void {
    if (this.length === this.data.length) this.reserve(1);
    this.data[this.length++] = v;
  }

  /** Makes room for `more` elements beyond the current length. */
  reserve(more: number): void {
    const need = this.length + more;
    if (need <= this.data.length) return;
    const grown = new this.ctor(Math.max(need, Math.ceil(this.data.length * 1.5) + 16));
    (grown as Float64Array).set(this.data.subarray(0, this.length) as Float64Array);
    this.data = grown;
  }

  /** The filled part (a view, no copy). */
  view(): T {
    return this.data.subarray(0, this.length) as T;
  }

  /** The filled part in shared memory of exactly its size; the pool is emptied. */
  toShared(): T {
    const out = sharedArray(this.ctor, this.length);
    (out as Float64Array).set(this.data.subarray(0, this.length) as Float64Array);
    this.data = new this.ctor(0);
    this.length = 0;
    return out;
  }
}

const CHUNK = 1 << 20;

/**
 * Float64 values in fixed-size chunks, for the largest pool of the build (every kept way's node ids):
 * growing never copies, and never holds an old and a new array at once as a single growing array does.
 */
export class ChunkedFloat64 {
  private readonly chunks: Float64Array[] = [];
  length = 0;

  append(src: ArrayLike<number>, count: number): void {
    for (let i = 0; i < count; ) {
      const at = this.length % CHUNK;
      const c = Math.floor(this.length / CHUNK);
      if (c === this.chunks.length) this.chunks.push(new Float64Array(CHUNK));
      const chunk = this.chunks[c];
      const n = Math.min(count - i, CHUNK - at);
      if (src instanceof Float64Array) chunk.set(src.subarray(i, i + n), at);
      else for (let k = 0; k < n; k++) chunk[at + k] = src[i + k];
      i += n;
      this.length += n;
    }
  }

  /** Copies every value into `target` and empties the pool, letting each chunk go once copied. */
  drainTo(target: Float64Array): void {
    for (let c = 0; c < this.chunks.length; c++) {
      const n = Math.min(CHUNK, this.length - c * CHUNK);
      if (n > 0) target.set(this.chunks[c].subarray(0, n), c * CHUNK);
      this.chunks[c] = new Float64Array(0);
    }
    this.clear();
  }

  clear(): void {
    this.chunks.length = 0;
    this.length = 0;
  }
}

/**
 * First position in ascending `a[0..n)` holding a value >= x, searched from `from` (a[from - 1] < x is
 * the caller's promise): galloping first, so a walk over mostly ascending ids costs O(1) per step and
 * a jump costs O(log distance).
 */
export function lowerBoundFrom(a: Float64Array, x: number, from: number, n: number): number {
  let lo = from,
    hi = from,
    step = 1;
  while (hi < n && a[hi] < x) {
    lo = hi + 1;
    hi += step;
    step *= 2;
  }
  if (hi > n) hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const DIGIT_BITS = 11;
const BUCKETS = 1 << DIGIT_BITS;
const TWO_32 = 2 ** 32;
// Digits of (key - min) for the passes below the top one, never straddling bit 32: 11 + 11 + 10 bits of
// the low word, then 11 + 10 of the high word. [first bit, from the high word, shift in the word, mask]
const LOW_DIGITS: Array<[number, boolean, number, number]> = [
  [0, false, 0, 2047],
  [11, false, 11, 2047],
  [22, false, 22, 1023],
  [32, true, 0, 2047],
  [43, true, 11, 1023],
];

/**
 * Sorts integer `keys` ascending in place, moving `payload` along (equal keys in no particular order).
 * The engine's TypedArray sort takes seconds for the tens of millions of node ids of a country, and an
 * out-of-place radix sort needs a second copy of both arrays; this one partitions in place by the top
 * bits (American flag sort), then radix-sorts each bucket with scratch space the size of the largest
 * bucket, small while ids spread over their range as OSM's do.
 */
export function radixSortPairs(keys: Float64Array, payload: Uint32Array): void {
  const n = keys.length;
  if (n < 2) return;
  let min = Infinity,
    max = -Infinity;
  for (let i = 0; i < n; i++) {
    const k = keys[i];
    if (k < min) min = k;
    if (k > max) max = k;
  }
  const range = max - min;
  if (!Number.isSafeInteger(min) || !Number.isSafeInteger(max) || !Number.isSafeInteger(range)) {
    const order = Uint32Array.from({ length: n }, (_, i) => i).sort((a, b) => keys[a] - keys[b] || a - b);
    const sortedKeys = Float64Array.from(order, (i) => keys[i]);
    const sortedPayload = Uint32Array.from(order, (i) => payload[i]);
    keys.set(sortedKeys);
    payload.set(sortedPayload);
    return;
  }
  let bits = 0;
  while (bits < 53 && 2 ** bits <= range) bits++;
  // As many top buckets as make each a few ten thousand elements, sorted while it sits in cache.
  let topBits = 1;
  while (topBits < DIGIT_BITS && n >> (topBits + 15) > 0) topBits++;
  const buckets = 1 << topBits;
  const topShift = Math.max(0, bits - topBits);
  const inverseScale = 2 ** -topShift; // a power of two: the product is exact
  const top = (k: number): number => Math.floor((k - min) * inverseScale);

  const count = new Uint32Array(BUCKETS);
  for (let i = 0; i < n; i++) count[top(keys[i])]++;
  const start = new Uint32Array(buckets + 1);
  for (let d = 0; d < buckets; d++) start[d + 1] = start[d] + count[d];
  const next = start.slice(0, buckets);
  let largest = 0;
  for (let b = 0; b < buckets; b++) {
    largest = Math.max(largest, count[b]);
    const end = start[b + 1];
    while (next[b] < end) {
      // Carry the element at the bucket's next free slot to where it belongs, displacing others in turn.
      let k = keys[next[b]],
        p = payload[next[b]];
      let d = top(k);
      while (d !== b) {
        const j = next[d]++;
        const k2 = keys[j],
          p2 = payload[j];
        keys[j] = k;
        payload[j] = p;
        k = k2;
        p = p2;
        d = top(k);
      }
      keys[next[b]] = k;
      payload[next[b]] = p;
      next[b]++;
    }
  }
  if (topShift === 0) return; // each bucket holds one key value

  const digits = LOW_DIGITS.filter(([firstBit]) => firstBit < topShift);
  const scratchKeys = new Float64Array(largest),
    scratchPayload = new Uint32Array(largest);
  for (let b = 0; b < buckets; b++) {
    const from = start[b],
      size = start[b + 1] - from;
    if (size < 2) continue;
    let srcK: Float64Array = keys.subarray(from, from + size),
      srcP: Uint32Array = payload.subarray(from, from + size);
    let dstK: Float64Array = scratchKeys.subarray(0, size),
      dstP: Uint32Array = scratchPayload.subarray(0, size);
    for (const [, hi, shift, mask] of digits) {
      count.fill(0);
      if (hi) for (let i = 0; i < size; i++) count[(Math.floor((srcK[i] - min) / TWO_32) >>> shift) & mask]++;
      else for (let i = 0; i < size; i++) count[((srcK[i] - min) >>> shift) & mask]++;
      let sum = 0;
      for (let d = 0; d <= mask; d++) {
        const c = count[d];
        count[d] = sum;
        sum += c;
      }
      if (hi) {
        for (let i = 0; i < size; i++) {
          const k = srcK[i];
          const j = count[(Math.floor((k - min) / TWO_32) >>> shift) & mask]++;
          dstK[j] = k;
          dstP[j] = srcP[i];
        }
      } else {
        for (let i = 0; i < size; i++) {
          const k = srcK[i];
          const j = count[((k - min) >>> shift) & mask]++;
          dstK[j] = k;
          dstP[j] = srcP[i];
        }
      }
      [srcK, dstK] = [dstK, srcK];
      [srcP, dstP] = [dstP, srcP];
    }
    if (srcK.buffer !== keys.buffer) {
      keys.set(srcK, from);
      payload.set(srcP, from);
    }
  }
}
