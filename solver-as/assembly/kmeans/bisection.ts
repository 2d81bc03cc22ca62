// Balanced starts: recursive coordinate bisection.
// Cut the points along the wider of two perpendicular directions at the count-weighted median, recursively,
// into k parts of floor/ceil(n/k) points. The parts' means are compact, evenly filled start centers for
// the capacitated rounds, far closer to balanced than the centers of plain k-means.
import { ldf, ldi, stf, sti } from '../../lib/memory';
import { centerFromSum, recomputeSums } from './centers';
import { INF, X, assign, k, n } from './state';

export let keys: usize = 0; // n f64
export let perm: usize = 0; // n i32
export let axisU: usize = 0; // 2×3 f64: the plane of the points (first two principal axes)

/** The two leading principal axes of the centered points, by power iteration on the 3×3 scatter. */
export function principalPlane(): void {
  let sxx = 0.0, sxy = 0.0, sxz = 0.0, syy = 0.0, syz = 0.0, szz = 0.0;
  for (let i = 0; i < n; i++) {
    const p = X + <usize>i * 24;
    const x = load<f64>(p), y = load<f64>(p, 8), z = load<f64>(p, 16);
    sxx += x * x; sxy += x * y; sxz += x * z; syy += y * y; syz += y * z; szz += z * z;
  }
  for (let a = 0; a < 2; a++) {
    // Start off any axis found before; deflate by projecting it out each step.
    let vx = a == 0 ? 0.6 : -0.48, vy = a == 0 ? 0.48 : 0.6, vz = a == 0 ? 0.64 : 0.0;
    for (let it = 0; it < 60; it++) {
      let wx = sxx * vx + sxy * vy + sxz * vz;
      let wy = sxy * vx + syy * vy + syz * vz;
      let wz = sxz * vx + syz * vy + szz * vz;
      if (a == 1) {
        const ux = load<f64>(axisU), uy = load<f64>(axisU, 8), uz = load<f64>(axisU, 16);
        const dot = wx * ux + wy * uy + wz * uz;
        wx -= dot * ux; wy -= dot * uy; wz -= dot * uz;
      }
      const len = Math.sqrt(wx * wx + wy * wy + wz * wz);
      if (!(len > 0.0)) break;
      vx = wx / len; vy = wy / len; vz = wz / len;
    }
    const o = axisU + <usize>a * 24;
    store<f64>(o, vx); store<f64>(o, vy, 8); store<f64>(o, vz, 16);
  }
}

@inline function along(i: i32, dx: f64, dy: f64, dz: f64): f64 {
  const p = X + <usize>i * 24;
  return load<f64>(p) * dx + load<f64>(p, 8) * dy + load<f64>(p, 16) * dz;
}

/** Reorders perm[lo, hi) so that the m-th smallest key is at m, smaller keys before it, larger after. */
function select(lo: i32, hi: i32, m: i32): void {
  let l = lo, h = hi - 1;
  while (l < h) {
    const mid = l + ((h - l) >> 1);
    // Median of three as the pivot keeps sorted runs from degrading the selection.
    const a = ldf(keys, ldi(perm, l)), b = ldf(keys, ldi(perm, mid)), c = ldf(keys, ldi(perm, h));
    const pivot = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);
    let i = l, j = h;
    while (i <= j) {
      while (ldf(keys, ldi(perm, i)) < pivot) i++;
      while (ldf(keys, ldi(perm, j)) > pivot) j--;
      if (i <= j) {
        const t = ldi(perm, i);
        sti(perm, i, ldi(perm, j));
        sti(perm, j, t);
        i++;
        j--;
      }
    }
    if (m <= j) h = j;
    else if (m >= i) l = i;
    else return;
  }
}

let nextLabel: i32 = 0;

function bisect(lo: i32, hi: i32, parts: i32, dx: f64, dy: f64, dz: f64, ex: f64, ey: f64, ez: f64): void {
  if (parts == 1) {
    for (let a = lo; a < hi; a++) sti(assign, ldi(perm, a), nextLabel);
    nextLabel++;
    return;
  }
  let dMin = INF, dMax = -INF, eMin = INF, eMax = -INF;
  for (let a = lo; a < hi; a++) {
    const i = ldi(perm, a);
    const d = along(i, dx, dy, dz), e = along(i, ex, ey, ez);
    dMin = Math.min(dMin, d); dMax = Math.max(dMax, d);
    eMin = Math.min(eMin, e); eMax = Math.max(eMax, e);
  }
  const useD = dMax - dMin >= eMax - eMin;
  for (let a = lo; a < hi; a++) {
    const i = ldi(perm, a);
    stf(keys, i, useD ? along(i, dx, dy, dz) : along(i, ex, ey, ez));
  }
  const left = parts >> 1;
  const cut = lo + <i32>Math.round(<f64>(hi - lo) * <f64>left / <f64>parts);
  select(lo, hi, cut);
  bisect(lo, cut, left, dx, dy, dz, ex, ey, ez);
  bisect(cut, hi, parts - left, dx, dy, dz, ex, ey, ez);
}

/** Labels the points with a bisection whose cut directions are the principal plane turned by `angle`. */
export function bisectionStart(angle: f64): void {
  const c = Math.cos(angle), s = Math.sin(angle);
  const ux = load<f64>(axisU), uy = load<f64>(axisU, 8), uz = load<f64>(axisU, 16);
  const vx = load<f64>(axisU, 24), vy = load<f64>(axisU, 32), vz = load<f64>(axisU, 40);
  for (let i = 0; i < n; i++) sti(perm, i, i);
  nextLabel = 0;
  bisect(0, n, k,
    c * ux + s * vx, c * uy + s * vy, c * uz + s * vz,
    c * vx - s * ux, c * vy - s * uy, c * vz - s * uz);
  recomputeSums();
  for (let j = 0; j < k; j++) centerFromSum(j);
}
