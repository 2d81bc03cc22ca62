// Reading solve()'s input into state.ts, and the structures derived once per solve: vehicle types,
// job neighbours, the mean leg cost, the working arrays, a warm start.

import { VrpBreak, VrpJob, VrpProblem, VrpVehicle, VrpVehicleHours, VrpVehicleLimits, VrpWindow } from '../generated/layouts';
import { canServe, tc, tt } from './problem';
import { updateRoute } from './route';
import { DIM, INF, J, K, MAX_NEIGHBORS, S, V, adj, adjCnt, bLen, bStops, bufA, bufB, bufC, bwdMax, costModel, dep, depNB, evalStamp, fwdMax, hasBreaks, hasDist, hasPairs, hasPick, hasPrio, iterStamp, jDem, jDemKey, jDepot, jLoc, jPair, jPick, jPrio, jRole, jSvc, jTwCnt, jTwFirst, jTwLast, jTwOff, jobPos, jobRoute, keys, lat, loadBuf, nPool, nServable, nTouched, nUnas, pairLoad, pairMax, pairWalk, polishWork, pool, rBrk, rCost, rDist, rLen, rLoad, rTrav, rint, sBrk, sCost, sDep, sDist, sLat, sLen, sLoad, sStops, sTrav, sUnas, searchWork, seenStamp, segBuf, servable, speedModel, stamp, stops, touchStamp, touched, twP, typeStamp, unas, BK, bkSvc, bkTwCnt, movedBreaks, bkTwOff, bkLoad, brkE, brkLA, brkLD, nodeLd, rBrkLd, sBrkLd, vBrkCnt, vBrkFirst, vBrkLoad, vCap, vEnd, vFixed, vMaxDist, vMaxTasks, vMaxTravel, vPerM, vPerSec, vSpeed, vStart, vTwE, vTwS, vType } from './state';

