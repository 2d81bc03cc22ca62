// What the problem says about a leg, a job or a vehicle: travel time and cost of a leg for a vehicle,
// service start in a job's windows, the break, capacity and distance limits. Pure reads of state.ts.

import { VrpWindow } from '../generated/layouts';
import { DIM, INF, J, N, S, V, bwdMax, compat, costModel, dis, dur, fwdMax, bkLoad, bkSvc, bkTwCnt, bkTwOff, hasBreaks, hasDist, hasPick, jDem, jLoc, jPick, jTwCnt, jTwOff, rCost, rDist, rLen, rLoad, rTrav, speedModel, stops, twP, vBrkCnt, vCap, vEnd, vFixed, vMaxDist, vPerM, vPerSec, vSpeed, vStart } from './state';

// The input blocks are read in place (no bounds of their own): the checked build (solver-as/build.mjs
// --checked) asserts the indexes into them; the release build compiles the checks away.
@inline export function tt(a: i32, b: i32): f64 {
  if (!ASC_NO_ASSERT) assert(<u32>a < <u32>N && b < N);
  return b < 0 ? 0.0 : <f64>load<i32>(dur + ((<usize>a * <usize>N + <usize>b) << 2));
}

@inline export function dd(a: i32, b: i32): f64 {
  if (!ASC_NO_ASSERT) assert(dis != 0 && <u32>a < <u32>N && b < N);
  return b < 0 ? 0.0 : <f64>load<i32>(dis + ((<usize>a * <usize>N + <usize>b) << 2));
}

/** Vehicle r's travel time from a to b: the matrix's divided by its speed factor, in whole seconds. */
@inline export function tv(r: i32, a: i32, b: i32): f64 {
  const t = tt(a, b);
  return speedModel ? Math.floor(t / unchecked(vSpeed[r]) + 0.5) : t;
}

/** What the leg from a to b costs vehicle r. */
@inline export function tc(r: i32, a: i32, b: i32): f64 {
  if (!costModel) return tv(r, a, b);
  return unchecked(vPerSec[r]) * tv(r, a, b) + (hasDist ? unchecked(vPerM[r]) * dd(a, b) : 0.0);
}

@inline export function brkOf(r: i32): bool {
  return hasBreaks && unchecked(vBrkCnt[r]) > 0;
}

/** When the vehicle is off again after break b (an index into bk*) it may start at t at the earliest: in
 *  the first of its windows that has not closed by t; INF when all have. */
@inline export function afterBreak(b: i32, t: f64): f64 {
  const cnt = unchecked(bkTwCnt[b]);
  let p = twP + <usize>unchecked(bkTwOff[b]) * VrpWindow.BYTES;
  for (let k = 0; k < cnt; k++) {
    const ws = load<f64>(p, VrpWindow.start);
    const s = t > ws ? t : ws;
    if (s <= load<f64>(p, VrpWindow.end)) return s + unchecked(bkSvc[b]);
    p += VrpWindow.BYTES;
  }
  return INF;
}

/** The latest time the vehicle may reach break b and still be off again by y (afterBreak is non-decreasing); -INF when none. */
@inline export function latestBeforeBreak(b: i32, y: f64): f64 {
  const cnt = unchecked(bkTwCnt[b]);
  const latest = y - unchecked(bkSvc[b]);
  let p = twP + <usize>(unchecked(bkTwOff[b]) + cnt - 1) * VrpWindow.BYTES;
  for (let k = cnt - 1; k >= 0; k--) {
    const e = load<f64>(p, VrpWindow.end);
    const x = latest < e ? latest : e;
    if (x >= load<f64>(p, VrpWindow.start)) return x;
    p -= VrpWindow.BYTES;
  }
  return -INF;
}

/** Whether break b may be taken with ld[at..at + DIM) on board: at most its max load in every dimension. */
@inline export function breakCarries(b: i32, ld: StaticArray<i32>, at: i32): bool {
  for (let d = 0; d < DIM; d++) if (unchecked(ld[at + d]) > unchecked(bkLoad[b * DIM + d])) return false;
  return true;
}

