// Points as 3-D vectors on the sphere, and centers as the means of their members.

import { ldi, sti } from '../../lib/memory';
import { KmeansPoint } from '../generated/layouts';
import { C, R, RAD, X, assign, cnt, d2, inputPtr, k, n, sums } from './state';

export function project(): void {
  let mx = 0.0, my = 0.0, mz = 0.0;
  for (let i = 0; i < n; i++) {
    const at = inputPtr + <usize>i * KmeansPoint.BYTES;
    const lat = load<f64>(at, KmeansPoint.lat) * RAD;
    const lon = load<f64>(at, KmeansPoint.lon) * RAD;
    const cl = Math.cos(lat);
    const p = X + <usize>i * 24;
    const x = R * cl * Math.cos(lon), y = R * cl * Math.sin(lon), z = R * Math.sin(lat);
    store<f64>(p, x); store<f64>(p, y, 8); store<f64>(p, z, 16);
    mx += x; my += y; mz += z;
  }
  // Centering keeps the sums of coordinates small, so incremental center updates stay exact enough.
  mx /= <f64>n; my /= <f64>n; mz /= <f64>n;
  for (let i = 0; i < n; i++) {
    const p = X + <usize>i * 24;
    store<f64>(p, load<f64>(p) - mx);
    store<f64>(p, load<f64>(p, 8) - my, 8);
    store<f64>(p, load<f64>(p, 16) - mz, 16);
  }
}

export function copyPoint(i: i32, centers: usize, j: i32): void {
  memory.copy(centers + <usize>j * 24, X + <usize>i * 24, 24);
}


export function recomputeSums(): void {
  memory.fill(sums, 0, <usize>k * 24);
  memory.fill(cnt, 0, <usize>k << 2);
  for (let i = 0; i < n; i++) {
    const a = ldi(assign, i);
    const p = X + <usize>i * 24;
    const s = sums + <usize>a * 24;
    store<f64>(s, load<f64>(s) + load<f64>(p));
    store<f64>(s, load<f64>(s, 8) + load<f64>(p, 8), 8);
    store<f64>(s, load<f64>(s, 16) + load<f64>(p, 16), 16);
    sti(cnt, a, ldi(cnt, a) + 1);
  }
}

/** Centers are the means of their members; an empty cluster keeps its center. */
export function centerFromSum(j: i32): void {
  const m = ldi(cnt, j);
  if (m == 0) return;
  const inv = 1.0 / <f64>m;
  const s = sums + <usize>j * 24;
  const c = C + <usize>j * 24;
  store<f64>(c, load<f64>(s) * inv);
  store<f64>(c, load<f64>(s, 8) * inv, 8);
  store<f64>(c, load<f64>(s, 16) * inv, 16);
}

@inline export function addTo(j: i32, i: i32, sign: f64): void {
  const p = X + <usize>i * 24;
  const s = sums + <usize>j * 24;
  store<f64>(s, load<f64>(s) + sign * load<f64>(p));
  store<f64>(s, load<f64>(s, 8) + sign * load<f64>(p, 8), 8);
  store<f64>(s, load<f64>(s, 16) + sign * load<f64>(p, 16), 16);
  sti(cnt, j, ldi(cnt, j) + (sign > 0 ? 1 : -1));
}

export function sse(): f64 {
  let s = 0.0;
  for (let i = 0; i < n; i++) s += d2(i, C, ldi(assign, i));
  return s;
}
