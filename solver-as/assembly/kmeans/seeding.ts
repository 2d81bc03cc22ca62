// Seeding: greedy k-means++ (best of several D²-sampled candidates per center).
// Points are kept in groups by their nearest chosen center. A candidate farther than twice the group's
// largest distance from that center cannot be nearer to any of its members, so whole groups are skipped.
import { ldf, ldi, stf, sti } from '../../lib/memory';
import { copyPoint } from './centers';
import { C, d2, d2pp, k, n, nextF64 } from './state';

export let minD: usize = 0; // n: squared distance to the nearest chosen center
export let gHead: usize = 0; // k i32: first member of each group
export let gNext: usize = 0; // n i32
export let gMax: usize = 0; // k: largest minD in the group
export let gSum: usize = 0; // k: sum of minD in the group

@inline function d2pc(i: i32, j: i32): f64 {
  return d2(i, C, j);
}

function sample(chosen: i32, total: f64): i32 {
  if (!(total > 0.0)) return <i32>(nextF64() * <f64>n); // every point sits on a center already
  let r = nextF64() * total;
  let g = -1;
  for (let j = 0; j < chosen; j++) {
    const w = ldf(gSum, j);
    if (w > 0.0) {
      g = j;
      if (r < w) break;
      r -= w;
    }
  }
  let last = ldi(gHead, g);
  for (let i = ldi(gHead, g); i >= 0; i = ldi(gNext, i)) {
    const w = ldf(minD, i);
    if (w > 0.0) {
      last = i;
      if (r < w) return i;
      r -= w;
    }
  }
  return last;
}

/** How much the sum of minD would drop if point `cand` became a center. */
function saving(chosen: i32, cand: i32): f64 {
  let s = 0.0;
  for (let j = 0; j < chosen; j++) {
    if (d2pc(cand, j) >= 4.0 * ldf(gMax, j)) continue;
    for (let i = ldi(gHead, j); i >= 0; i = ldi(gNext, i)) {
      const d = d2pp(i, cand);
      const m = ldf(minD, i);
      if (d < m) s += m - d;
    }
  }
  return s;
}

/** Makes point `cand` center number `c`: members nearer to it move into its group. */
function addCenter(c: i32, cand: i32): void {
  copyPoint(cand, C, c);
  sti(gHead, c, -1);
  let cMax = 0.0, cSum = 0.0;
  for (let j = 0; j < c; j++) {
    if (d2pc(cand, j) >= 4.0 * ldf(gMax, j)) continue;
    let keep = -1;
    let jMax = 0.0, jSum = 0.0;
    let i = ldi(gHead, j);
    while (i >= 0) {
      const nx = ldi(gNext, i);
      const d = d2pp(i, cand);
      if (d < ldf(minD, i)) {
        stf(minD, i, d);
        sti(gNext, i, ldi(gHead, c));
        sti(gHead, c, i);
        cMax = Math.max(cMax, d);
        cSum += d;
      } else {
        sti(gNext, i, keep);
        keep = i;
        const m = ldf(minD, i);
        jMax = Math.max(jMax, m);
        jSum += m;
      }
      i = nx;
    }
    sti(gHead, j, keep);
    stf(gMax, j, jMax);
    stf(gSum, j, jSum);
  }
  stf(gMax, c, cMax);
  stf(gSum, c, cSum);
}

export function seed(trials: i32): void {
  const first = <i32>(nextF64() * <f64>n);
  copyPoint(first, C, 0);
  let total = 0.0, most = 0.0;
  for (let i = n - 1; i >= 0; i--) {
    const d = d2pp(i, first);
    stf(minD, i, d);
    sti(gNext, i, i + 1 < n ? i + 1 : -1);
    total += d;
    most = Math.max(most, d);
  }
  sti(gHead, 0, 0);
  stf(gMax, 0, most);
  stf(gSum, 0, total);
  for (let c = 1; c < k; c++) {
    let bestGain = -1.0;
    let best = 0;
    for (let t = 0; t < trials; t++) {
      const cand = sample(c, total);
      const gain = saving(c, cand);
      if (gain > bestGain) { bestGain = gain; best = cand; }
    }
    addCenter(c, best);
    total = 0.0;
    for (let j = 0; j <= c; j++) total += ldf(gSum, j);
  }
}
