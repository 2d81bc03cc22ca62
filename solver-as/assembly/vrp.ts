// VRPTW solver: regret-2 construction, then SISR ruin & recreate (Christiaens & Vanden Berghe 2020)
// with simulated-annealing acceptance; every new best is polished by a first-improvement local search
// (relocate, or-opt, swap, 2-opt*).
// Objective: the largest sum of priorities served, then as many jobs as possible, then the least cost:
// over the vehicles used, fixed + per_hour × travel hours + per_km × km (VROOM's costs; by default
// per_hour 3600 and per_km 0, so the cost is the travel seconds). A vehicle's travel times are the
// matrix's divided by its speed factor, rounded to whole seconds; travel times are always the vehicle's
// own (tv), costs of legs tc. When every vehicle has factor 1, per_hour 3600 and per_km 0 both are the
// matrix's seconds (speedModel and costModel false), so such problems run exactly as before these existed.
// Loads have DIM dimensions (weight, volume, …). A job's delivery rides from the start to the job, its
// pickup from the job to the end. Without pickups (the API's stops) the load only falls along a route,
// so a route fits when its deliveries add up to at most the capacity: one sum per route and dimension
// decides it, whatever the order. With pickups (VROOM's jobs) the load after each stop must fit: rLoad is
// then the route's largest load, and the loads' running maxima from either end (fwdMax, bwdMax) price an
// insertion at a position exactly.
// Shipments pair two jobs: the pickup, then in the same route the delivery, the amount on board between
// them (the pickup's jPick is +amount, the delivery's -amount, neither has a jDem). A pair is placed and
// removed whole; pool, unassigned and servable lists hold its pickup only; moves that would split a pair
// or put the delivery first are refused by evalSeq.
//
// Memory protocol (the caller owns the order): reset(), alloc() every input block and write it,
// then solve(). solve() allocates its working state after the inputs; the next reset() drops it all.
// Times are f64 seconds from an origin; the duration matrix is i32 seconds (n × n, row = from).
// Working hours [s, e] bound the whole tour (types.ts): leave no earlier than s, finish every service
// by e, and reach the end by e. An open route's end node is its last stop at zero travel, so "reach the
// end by e" there means "leave the last stop by e" and one backward pass covers both kinds of route.

@external("env", "now")
declare function now(): f64;

import { alloc, reset } from '../lib/abi';

const INF: f64 = Infinity;
const CBAR: f64 = 10.0; // average number of removed jobs per ruin
const LMAX: f64 = 10.0; // longest removed string
const SPLIT_RATE: f64 = 0.5;
const SPLIT_DEPTH: f64 = 0.01;
const BLINK: f64 = 0.01;
const MAX_NEIGHBORS: i32 = 100;
const LS_ROUNDS: i32 = 50;
const GRANULAR: i32 = 30; // neighbors considered by local-search moves
const POLISH_SHARE: f64 = 2.0;

// ---- problem ----
let N: i32 = 0;
let V: i32 = 0;
let J: i32 = 0;
let DIM: i32 = 1;
let dur: usize = 0;
let twP: usize = 0;
let compat: usize = 0;
let vStart = new StaticArray<i32>(0);
let vEnd = new StaticArray<i32>(0);
let vCap = new StaticArray<i32>(0); // V × DIM
let vType = new StaticArray<i32>(0);
let vTwS = new StaticArray<f64>(0);
let vTwE = new StaticArray<f64>(0);
let vMaxTasks = new StaticArray<i32>(0); // jobs a route may hold (i32.MAX_VALUE: any number)
let vMaxTravel = new StaticArray<f64>(0); // travel a route may add up to (INF: any)
let vMaxDist = new StaticArray<f64>(0); // meters a route may add up to (INF: any)
let vFixed = new StaticArray<f64>(0); // what using the vehicle costs, in cost units (VROOM's costs.fixed)
let vSpeed = new StaticArray<f64>(0); // speed factor: the vehicle's travel time is the matrix's divided by it, rounded
let vPerSec = new StaticArray<f64>(0); // cost of a second of the vehicle's travel (VROOM's per_hour / 3600)
let vPerM = new StaticArray<f64>(0); // cost of a meter (VROOM's per_km / 1000)
// A driver's break the search plans (one per vehicle, one window): taken where the vehicle is after node
// rBrk[r] of its route, starting at the later of leaving that node and bs, by be, lasting d. dep and lat
// count it (dep of that node is the departure after the break), so the insertion checks stay exact for
// the break where it is; updateRoute puts it where it leaves the route the most slack.
let vBrkS = new StaticArray<f64>(0);
let vBrkE = new StaticArray<f64>(0);
let vBrkD = new StaticArray<f64>(0); // < 0: the vehicle has no break for the search
let hasBreaks = false;
let rBrk = new StaticArray<i32>(0);
let sBrk = new StaticArray<i32>(0);
let depNB = new StaticArray<f64>(0); // evalSeq's departures without the break
let latNB = new StaticArray<f64>(0);
let bufC = new StaticArray<i32>(0); // an empty route's one or two jobs, checked with the break
let speedModel = false; // some vehicle's speed factor is not 1
let costModel = false; // some vehicle's legs cost other than their travel seconds
let dis: usize = 0; // n × n i32 meters, only when some vehicle has a distance limit or a cost per km
let hasDist = false;
let jLoc = new StaticArray<i32>(0);
let jDem = new StaticArray<i32>(0); // J × DIM deliveries
let jPick = new StaticArray<i32>(0); // J × DIM pickups, when hasPick
let hasPick = false;
let jPair = new StaticArray<i32>(0); // the other job of a shipment, or -1
let jRole = new StaticArray<i32>(0); // 0 a job alone, 1 a shipment's pickup, 2 its delivery
let hasPairs = false;
let seenStamp = new StaticArray<i32>(0); // evalSeq's check of pair order
let evalStamp: i32 = 0;
let jDemKey = new StaticArray<f64>(0); // one size per job, for the recreate orders
let jTwOff = new StaticArray<i32>(0);
let jTwCnt = new StaticArray<i32>(0);
let jSvc = new StaticArray<f64>(0);
let jDepot = new StaticArray<f64>(0);
let jTwFirst = new StaticArray<f64>(0); // first window start, -INF without windows
let jTwLast = new StaticArray<f64>(0); // last window end, INF without windows
let servable = new StaticArray<i32>(0); // jobs some vehicle can serve alone
let nServable: i32 = 0;
let adj = new StaticArray<i32>(0); // K nearest jobs per job
let adjCnt = new StaticArray<i32>(0);
let K: i32 = 0;
let penalty: f64 = 0;
// Priorities (0–100) are maximised before the number of jobs served and before travel: each point of
// priority left out costs more than every job of the problem left out (VROOM's objective order).
let jPrio = new StaticArray<i32>(0);
let hasPrio = false;
let prioPenalty: f64 = 0;