export function setupVehicles(problem: usize): void {
  const vehI = <usize>load<u32>(problem, VrpProblem.vehicles);
  const vehT = <usize>load<u32>(problem, VrpProblem.hours);
  const capP = <usize>load<u32>(problem, VrpProblem.capacities);
  const limP = <usize>load<u32>(problem, VrpProblem.limits);
  vStart = new StaticArray<i32>(V);
  vEnd = new StaticArray<i32>(V);
  vCap = new StaticArray<i32>(V * DIM);
  vType = new StaticArray<i32>(V);
  vTwS = new StaticArray<f64>(V);
  vTwE = new StaticArray<f64>(V);
  vMaxTasks = new StaticArray<i32>(V);
  vMaxTravel = new StaticArray<f64>(V);
  vMaxDist = new StaticArray<f64>(V);
  vFixed = new StaticArray<f64>(V);
  vSpeed = new StaticArray<f64>(V);
  vPerSec = new StaticArray<f64>(V);
  vPerM = new StaticArray<f64>(V);
  vBrkFirst = new StaticArray<i32>(V);
  vBrkCnt = new StaticArray<i32>(V);
  hasBreaks = false;
  BK = 0;
  let breakCount = 0;
  speedModel = false;
  costModel = false;
  for (let r = 0; r < V; r++) {
    const p = vehI + <usize>r * VrpVehicle.BYTES;
    unchecked(vStart[r] = load<i32>(p, VrpVehicle.start));
    unchecked(vEnd[r] = load<i32>(p, VrpVehicle.end));
    for (let d = 0; d < DIM; d++) {
      const cap = load<i32>(capP + (<usize>(r * DIM + d) << 2));
      unchecked(vCap[r * DIM + d] = cap < 0 ? i32.MAX_VALUE : cap);
    }
    const h = vehT + <usize>r * VrpVehicleHours.BYTES;
    unchecked(vTwS[r] = load<f64>(h, VrpVehicleHours.start));
    unchecked(vTwE[r] = load<f64>(h, VrpVehicleHours.end));
    const lim = limP + <usize>r * VrpVehicleLimits.BYTES;
    const maxTasks = load<f64>(lim, VrpVehicleLimits.maxJobs);
    unchecked(vMaxTasks[r] = maxTasks < <f64>i32.MAX_VALUE ? <i32>maxTasks : i32.MAX_VALUE);
    unchecked(vMaxTravel[r] = load<f64>(lim, VrpVehicleLimits.maxTravel));
    unchecked(vMaxDist[r] = load<f64>(lim, VrpVehicleLimits.maxDistance));
    unchecked(vFixed[r] = load<f64>(lim, VrpVehicleLimits.fixed));
    unchecked(vSpeed[r] = load<f64>(lim, VrpVehicleLimits.speedFactor));
    unchecked(vPerSec[r] = load<f64>(lim, VrpVehicleLimits.costPerSecond));
    unchecked(vPerM[r] = hasDist ? load<f64>(lim, VrpVehicleLimits.costPerMeter) : 0.0);
    unchecked(vBrkFirst[r] = <i32>load<f64>(lim, VrpVehicleLimits.firstBreak));
    const nb = <i32>load<f64>(lim, VrpVehicleLimits.breakCount);
    unchecked(vBrkCnt[r] = nb);
    if (nb > 0) hasBreaks = true;
    if (nb > BK) BK = nb;
    if (unchecked(vBrkFirst[r]) + nb > breakCount) breakCount = unchecked(vBrkFirst[r]) + nb;
    if (unchecked(vSpeed[r]) != 1.0) speedModel = true;
    if (unchecked(vPerSec[r]) != 1.0 || unchecked(vPerM[r]) != 0.0) costModel = true;
  }
  setupBreaks(problem, breakCount);
  // Vehicles are interchangeable when everything about them matches, including which jobs they may serve.
  for (let r = 0; r < V; r++) {
    unchecked(vType[r] = r);
    for (let q = 0; q < r; q++) {
      if (unchecked(vType[q]) != q) continue;
      if (vStart[q] != vStart[r] || vEnd[q] != vEnd[r] || vTwS[q] != vTwS[r] || vTwE[q] != vTwE[r]) continue;
      if (vMaxTasks[q] != vMaxTasks[r] || vMaxTravel[q] != vMaxTravel[r] || vMaxDist[q] != vMaxDist[r] || vFixed[q] != vFixed[r]) continue;
      if (vSpeed[q] != vSpeed[r] || vPerSec[q] != vPerSec[r] || vPerM[q] != vPerM[r]) continue;
      let same = sameBreaks(q, r);
      for (let d = 0; d < DIM && same; d++) same = vCap[q * DIM + d] == vCap[r * DIM + d];
      for (let j = 0; j < J && same; j++) same = canServe(j, q) == canServe(j, r);
      if (same) {
        unchecked(vType[r] = q);
        break;
      }
    }
  }
}

/** Reads the break records (vehicles' firstBreak and breakCount index them). */
function setupBreaks(problem: usize, count: i32): void {
  const p = <usize>load<u32>(problem, VrpProblem.breaks);
  bkTwOff = new StaticArray<i32>(count);
  bkTwCnt = new StaticArray<i32>(count);
  bkSvc = new StaticArray<f64>(count);
  movedBreaks = false;
  for (let b = 0; b < count; b++) {
    const rec = p + <usize>b * VrpBreak.BYTES;
    unchecked(bkTwOff[b] = load<i32>(rec, VrpBreak.firstWindow));
    unchecked(bkTwCnt[b] = load<i32>(rec, VrpBreak.windowCount));
    unchecked(bkSvc[b] = load<f64>(rec, VrpBreak.service));
    if (unchecked(bkTwCnt[b]) > 1) movedBreaks = true;
  }
  for (let r = 0; r < V; r++) if (unchecked(vBrkCnt[r]) > 1) movedBreaks = true;
  // Max loads: -1 is no limit in that dimension.
  const lp = <usize>load<u32>(problem, VrpProblem.breakLoads);
  bkLoad = new StaticArray<i32>(count * DIM);
  for (let x = 0; x < count * DIM; x++) {
    const m = lp == 0 ? -1 : load<i32>(lp + (<usize>x << 2));
    unchecked(bkLoad[x] = m < 0 ? i32.MAX_VALUE : m);
  }
  vBrkLoad = new StaticArray<bool>(V);
  for (let r = 0; r < V; r++) {
    const b0 = unchecked(vBrkFirst[r]);
    for (let x = b0 * DIM; x < (b0 + unchecked(vBrkCnt[r])) * DIM; x++) if (unchecked(bkLoad[x]) < i32.MAX_VALUE) unchecked(vBrkLoad[r] = true);
    // Where the loads allow a break changes with every job put before or after it.
    if (unchecked(vBrkLoad[r])) movedBreaks = true;
  }
}

