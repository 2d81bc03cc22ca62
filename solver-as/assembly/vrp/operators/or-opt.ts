// Or-opt (relocate when the segment is one job): a segment of 1–3 consecutive jobs moves next to a
// neighbour of its first or last job, in its own route or another (VROOM's relocate and or_opt).
//
// Every operator here has one shape (like VROOM's problems/cvrp/operators): one exported function that
// prices the move by the travel cost of the legs it changes, and only when that gains writes the routes
// the move makes into bufA/bufB and returns tryApply's verdict (sequence.ts: every rule checked, the move
// applied only when the plan's cost falls). local-search.ts chooses where each is tried.
import { locAt, tc } from '../problem';
import { copyNodes, tryApply } from '../sequence';
import { DIM, EPS, GRANULAR, K, S, adj, adjCnt, bufA, bufB, costModel, hasPick, jDem, jLoc, jobPos, jobRoute, rLen, rLoad, segBuf, stops, vCap } from '../state';

/** Builds route ra without its nodes [p, p+seg) and, when rb == ra, with them re-inserted after node q. */
function moveInto(ra: i32, p: i32, seg: i32, rb: i32, q: i32): bool {
  const lenA = unchecked(rLen[ra]);
  if (rb == ra) {
    let w = 0;
    if (q == 0) w = copyNodes(ra, p, p + seg - 1, bufA, w);
    for (let i = 1; i <= lenA; i++) {
      if (i >= p && i < p + seg) continue;
      unchecked(bufA[w++] = stops[ra * S + i]);
      if (i == q) w = copyNodes(ra, p, p + seg - 1, bufA, w);
    }
    return tryApply(ra, w, -1, 0);
  }
  let w = copyNodes(ra, 1, p - 1, bufA, 0);
  w = copyNodes(ra, p + seg, lenA, bufA, w);
  let k = copyNodes(rb, 1, q, bufB, 0);
  k = copyNodes(ra, p, p + seg - 1, bufB, k);
  k = copyNodes(rb, q + 1, unchecked(rLen[rb]), bufB, k);
  return tryApply(ra, w, rb, k);
}

/** Whether the loads in segBuf fit in what route r has left. With pickups the segment's order decides,
 *  and evalSeq alone judges the move. */
function segmentFits(r: i32): bool {
  if (hasPick) return true;
  const rb = r * DIM;
  for (let d = 0; d < DIM; d++) {
    if (unchecked(segBuf[d]) > unchecked(vCap[rb + d]) - unchecked(rLoad[rb + d])) return false;
  }
  return true;
}

/** What driving the segment of `seg` jobs at node p of route ra, from its first job to its last, costs vehicle r. */
function segmentCost(r: i32, ra: i32, p: i32, seg: i32): f64 {
  let c: f64 = 0;
  for (let i = p; i < p + seg - 1; i++) c += tc(r, unchecked(jLoc[stops[ra * S + i]]), unchecked(jLoc[stops[ra * S + i + 1]]));
  return c;
}

/** Or-opt / relocate: moves the segment of `seg` jobs at node p of ra next to a neighbor of its ends. */
export function orOpt(ra: i32, p: i32, seg: i32): bool {
  const lenA = unchecked(rLen[ra]);
  if (p + seg - 1 > lenA) return false;
  const jf = unchecked(stops[ra * S + p]);
  const jl = unchecked(stops[ra * S + p + seg - 1]);
  const first = unchecked(jLoc[jf]);
  const last = unchecked(jLoc[jl]);
  const prevA = locAt(ra, p - 1);
  const nextA = locAt(ra, p + seg);
  let inner: f64 = 0;
  for (let d = 0; d < DIM; d++) unchecked(segBuf[d] = 0);
  for (let i = p; i < p + seg; i++) {
    const js = unchecked(stops[ra * S + i]);
    for (let d = 0; d < DIM; d++) unchecked(segBuf[d] += jDem[js * DIM + d]);
    if (i < p + seg - 1) inner += tc(ra, unchecked(jLoc[stops[ra * S + i]]), unchecked(jLoc[stops[ra * S + i + 1]]));
  }
  // Taking a route's only jobs leaves it empty, which costs nothing.
  const gain = tc(ra, prevA, first) + inner + tc(ra, last, nextA) - (seg == lenA ? 0.0 : tc(ra, prevA, nextA));
  // Candidate places: right after a neighbor of the first job, or right before a neighbor of the last.
  for (let side = 0; side < 2; side++) {
    const from = side == 0 ? jf : jl;
    const cnt = min(unchecked(adjCnt[from]), GRANULAR);
    for (let k = 0; k < cnt; k++) {
      const y = unchecked(adj[from * K + k]);
      const rb = unchecked(jobRoute[y]);
      if (rb < 0) continue;
      if (rb != ra && !segmentFits(rb)) continue;
      const q = side == 0 ? unchecked(jobPos[y]) : unchecked(jobPos[y]) - 1;
      if (rb == ra && q >= p - 1 && q <= p + seg - 1) continue;
      const lq = locAt(rb, q);
      const lq1 = locAt(rb, q + 1);
      // Another vehicle may drive the segment at other costs.
      const innerB = costModel && rb != ra ? segmentCost(rb, ra, p, seg) : inner;
      const add = tc(rb, lq, first) + innerB + tc(rb, last, lq1) - (unchecked(rLen[rb]) == 0 ? 0.0 : tc(rb, lq, lq1));
      if (add - gain < -EPS && moveInto(ra, p, seg, rb, q)) return true;
    }
  }
  return false;
}
