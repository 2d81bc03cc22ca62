// Cheapest feasible insertion of a job (or a shipment's pair) into one route and over all routes, and the
// order of priorities that construction and recreate insert in.

import { brkOf, canServe, dd, fits, fitsAfter, fixedOf, serviceStart, tc, travelOf, tv, withinDistance } from './problem';
import { afterBreaksAt } from './route';
import { copyNodes, evalSeq } from './sequence';
import { BK, BLINK, DIM, EPS, INF, S, V, bkLoad, bufA, bufC, movedBreaks, rBrk, rBrkLd, rCost, costModel, dep, gPos, gPos2, hasDist, hasPick, hasPrio, jDem, jLoc, jPair, jPick, jPrio, jRole, jSvc, jTwFirst, jTwLast, lat, nPool, pairLoad, pairMax, pairWalk, pool, rDist, rLen, rnd, searchWork, stamp, stops, typeStamp, vCap, vEnd, vMaxDist, vMaxTasks, vBrkCnt, vBrkFirst, vBrkLoad, vMaxTravel, vStart, vTwE, vType } from './state';

/** Cheapest feasible insertion of j into route r (delta travel); position in gPos. INF when none. */
export function bestInRoute(j: i32, r: i32, bound: f64, blink: bool): f64 {
  if (unchecked(jRole[j]) == 1) return bestPairInRoute(j, r, bound, blink);
  gPos2 = -1;
  if (!fits(j, r) || unchecked(rLen[r]) >= unchecked(vMaxTasks[r])) return INF;
  // The detour may use what is left of the route's travel limit, no more: a bound on the cost when that is the travel.
  const travelLeft = unchecked(vMaxTravel[r]) - travelOf(r) + EPS;
  if (!costModel && travelLeft < bound) bound = travelLeft;
  const base = r * S;
  const len = unchecked(rLen[r]);
  searchWork += <f64>(len + 1);
  const lj = unchecked(jLoc[j]);
  const svc = unchecked(jSvc[j]);
  const withPick = hasPick;
  const withLd = unchecked(vBrkLoad[r]) && len > 0;
  let best = bound;
  let pos = -1;
  // Slack is monotone along a route: skip the prefix whose successor must be reached before the job's
  // first window can even open, and stop once departures pass its last window or leave no time to serve
  // it within the working hours.
  const earliestOut = unchecked(jTwFirst[j]) + svc;
  const lastIn = min(unchecked(jTwLast[j]), unchecked(vTwE[r]) - svc);
  let i0 = 0;
  while (i0 < len && unchecked(lat[base + i0 + 1]) < earliestOut) i0++;
  let prev = i0 == 0 ? unchecked(vStart[r]) : unchecked(jLoc[unchecked(stops[base + i0])]);
  for (let i = i0; i <= len; i++) {
    if (unchecked(dep[base + i]) > lastIn) break;
    const next = i == len ? unchecked(vEnd[r]) : unchecked(jLoc[unchecked(stops[base + i + 1])]);
    {
      const din = tv(r, prev, lj);
      const dout = tv(r, lj, next);
      // Into an empty route the whole trip is new: it cost nothing before.
      let delta = din + dout - (len == 0 ? 0.0 : tv(r, prev, next));
      let inTravel = true;
      if (costModel) {
        inTravel = delta < travelLeft;
        delta = tc(r, prev, lj) + tc(r, lj, next) - (len == 0 ? 0.0 : tc(r, prev, next));
      }
      // Blinking only positions that would win skips with the same odds as blinking every position.
      if (delta < best && inTravel && (!blink || rnd() >= BLINK) && (!withPick || fitsAfter(j, r, i)) && (!hasDist || withinDistance(r, prev, lj, next))) {
        const s = serviceStart(j, unchecked(dep[base + i]) + din);
        if (s < INF && s + svc + dout <= unchecked(lat[base + i + 1]) && (len > 0 || !brkOf(r) || aloneFits(r, j, -1)) && (!withLd || carriedWith(r, i, j))) {
          best = delta;
          pos = i;
        }
      }
    }
    prev = next;
  }
  gPos = pos;
  return pos < 0 ? INF : best;
}

/**
 * With the breaks of route r where they are, whether each stays within its max load once job j is put
 * after node i: a break after node i or earlier has j's delivery on board too, a later one its pickup.
 */
function carriedWith(r: i32, i: i32, j: i32): bool {
  const b0 = unchecked(vBrkFirst[r]);
  for (let k = 0; k < unchecked(vBrkCnt[r]); k++) {
    const at = (r * BK + k) * DIM;
    const add = unchecked(rBrk[r * BK + k]) <= i ? jDem : jPick;
    for (let d = 0; d < DIM; d++) if (unchecked(rBrkLd[at + d]) + unchecked(add[j * DIM + d]) > unchecked(bkLoad[(b0 + k) * DIM + d])) return false;
  }
  return true;
}

