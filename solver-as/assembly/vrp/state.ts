// The VRP kernel's state: the problem as solve() read it, the working solution (cur), the last accepted
// one (sav) and the best, scratch shared by the search steps, the constants that tune them and the
// random numbers. Every other module of vrp/ reads and writes these module globals (one solve at a time).
//
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

@external("env", "now")
declare function now(): f64;
export { now };

export const INF: f64 = Infinity;
export const CBAR: f64 = 10.0; // average number of removed jobs per ruin
export const LMAX: f64 = 10.0; // longest removed string
export const SPLIT_RATE: f64 = 0.5;
export const SPLIT_DEPTH: f64 = 0.01;
export const BLINK: f64 = 0.01;
export const MAX_NEIGHBORS: i32 = 100;
export const LS_ROUNDS: i32 = 50;
export const GRANULAR: i32 = 30; // neighbors considered by local-search moves
export const POLISH_SHARE: f64 = 2.0;
export const EPS: f64 = 1e-7;

// ---- problem ----
export let N: i32 = 0;
export let V: i32 = 0;
export let J: i32 = 0;
export let DIM: i32 = 1;
export let dur: usize = 0;
export let twP: usize = 0;
export let compat: usize = 0;
export let vStart = new StaticArray<i32>(0);
export let vEnd = new StaticArray<i32>(0);
export let vCap = new StaticArray<i32>(0); // V × DIM
export let vType = new StaticArray<i32>(0);
export let vTwS = new StaticArray<f64>(0);
export let vTwE = new StaticArray<f64>(0);
export let vMaxTasks = new StaticArray<i32>(0); // jobs a route may hold (i32.MAX_VALUE: any number)
export let vMaxTravel = new StaticArray<f64>(0); // travel a route may add up to (INF: any)
export let vMaxDist = new StaticArray<f64>(0); // meters a route may add up to (INF: any)
export let vFixed = new StaticArray<f64>(0); // what using the vehicle costs, in cost units (VROOM's costs.fixed)
export let vSpeed = new StaticArray<f64>(0); // speed factor: the vehicle's travel time is the matrix's divided by it, rounded
export let vPerSec = new StaticArray<f64>(0); // cost of a second of the vehicle's travel (VROOM's per_hour / 3600)
export let vPerM = new StaticArray<f64>(0); // cost of a meter (VROOM's per_km / 1000)
// Drivers' breaks the search plans: vehicle r's vBrkCnt[r] breaks from vBrkFirst[r] (bk* arrays), taken
// in that order where the vehicle is after nodes rBrk[r * BK + k] (non-decreasing), each starting at the
// later of leaving that node and the opening of the first of its windows still open, lasting bkSvc.
// dep and lat count them (dep of a node is the departure after its breaks), so the insertion checks stay
// exact for the breaks where they are; updateRoute puts them where they leave the route the most slack.
export let vBrkFirst = new StaticArray<i32>(0);
export let vBrkCnt = new StaticArray<i32>(0); // 0: the vehicle has no break for the search
export let bkTwOff = new StaticArray<i32>(0); // each break's first window in the windows block
export let bkTwCnt = new StaticArray<i32>(0);
export let bkSvc = new StaticArray<f64>(0);
export let BK: i32 = 0; // the most breaks a vehicle has
export let hasBreaks = false;
export let movedBreaks = false; // some vehicle has several breaks, a break of several windows or one with a max load: insertion may move them (bestInsertion)
// A break with a max load (VROOM's max_load) is taken only where the load on board is at most that in
// every dimension: breaksFit and placeBreaks skip the other nodes; insertions with the breaks where they
// are check the loads there (rBrkLd) with the job's share added.
export let bkLoad = new StaticArray<i32>(0); // breaks × DIM: the most on board (i32.MAX_VALUE: any)
export let vBrkLoad = new StaticArray<bool>(0); // V: some break of the vehicle has a max load
export let rBrkLd = new StaticArray<i32>(0); // V × BK × DIM: the load on board at each placed break
export let sBrkLd = new StaticArray<i32>(0);
export let nodeLd = new StaticArray<i32>(0); // S × DIM scratch: the load leaving each node of a route or sequence
export let rBrk = new StaticArray<i32>(0); // V × BK
export let sBrk = new StaticArray<i32>(0);
export let depNB = new StaticArray<f64>(0); // evalSeq's departures without the breaks
export let brkE = new StaticArray<f64>(0); // evalSeq's earliest times off again with 0..BK breaks taken
export let brkLA = new StaticArray<f64>(0); // placeBreaks' latest arrivals, (S) × (BK + 1): node × breaks taken
export let brkLD = new StaticArray<f64>(0); // and latest times off again at a node
export let bufC = new StaticArray<i32>(0); // an empty route's one or two jobs, checked with the breaks
export let speedModel = false; // some vehicle's speed factor is not 1
export let costModel = false; // some vehicle's legs cost other than their travel seconds
export let dis: usize = 0; // n × n i32 meters, only when some vehicle has a distance limit or a cost per km
export let hasDist = false;
export let jLoc = new StaticArray<i32>(0);
export let jDem = new StaticArray<i32>(0); // J × DIM deliveries
export let jPick = new StaticArray<i32>(0); // J × DIM pickups, when hasPick
export let hasPick = false;
export let jPair = new StaticArray<i32>(0); // the other job of a shipment, or -1
export let jRole = new StaticArray<i32>(0); // 0 a job alone, 1 a shipment's pickup, 2 its delivery
export let hasPairs = false;
export let seenStamp = new StaticArray<i32>(0); // evalSeq's check of pair order
export let evalStamp: i32 = 0;
export let jDemKey = new StaticArray<f64>(0); // one size per job, for the recreate orders
export let jTwOff = new StaticArray<i32>(0);
export let jTwCnt = new StaticArray<i32>(0);
export let jSvc = new StaticArray<f64>(0);
export let jDepot = new StaticArray<f64>(0);
export let jTwFirst = new StaticArray<f64>(0); // first window start, -INF without windows
export let jTwLast = new StaticArray<f64>(0); // last window end, INF without windows
export let servable = new StaticArray<i32>(0); // jobs some vehicle can serve alone
export let nServable: i32 = 0;
export let adj = new StaticArray<i32>(0); // K nearest jobs per job
export let adjCnt = new StaticArray<i32>(0);
export let K: i32 = 0;
export let penalty: f64 = 0;
// Priorities (0–100) are maximised before the number of jobs served and before travel: each point of
// priority left out costs more than every job of the problem left out (VROOM's objective order).
export let jPrio = new StaticArray<i32>(0);
export let hasPrio = false;
export let prioPenalty: f64 = 0;

