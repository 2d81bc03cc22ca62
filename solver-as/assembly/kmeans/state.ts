// The k-means kernel's state: the constants, the input's memory, the points and centers of one solve,
// squared distances and the random numbers (seeded from the input). The algorithms' modules read and
// write these globals (one solve at a time).

import { bump, bumpFrom, bumpTop } from '../../lib/memory';
import { KmeansModes, KmeansPoint } from '../generated/layouts';

export const R: f64 = 6371008.8;
export const RAD: f64 = Math.PI / 180.0;
export const INF: f64 = Infinity;

// The modes solve() takes (layouts.json kmeans.modes, the same numbers the TypeScript side sends).
/** Sizes are not capped. */
export const MODE_PLAIN: i32 = KmeansModes.plain;
/** No cluster above `cap` stops. */
export const MODE_CAPPED: i32 = KmeansModes.capped;
/** Sizes floor(n/k) or ceil(n/k). */
export const MODE_BALANCED: i32 = KmeansModes.balanced;

/** Smallest gain in m² worth a Hartigan move (a millimetre squared): below it is rounding noise. */
export const MIN_GAIN: f64 = 1e-6;
export const MAX_LLOYD: i32 = 300;
export const MAX_HARTIGAN_PASSES: i32 = 200;
export const MAX_OUTER: i32 = 100;
/** A repair search settles this many sinks before stopping, so that several paths can follow it. */
export const SINKS_PER_SEARCH: i32 = 20;
/** Capacitated starts are compared after rounds stop gaining this fraction; the best is then finished. */
export const SCREEN_TOL: f64 = 1e-4;

// ---- memory: a bump region after the static data (lib/memory.ts), reset for each input ----

export let inputPtr: usize = 0;
export let workBase: usize = 0;

/** Reserves room for n point records (layouts.json kmeans.point) and returns where the caller writes them. */
export function input(n: i32): usize {
  bumpFrom(__heap_base);
  inputPtr = bump(<usize>n * KmeansPoint.BYTES);
  workBase = bumpTop();
  return inputPtr;
}

// ---- state of one solve ----

export let n: i32 = 0;
export let k: i32 = 0;
export let X: usize = 0; // 3n: point vectors, centered on their mean
export let C: usize = 0; // 3k: centers
export let bestC: usize = 0;
export let assign: usize = 0; // n
export let bestAssign: usize = 0;
export let cnt: usize = 0; // k i32
export let sums: usize = 0; // 3k
export let upper: usize = 0; // n: Hamerly upper bound to own center
export let lower: usize = 0; // n: Hamerly lower bound to second center
export let half: usize = 0; // k: half distance to nearest other center
export let moved: usize = 0; // k: how far each center moved
export let oldC: usize = 0; // 3k

@inline export function d2(i: i32, centers: usize, j: i32): f64 {
  const p = X + <usize>i * 24;
  const c = centers + <usize>j * 24;
  const dx = load<f64>(p) - load<f64>(c);
  const dy = load<f64>(p, 8) - load<f64>(c, 8);
  const dz = load<f64>(p, 16) - load<f64>(c, 16);
  return dx * dx + dy * dy + dz * dz;
}

@inline export function d2pp(i: i32, j: i32): f64 {
  const p = X + <usize>i * 24;
  const q = X + <usize>j * 24;
  const dx = load<f64>(p) - load<f64>(q);
  const dy = load<f64>(p, 8) - load<f64>(q, 8);
  const dz = load<f64>(p, 16) - load<f64>(q, 16);
  return dx * dx + dy * dy + dz * dz;
}

// ---- PRNG (splitmix64) ----

export let rng: u64 = 0;

function nextU64(): u64 {
  rng += 0x9E3779B97F4A7C15;
  let z = rng;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EB;
  return z ^ (z >> 31);
}

@inline export function nextF64(): f64 {
  return <f64>(nextU64() >> 11) * (1.0 / 9007199254740992.0);
}

export function inputHash(): u64 {
  let h: u64 = 0xCBF29CE484222325;
  for (let i = 0; i < n * <i32>(KmeansPoint.BYTES >> 3); i++) {
    h = (h ^ load<u64>(inputPtr + (<usize>i << 3))) * 0x100000001B3;
    h ^= h >> 29;
  }
  return h;
}