// ---- working solution (cur) and the last accepted one (sav); routes are node arrays ----
// Route r owns [r*S, r*S + S): node 0 is the vehicle start, nodes 1..len its jobs, node len+1 its end.
let S: i32 = 0;
let stops = new StaticArray<i32>(0);
let dep = new StaticArray<f64>(0); // earliest departure from node
let lat = new StaticArray<f64>(0); // latest arrival at node keeping the rest feasible
let rLen = new StaticArray<i32>(0);
let rLoad = new StaticArray<i32>(0); // V × DIM: deliveries; with pickups the largest load on the route
let fwdMax = new StaticArray<i32>(0); // with pickups, V × S × DIM: largest load leaving nodes 0..i
let bwdMax = new StaticArray<i32>(0); // with pickups, V × S × DIM: largest load leaving nodes i..len
let rCost = new StaticArray<f64>(0);
let rTrav = new StaticArray<f64>(0); // travel seconds, when costModel (else rCost is them)
let rDist = new StaticArray<f64>(0); // meters, when hasDist
let sStops = new StaticArray<i32>(0);
let sDep = new StaticArray<f64>(0);
let sLat = new StaticArray<f64>(0);
let sLen = new StaticArray<i32>(0);
let sLoad = new StaticArray<i32>(0);
let sCost = new StaticArray<f64>(0);
let sTrav = new StaticArray<f64>(0);
let sDist = new StaticArray<f64>(0);
let bStops = new StaticArray<i32>(0);
let bLen = new StaticArray<i32>(0);
let jobRoute = new StaticArray<i32>(0);
let jobPos = new StaticArray<i32>(0);
let unas = new StaticArray<i32>(0);
let nUnas: i32 = 0;
let sUnas = new StaticArray<i32>(0);
let sNUnas: i32 = 0;

// ---- scratch ----
let typeStamp = new StaticArray<i32>(0);
let stamp: i32 = 0;
let touched = new StaticArray<i32>(0);
let touchStamp = new StaticArray<i32>(0);
let nTouched: i32 = 0;
let iterStamp: i32 = 0;
let pool = new StaticArray<i32>(0); // jobs to recreate
let nPool: i32 = 0;
let keys = new StaticArray<f64>(0);
let gPos: i32 = -1;
let gPos2: i32 = -1; // a pair's delivery goes after this node (gPos: its pickup); equal to gPos: right after the pickup
let pairLoad = new StaticArray<i32>(0); // DIM: bestPairInRoute's load leaving node i
let pairWalk = new StaticArray<i32>(0); // DIM: and leaving node m
let pairMax = new StaticArray<i32>(0); // DIM: the largest load from node i to node m
// Work counters (positions and moves priced) that keep polishing to a share of the search, deterministically.
let searchWork: f64 = 0;
let polishWork: f64 = 0;

// ---- PRNG: xorshift64* ----
let rs: u64 = 0x9E3779B97F4A7C15;

function seedRng(seed: u64): void {
  let z = seed + 0x9E3779B97F4A7C15;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EB;
  rs = (z ^ (z >> 31)) | 1;
}

@inline function rnd(): f64 {
  rs ^= rs >> 12;
  rs ^= rs << 25;
  rs ^= rs >> 27;
  return <f64>((rs * 0x2545F4914F6CDD1D) >> 11) * (1.0 / 9007199254740992.0);
}

@inline function rint(n: i32): i32 {
  return <i32>(rnd() * <f64>n);
}

// ---- memory protocol: lib/abi.ts ----
export { alloc, reset };

// ---- problem helpers ----
@inline function tt(a: i32, b: i32): f64 {
  return b < 0 ? 0.0 : <f64>load<i32>(dur + ((<usize>a * <usize>N + <usize>b) << 2));
}

@inline function dd(a: i32, b: i32): f64 {
  return b < 0 ? 0.0 : <f64>load<i32>(dis + ((<usize>a * <usize>N + <usize>b) << 2));
}

/** Vehicle r's travel time from a to b: the matrix's divided by its speed factor, in whole seconds. */
@inline function tv(r: i32, a: i32, b: i32): f64 {
  const t = tt(a, b);
  return speedModel ? Math.floor(t / unchecked(vSpeed[r]) + 0.5) : t;
}

/** What the leg from a to b costs vehicle r. */
@inline function tc(r: i32, a: i32, b: i32): f64 {
  if (!costModel) return tv(r, a, b);
  return unchecked(vPerSec[r]) * tv(r, a, b) + (hasDist ? unchecked(vPerM[r]) * dd(a, b) : 0.0);
}

@inline function brkOf(r: i32): bool {
  return hasBreaks && unchecked(vBrkD[r]) >= 0;
}

/** When vehicle r is off again after a break it may start at t at the earliest; INF when its window has closed. */
@inline function afterBreak(r: i32, t: f64): f64 {
  const s = t > unchecked(vBrkS[r]) ? t : unchecked(vBrkS[r]);
  return s > unchecked(vBrkE[r]) ? INF : s + unchecked(vBrkD[r]);
}

/** Travel seconds of route r. */
@inline function travelOf(r: i32): f64 {
  return costModel ? unchecked(rTrav[r]) : unchecked(rCost[r]);
}

@inline function canServe(j: i32, r: i32): bool {
  return load<u8>(compat + <usize>j * <usize>V + <usize>r) != 0;
}