/** Travel seconds of route r. */
@inline export function travelOf(r: i32): f64 {
  return costModel ? unchecked(rTrav[r]) : unchecked(rCost[r]);
}

@inline export function canServe(j: i32, r: i32): bool {
  if (!ASC_NO_ASSERT) assert(<u32>j < <u32>J && <u32>r < <u32>V);
  return load<u8>(compat + <usize>j * <usize>V + <usize>r) != 0;
}

/** Service start when arriving at `a`: the earliest window whose end is >= a; INF when none. */
@inline export function serviceStart(j: i32, a: f64): f64 {
  const cnt = unchecked(jTwCnt[j]);
  if (cnt == 0) return a;
  let p = twP + <usize>unchecked(jTwOff[j]) * VrpWindow.BYTES;
  for (let k = 0; k < cnt; k++) {
    if (load<f64>(p, VrpWindow.end) >= a) {
      const s = load<f64>(p, VrpWindow.start);
      return s > a ? s : a;
    }
    p += VrpWindow.BYTES;
  }
  return INF;
}

/** Latest arrival whose service can start by `d` (service start is non-decreasing in arrival). */
export function latestArrival(j: i32, d: f64): f64 {
  const cnt = unchecked(jTwCnt[j]);
  if (cnt == 0) return d;
  let p = twP + <usize>(unchecked(jTwOff[j]) + cnt - 1) * VrpWindow.BYTES;
  for (let k = cnt - 1; k >= 0; k--) {
    if (load<f64>(p, VrpWindow.start) <= d) {
      const e = load<f64>(p, VrpWindow.end);
      return e < d ? e : d;
    }
    p -= VrpWindow.BYTES;
  }
  return -INF;
}

@inline export function nodeLoc(r: i32, base: i32, i: i32, len: i32): i32 {
  if (i == 0) return unchecked(vStart[r]);
  if (i > len) return unchecked(vEnd[r]);
  return unchecked(jLoc[unchecked(stops[base + i])]);
}

/** Whether job j's demand fits in what route r has left, in every dimension. With pickups a necessary
 *  condition only: wherever j goes, the largest load grows by its delivery or its pickup. */
@inline export function fits(j: i32, r: i32): bool {
  const jb = j * DIM;
  const rb = r * DIM;
  for (let d = 0; d < DIM; d++) {
    const add = hasPick ? min(unchecked(jDem[jb + d]), unchecked(jPick[jb + d])) : unchecked(jDem[jb + d]);
    if (add > unchecked(vCap[rb + d]) - unchecked(rLoad[rb + d])) return false;
  }
  return true;
}

/** Whether route r, with the location l placed between a and b, stays within its distance limit. */
@inline export function withinDistance(r: i32, a: i32, l: i32, b: i32): bool {
  return unchecked(rDist[r]) + dd(a, l) + dd(l, b) - (unchecked(rLen[r]) == 0 ? 0.0 : dd(a, b)) <= unchecked(vMaxDist[r]);
}

/** With pickups: whether job j fits right after node i of route r. The loads up to node i carry its
 *  delivery too, the loads from node i on (and its own) its pickup. */
@inline export function fitsAfter(j: i32, r: i32, i: i32): bool {
  const at = (r * S + i) * DIM;
  const rb = r * DIM;
  const jb = j * DIM;
  for (let d = 0; d < DIM; d++) {
    const cap = unchecked(vCap[rb + d]);
    if (unchecked(fwdMax[at + d]) + unchecked(jDem[jb + d]) > cap || unchecked(bwdMax[at + d]) + unchecked(jPick[jb + d]) > cap) return false;
  }
  return true;
}

/** The fixed cost of route r at `len` jobs: paid once the vehicle is used. */
@inline export function fixedOf(r: i32, len: i32): f64 {
  return len > 0 ? unchecked(vFixed[r]) : 0.0;
}

@inline export function locAt(r: i32, i: i32): i32 {
  return nodeLoc(r, r * S, i, unchecked(rLen[r]));
}
