// A route kept up to date in place: its schedule (earliest departures, latest arrivals), its breaks, loads,
// cost and job positions, after a job is placed or the route rewritten; the plan's total cost.

import { afterBreak, breakCarries, brkOf, dd, fixedOf, latestArrival, latestBeforeBreak, nodeLoc, serviceStart, tc, tv } from './problem';
import { DIM, INF, S, V, bwdMax, hasBreaks, costModel, dep, fwdMax, hasDist, hasPairs, hasPick, hasPrio, iterStamp, jDem, jLoc, jPair, jPick, jPrio, jRole, jSvc, jobPos, jobRoute, lat, nTouched, nUnas, nodeLd, penalty, prioPenalty, BK, brkLA, brkLD, rBrk, rBrkLd, rCost, rDist, rLen, rLoad, rTrav, stops, touchStamp, touched, unas, vBrkCnt, vBrkFirst, vBrkLoad, vEnd, vStart, vTwE, vTwS } from './state';

export function updateLoads(r: i32): void {
  const base = r * S;
  const len = unchecked(rLen[r]);
  const rb = r * DIM;
  for (let d = 0; d < DIM; d++) {
    let load = 0;
    for (let i = 1; i <= len; i++) load += unchecked(jDem[unchecked(stops[base + i]) * DIM + d]);
    let top = load;
    unchecked(fwdMax[base * DIM + d] = top);
    for (let i = 1; i <= len; i++) {
      const j = unchecked(stops[base + i]);
      load += unchecked(jPick[j * DIM + d]) - unchecked(jDem[j * DIM + d]);
      if (load > top) top = load;
      unchecked(fwdMax[(base + i) * DIM + d] = top);
    }
    unchecked(rLoad[rb + d] = top);
    // Walking back from the final load (`load` now), each earlier load adds back what the later stop changed.
    let back = load;
    unchecked(bwdMax[(base + len) * DIM + d] = back);
    for (let i = len; i >= 1; i--) {
      const j = unchecked(stops[base + i]);
      load -= unchecked(jPick[j * DIM + d]) - unchecked(jDem[j * DIM + d]);
      if (load > back) back = load;
      unchecked(bwdMax[(base + i - 1) * DIM + d] = back);
    }
  }
}

/** Recomputes schedule, slack, load, cost and job positions of route r. */
export function updateRoute(r: i32): void {
  const base = r * S;
  const len = unchecked(rLen[r]);
  let prev = unchecked(vStart[r]);
  let t = unchecked(vTwS[r]);
  unchecked(dep[base] = t);
  let c: f64 = 0;
  let m: f64 = 0;
  let tr: f64 = 0;
  const lb = r * DIM;
  for (let d = 0; d < DIM; d++) unchecked(rLoad[lb + d] = 0);
  for (let i = 1; i <= len; i++) {
    const j = unchecked(stops[base + i]);
    const l = unchecked(jLoc[j]);
    const d = tv(r, prev, l);
    if (costModel) {
      c += tc(r, prev, l);
      tr += d;
    } else c += d;
    if (hasDist) m += dd(prev, l);
    t = serviceStart(j, t + d) + unchecked(jSvc[j]);
    unchecked(dep[base + i] = t);
    for (let d = 0; d < DIM; d++) unchecked(rLoad[lb + d] += jDem[j * DIM + d]);
    unchecked(jobRoute[j] = r);
    unchecked(jobPos[j] = i);
    prev = l;
  }
  if (hasPick) updateLoads(r);
  const end = unchecked(vEnd[r]);
  c += tc(r, prev, end);
  // A vehicle without jobs stays where it is: no travel, even when its end is not its start.
  unchecked(rCost[r] = len == 0 ? 0.0 : c);
  if (costModel) unchecked(rTrav[r] = len == 0 ? 0.0 : tr + tv(r, prev, end));
  if (hasDist) unchecked(rDist[r] = len == 0 ? 0.0 : m + dd(prev, end));
  // Every later bound derives from the end of hours, so service never runs past them.
  unchecked(lat[base + len + 1] = vTwE[r]);
  latestArrivalsUpTo(r, len, end);
  if (brkOf(r) && len > 0) placeBreaks(r);
}