/** Service start when arriving at `a`: the earliest window whose end is >= a; INF when none. */
@inline function serviceStart(j: i32, a: f64): f64 {
  const cnt = unchecked(jTwCnt[j]);
  if (cnt == 0) return a;
  let p = twP + (<usize>unchecked(jTwOff[j]) << 4);
  for (let k = 0; k < cnt; k++) {
    if (load<f64>(p, 8) >= a) {
      const s = load<f64>(p);
      return s > a ? s : a;
    }
    p += 16;
  }
  return INF;
}

/** Latest arrival whose service can start by `d` (service start is non-decreasing in arrival). */
function latestArrival(j: i32, d: f64): f64 {
  const cnt = unchecked(jTwCnt[j]);
  if (cnt == 0) return d;
  let p = twP + (<usize>(unchecked(jTwOff[j]) + cnt - 1) << 4);
  for (let k = cnt - 1; k >= 0; k--) {
    if (load<f64>(p) <= d) {
      const e = load<f64>(p, 8);
      return e < d ? e : d;
    }
    p -= 16;
  }
  return -INF;
}

@inline function nodeLoc(r: i32, base: i32, i: i32, len: i32): i32 {
  if (i == 0) return unchecked(vStart[r]);
  if (i > len) return unchecked(vEnd[r]);
  return unchecked(jLoc[unchecked(stops[base + i])]);
}

/** Whether job j's demand fits in what route r has left, in every dimension. With pickups a necessary
 *  condition only: wherever j goes, the largest load grows by its delivery or its pickup. */
@inline function fits(j: i32, r: i32): bool {
  const jb = j * DIM;
  const rb = r * DIM;
  for (let d = 0; d < DIM; d++) {
    const add = hasPick ? min(unchecked(jDem[jb + d]), unchecked(jPick[jb + d])) : unchecked(jDem[jb + d]);
    if (add > unchecked(vCap[rb + d]) - unchecked(rLoad[rb + d])) return false;
  }
  return true;
}

/** Whether route r, with the location l placed between a and b, stays within its distance limit. */
@inline function withinDistance(r: i32, a: i32, l: i32, b: i32): bool {
  return unchecked(rDist[r]) + dd(a, l) + dd(l, b) - (unchecked(rLen[r]) == 0 ? 0.0 : dd(a, b)) <= unchecked(vMaxDist[r]);
}

/** With pickups: whether job j fits right after node i of route r. The loads up to node i carry its
 *  delivery too, the loads from node i on (and its own) its pickup. */
@inline function fitsAfter(j: i32, r: i32, i: i32): bool {
  const at = (r * S + i) * DIM;
  const rb = r * DIM;
  const jb = j * DIM;
  for (let d = 0; d < DIM; d++) {
    const cap = unchecked(vCap[rb + d]);
    if (unchecked(fwdMax[at + d]) + unchecked(jDem[jb + d]) > cap || unchecked(bwdMax[at + d]) + unchecked(jPick[jb + d]) > cap) return false;
  }
  return true;
}