/** Whether the breaks route r takes after node m stay within their max loads with `p`'s pickup (a shipment's amount) on board too. */
function carriedAfter(r: i32, m: i32, p: i32): bool {
  const b0 = unchecked(vBrkFirst[r]);
  for (let k = 0; k < unchecked(vBrkCnt[r]); k++) {
    if (unchecked(rBrk[r * BK + k]) != m) continue;
    const at = (r * BK + k) * DIM;
    for (let d = 0; d < DIM; d++) if (unchecked(rBrkLd[at + d]) + unchecked(jPick[p * DIM + d]) > unchecked(bkLoad[(b0 + k) * DIM + d])) return false;
  }
  return true;
}

/** Whether job j (and job q after it, q >= 0) alone make a route of vehicle r with room for its breaks. */
function aloneFits(r: i32, j: i32, q: i32): bool {
  unchecked(bufC[0] = j);
  if (q >= 0) unchecked(bufC[1] = q);
  return evalSeq(r, bufC, q >= 0 ? 2 : 1) < INF;
}

/**
 * Cheapest feasible insertion of the shipment whose pickup is p into route r: the pickup after node i
 * (gPos), the delivery after node m >= i (gPos2; m == i: right after the pickup). For each i the
 * schedule is pushed forward node by node until a node's latest arrival breaks, and the loads from node
 * i to m carry the amount too. INF when none.
 */
function bestPairInRoute(p: i32, r: i32, bound: f64, blink: bool): f64 {
  const q = unchecked(jPair[p]);
  const base = r * S;
  const len = unchecked(rLen[r]);
  gPos = -1;
  gPos2 = -1;
  if (len + 2 > unchecked(vMaxTasks[r])) return INF;
  const travelLeft = unchecked(vMaxTravel[r]) - travelOf(r) + EPS;
  if (!costModel && travelLeft < bound) bound = travelLeft;
  searchWork += <f64>((len + 1) * (len + 2)) * 0.5;
  const lp = unchecked(jLoc[p]);
  const lq = unchecked(jLoc[q]);
  const svcP = unchecked(jSvc[p]);
  const svcQ = unchecked(jSvc[q]);
  const withBreak = brkOf(r) && len > 0;
  const withLd = withBreak && unchecked(vBrkLoad[r]);
  const rb = r * DIM;
  const pb = p * DIM;
  let best = bound;
  let bi = -1;
  let bk = -1;
  for (let d = 0; d < DIM; d++) {
    let load = 0;
    for (let i = 1; i <= len; i++) load += unchecked(jDem[unchecked(stops[base + i]) * DIM + d]);
    unchecked(pairLoad[d] = load);
  }
  let prev = unchecked(vStart[r]);
  for (let i = 0; i <= len; i++) {
    if (i > 0) {
      const ji = unchecked(stops[base + i]);
      for (let d = 0; d < DIM; d++) unchecked(pairLoad[d] += unchecked(jPick[ji * DIM + d]) - unchecked(jDem[ji * DIM + d]));
      prev = unchecked(jLoc[ji]);
    }
    let fitsHere = true;
    for (let d = 0; d < DIM; d++) {
      unchecked(pairWalk[d] = pairLoad[d]);
      unchecked(pairMax[d] = pairLoad[d]);
      if (unchecked(pairLoad[d]) + unchecked(jPick[pb + d]) > unchecked(vCap[rb + d])) fitsHere = false;
    }
    if (!fitsHere) continue;
    const sP = serviceStart(p, unchecked(dep[base + i]) + tv(r, prev, lp));
    if (sP == INF) continue;
    const next = i == len ? unchecked(vEnd[r]) : unchecked(jLoc[unchecked(stops[base + i + 1])]);
    const costP = tc(r, prev, lp) - (len == 0 ? 0.0 : tc(r, prev, next));
    // Travel added, kept apart from the cost only when they differ (for the travel limit).
    const timeP = costModel ? tv(r, prev, lp) - (len == 0 ? 0.0 : tv(r, prev, next)) : 0.0;
    // The delivery right after the pickup.
    let t = sP + svcP;
    {
      const sQ = serviceStart(q, t + tv(r, lp, lq));
      const c = costP + tc(r, lp, lq) + tc(r, lq, next);
      const meters = hasDist ? dd(prev, lp) + dd(lp, lq) + dd(lq, next) - (len == 0 ? 0.0 : dd(prev, next)) : 0.0;
      if (
        sQ < INF &&
        c < best &&
        (!costModel || timeP + tv(r, lp, lq) + tv(r, lq, next) < travelLeft) &&
        sQ + svcQ + tv(r, lq, next) <= unchecked(lat[base + i + 1]) &&
        (len > 0 || !brkOf(r) || aloneFits(r, p, q)) &&
        (!hasDist || unchecked(rDist[r]) + meters <= unchecked(vMaxDist[r])) &&
        (!blink || rnd() >= BLINK)
      ) {
        best = c;
        bi = i;
        bk = i;
      }
    }
    // The delivery after a later node m, the nodes between pushed back by the pickup.
    let at = lp;
    const detour = costP + tc(r, lp, next);
    const timeDetour = costModel ? timeP + tv(r, lp, next) : 0.0;
    const metersP = hasDist ? unchecked(rDist[r]) + dd(prev, lp) + dd(lp, next) - dd(prev, next) : 0.0;
    for (let m = i + 1; m <= len; m++) {
      const jm = unchecked(stops[base + m]);
      const lm = unchecked(jLoc[jm]);
      const arrival = t + tv(r, at, lm);
      if (arrival > unchecked(lat[base + m])) break;
      t = serviceStart(jm, arrival) + unchecked(jSvc[jm]);
      // The breaks after node m come before the delivery put there, and before the nodes after it.
      if (withBreak) {
        t = afterBreaksAt(r, m, t);
        if (t == INF) break;
      }
      at = lm;
      let carried = true;
      for (let d = 0; d < DIM; d++) {
        const load = unchecked(pairWalk[d]) + unchecked(jPick[jm * DIM + d]) - unchecked(jDem[jm * DIM + d]);
        unchecked(pairWalk[d] = load);
        if (load > unchecked(pairMax[d])) unchecked(pairMax[d] = load);
        if (unchecked(pairMax[d]) + unchecked(jPick[pb + d]) > unchecked(vCap[rb + d])) carried = false;
      }
      // A break after node m has the amount on board too, as have those after the later nodes the delivery may follow.
      if (!carried || (withLd && !carriedAfter(r, m, p))) break;
      const nm = m == len ? unchecked(vEnd[r]) : unchecked(jLoc[unchecked(stops[base + m + 1])]);
      const c = detour + tc(r, lm, lq) + tc(r, lq, nm) - tc(r, lm, nm);
      if (c >= best) continue;
      const sQ = serviceStart(q, t + tv(r, lm, lq));
      if (
        sQ < INF &&
        (!costModel || timeDetour + tv(r, lm, lq) + tv(r, lq, nm) - tv(r, lm, nm) < travelLeft) &&
        sQ + svcQ + tv(r, lq, nm) <= unchecked(lat[base + m + 1]) &&
        (!hasDist || metersP + dd(lm, lq) + dd(lq, nm) - dd(lm, nm) <= unchecked(vMaxDist[r])) &&
        (!blink || rnd() >= BLINK)
      ) {
        best = c;
        bi = i;
        bk = m;
      }
    }
  }
  gPos = bi;
  gPos2 = bk;
  return bi < 0 ? INF : best;
}