/**
 * The breaks of route r, one after another in their order, each after the node that leaves the most
 * slack (dep and lat are without them on entry). First, from the end, the latest time the vehicle may
 * reach each node with k breaks taken (brkLA) and be off again there (brkLD), the later breaks anywhere
 * after it; then each break after the node, from the previous break's on, where it is off again earliest
 * before that bound, and the departures from there on with it; last the latest arrivals with the breaks
 * where they are. Where they fit nowhere (a warm start's route) nothing may be inserted until the route
 * changes. With one break brkLA at one break taken is lat, so the slack is the single break's. A break
 * with a max load is taken only after a node the vehicle leaves with at most that on board (nodeLd).
 */
function placeBreaks(r: i32): void {
  const base = r * S;
  const len = unchecked(rLen[r]);
  const K = unchecked(vBrkCnt[r]);
  const b0 = unchecked(vBrkFirst[r]);
  const W = BK + 1;
  const last = unchecked(vEnd[r]) < 0 ? len - 1 : len;
  const withLd = unchecked(vBrkLoad[r]);
  if (withLd) nodeLoads(r);
  // With all K breaks taken brkLA is lat; the placement reads it at 1..K-1 breaks taken (none for one break).
  for (let k = 1; k < K; k++) unchecked(brkLA[(len + 1) * W + k] = -INF);
  for (let i = K > 1 ? len : -1; i >= 0; i--) {
    const leg = tv(r, nodeLoc(r, base, i, len), nodeLoc(r, base, i + 1, len));
    for (let k = K - 1; k >= 1; k--) {
      let y = unchecked(brkLA[(i + 1) * W + k]) - leg;
      if (i <= last && (!withLd || breakCarries(b0 + k, nodeLd, i * DIM))) {
        const x = latestBeforeBreak(b0 + k, k + 1 == K ? unchecked(lat[base + i + 1]) - leg : unchecked(brkLD[i * W + k + 1]));
        if (x > y) y = x;
      }
      unchecked(brkLD[i * W + k] = y);
      if (i > 0) {
        const j = unchecked(stops[base + i]);
        unchecked(brkLA[i * W + k] = latestArrival(j, y - unchecked(jSvc[j])));
      }
    }
  }
  let from = 0;
  for (let k = 0; k < K; k++) {
    let p = -1;
    let most = -INF;
    for (let i = from; i <= last; i++) {
      const a = afterBreak(b0 + k, unchecked(dep[base + i]));
      if (a == INF) break; // later nodes are left later still
      if (withLd && !breakCarries(b0 + k, nodeLd, i * DIM)) continue;
      const la = k + 1 == K ? unchecked(lat[base + i + 1]) : unchecked(brkLA[(i + 1) * W + k + 1]);
      const leg = tv(r, nodeLoc(r, base, i, len), nodeLoc(r, base, i + 1, len));
      let slack = la - a - leg;
      // Or the next break right after this one, at the same node.
      if (k + 1 < K && (!withLd || breakCarries(b0 + k + 1, nodeLd, i * DIM))) {
        const off = k + 2 == K ? unchecked(lat[base + i + 1]) - leg : unchecked(brkLD[i * W + k + 2]);
        slack = max(slack, latestBeforeBreak(b0 + k + 1, off) - a);
      }
      if (slack >= 0 && slack > most) {
        most = slack;
        p = i;
      }
    }
    if (p < 0) {
      for (let q = 0; q < K; q++) unchecked(rBrk[r * BK + q] = 0);
      for (let i = 0; i <= len + 1; i++) unchecked(lat[base + i] = -INF);
      return;
    }
    unchecked(rBrk[r * BK + k] = p);
    if (withLd) for (let d = 0; d < DIM; d++) unchecked(rBrkLd[(r * BK + k) * DIM + d] = nodeLd[p * DIM + d]);
    let t = afterBreak(b0 + k, unchecked(dep[base + p]));
    unchecked(dep[base + p] = t);
    let prev = nodeLoc(r, base, p, len);
    for (let i = p + 1; i <= len; i++) {
      const j = unchecked(stops[base + i]);
      const l = unchecked(jLoc[j]);
      t = serviceStart(j, t + tv(r, prev, l)) + unchecked(jSvc[j]);
      unchecked(dep[base + i] = t);
      prev = l;
    }
    from = p;
  }
  // Latest arrivals with the breaks where they are: those after the last break's node stay as they were.
  let k = K - 1;
  const pl = unchecked(rBrk[r * BK + k]);
  let L = unchecked(lat[base + pl + 1]);
  let next = nodeLoc(r, base, pl + 1, len);
  for (let i = pl; i >= 1; i--) {
    const j = unchecked(stops[base + i]);
    const l = unchecked(jLoc[j]);
    let y = L - tv(r, l, next);
    while (k >= 0 && unchecked(rBrk[r * BK + k]) == i) y = latestBeforeBreak(b0 + k--, y);
    L = latestArrival(j, y - unchecked(jSvc[j]));
    unchecked(lat[base + i] = L);
    next = l;
  }
}