/** Whether vehicles q and r have the same breaks: the same services, windows and max loads, in the same order. */
function sameBreaks(q: i32, r: i32): bool {
  const n = unchecked(vBrkCnt[q]);
  if (n != unchecked(vBrkCnt[r])) return false;
  for (let k = 0; k < n; k++) {
    const a = unchecked(vBrkFirst[q]) + k;
    const b = unchecked(vBrkFirst[r]) + k;
    const cnt = unchecked(bkTwCnt[a]);
    if (a == b) continue;
    if (unchecked(bkSvc[a]) != unchecked(bkSvc[b]) || cnt != unchecked(bkTwCnt[b])) return false;
    for (let d = 0; d < DIM; d++) if (unchecked(bkLoad[a * DIM + d]) != unchecked(bkLoad[b * DIM + d])) return false;
    for (let w = 0; w < cnt; w++) {
      const wa = twP + <usize>(unchecked(bkTwOff[a]) + w) * VrpWindow.BYTES;
      const wb = twP + <usize>(unchecked(bkTwOff[b]) + w) * VrpWindow.BYTES;
      if (load<f64>(wa, VrpWindow.start) != load<f64>(wb, VrpWindow.start) || load<f64>(wa, VrpWindow.end) != load<f64>(wb, VrpWindow.end)) return false;
    }
  }
  return true;
}

export function setupJobs(problem: usize): void {
  const jobI = <usize>load<u32>(problem, VrpProblem.jobs);
  const demP = <usize>load<u32>(problem, VrpProblem.deliveries);
  const pickP = <usize>load<u32>(problem, VrpProblem.pickups);
  const pairP = <usize>load<u32>(problem, VrpProblem.pairs);
  const jobSvc = <usize>load<u32>(problem, VrpProblem.services);
  const prioP = <usize>load<u32>(problem, VrpProblem.priorities);
  jPrio = new StaticArray<i32>(J);
  hasPrio = false;
  if (prioP != 0) {
    for (let j = 0; j < J; j++) {
      const p = load<i32>(prioP + (<usize>j << 2));
      unchecked(jPrio[j] = p);
      if (p != 0) hasPrio = true;
    }
  }
  jLoc = new StaticArray<i32>(J);
  jDem = new StaticArray<i32>(J * DIM);
  jPick = new StaticArray<i32>(J * DIM);
  hasPick = false;
  jPair = new StaticArray<i32>(J);
  jRole = new StaticArray<i32>(J);
  hasPairs = false;
  for (let j = 0; j < J; j++) unchecked(jPair[j] = -1);
  for (let j = 0; j < J; j++) {
    const q = load<i32>(pairP + (<usize>j << 2));
    if (q < 0) continue;
    unchecked(jPair[j] = q);
    unchecked(jPair[q] = j);
    unchecked(jRole[j] = 1);
    unchecked(jRole[q] = 2);
    hasPairs = true;
  }
  jDemKey = new StaticArray<f64>(J);
  jTwOff = new StaticArray<i32>(J);
  jTwCnt = new StaticArray<i32>(J);
  jSvc = new StaticArray<f64>(J);
  jDepot = new StaticArray<f64>(J);
  jTwFirst = new StaticArray<f64>(J);
  jTwLast = new StaticArray<f64>(J);
  for (let j = 0; j < J; j++) {
    const p = jobI + <usize>j * VrpJob.BYTES;
    unchecked(jLoc[j] = load<i32>(p, VrpJob.location));
    unchecked(jTwOff[j] = load<i32>(p, VrpJob.firstWindow));
    unchecked(jTwCnt[j] = load<i32>(p, VrpJob.windowCount));
    // The size of a job: its delivery and pickup, or with several dimensions the sum of their shares of
    // the largest capacity in each.
    let key: f64 = 0;
    for (let d = 0; d < DIM; d++) {
      const dem = load<i32>(demP + (<usize>(j * DIM + d) << 2));
      const pick = load<i32>(pickP + (<usize>(j * DIM + d) << 2));
      unchecked(jDem[j * DIM + d] = dem);
      unchecked(jPick[j * DIM + d] = pick);
      if (pick != 0) hasPick = true;
      key += DIM == 1 ? <f64>(dem + pick) : <f64>(dem + pick) / largestCapacity(d);
    }
    unchecked(jDemKey[j] = key);
    unchecked(jSvc[j] = load<f64>(jobSvc + (<usize>j << 3)));
    const cnt = unchecked(jTwCnt[j]);
    const first = twP + <usize>unchecked(jTwOff[j]) * VrpWindow.BYTES;
    unchecked(jTwFirst[j] = cnt == 0 ? -INF : load<f64>(first, VrpWindow.start));
    unchecked(jTwLast[j] = cnt == 0 ? INF : load<f64>(first + <usize>(cnt - 1) * VrpWindow.BYTES, VrpWindow.end));
    let d = INF;
    for (let r = 0; r < V; r++) {
      if (unchecked(vType[r]) != r) continue;
      const x = tt(unchecked(vStart[r]), unchecked(jLoc[j]));
      if (x < d) d = x;
    }
    unchecked(jDepot[j] = d);
  }
}