// ---- working solution (cur) and the last accepted one (sav); routes are node arrays ----
// Route r owns [r*S, r*S + S): node 0 is the vehicle start, nodes 1..len its jobs, node len+1 its end.
export let S: i32 = 0;
export let stops = new StaticArray<i32>(0);
export let dep = new StaticArray<f64>(0); // earliest departure from node
export let lat = new StaticArray<f64>(0); // latest arrival at node keeping the rest feasible
export let rLen = new StaticArray<i32>(0);
export let rLoad = new StaticArray<i32>(0); // V × DIM: deliveries; with pickups the largest load on the route
export let fwdMax = new StaticArray<i32>(0); // with pickups, V × S × DIM: largest load leaving nodes 0..i
export let bwdMax = new StaticArray<i32>(0); // with pickups, V × S × DIM: largest load leaving nodes i..len
export let rCost = new StaticArray<f64>(0);
export let rTrav = new StaticArray<f64>(0); // travel seconds, when costModel (else rCost is them)
export let rDist = new StaticArray<f64>(0); // meters, when hasDist
export let sStops = new StaticArray<i32>(0);
export let sDep = new StaticArray<f64>(0);
export let sLat = new StaticArray<f64>(0);
export let sLen = new StaticArray<i32>(0);
export let sLoad = new StaticArray<i32>(0);
export let sCost = new StaticArray<f64>(0);
export let sTrav = new StaticArray<f64>(0);
export let sDist = new StaticArray<f64>(0);
export let bStops = new StaticArray<i32>(0);
export let bLen = new StaticArray<i32>(0);
export let jobRoute = new StaticArray<i32>(0);
export let jobPos = new StaticArray<i32>(0);
export let unas = new StaticArray<i32>(0);
export let nUnas: i32 = 0;
export let sUnas = new StaticArray<i32>(0);
export let sNUnas: i32 = 0;

// ---- scratch ----
export let typeStamp = new StaticArray<i32>(0);
export let stamp: i32 = 0;
export let touched = new StaticArray<i32>(0);
export let touchStamp = new StaticArray<i32>(0);
export let nTouched: i32 = 0;
export let iterStamp: i32 = 0;
export let pool = new StaticArray<i32>(0); // jobs to recreate
export let nPool: i32 = 0;
export let keys = new StaticArray<f64>(0);
export let gPos: i32 = -1;
export let gPos2: i32 = -1; // a pair's delivery goes after this node (gPos: its pickup); equal to gPos: right after the pickup
export let pairLoad = new StaticArray<i32>(0); // DIM: bestPairInRoute's load leaving node i
export let pairWalk = new StaticArray<i32>(0); // DIM: and leaving node m
export let pairMax = new StaticArray<i32>(0); // DIM: the largest load from node i to node m
// Work counters (positions and moves priced) that keep polishing to a share of the search, deterministically.
export let searchWork: f64 = 0;
export let polishWork: f64 = 0;

// Sequences the local search and the break checks build (evalSeq, tryApply).
export let bufA = new StaticArray<i32>(0);
export let bufB = new StaticArray<i32>(0);
export let loadBuf = new StaticArray<i32>(0); // DIM scratch loads of evalSeq
export let segBuf = new StaticArray<i32>(0); // DIM loads of the segment orOpt places

// ---- PRNG: xorshift64* ----
let rs: u64 = 0x9E3779B97F4A7C15;

export function seedRng(seed: u64): void {
  let z = seed + 0x9E3779B97F4A7C15;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EB;
  rs = (z ^ (z >> 31)) | 1;
}

@inline export function rnd(): f64 {
  rs ^= rs >> 12;
  rs ^= rs << 25;
  rs ^= rs >> 27;
  return <f64>((rs * 0x2545F4914F6CDD1D) >> 11) * (1.0 / 9007199254740992.0);
}

@inline export function rint(n: i32): i32 {
  return <i32>(rnd() * <f64>n);
}
