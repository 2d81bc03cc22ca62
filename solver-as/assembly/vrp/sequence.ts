// A whole route as a sequence of jobs (bufA, bufB), judged from scratch: every rule checked and its cost
// counted (evalSeq), then written into the route when the move gains (tryApply). The local-search
// operators and the breaks check of an empty route go through it.

import { afterBreak, breakCarries, brkOf, canServe, dd, fixedOf, serviceStart, tc, tv } from './problem';
import { touch, updateRoute } from './route';
import { DIM, EPS, INF, S, bufA, bufB, brkE, costModel, depNB, evalStamp, hasDist, hasPairs, hasPick, jDem, jLoc, jPair, jPick, jRole, jSvc, loadBuf, nodeLd, polishWork, rCost, rLen, seenStamp, stops, vBrkCnt, vBrkFirst, vBrkLoad, vCap, vEnd, vMaxDist, vMaxTasks, vMaxTravel, vStart, vTwE, vTwS } from './state';

/** Whether every shipment in buf[0..len) has both its jobs there, the pickup first. */
function pairsInOrder(buf: StaticArray<i32>, len: i32): bool {
  evalStamp++;
  let open = 0;
  for (let i = 0; i < len; i++) {
    const j = unchecked(buf[i]);
    const role = unchecked(jRole[j]);
    if (role == 1) {
      unchecked(seenStamp[j] = evalStamp);
      open++;
    } else if (role == 2) {
      if (unchecked(seenStamp[unchecked(jPair[j])]) != evalStamp) return false;
      open--;
    }
  }
  return open == 0;
}

/** Travel cost of vehicle r driving the jobs in buf[0..len), or INF when any rule breaks. */
export function evalSeq(r: i32, buf: StaticArray<i32>, len: i32): f64 {
  polishWork += <f64>len;
  if (len > unchecked(vMaxTasks[r])) return INF;
  if (len == 0) return 0.0; // the vehicle stays home
  let t = unchecked(vTwS[r]);
  const hoursEnd = unchecked(vTwE[r]);
  let prev = unchecked(vStart[r]);
  let cost: f64 = 0;
  let travel: f64 = 0;
  let meters: f64 = 0;
  for (let d = 0; d < DIM; d++) unchecked(loadBuf[d] = 0);
  const cb = r * DIM;
  const withPick = hasPick;
  const withBreaks = brkOf(r);
  if (withBreaks) unchecked(depNB[0] = t);
  if (hasPairs && !pairsInOrder(buf, len)) return INF;
  if (withPick) {
    // The load leaving the start is every delivery; each stop then takes its delivery off and its pickup on.
    for (let i = 0; i < len; i++) {
      const j = unchecked(buf[i]);
      for (let d = 0; d < DIM; d++) unchecked(loadBuf[d] += jDem[j * DIM + d]);
    }
    for (let d = 0; d < DIM; d++) if (unchecked(loadBuf[d]) > unchecked(vCap[cb + d])) return INF;
  }
  for (let i = 0; i < len; i++) {
    const j = unchecked(buf[i]);
    if (!canServe(j, r)) return INF;
    for (let d = 0; d < DIM; d++) {
      const load = unchecked(loadBuf[d]) + (withPick ? unchecked(jPick[j * DIM + d]) - unchecked(jDem[j * DIM + d]) : unchecked(jDem[j * DIM + d]));
      if (load > unchecked(vCap[cb + d])) return INF;
      unchecked(loadBuf[d] = load);
    }
    const l = unchecked(jLoc[j]);
    const d = tv(r, prev, l);
    if (costModel) {
      cost += tc(r, prev, l);
      travel += d;
    } else cost += d;
    if (hasDist) meters += dd(prev, l);
    const st = serviceStart(j, t + d);
    if (st == INF) return INF;
    t = st + unchecked(jSvc[j]);
    if (t > hoursEnd) return INF;
    if (withBreaks) unchecked(depNB[i + 1] = t);
    prev = l;
  }
  const d = tv(r, prev, unchecked(vEnd[r]));
  if (t + d > hoursEnd || (costModel ? travel : cost) + d > unchecked(vMaxTravel[r])) return INF;
  if (hasDist && meters + dd(prev, unchecked(vEnd[r])) > unchecked(vMaxDist[r])) return INF;
  if (withBreaks && !breaksFit(r, buf, len)) return INF;
  return costModel ? cost + tc(r, prev, unchecked(vEnd[r])) : cost + d;
}