function largestCapacity(d: i32): f64 {
  let m: f64 = 1;
  for (let r = 0; r < V; r++) {
    const c = unchecked(vCap[r * DIM + d]);
    if (c != i32.MAX_VALUE && <f64>c > m) m = <f64>c;
  }
  return m;
}

export function setupNeighbors(): void {
  K = J - 1 < MAX_NEIGHBORS ? J - 1 : MAX_NEIGHBORS;
  if (K < 0) K = 0;
  adj = new StaticArray<i32>(J * K + 1);
  adjCnt = new StaticArray<i32>(J);
  const dist = new StaticArray<f64>(K + 1);
  for (let a = 0; a < J; a++) {
    const la = unchecked(jLoc[a]);
    const base = a * K;
    let cnt = 0;
    for (let b = 0; b < J; b++) {
      if (b == a) continue;
      const lb = unchecked(jLoc[b]);
      const d = tt(la, lb) + tt(lb, la);
      if (cnt == K && d >= unchecked(dist[K - 1])) continue;
      let i = cnt < K ? cnt++ : K - 1;
      while (i > 0 && unchecked(dist[i - 1]) > d) {
        unchecked(dist[i] = dist[i - 1]);
        unchecked(adj[base + i] = adj[base + i - 1]);
        i--;
      }
      unchecked(dist[i] = d);
      unchecked(adj[base + i] = b);
    }
    unchecked(adjCnt[a] = cnt);
  }
}

/** The cost of a leg between two jobs, on average; with vehicles that price legs differently, over them in turn. */
export function meanTravel(): f64 {
  if (J < 2) return 1.0;
  let s: f64 = 0;
  let n: f64 = 0;
  const mixed = costModel || speedModel;
  let r = 0;
  if (J <= 400) {
    for (let a = 0; a < J; a++) {
      for (let b = 0; b < J; b++) {
        if (a == b) continue;
        s += mixed ? tc(r, unchecked(jLoc[a]), unchecked(jLoc[b])) : tt(unchecked(jLoc[a]), unchecked(jLoc[b]));
        if (mixed && ++r == V) r = 0;
        n += 1;
      }
    }
  } else {
    for (let k = 0; k < 160000; k++) {
      const a = unchecked(jLoc[rint(J)]);
      const b = unchecked(jLoc[rint(J)]);
      s += mixed ? tc(r, a, b) : tt(a, b);
      if (mixed && ++r == V) r = 0;
      n += 1;
    }
  }
  const m = s / n;
  return m > 0 ? m : 1.0;
}

