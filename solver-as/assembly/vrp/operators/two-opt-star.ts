// 2-opt*: two routes exchange their tails (VROOM's two_opt).
//
// Every operator here has one shape (like VROOM's problems/cvrp/operators): one exported function that
// prices the move by the travel cost of the legs it changes, and only when that gains writes the routes
// the move makes into bufA/bufB and returns tryApply's verdict (sequence.ts: every rule checked, the move
// applied only when the plan's cost falls). local-search.ts chooses where each is tried.
import { locAt, tc } from '../problem';
import { copyNodes, tryApply } from '../sequence';
import { EPS, bufA, bufB, rLen, vEnd } from '../state';

/** 2-opt*: route a keeps nodes 1..i and takes b's tail after k; b keeps 1..k and takes a's tail after i. */
export function twoOptStar(ra: i32, i: i32, rb: i32, k: i32): bool {
  const lenA = unchecked(rLen[ra]);
  const lenB = unchecked(rLen[rb]);
  const ai = locAt(ra, i);
  const ai1 = locAt(ra, i + 1);
  const bk = locAt(rb, k);
  const bk1 = locAt(rb, k + 1);
  const nA = k < lenB ? bk1 : unchecked(vEnd[ra]);
  const nB = i < lenA ? ai1 : unchecked(vEnd[rb]);
  // Priced by the new edges alone: where vehicles' costs differ the tails also change hands at other
  // prices, which evalSeq then counts (a move this misses is left to ruin and recreate).
  const delta = tc(ra, ai, nA) + tc(rb, bk, nB) - tc(ra, ai, ai1) - tc(rb, bk, bk1);
  if (delta >= -EPS) return false;
  let w = copyNodes(ra, 1, i, bufA, 0);
  w = copyNodes(rb, k + 1, lenB, bufA, w);
  let x = copyNodes(rb, 1, k, bufB, 0);
  x = copyNodes(ra, i + 1, lenA, bufB, x);
  return tryApply(ra, w, rb, x);
}
