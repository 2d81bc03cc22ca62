// Exchange: two jobs of different routes change places (VROOM's exchange, a swap).
//
// Every operator here has one shape (like VROOM's problems/cvrp/operators): one exported function that
// prices the move by the travel cost of the legs it changes, and only when that gains writes the routes
// the move makes into bufA/bufB and returns tryApply's verdict (sequence.ts: every rule checked, the move
// applied only when the plan's cost falls). local-search.ts chooses where each is tried.
import { locAt, tc } from '../problem';
import { copyNodes, tryApply } from '../sequence';
import { DIM, EPS, S, bufA, bufB, hasPick, jDem, jLoc, rLen, rLoad, stops, vCap } from '../state';

/** Exchanges job at node p of ra with job at node q of rb (different routes). */
export function exchange(ra: i32, p: i32, rb: i32, q: i32): bool {
  const j = unchecked(stops[ra * S + p]);
  const k = unchecked(stops[rb * S + q]);
  // With pickups where a job sits decides its load, and evalSeq alone judges the swap.
  for (let d = 0; d < DIM && !hasPick; d++) {
    const dj = unchecked(jDem[j * DIM + d]);
    const dk = unchecked(jDem[k * DIM + d]);
    if (dk - dj > unchecked(vCap[ra * DIM + d]) - unchecked(rLoad[ra * DIM + d]) || dj - dk > unchecked(vCap[rb * DIM + d]) - unchecked(rLoad[rb * DIM + d])) return false;
  }
  const lj = unchecked(jLoc[j]);
  const lk = unchecked(jLoc[k]);
  const pa = locAt(ra, p - 1);
  const na = locAt(ra, p + 1);
  const pb = locAt(rb, q - 1);
  const nb = locAt(rb, q + 1);
  const delta = tc(ra, pa, lk) + tc(ra, lk, na) - tc(ra, pa, lj) - tc(ra, lj, na) + tc(rb, pb, lj) + tc(rb, lj, nb) - tc(rb, pb, lk) - tc(rb, lk, nb);
  if (delta >= -EPS) return false;
  const lenA = unchecked(rLen[ra]);
  const lenB = unchecked(rLen[rb]);
  copyNodes(ra, 1, lenA, bufA, 0);
  copyNodes(rb, 1, lenB, bufB, 0);
  unchecked(bufA[p - 1] = k);
  unchecked(bufB[q - 1] = j);
  return tryApply(ra, lenA, rb, lenB);
}