export function allocState(): void {
  S = J + 2;
  stops = new StaticArray<i32>(V * S);
  dep = new StaticArray<f64>(V * S);
  lat = new StaticArray<f64>(V * S);
  rLen = new StaticArray<i32>(V);
  rLoad = new StaticArray<i32>(V * DIM);
  fwdMax = new StaticArray<i32>(hasPick ? V * S * DIM : 0);
  bwdMax = new StaticArray<i32>(hasPick ? V * S * DIM : 0);
  rCost = new StaticArray<f64>(V);
  rTrav = new StaticArray<f64>(costModel ? V : 0);
  rBrk = new StaticArray<i32>(V * BK);
  sBrk = new StaticArray<i32>(V * BK);
  depNB = new StaticArray<f64>(hasBreaks ? J + 2 : 0);
  brkE = new StaticArray<f64>(BK + 1);
  brkLA = new StaticArray<f64>(hasBreaks ? (J + 2) * (BK + 1) : 0);
  brkLD = new StaticArray<f64>(hasBreaks ? (J + 2) * (BK + 1) : 0);
  bufC = new StaticArray<i32>(hasBreaks ? 2 : 0);
  let withLoads = false;
  for (let r = 0; r < V; r++) if (unchecked(vBrkLoad[r])) withLoads = true;
  rBrkLd = new StaticArray<i32>(withLoads ? V * BK * DIM : 0);
  sBrkLd = new StaticArray<i32>(withLoads ? V * BK * DIM : 0);
  nodeLd = new StaticArray<i32>(withLoads ? (J + 2) * DIM : 0);
  sTrav = new StaticArray<f64>(costModel ? V : 0);
  rDist = new StaticArray<f64>(hasDist ? V : 0);
  sDist = new StaticArray<f64>(hasDist ? V : 0);
  sStops = new StaticArray<i32>(V * S);
  sDep = new StaticArray<f64>(V * S);
  sLat = new StaticArray<f64>(V * S);
  sLen = new StaticArray<i32>(V);
  sLoad = new StaticArray<i32>(V * DIM);
  sCost = new StaticArray<f64>(V);
  bStops = new StaticArray<i32>(V * S);
  bLen = new StaticArray<i32>(V);
  jobRoute = new StaticArray<i32>(J);
  jobPos = new StaticArray<i32>(J);
  unas = new StaticArray<i32>(J);
  sUnas = new StaticArray<i32>(J);
  servable = new StaticArray<i32>(J);
  typeStamp = new StaticArray<i32>(V);
  touched = new StaticArray<i32>(V);
  touchStamp = new StaticArray<i32>(V);
  pool = new StaticArray<i32>(J);
  bufA = new StaticArray<i32>(J + 2);
  bufB = new StaticArray<i32>(J + 2);
  loadBuf = new StaticArray<i32>(DIM);
  segBuf = new StaticArray<i32>(DIM);
  pairLoad = new StaticArray<i32>(DIM);
  pairWalk = new StaticArray<i32>(DIM);
  pairMax = new StaticArray<i32>(DIM);
  seenStamp = new StaticArray<i32>(hasPairs ? J : 0);
  evalStamp = 0;
  keys = new StaticArray<f64>(J);
  stamp = 0;
  iterStamp = 0;
  searchWork = 0;
  polishWork = 0;
  nTouched = 0;
  nPool = 0;
  for (let r = 0; r < V; r++) {
    unchecked(touchStamp[r] = -1);
    updateRoute(r);
  }
}

/** Loads the routes at `out` (the layout solve() writes) and leaves the servable jobs they miss unassigned. */
export function warmStart(out: usize): void {
  let w = out + (<usize>V << 2);
  for (let r = 0; r < V; r++) {
    const len = load<i32>(out + (<usize>r << 2));
    const base = r * S;
    for (let i = 1; i <= len; i++) {
      unchecked(stops[base + i] = load<i32>(w));
      w += 4;
    }
    unchecked(rLen[r] = len);
    updateRoute(r);
  }
  nUnas = 0;
  for (let k = 0; k < nServable; k++) {
    const q = unchecked(servable[k]);
    if (unchecked(jobRoute[q]) < 0) unchecked(unas[nUnas++] = q);
  }
}