/**
 * Whether vehicle r driving buf[0..len) (every other rule kept) can take its breaks in their order, each
 * inside one of its windows, where it is after its start or a stop: brkE[k] is the earliest it can be off
 * again at a node with k breaks taken. Every rule is a deadline, so the earliest is the best to go on
 * from, and the check is exact. A break with a max load is taken only where the vehicle leaves with at
 * most that on board.
 */
function breaksFit(r: i32, buf: StaticArray<i32>, len: i32): bool {
  const K = unchecked(vBrkCnt[r]);
  const b0 = unchecked(vBrkFirst[r]);
  const withLd = unchecked(vBrkLoad[r]);
  if (withLd) sequenceLoads(buf, len);
  const hoursEnd = unchecked(vTwE[r]);
  // An open route is over when it reaches its last stop: no break after it.
  const last = unchecked(vEnd[r]) < 0 ? len - 1 : len;
  for (let k = 1; k <= K; k++) unchecked(brkE[k] = INF);
  let prev = unchecked(vStart[r]);
  for (let p = 0; p <= len; p++) {
    // Without a break taken, the times evalSeq found.
    unchecked(brkE[0] = depNB[p]);
    if (p > 0) {
      const j = unchecked(buf[p - 1]);
      const l = unchecked(jLoc[j]);
      const d = tv(r, prev, l);
      for (let k = 1; k <= K; k++) {
        const e = unchecked(brkE[k]);
        if (e == INF) continue;
        const st = serviceStart(j, e + d);
        const off = st == INF ? INF : st + unchecked(jSvc[j]);
        unchecked(brkE[k] = off > hoursEnd ? INF : off);
      }
      prev = l;
    }
    if (p <= last) {
      for (let k = 0; k < K; k++) {
        const e = unchecked(brkE[k]);
        if (e == INF || (withLd && !breakCarries(b0 + k, nodeLd, p * DIM))) continue;
        const a = afterBreak(b0 + k, e);
        if (a < unchecked(brkE[k + 1])) unchecked(brkE[k + 1] = a);
      }
    }
  }
  const e = unchecked(brkE[K]);
  return e < INF && e + tv(r, prev, unchecked(vEnd[r])) <= hoursEnd;
}

/** The load leaving each node of the sequence buf[0..len) (node 0: the start, every delivery on board) into nodeLd. */
function sequenceLoads(buf: StaticArray<i32>, len: i32): void {
  for (let d = 0; d < DIM; d++) {
    let load = 0;
    for (let i = 0; i < len; i++) load += unchecked(jDem[unchecked(buf[i]) * DIM + d]);
    unchecked(nodeLd[d] = load);
    for (let i = 0; i < len; i++) {
      const j = unchecked(buf[i]);
      load += unchecked(jPick[j * DIM + d]) - unchecked(jDem[j * DIM + d]);
      unchecked(nodeLd[(i + 1) * DIM + d] = load);
    }
  }
}

function applySeq(r: i32, buf: StaticArray<i32>, len: i32): void {
  const base = r * S;
  for (let i = 0; i < len; i++) unchecked(stops[base + i + 1] = buf[i]);
  unchecked(rLen[r] = len);
  updateRoute(r);
  touch(r);
}

/** Copies nodes [from, to] of route r (node indices) into buf at w; returns the new write index. */
export function copyNodes(r: i32, from: i32, to: i32, buf: StaticArray<i32>, w: i32): i32 {
  const base = r * S;
  for (let i = from; i <= to; i++) unchecked(buf[w++] = stops[base + i]);
  return w;
}

/** Tries to accept new sequences for routes a and b (b < 0: a only); true when it improved and was applied. */
export function tryApply(a: i32, lenA: i32, b: i32, lenB: i32): bool {
  const ca = evalSeq(a, bufA, lenA);
  if (ca == INF) return false;
  // A move that empties a route saves its fixed cost; one that fills an empty route pays it.
  let old = unchecked(rCost[a]) + fixedOf(a, unchecked(rLen[a]));
  let nu = ca + fixedOf(a, lenA);
  if (b >= 0) {
    const cb = evalSeq(b, bufB, lenB);
    if (cb == INF) return false;
    old += unchecked(rCost[b]) + fixedOf(b, unchecked(rLen[b]));
    nu += cb + fixedOf(b, lenB);
  }
  if (nu >= old - EPS) return false;
  applySeq(a, bufA, lenA);
  if (b >= 0) applySeq(b, bufB, lenB);
  return true;
}