/** Best insertion over all routes; empty routes are tried once per vehicle type. Route in return, position in gPos. */
export function bestInsertion(j: i32, blink: bool): i32 {
  stamp++;
  let best = INF;
  let bestR = -1;
  let bestP = -1;
  let bestP2 = -1;
  for (let r = 0; r < V; r++) {
    if (!canServe(j, r)) continue;
    if (unchecked(rLen[r]) == 0) {
      const ty = unchecked(vType[r]);
      if (unchecked(typeStamp[ty]) == stamp) continue;
      unchecked(typeStamp[ty] = stamp);
    }
    // Opening an unused vehicle pays its fixed cost.
    const fx = fixedOf(r, unchecked(rLen[r]) == 0 ? 1 : 0);
    const c = bestInRoute(j, r, best - fx, blink) + fx;
    if (c < best) {
      best = c;
      bestR = r;
      bestP = gPos;
      bestP2 = gPos2;
    }
  }
  gPos = bestP;
  gPos2 = bestP2;
  // The checks above keep a route's breaks where they are; with several breaks a job may fit only where
  // they move (taken at another stop, nearer the job): found by the exact check, where nothing else fits.
  if (bestR < 0 && movedBreaks && unchecked(jRole[j]) == 0) return withBreaksMoved(j);
  return bestR;
}

/** Cheapest insertion of job j into a used route with breaks, each position judged by evalSeq (the breaks
 *  where they fit best); route in return, position in gPos; -1 when none. */
function withBreaksMoved(j: i32): i32 {
  let best = INF;
  let bestR = -1;
  let bestP = -1;
  for (let r = 0; r < V; r++) {
    const len = unchecked(rLen[r]);
    if (len == 0 || !brkOf(r) || !canServe(j, r) || !fits(j, r) || len >= unchecked(vMaxTasks[r])) continue;
    for (let i = 0; i <= len; i++) {
      let w = copyNodes(r, 1, i, bufA, 0);
      unchecked(bufA[w++] = j);
      w = copyNodes(r, i + 1, len, bufA, w);
      const c = evalSeq(r, bufA, w) - unchecked(rCost[r]);
      if (c < best) {
        best = c;
        bestR = r;
        bestP = i;
      }
    }
  }
  gPos = bestP;
  gPos2 = -1;
  return bestR;
}

/** Stable sort of the pool by priority, highest first: the order chosen stays among equal priorities. */
export function byPriority(): void {
  if (!hasPrio) return;
  for (let i = 1; i < nPool; i++) {
    const j = unchecked(pool[i]);
    const p = unchecked(jPrio[j]);
    let k = i;
    while (k > 0 && unchecked(jPrio[unchecked(pool[k - 1])]) < p) {
      unchecked(pool[k] = pool[k - 1]);
      k--;
    }
    unchecked(pool[k] = j);
  }
}
