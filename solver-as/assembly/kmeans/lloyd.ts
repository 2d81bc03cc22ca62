// Lloyd with Hamerly's bounds.
import { ldf, ldi, stf, sti } from '../../lib/memory';
import { addTo, centerFromSum, recomputeSums } from './centers';
import { C, INF, MAX_LLOYD, assign, d2, half, k, lower, moved, n, oldC, upper } from './state';

function nearestTwo(i: i32): i32 {
  let d1 = INF, d2nd = INF;
  let j1 = 0;
  for (let j = 0; j < k; j++) {
    const d = d2(i, C, j);
    if (d < d1) { d2nd = d1; d1 = d; j1 = j; } else if (d < d2nd) d2nd = d;
  }
  stf(upper, i, Math.sqrt(d1));
  stf(lower, i, Math.sqrt(d2nd));
  return j1;
}

export function lloyd(): void {
  for (let i = 0; i < n; i++) sti(assign, i, nearestTwo(i));
  recomputeSums();
  for (let j = 0; j < k; j++) centerFromSum(j);
  for (let it = 0; it < MAX_LLOYD; it++) {
    for (let j = 0; j < k; j++) {
      let m = INF;
      for (let o = 0; o < k; o++) if (o != j) m = Math.min(m, centerD2(j, o));
      stf(half, j, 0.5 * Math.sqrt(m));
    }
    let changed = 0;
    for (let i = 0; i < n; i++) {
      const a = ldi(assign, i);
      const bound = Math.max(ldf(half, a), ldf(lower, i));
      if (ldf(upper, i) <= bound) continue;
      const u = Math.sqrt(d2(i, C, a));
      stf(upper, i, u);
      if (u <= bound) continue;
      const b = nearestTwo(i);
      if (b != a) {
        addTo(a, i, -1.0);
        addTo(b, i, 1.0);
        sti(assign, i, b);
        changed++;
      }
    }
    if (changed == 0) break;
    memory.copy(oldC, C, <usize>k * 24);
    let max1 = 0.0, max2 = 0.0;
    let arg1 = -1;
    for (let j = 0; j < k; j++) {
      centerFromSum(j);
      const p = oldC + <usize>j * 24, c = C + <usize>j * 24;
      const dx = load<f64>(p) - load<f64>(c), dy = load<f64>(p, 8) - load<f64>(c, 8), dz = load<f64>(p, 16) - load<f64>(c, 16);
      const mv = Math.sqrt(dx * dx + dy * dy + dz * dz);
      stf(moved, j, mv);
      if (mv > max1) { max2 = max1; max1 = mv; arg1 = j; } else if (mv > max2) max2 = mv;
    }
    for (let i = 0; i < n; i++) {
      const a = ldi(assign, i);
      stf(upper, i, ldf(upper, i) + ldf(moved, a));
      stf(lower, i, ldf(lower, i) - (a == arg1 ? max2 : max1));
    }
  }
}

@inline export function centerD2(a: i32, b: i32): f64 {
  const p = C + <usize>a * 24, q = C + <usize>b * 24;
  const dx = load<f64>(p) - load<f64>(q), dy = load<f64>(p, 8) - load<f64>(q, 8), dz = load<f64>(p, 16) - load<f64>(q, 16);
  return dx * dx + dy * dy + dz * dz;
}