/** The load leaving each node of route r (its start: every delivery on board) into nodeLd. */
function nodeLoads(r: i32): void {
  const base = r * S;
  const len = unchecked(rLen[r]);
  for (let d = 0; d < DIM; d++) {
    let load = 0;
    for (let i = 1; i <= len; i++) load += unchecked(jDem[unchecked(stops[base + i]) * DIM + d]);
    unchecked(nodeLd[d] = load);
    for (let i = 1; i <= len; i++) {
      const j = unchecked(stops[base + i]);
      load += unchecked(jPick[j * DIM + d]) - unchecked(jDem[j * DIM + d]);
      unchecked(nodeLd[i * DIM + d] = load);
    }
  }
}

/** When route r is off again after the breaks it takes at node i, having been free to take them at t. */
export function afterBreaksAt(r: i32, i: i32, t: f64): f64 {
  const b0 = unchecked(vBrkFirst[r]);
  for (let k = 0; k < unchecked(vBrkCnt[r]); k++) if (unchecked(rBrk[r * BK + k]) == i) t = afterBreak(b0 + k, t);
  return t;
}

/** Latest arrivals at nodes `last` down to 1 of route r, from node last+1's (at location `next`). */
@inline function latestArrivalsUpTo(r: i32, last: i32, next: i32): void {
  const base = r * S;
  let L = unchecked(lat[base + last + 1]);
  for (let i = last; i >= 1; i--) {
    const j = unchecked(stops[base + i]);
    const l = unchecked(jLoc[j]);
    L = latestArrival(j, L - tv(r, l, next) - unchecked(jSvc[j]));
    unchecked(lat[base + i] = L);
    next = l;
  }
}

/** Places job j (with its pair's delivery after node `after2` when j is a shipment's pickup). */
export function place(j: i32, r: i32, after: i32, after2: i32): void {
  if (unchecked(jRole[j]) != 1) {
    insertAt(j, r, after);
    return;
  }
  const q = unchecked(jPair[j]);
  const base = r * S;
  const len = unchecked(rLen[r]);
  // The delivery first (it goes at or after the pickup's place), then the pickup before it.
  for (let i = len; i > after2; i--) unchecked(stops[base + i + 1] = stops[base + i]);
  unchecked(stops[base + after2 + 1] = q);
  for (let i = len + 1; i > after; i--) unchecked(stops[base + i + 1] = stops[base + i]);
  unchecked(stops[base + after + 1] = j);
  unchecked(rLen[r] = len + 2);
  updateRoute(r);
}

