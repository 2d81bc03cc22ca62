// Local search: first-improvement descent over granular neighbourhoods (each job's nearest jobs), the
// operators of operators/ tried in turn until none improves or the deadline.
import { orOpt } from './operators/or-opt';
import { exchange } from './operators/exchange';
import { twoOptStar } from './operators/two-opt-star';
import { GRANULAR, J, K, adj, adjCnt, jobPos, jobRoute, now, polishWork, rLen } from './state';

/** Swap and 2-opt* moves that bring job j next to one of its neighbors in another route. */
function exchangeNear(j: i32): bool {
  const cnt = min(unchecked(adjCnt[j]), GRANULAR);
  for (let k = 0; k < cnt; k++) {
    const ra = unchecked(jobRoute[j]);
    const y = unchecked(adj[j * K + k]);
    const rb = unchecked(jobRoute[y]);
    if (rb < 0 || rb == ra) continue;
    const p = unchecked(jobPos[j]);
    const q = unchecked(jobPos[y]);
    // j takes the place of y, or of y's neighbors so that it ends up beside y
    if (exchange(ra, p, rb, q)) return true;
    if (q > 1 && exchange(ra, p, rb, q - 1)) return true;
    if (q < unchecked(rLen[rb]) && exchange(ra, p, rb, q + 1)) return true;
    // new edges j → y and y's predecessor → j's successor
    if (twoOptStar(ra, p, rb, q - 1)) return true;
  }
  return false;
}

/** First-improvement descent over granular neighborhoods, until no move improves or the deadline. */
export function localSearch(maxRounds: i32, deadline: f64): void {
  for (let round = 0; round < maxRounds; round++) {
    let improved = false;
    for (let j = 0; j < J; j++) {
      if (unchecked(jobRoute[j]) < 0) continue;
      if (now() > deadline) return;
      polishWork += <f64>(GRANULAR * 10);
      for (let seg = 1; seg <= 3; seg++) {
        const r = unchecked(jobRoute[j]);
        if (orOpt(r, unchecked(jobPos[j]), seg)) improved = true;
      }
      if (unchecked(jobRoute[j]) >= 0 && exchangeNear(j)) improved = true;
    }
    if (!improved) break;
  }
}
