// The capacitated modes' rounds: the exact capacitated assignment (min-cost-flow.ts), then the centers
// moved to their members' means, until the assignment repeats or stops gaining.

import { ldf, ldi, stf, sti } from '../../lib/memory';
import { centerFromSum, recomputeSums, sse } from './centers';
import { arcRow, assignByPrice, bareAssign, bareCnt, buildLists, improve, order, phaseCap, phaseMode, phaseQ, pot, prevAssign, price, repair, target } from './min-cost-flow';
import { INF, MAX_OUTER, MODE_BALANCED, MODE_CAPPED, assign, cnt, k, n } from './state';

/** Balanced targets: the r clusters the priced assignment fills most get the extra stop. */
function chooseTargets(q: i32, r: i32): void {
  for (let j = 0; j < k; j++) sti(order, j, j);
  for (let a = 1; a < k; a++) {
    const x = ldi(order, a);
    let b = a - 1;
    while (b >= 0 && ldi(cnt, ldi(order, b)) < ldi(cnt, x)) { sti(order, b + 1, ldi(order, b)); b--; }
    sti(order, b + 1, x);
  }
  for (let a = 0; a < k; a++) sti(target, ldi(order, a), a < r ? q + 1 : q);
}

/** Stops that must move under the current assignment: above the limit (capped) or above ceil(n/k). */
function overfill(counts: usize): i32 {
  let over = 0;
  for (let j = 0; j < k; j++) {
    const c = ldi(counts, j);
    over += max(0, c - (phaseMode == MODE_CAPPED ? phaseCap : phaseQ + 1));
  }
  return over;
}

/**
 * Alternates the exact capacitated assignment with moving the centers to their members' means, until the
 * assignment repeats or a round lowers the sum of squares by less than the fraction `tol`. `warm` starts
 * from the prices left in `price` by an earlier run on nearby centers.
 */
export function capacitated(mode: i32, cap: i32, tol: f64, warm: bool): void {
  const q = n / k, r = n % k;
  phaseMode = mode;
  phaseCap = cap;
  phaseQ = q;
  if (!warm) memory.fill(price, 0, <usize>k << 3);
  let bestSse = INF;
  for (let outer = 0; outer < MAX_OUTER; outer++) {
    // The last round's prices usually leave little to repair, but not after a large move of the centers:
    // start from whichever of them and no prices overfills the clusters less.
    const compare = outer > 0 || warm;
    assignByPrice(compare);
    if (compare) {
      const withPrices = overfill(cnt);
      if (overfill(bareCnt) < withPrices) {
        memory.fill(price, 0, <usize>k << 3);
        memory.copy(assign, bareAssign, <usize>n << 2);
        memory.copy(cnt, bareCnt, <usize>k << 2);
      }
    }
    for (let j = 0; j < k; j++) stf(pot, j, -ldf(price, j));
    if (mode == MODE_BALANCED) chooseTargets(q, r);
    buildLists();
    for (let j = 0; j < k; j++) arcRow(j);
    repair();
    if (mode == MODE_CAPPED || r > 0) improve();
    let top = -INF;
    for (let j = 0; j < k; j++) top = Math.max(top, ldf(pot, j));
    for (let j = 0; j < k; j++) stf(price, j, top - ldf(pot, j));

    recomputeSums();
    for (let j = 0; j < k; j++) centerFromSum(j);
    const s = sse();
    let same = outer > 0;
    for (let i = 0; i < n && same; i++) if (ldi(assign, i) != ldi(prevAssign, i)) same = false;
    if (same || !(s < bestSse * (1.0 - tol))) {
      if (s > bestSse) {
        memory.copy(assign, prevAssign, <usize>n << 2);
        recomputeSums();
        for (let j = 0; j < k; j++) centerFromSum(j);
      }
      return;
    }
    bestSse = s;
    memory.copy(prevAssign, assign, <usize>n << 2);
  }
}
