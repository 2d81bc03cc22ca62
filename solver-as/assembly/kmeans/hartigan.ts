// Hartigan: move single points while that lowers the sum of squares, centers updated at once.
// Removing i from a saves na/(na−1)·d²(i,a); adding it to b costs nb/(nb+1)·d²(i,b). `lower` holds a lower
// bound on the distance from i to every center but its own (from Lloyd, then from full scans), reduced by
// how far any center has drifted since; a point whose bound already rules out every move is skipped.
import { ldf, ldi, stf, sti } from '../../lib/memory';
import { addTo, centerFromSum, recomputeSums } from './centers';
import { centerD2 } from './lloyd';
import { C, INF, MAX_HARTIGAN_PASSES, MIN_GAIN, assign, cnt, d2, k, lower, n } from './state';

export let drift: usize = 0; // k: how far each center moved during the current pass
export let joinW: usize = 0; // k
export let leaveW: usize = 0; // k
export let sinceSort: usize = 0; // k: how far each center moved since the neighbour lists were made

function minCount(): i32 {
  let m = n;
  for (let j = 0; j < k; j++) m = min(m, ldi(cnt, j));
  return m;
}

export let nbrIdx: usize = 0; // k×M i32: for each center, its M nearest others by distance when listed
export let nbrDist: usize = 0; // k×M f64
export let M: i32 = 0;

export const MAX_NEIGHBOURS: i32 = 24;

/** Lists each center's M nearest other centers, nearest first (insertion into a short sorted buffer). */
function listNeighbours(): void {
  for (let a = 0; a < k; a++) {
    const idx = nbrIdx + (<usize>(a * M) << 2);
    const dst = nbrDist + (<usize>(a * M) << 3);
    let m = 0;
    for (let b = 0; b < k; b++) {
      if (b == a) continue;
      const d = centerD2(a, b);
      if (m == M && d >= ldf(dst, M - 1)) continue;
      let y = m < M ? m++ : M - 1;
      while (y > 0 && ldf(dst, y - 1) > d) {
        stf(dst, y, ldf(dst, y - 1));
        sti(idx, y, ldi(idx, y - 1));
        y--;
      }
      stf(dst, y, d);
      sti(idx, y, b);
    }
    for (let y = 0; y < M; y++) stf(dst, y, Math.sqrt(ldf(dst, y)));
  }
}

/** Adding a point to j costs joinW·d², removing one from j saves leaveW·d² (Hartigan's factors). */
function setWeight(j: i32): void {
  const m = <f64>ldi(cnt, j);
  stf(joinW, j, m / (m + 1.0));
  stf(leaveW, j, m > 1.0 ? m / (m - 1.0) : INF);
}

export function hartigan(): void {
  recomputeSums();
  for (let j = 0; j < k; j++) centerFromSum(j);
  // Recomputing the centers from scratch can shift them by rounding; keep the bounds safely below.
  for (let i = 0; i < n; i++) stf(lower, i, ldf(lower, i) * (1.0 - 1e-9) - 1e-6);
  let smallest = minCount();
  for (let j = 0; j < k; j++) setWeight(j);
  // The neighbour lists are rebuilt only once the centers have drifted noticeably since they were sorted.
  let listDrift = INF;
  let listLimit = 0.0;
  for (let pass = 0; pass < MAX_HARTIGAN_PASSES; pass++) {
    let movedAny = 0;
    let maxDrift = 0.0;
    memory.fill(drift, 0, <usize>k << 3);
    if (listDrift > listLimit) {
      listNeighbours();
      memory.fill(sinceSort, 0, <usize>k << 3);
      listDrift = 0.0;
      let spacing = 0.0;
      // With one cluster there are no neighbours (M = 0) and nothing to read.
      if (M > 0) for (let a = 0; a < k; a++) spacing += ldf(nbrDist, a * M);
      listLimit = 1.0 * spacing / <f64>k;
    }
    for (let i = 0; i < n; i++) {
      const a = ldi(assign, i);
      const na = ldi(cnt, a);
      if (na <= 1) continue;
      const da = d2(i, C, a);
      const stay = da * ldf(leaveW, a);
      const w = <f64>smallest / <f64>(smallest + 1);
      const bound = ldf(lower, i) - maxDrift;
      if (bound > 0.0 && bound * bound * w >= stay) continue;
      // A center b is worth a look only while d(b) could still beat the best: d(b) ≥ |ab| − 2·drift − d(a).
      const rootA = Math.sqrt(da);
      // A move must gain more than rounding noise: stops at one position stay together.
      let best = stay * (1.0 - 1e-12) - MIN_GAIN;
      let bj = -1;
      let nearestOther = INF;
      let unseen = INF;
      const idx = nbrIdx + (<usize>(a * M) << 2);
      const dst = nbrDist + (<usize>(a * M) << 3);
      let m = 0;
      for (; m < M; m++) {
        const far = ldf(dst, m) - 2.0 * listDrift - rootA;
        if (w > 0.0 && far > 0.0 && far * far * w >= best) { unseen = far; break; }
        const j = ldi(idx, m);
        const d = d2(i, C, j);
        nearestOther = Math.min(nearestOther, d);
        const cost = d * ldf(joinW, j);
        if (cost < best) { best = cost; bj = j; }
      }
      if (m == M && M < k - 1) {
        // The list ran out before ruling the rest out: look at every center.
        for (let j = 0; j < k; j++) {
          if (j == a) continue;
          const d = d2(i, C, j);
          nearestOther = Math.min(nearestOther, d);
          const cost = d * ldf(joinW, j);
          if (cost < best) { best = cost; bj = j; }
        }
      }
      if (bj < 0) {
        stf(lower, i, Math.min(Math.sqrt(nearestOther), unseen));
        continue;
      }
      const nb = ldi(cnt, bj);
      const shiftA = rootA / <f64>(na - 1);
      const shiftB = Math.sqrt(d2(i, C, bj)) / <f64>(nb + 1);
      addTo(a, i, -1.0);
      addTo(bj, i, 1.0);
      centerFromSum(a);
      centerFromSum(bj);
      sti(assign, i, bj);
      setWeight(a);
      setWeight(bj);
      stf(lower, i, 0.0);
      stf(drift, a, ldf(drift, a) + shiftA);
      stf(drift, bj, ldf(drift, bj) + shiftB);
      maxDrift = Math.max(maxDrift, Math.max(ldf(drift, a), ldf(drift, bj)));
      stf(sinceSort, a, ldf(sinceSort, a) + shiftA);
      stf(sinceSort, bj, ldf(sinceSort, bj) + shiftB);
      listDrift = Math.max(listDrift, Math.max(ldf(sinceSort, a), ldf(sinceSort, bj)));
      smallest = minCount();
      movedAny++;
    }
    if (movedAny == 0) break;
    for (let i = 0; i < n; i++) stf(lower, i, ldf(lower, i) - maxDrift);
  }
  recomputeSums();
  for (let j = 0; j < k; j++) centerFromSum(j);
}