/** With pickups: the loads leaving each node of route r, as running maxima from either end; rLoad the largest. */
function updateLoads(r: i32): void {
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
function updateRoute(r: i32): void {
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
  if (brkOf(r) && len > 0) placeBreak(r);
}

/**
 * The break of route r after the node that leaves the most slack (dep and lat are without it on entry):
 * then the departures from that node on and the latest arrivals up to it with the break. Where it fits
 * nowhere (a warm start's route) nothing may be inserted until the route changes.
 */
function placeBreak(r: i32): void {
  const base = r * S;
  const len = unchecked(rLen[r]);
  const last = unchecked(vEnd[r]) < 0 ? len - 1 : len;
  let p = -1;
  let most = -INF;
  for (let i = 0; i <= last; i++) {
    const a = afterBreak(r, unchecked(dep[base + i]));
    if (a == INF) break; // later nodes are left later still
    const slack = unchecked(lat[base + i + 1]) - a - tv(r, nodeLoc(r, base, i, len), nodeLoc(r, base, i + 1, len));
    if (slack >= 0 && slack > most) {
      most = slack;
      p = i;
    }
  }
  if (p < 0) {
    unchecked(rBrk[r] = 0);
    for (let i = 0; i <= len + 1; i++) unchecked(lat[base + i] = -INF);
    return;
  }
  unchecked(rBrk[r] = p);
  let t = afterBreak(r, unchecked(dep[base + p]));
  unchecked(dep[base + p] = t);
  let prev = nodeLoc(r, base, p, len);
  for (let i = p + 1; i <= len; i++) {
    const j = unchecked(stops[base + i]);
    const l = unchecked(jLoc[j]);
    t = serviceStart(j, t + tv(r, prev, l)) + unchecked(jSvc[j]);
    unchecked(dep[base + i] = t);
    prev = l;
  }
  if (p == 0) return;
  // Leaving node p by Y keeps the rest: the break starts at the later of that and bs, by be, and ends in time for the next node.
  const j = unchecked(stops[base + p]);
  const latest = min(unchecked(lat[base + p + 1]) - tv(r, unchecked(jLoc[j]), nodeLoc(r, base, p + 1, len)) - unchecked(vBrkD[r]), unchecked(vBrkE[r]));
  const Y = latest < unchecked(vBrkS[r]) ? -INF : latest;
  unchecked(lat[base + p] = latestArrival(j, Y - unchecked(jSvc[j])));
  latestArrivalsUpTo(r, p - 1, unchecked(jLoc[j]));
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

/** Cheapest feasible insertion of j into route r (delta travel); position in gPos. INF when none. */
function bestInRoute(j: i32, r: i32, bound: f64, blink: bool): f64 {
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
        if (s < INF && s + svc + dout <= unchecked(lat[base + i + 1]) && (len > 0 || !brkOf(r) || aloneFits(r, j, -1))) {
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

/** Whether job j (and job q after it, q >= 0) alone make a route of vehicle r with room for its break. */
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
  const brkAt = withBreak ? unchecked(rBrk[r]) : -1;
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
      // The break after node m comes before the delivery put there, and before the nodes after it.
      if (withBreak && m == brkAt) {
        t = afterBreak(r, t);
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
      if (!carried) break;
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

/** Places job j (with its pair's delivery after node `after2` when j is a shipment's pickup). */
function place(j: i32, r: i32, after: i32, after2: i32): void {
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

function touch(r: i32): void {
  if (unchecked(touchStamp[r]) != iterStamp) {
    unchecked(touchStamp[r] = iterStamp);
    unchecked(touched[nTouched++] = r);
  }
}

/** The fixed cost of route r at `len` jobs: paid once the vehicle is used. */
@inline function fixedOf(r: i32, len: i32): f64 {
  return len > 0 ? unchecked(vFixed[r]) : 0.0;
}

function totalCost(): f64 {
  let c: f64 = 0;
  for (let r = 0; r < V; r++) c += unchecked(rCost[r]) + fixedOf(r, unchecked(rLen[r]));
  // A shipment left out leaves two stops out.
  let left = nUnas;
  if (hasPairs) for (let k = 0; k < nUnas; k++) left += unchecked(jRole[unchecked(unas[k])]) == 1 ? 1 : 0;
  let prio: f64 = 0;
  if (hasPrio) for (let k = 0; k < nUnas; k++) prio += <f64>unchecked(jPrio[unchecked(unas[k])]);
  return c + penalty * <f64>left + prioPenalty * prio;
}

/** Best insertion over all routes; empty routes are tried once per vehicle type. Route in return, position in gPos. */
function bestInsertion(j: i32, blink: bool): i32 {
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
  return bestR;
}

// ---- construction: regret-2 with per-(job, route) cache ----
function construct(): void {
  const useRegret = <f64>J * <f64>J * <f64>V <= 2.0e8;
  if (!useRegret) {
    nPool = 0;
    for (let k = 0; k < nUnas; k++) unchecked(pool[nPool++] = unas[k]);
    nUnas = 0;
    byPriority();
    for (let k = 0; k < nPool; k++) {
      const j = unchecked(pool[k]);
      const r = bestInsertion(j, false);
      if (r < 0) unchecked(unas[nUnas++] = j);
      else place(j, r, gPos, gPos2);
    }
    return;
  }
  const cacheCost = new StaticArray<f64>(J * V);
  const cachePos = new StaticArray<i32>(J * V);
  const cachePos2 = new StaticArray<i32>(hasPairs ? J * V : 0);
  const cacheVer = new StaticArray<i32>(J * V);
  const rVer = new StaticArray<i32>(V);
  for (let k = 0; k < J * V; k++) unchecked(cacheVer[k] = -1);
  while (nUnas > 0) {
    let pick = -1;
    let pickR = -1;
    let pickP = -1;
    let pickP2 = -1;
    let pickInf = false;
    let pickKey: f64 = -INF;
    let pickPrio: i32 = -1;
    for (let k = 0; k < nUnas; k++) {
      const j = unchecked(unas[k]);
      const prio = hasPrio ? unchecked(jPrio[j]) : 0;
      // A job of higher priority is placed first, whatever its regret: it gets the room it needs.
      if (prio < pickPrio) continue;
      stamp++;
      let b1 = INF;
      let b2 = INF;
      let r1 = -1;
      let p1 = -1;
      let q1 = -1;
      for (let r = 0; r < V; r++) {
        if (!canServe(j, r)) continue;
        let c: f64;
        let p: i32;
        let p2: i32;
        if (unchecked(rLen[r]) == 0) {
          const ty = unchecked(vType[r]);
          if (unchecked(typeStamp[ty]) == stamp) continue;
          unchecked(typeStamp[ty] = stamp);
          c = bestInRoute(j, r, INF, false) + unchecked(vFixed[r]);
          p = gPos;
          p2 = gPos2;
        } else {
          const ci = j * V + r;
          if (unchecked(cacheVer[ci]) != unchecked(rVer[r])) {
            unchecked(cacheCost[ci] = bestInRoute(j, r, INF, false));
            unchecked(cachePos[ci] = gPos);
            if (hasPairs) unchecked(cachePos2[ci] = gPos2);
            unchecked(cacheVer[ci] = rVer[r]);
          }
          c = unchecked(cacheCost[ci]);
          p = unchecked(cachePos[ci]);
          p2 = hasPairs ? unchecked(cachePos2[ci]) : -1;
        }
        if (c < b1) {
          b2 = b1;
          b1 = c;
          r1 = r;
          p1 = p;
          q1 = p2;
        } else if (c < b2) b2 = c;
      }
      if (r1 < 0) continue;
      const inf = b2 == INF;
      const key = inf ? -b1 : b2 - b1;
      if (prio > pickPrio || (inf && !pickInf) || (inf == pickInf && key > pickKey)) {
        pickPrio = prio;
        pick = k;
        pickR = r1;
        pickP = p1;
        pickP2 = q1;
        pickInf = inf;
        pickKey = key;
      }
    }
    if (pick < 0) break;
    const j = unchecked(unas[pick]);
    unchecked(unas[pick] = unas[--nUnas]);
    place(j, pickR, pickP, pickP2);
    unchecked(rVer[pickR] = rVer[pickR] + 1);
  }
}

// ---- ruin: adjacent string removal ----
function removeRange(r: i32, from: i32, count: i32, keepFrom: i32, keepCount: i32): void {
  // Removes nodes [from, from+count) of route r except [keepFrom, keepFrom+keepCount).
  const base = r * S;
  const len = unchecked(rLen[r]);
  let w = from;
  for (let i = from; i < from + count; i++) {
    const j = unchecked(stops[base + i]);
    if (i >= keepFrom && i < keepFrom + keepCount) {
      unchecked(stops[base + w++] = j);
    } else {
      // The pool holds a shipment by its pickup, which comes first in the route.
      const role = unchecked(jRole[j]);
      if (role == 0 || role == 1 || unchecked(jobRoute[unchecked(jPair[j])]) >= 0) unchecked(pool[nPool++] = role == 2 ? unchecked(jPair[j]) : j);
      unchecked(jobRoute[j] = -1);
    }
  }
  for (let i = from + count; i <= len; i++) unchecked(stops[base + w++] = stops[base + i]);
  unchecked(rLen[r] = w - 1);
  // The other halves of removed shipments leave with them.
  if (hasPairs) {
    let k = 1;
    for (let i = 1; i <= w - 1; i++) {
      const j = unchecked(stops[base + i]);
      if (unchecked(jRole[j]) != 0 && unchecked(jobRoute[unchecked(jPair[j])]) < 0) {
        unchecked(jobRoute[j] = -1);
        continue;
      }
      unchecked(stops[base + k++] = j);
    }
    unchecked(rLen[r] = k - 1);
  }
  updateRoute(r);
  touch(r);
}

function ruin(): void {
  let assigned = 0;
  let used = 0;
  for (let r = 0; r < V; r++) {
    const len = unchecked(rLen[r]);
    if (len > 0) {
      assigned += len;
      used++;
    }
  }
  if (used == 0) return;
  const avg = <f64>assigned / <f64>used;
  const lsMax = avg < LMAX ? avg : LMAX;
  const ksMax = 4.0 * CBAR / (1.0 + lsMax) - 1.0;
  const ks = <i32>Math.floor(rnd() * ksMax) + 1;
  const seed = unchecked(servable[rint(nServable)]);
  let ruined = 0;
  const cnt = unchecked(adjCnt[seed]);
  for (let k = -1; k < cnt && ruined < ks; k++) {
    const c = k < 0 ? seed : unchecked(adj[seed * K + k]);
    const r = unchecked(jobRoute[c]);
    if (r < 0 || unchecked(touchStamp[r]) == iterStamp) continue;
    const len = unchecked(rLen[r]);
    const ltMax = <f64>len < lsMax ? <f64>len : lsMax;
    const lt = <i32>Math.floor(rnd() * ltMax) + 1;
    const p = unchecked(jobPos[c]);
    if (lt == len || rnd() < SPLIT_RATE) {
      const lo = p - lt + 1 > 1 ? p - lt + 1 : 1;
      const hi = p < len - lt + 1 ? p : len - lt + 1;
      const from = lo + rint(hi - lo + 1);
      removeRange(r, from, lt, 0, 0);
    } else {
      let m = 1;
      while (m < len - lt && rnd() >= SPLIT_DEPTH) m++;
      const span = lt + m;
      const lo = p - span + 1 > 1 ? p - span + 1 : 1;
      const hi = p < len - span + 1 ? p : len - span + 1;
      const from = lo + rint(hi - lo + 1);
      removeRange(r, from, span, from + rint(lt + 1), m);
    }
    ruined++;
  }
}

// ---- recreate: greedy insertion with blinks in one of four orders ----
function sortPool(desc: bool): void {
  // Shell sort of pool by keys (parallel arrays).
  let gap = nPool >> 1;
  while (gap > 0) {
    for (let i = gap; i < nPool; i++) {
      const kj = unchecked(keys[i]);
      const vj = unchecked(pool[i]);
      let k = i;
      while (k >= gap && (desc ? unchecked(keys[k - gap]) < kj : unchecked(keys[k - gap]) > kj)) {
        unchecked(keys[k] = keys[k - gap]);
        unchecked(pool[k] = pool[k - gap]);
        k -= gap;
      }
      unchecked(keys[k] = kj);
      unchecked(pool[k] = vj);
    }
    gap >>= 1;
  }
}

/** Stable sort of the pool by priority, highest first: the order chosen stays among equal priorities. */
function byPriority(): void {
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

function recreate(): void {
  for (let k = 0; k < nUnas; k++) unchecked(pool[nPool++] = unas[k]);
  nUnas = 0;
  const u = rnd() * 11.0;
  if (u < 4.0) {
    for (let i = nPool - 1; i > 0; i--) {
      const k = rint(i + 1);
      const t = unchecked(pool[i]);
      unchecked(pool[i] = pool[k]);
      unchecked(pool[k] = t);
    }
  } else {
    for (let i = 0; i < nPool; i++) {
      const j = unchecked(pool[i]);
      unchecked(keys[i] = u < 8.0 ? unchecked(jDemKey[j]) : unchecked(jDepot[j]));
    }
    sortPool(u < 10.0);
  }
  byPriority();
  for (let k = 0; k < nPool; k++) {
    const j = unchecked(pool[k]);
    const r = bestInsertion(j, true);
    if (r < 0) {
      unchecked(unas[nUnas++] = j);
    } else {
      place(j, r, gPos, gPos2);
      touch(r);
    }
  }
  nPool = 0;
}


// ---- local search: relocate, or-opt, swap and 2-opt* with first improvement ----
// Candidates are priced by their travel delta; only improving ones are simulated for feasibility.
let bufA = new StaticArray<i32>(0);
let bufB = new StaticArray<i32>(0);
let loadBuf = new StaticArray<i32>(0); // DIM scratch loads of evalSeq
let segBuf = new StaticArray<i32>(0); // DIM loads of the segment moveSegment places
const EPS: f64 = 1e-7;

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
function evalSeq(r: i32, buf: StaticArray<i32>, len: i32): f64 {
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
  const withBreak = brkOf(r);
  if (withBreak) unchecked(depNB[0] = t);
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
    if (withBreak) unchecked(depNB[i + 1] = t);
    prev = l;
  }
  const d = tv(r, prev, unchecked(vEnd[r]));
  if (t + d > hoursEnd || (costModel ? travel : cost) + d > unchecked(vMaxTravel[r])) return INF;
  if (hasDist && meters + dd(prev, unchecked(vEnd[r])) > unchecked(vMaxDist[r])) return INF;
  if (withBreak && !breakFits(r, buf, len)) return INF;
  return costModel ? cost + tc(r, prev, unchecked(vEnd[r])) : cost + d;
}

/**
 * Whether vehicle r driving buf[0..len) has room for its break after some node: departures without it
 * are in depNB (evalSeq), latest arrivals without it are computed here from the end.
 */
function breakFits(r: i32, buf: StaticArray<i32>, len: i32): bool {
  const end = unchecked(vEnd[r]);
  unchecked(latNB[len + 1] = vTwE[r]);
  let next = end;
  for (let i = len; i >= 1; i--) {
    const j = unchecked(buf[i - 1]);
    const l = unchecked(jLoc[j]);
    unchecked(latNB[i] = latestArrival(j, unchecked(latNB[i + 1]) - tv(r, l, next) - unchecked(jSvc[j])));
    next = l;
  }
  const last = end < 0 ? len - 1 : len;
  for (let p = 0; p <= last; p++) {
    const a = afterBreak(r, unchecked(depNB[p]));
    if (a == INF) return false;
    const from = p == 0 ? unchecked(vStart[r]) : unchecked(jLoc[unchecked(buf[p - 1])]);
    const to = p == len ? end : unchecked(jLoc[unchecked(buf[p])]);
    if (a + tv(r, from, to) <= unchecked(latNB[p + 1])) return true;
  }
  return false;
}

function applySeq(r: i32, buf: StaticArray<i32>, len: i32): void {
  const base = r * S;
  for (let i = 0; i < len; i++) unchecked(stops[base + i + 1] = buf[i]);
  unchecked(rLen[r] = len);
  updateRoute(r);
  touch(r);
}

/** Copies nodes [from, to] of route r (node indices) into buf at w; returns the new write index. */
function copyNodes(r: i32, from: i32, to: i32, buf: StaticArray<i32>, w: i32): i32 {
  const base = r * S;
  for (let i = from; i <= to; i++) unchecked(buf[w++] = stops[base + i]);
  return w;
}

/** Tries to accept new sequences for routes a and b (b < 0: a only); true when it improved and was applied. */
function tryApply(a: i32, lenA: i32, b: i32, lenB: i32): bool {
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

@inline function locAt(r: i32, i: i32): i32 {
  return nodeLoc(r, r * S, i, unchecked(rLen[r]));
}

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
function moveSegment(ra: i32, p: i32, seg: i32): bool {
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

/** Exchanges job at node p of ra with job at node q of rb (different routes). */
function swapJobs(ra: i32, p: i32, rb: i32, q: i32): bool {
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

/** 2-opt*: route a keeps nodes 1..i and takes b's tail after k; b keeps 1..k and takes a's tail after i. */
function twoOptStar(ra: i32, i: i32, rb: i32, k: i32): bool {
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
    if (swapJobs(ra, p, rb, q)) return true;
    if (q > 1 && swapJobs(ra, p, rb, q - 1)) return true;
    if (q < unchecked(rLen[rb]) && swapJobs(ra, p, rb, q + 1)) return true;
    // new edges j → y and y's predecessor → j's successor
    if (twoOptStar(ra, p, rb, q - 1)) return true;
  }
  return false;
}

/** First-improvement descent over granular neighborhoods, until no move improves or the deadline. */
function localSearch(maxRounds: i32, deadline: f64): void {
  for (let round = 0; round < maxRounds; round++) {
    let improved = false;
    for (let j = 0; j < J; j++) {
      if (unchecked(jobRoute[j]) < 0) continue;
      if (now() > deadline) return;
      polishWork += <f64>(GRANULAR * 10);
      for (let seg = 1; seg <= 3; seg++) {
        const r = unchecked(jobRoute[j]);
        if (moveSegment(r, unchecked(jobPos[j]), seg)) improved = true;
      }
      if (unchecked(jobRoute[j]) >= 0 && exchangeNear(j)) improved = true;
    }
    if (!improved) break;
  }
}

// ---- state copies ----
function copyRoute(r: i32, toSaved: bool): void {
  const base = r * S;
  if (toSaved) {
    const len = unchecked(rLen[r]);
    memory.copy(changetype<usize>(sStops) + (<usize>base << 2), changetype<usize>(stops) + (<usize>base << 2), <usize>(len + 2) << 2);
    memory.copy(changetype<usize>(sDep) + (<usize>base << 3), changetype<usize>(dep) + (<usize>base << 3), <usize>(len + 2) << 3);
    memory.copy(changetype<usize>(sLat) + (<usize>base << 3), changetype<usize>(lat) + (<usize>base << 3), <usize>(len + 2) << 3);
    unchecked(sLen[r] = len);
    for (let d = 0; d < DIM; d++) unchecked(sLoad[r * DIM + d] = rLoad[r * DIM + d]);
    unchecked(sCost[r] = rCost[r]);
    if (costModel) unchecked(sTrav[r] = rTrav[r]);
    if (hasBreaks) unchecked(sBrk[r] = rBrk[r]);
    if (hasDist) unchecked(sDist[r] = rDist[r]);
  } else {
    const len = unchecked(sLen[r]);
    memory.copy(changetype<usize>(stops) + (<usize>base << 2), changetype<usize>(sStops) + (<usize>base << 2), <usize>(len + 2) << 2);
    memory.copy(changetype<usize>(dep) + (<usize>base << 3), changetype<usize>(sDep) + (<usize>base << 3), <usize>(len + 2) << 3);
    memory.copy(changetype<usize>(lat) + (<usize>base << 3), changetype<usize>(sLat) + (<usize>base << 3), <usize>(len + 2) << 3);
    unchecked(rLen[r] = len);
    for (let d = 0; d < DIM; d++) unchecked(rLoad[r * DIM + d] = sLoad[r * DIM + d]);
    unchecked(rCost[r] = sCost[r]);
    if (costModel) unchecked(rTrav[r] = sTrav[r]);
    if (hasBreaks) unchecked(rBrk[r] = sBrk[r]);
    if (hasDist) unchecked(rDist[r] = sDist[r]);
    for (let i = 1; i <= len; i++) {
      const j = unchecked(stops[base + i]);
      unchecked(jobRoute[j] = r);
      unchecked(jobPos[j] = i);
    }
    if (hasPick) updateLoads(r);
  }
}

function commit(): void {
  for (let k = 0; k < nTouched; k++) copyRoute(unchecked(touched[k]), true);
  for (let k = 0; k < nUnas; k++) unchecked(sUnas[k] = unas[k]);
  sNUnas = nUnas;
}

function rollback(): void {
  for (let k = 0; k < nUnas; k++) unchecked(jobRoute[unas[k]] = -1);
  for (let k = 0; k < nTouched; k++) copyRoute(unchecked(touched[k]), false);
  for (let k = 0; k < sNUnas; k++) {
    const j = unchecked(sUnas[k]);
    unchecked(unas[k] = j);
    unchecked(jobRoute[j] = -1);
    if (unchecked(jRole[j]) == 1) unchecked(jobRoute[unchecked(jPair[j])] = -1);
  }
  nUnas = sNUnas;
}

function saveBest(): void {
  for (let r = 0; r < V; r++) {
    const len = unchecked(rLen[r]);
    unchecked(bLen[r] = len);
    const base = r * S;
    for (let i = 1; i <= len; i++) unchecked(bStops[base + i] = stops[base + i]);
  }
}

function loadBest(): void {
  nUnas = 0;
  for (let j = 0; j < J; j++) unchecked(jobRoute[j] = -1);
  for (let r = 0; r < V; r++) {
    const len = unchecked(bLen[r]);
    unchecked(rLen[r] = len);
    const base = r * S;
    for (let i = 1; i <= len; i++) unchecked(stops[base + i] = bStops[base + i]);
    updateRoute(r);
  }
  for (let k = 0; k < nServable; k++) {
    const j = unchecked(servable[k]);
    if (unchecked(jobRoute[j]) < 0) unchecked(unas[nUnas++] = j);
  }
}

// ---- setup ----
function setupVehicles(vehI: usize, vehT: usize, capP: usize, limP: usize): void {
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
  vBrkS = new StaticArray<f64>(V);
  vBrkE = new StaticArray<f64>(V);
  vBrkD = new StaticArray<f64>(V);
  hasBreaks = false;
  speedModel = false;
  costModel = false;
  for (let r = 0; r < V; r++) {
    const p = vehI + (<usize>r << 3);
    unchecked(vStart[r] = load<i32>(p));
    unchecked(vEnd[r] = load<i32>(p, 4));
    for (let d = 0; d < DIM; d++) {
      const cap = load<i32>(capP + (<usize>(r * DIM + d) << 2));
      unchecked(vCap[r * DIM + d] = cap < 0 ? i32.MAX_VALUE : cap);
    }
    unchecked(vTwS[r] = load<f64>(vehT + (<usize>r << 4)));
    unchecked(vTwE[r] = load<f64>(vehT + (<usize>r << 4), 8));
    const lim = limP + <usize>r * 80;
    const maxTasks = load<f64>(lim);
    unchecked(vMaxTasks[r] = maxTasks < <f64>i32.MAX_VALUE ? <i32>maxTasks : i32.MAX_VALUE);
    unchecked(vMaxTravel[r] = load<f64>(lim, 8));
    unchecked(vMaxDist[r] = load<f64>(lim, 16));
    unchecked(vFixed[r] = load<f64>(lim, 24));
    unchecked(vSpeed[r] = load<f64>(lim, 32));
    unchecked(vPerSec[r] = load<f64>(lim, 40));
    unchecked(vPerM[r] = hasDist ? load<f64>(lim, 48) : 0.0);
    unchecked(vBrkS[r] = load<f64>(lim, 56));
    unchecked(vBrkE[r] = load<f64>(lim, 64));
    unchecked(vBrkD[r] = load<f64>(lim, 72));
    if (unchecked(vBrkD[r]) >= 0) hasBreaks = true;
    if (unchecked(vSpeed[r]) != 1.0) speedModel = true;
    if (unchecked(vPerSec[r]) != 1.0 || unchecked(vPerM[r]) != 0.0) costModel = true;
  }
  // Vehicles are interchangeable when everything about them matches, including which jobs they may serve.
  for (let r = 0; r < V; r++) {
    unchecked(vType[r] = r);
    for (let q = 0; q < r; q++) {
      if (unchecked(vType[q]) != q) continue;
      if (vStart[q] != vStart[r] || vEnd[q] != vEnd[r] || vTwS[q] != vTwS[r] || vTwE[q] != vTwE[r]) continue;
      if (vMaxTasks[q] != vMaxTasks[r] || vMaxTravel[q] != vMaxTravel[r] || vMaxDist[q] != vMaxDist[r] || vFixed[q] != vFixed[r]) continue;
      if (vSpeed[q] != vSpeed[r] || vPerSec[q] != vPerSec[r] || vPerM[q] != vPerM[r]) continue;
      if (vBrkS[q] != vBrkS[r] || vBrkE[q] != vBrkE[r] || vBrkD[q] != vBrkD[r]) continue;
      let same = true;
      for (let d = 0; d < DIM && same; d++) same = vCap[q * DIM + d] == vCap[r * DIM + d];
      for (let j = 0; j < J && same; j++) same = canServe(j, q) == canServe(j, r);
      if (same) {
        unchecked(vType[r] = q);
        break;
      }
    }
  }
}

function setupJobs(jobI: usize, demP: usize, pickP: usize, pairP: usize, jobSvc: usize, prioP: usize): void {
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
    const p = jobI + (<usize>j * 12);
    unchecked(jLoc[j] = load<i32>(p));
    unchecked(jTwOff[j] = load<i32>(p, 4));
    unchecked(jTwCnt[j] = load<i32>(p, 8));
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
    const first = twP + (<usize>unchecked(jTwOff[j]) << 4);
    unchecked(jTwFirst[j] = cnt == 0 ? -INF : load<f64>(first));
    unchecked(jTwLast[j] = cnt == 0 ? INF : load<f64>(first + (<usize>(cnt - 1) << 4), 8));
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

function setupNeighbors(): void {
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
function meanTravel(): f64 {
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

function allocState(): void {
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
  rBrk = new StaticArray<i32>(hasBreaks ? V : 0);
  sBrk = new StaticArray<i32>(hasBreaks ? V : 0);
  depNB = new StaticArray<f64>(hasBreaks ? J + 2 : 0);
  latNB = new StaticArray<f64>(hasBreaks ? J + 2 : 0);
  bufC = new StaticArray<i32>(hasBreaks ? 2 : 0);
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
function warmStart(out: usize): void {
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

/**
 * Solves the problem written at the given pointers.
 * dims: load dimensions (at least 1); vehI: i32[V*2] start, end (-1 open); vehT: f64[V*2] working hours;
 * lim: f64[V*10] the most jobs a route may hold, the most travel and the most meters it may add up to
 * (Infinity: no limit), the fixed cost, the speed factor (travel times are the matrix's divided by it,
 * rounded), the cost of a second of travel and of a meter, and the break the search plans (its window's
 * start and end, its service; service -1: none); disP: i32[n*n] meters, 0 when no vehicle has
 * a distance limit or a cost per meter;
 * cap: i32[V*dims] capacities (-1 none); jobI: i32[J*3] location, first window, window count;
 * dem: i32[J*dims] deliveries; pick: i32[J*dims] pickups (a shipment: +amount at its pickup, -amount at
 * its delivery); pairs: i32[J] the delivery job of a shipment at its pickup job, -1 elsewhere; jobSvc: f64[J];
 * prio: i32[J] priorities 0–100 (a shipment's at its pickup), or 0 for none; tw: f64 pairs, sorted, disjoint;
 * compat: u8[J*V] job j may ride vehicle r; params: f64 seed, iterations, time limit ms, T0 and Tf as
 * fractions of the mean travel time between jobs, warm (non-zero: start from the routes in `out`, which
 * the caller must have checked feasible); out: i32[V + J] route lengths, then the routes' jobs.
 * The temperature follows the fraction of iterations spent, never the clock: the time limit only stops
 * the search, so a run that the iteration cap stops gives the same plan on a cold or a busy machine.
 * Returns the number of iterations run.
 */
export function solve(n: i32, v: i32, j: i32, dims: i32, durP: usize, disP: usize, vehI: usize, vehT: usize, limP: usize, capP: usize, jobI: usize, demP: usize, pickP: usize, pairP: usize, jobSvc: usize, prioP: usize, tw: usize, compatP: usize, params: usize, out: usize): i32 {
  const started = now();
  N = n;
  V = v;
  J = j;
  DIM = dims;
  dur = durP;
  dis = disP;
  hasDist = disP != 0;
  twP = tw;
  compat = compatP;
  seedRng(<u64>load<f64>(params));
  const maxIter = load<f64>(params, 8);
  const limitMs = load<f64>(params, 16);
  setupVehicles(vehI, vehT, capP, limP);
  setupJobs(jobI, demP, pickP, pairP, jobSvc, prioP);
  allocState();

  let maxD: f64 = 0;
  for (let k = 0; k < N * N; k++) {
    const d = <f64>load<i32>(dur + (<usize>k << 2));
    if (d > maxD) maxD = d;
  }
  // The costliest leg of any vehicle.
  let maxC = maxD;
  if (costModel || speedModel) {
    let maxM: f64 = 0;
    if (costModel && hasDist) {
      for (let k = 0; k < N * N; k++) {
        const m = <f64>load<i32>(dis + (<usize>k << 2));
        if (m > maxM) maxM = m;
      }
    }
    maxC = 0;
    for (let r = 0; r < V; r++) {
      const t = Math.floor(maxD / unchecked(vSpeed[r]) + 0.5);
      const c = costModel ? unchecked(vPerSec[r]) * t + unchecked(vPerM[r]) * maxM : t;
      if (c > maxC) maxC = c;
    }
  }
  // A job left out must cost more than any route and any vehicle's fixed cost could save.
  let fixedSum: f64 = 0;
  for (let r = 0; r < V; r++) fixedSum += unchecked(vFixed[r]);
  penalty = (maxC + 1.0) * 2.0 * <f64>(J + V + 1) + 2.0 * fixedSum;
  prioPenalty = penalty * <f64>(J + 1);

  nServable = 0;
  nUnas = 0;
  for (let q = 0; q < J; q++) {
    unchecked(jobRoute[q] = -1);
    if (unchecked(jRole[q]) == 2) continue; // placed with its pickup
    stamp++;
    let ok = false;
    for (let r = 0; r < V && !ok; r++) {
      if (!canServe(q, r)) continue;
      ok = bestInRoute(q, r, INF, false) < INF;
    }
    if (ok) {
      unchecked(servable[nServable++] = q);
      unchecked(unas[nUnas++] = q);
    }
  }

  let iters = 0;
  if (nServable > 0) {
    setupNeighbors();
    // A warm start (a later time slice, or a job resumed after a restart) continues from the routes
    // written in `out`; construction then only inserts what they leave out.
    if (load<f64>(params, 40) != 0) warmStart(out);
    construct();
    for (let r = 0; r < V; r++) copyRoute(r, true);
    for (let k = 0; k < nUnas; k++) unchecked(sUnas[k] = unas[k]);
    sNUnas = nUnas;
    saveBest();
    const mean = meanTravel();
    const t0 = load<f64>(params, 24) * mean;
    const tf = load<f64>(params, 32) * mean;
    let curCost = totalCost();
    let bestCost = curCost;
    while (<f64>iters < maxIter && (nUnas > 0 || nServable > 1)) {
      if (now() - started >= limitMs) break;
      const temp = t0 * Math.pow(tf / t0, <f64>iters / maxIter);
      iterStamp++;
      nTouched = 0;
      nPool = 0;
      ruin();
      recreate();
      const c = totalCost();
      if (c < curCost - temp * Math.log(rnd())) {
        commit();
        curCost = c;
        if (c < bestCost - 1e-9) {
          // New bests get rare once the search settles; until then polishing is held to a share of the work.
          if (polishWork <= POLISH_SHARE * searchWork) {
            localSearch(LS_ROUNDS, started + limitMs);
            commit();
            curCost = totalCost();
          }
          bestCost = curCost;
          saveBest();
        }
      } else {
        rollback();
      }
      iters++;
    }
    loadBest();
    // Blinks may have skipped a feasible slot: one plain pass over the jobs still left out.
    const left = nUnas;
    nUnas = 0;
    for (let k = 0; k < left; k++) {
      const q = unchecked(unas[k]);
      const r = bestInsertion(q, false);
      if (r < 0) unchecked(unas[nUnas++] = q);
      else place(q, r, gPos, gPos2);
    }
    localSearch(LS_ROUNDS, max(now(), started + limitMs) + 0.05 * limitMs);
  }

  let w = out;
  for (let r = 0; r < V; r++) {
    store<i32>(w, unchecked(rLen[r]));
    w += 4;
  }
  for (let r = 0; r < V; r++) {
    const base = r * S;
    const len = unchecked(rLen[r]);
    for (let i = 1; i <= len; i++) {
      store<i32>(w, unchecked(stops[base + i]));
      w += 4;
    }
  }
  return iters;
}