/**
 * Puts j after node `after` of route r and brings the route's schedule up to date as updateRoute would,
 * in one pass over it rather than two: departures before j and latest arrivals after it do not change
 * (the latter only move up one place), so only the departures from j on and the latest arrivals up to j
 * are computed. Travel times are whole seconds and meters, so the route's sums stay exact when updated.
 */
function insertAt(j: i32, r: i32, after: i32): void {
  const base = r * S;
  const len = unchecked(rLen[r]);
  for (let i = len; i > after; i--) unchecked(stops[base + i + 1] = stops[base + i]);
  unchecked(stops[base + after + 1] = j);
  unchecked(rLen[r] = len + 1);
  // Loads after each stop change all along a route with pickups, and a break may move: the full update.
  if (hasPick || brkOf(r)) {
    updateRoute(r);
    return;
  }
  for (let i = len + 1; i > after; i--) unchecked(lat[base + i + 1] = lat[base + i]);
  const prev = after == 0 ? unchecked(vStart[r]) : unchecked(jLoc[unchecked(stops[base + after])]);
  const next = after == len ? unchecked(vEnd[r]) : unchecked(jLoc[unchecked(stops[base + after + 2])]);
  const l = unchecked(jLoc[j]);
  // A route without jobs cost nothing: its whole trip is new.
  const was = len == 0 ? 0.0 : tc(r, prev, next);
  unchecked(rCost[r] = rCost[r] + tc(r, prev, l) + tc(r, l, next) - was);
  if (costModel) unchecked(rTrav[r] = rTrav[r] + tv(r, prev, l) + tv(r, l, next) - (len == 0 ? 0.0 : tv(r, prev, next)));
  if (hasDist) unchecked(rDist[r] = rDist[r] + dd(prev, l) + dd(l, next) - (len == 0 ? 0.0 : dd(prev, next)));
  const lb = r * DIM;
  for (let d = 0; d < DIM; d++) unchecked(rLoad[lb + d] += jDem[j * DIM + d]);
  unchecked(jobRoute[j] = r);
  let t = unchecked(dep[base + after]);
  let from = prev;
  for (let i = after + 1; i <= len + 1; i++) {
    const q = unchecked(stops[base + i]);
    const lq = unchecked(jLoc[q]);
    t = serviceStart(q, t + tv(r, from, lq)) + unchecked(jSvc[q]);
    unchecked(dep[base + i] = t);
    unchecked(jobPos[q] = i);
    from = lq;
  }
  latestArrivalsUpTo(r, after + 1, next);
}

export function touch(r: i32): void {
  if (unchecked(touchStamp[r]) != iterStamp) {
    unchecked(touchStamp[r] = iterStamp);
    unchecked(touched[nTouched++] = r);
  }
}

export function totalCost(): f64 {
  let c: f64 = 0;
  for (let r = 0; r < V; r++) c += unchecked(rCost[r]) + fixedOf(r, unchecked(rLen[r]));
  // A shipment left out leaves two stops out.
  let left = nUnas;
  // A route whose breaks fit nowhere (a ruin took away the stop a break was taken at) counts as left out.
  if (hasBreaks) for (let r = 0; r < V; r++) if (unchecked(rLen[r]) > 0 && unchecked(lat[r * S + unchecked(rLen[r]) + 1]) == -INF) left += unchecked(rLen[r]);
  if (hasPairs) for (let k = 0; k < nUnas; k++) left += unchecked(jRole[unchecked(unas[k])]) == 1 ? 1 : 0;
  let prio: f64 = 0;
  if (hasPrio) for (let k = 0; k < nUnas; k++) prio += <f64>unchecked(jPrio[unchecked(unas[k])]);
  return c + penalty * <f64>left + prioPenalty * prio;
}
