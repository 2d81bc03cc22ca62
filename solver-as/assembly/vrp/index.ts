// VRPTW solver: regret-2 construction, then SISR ruin & recreate (Christiaens & Vanden Berghe 2020)
// with simulated-annealing acceptance; every new best is polished by a first-improvement local search
// (or-opt, which is relocate for one job; exchange, a swap; 2-opt*).
// The modules: state.ts (every global), problem.ts (legs, windows, limits), route.ts (a route kept up
// to date), sequence.ts (a route judged whole), insertion.ts, construct.ts, ruin-recreate.ts, solution.ts
// (saved copies), setup.ts (reading the input), local-search.ts over operators/ (one file per move, each
// the same shape: price the move by its travel delta, then have tryApply judge and apply it).
//
// Memory protocol (the caller owns the order): reset(), alloc() every input block and write it, then
// the problem record pointing at them (solver-as/layouts.json vrp), then solve(problem). solve()
// allocates its working state after the inputs; the next reset() drops it all.
// Times are f64 seconds from an origin; the duration matrix is i32 seconds (n × n, row = from).
// Working hours [s, e] bound the whole tour (types.ts): leave no earlier than s, finish every service
// by e, and reach the end by e. An open route's end node is its last stop at zero travel, so "reach the
// end by e" there means "leave the last stop by e" and one backward pass covers both kinds of route.

import { construct } from './construct';
import { bestInRoute, bestInsertion } from './insertion';
import { localSearch } from './local-search';
import { canServe } from './problem';
import { place, totalCost } from './route';
import { recreate, ruin } from './ruin-recreate';
import { allocState, meanTravel, setupJobs, setupNeighbors, setupVehicles, warmStart } from './setup';
import { commit, copyRoute, loadBest, rollback, saveBest } from './solution';
import { DIM, INF, J, LS_ROUNDS, N, POLISH_SHARE, S, V, compat, costModel, dis, dur, gPos, gPos2, hasDist, iterStamp, jRole, jobRoute, movedBreaks, nPool, nServable, nTouched, nUnas, now, penalty, polishWork, prioPenalty, rLen, rnd, sNUnas, sUnas, searchWork, seedRng, servable, speedModel, stamp, stops, twP, unas, vFixed, vPerM, vPerSec, vSpeed } from './state';

import { alloc, reset } from '../../lib/abi';
import { VrpParams, VrpProblem } from '../generated/layouts';

// ---- memory protocol: lib/abi.ts ----
export { alloc, reset };

/**
 * Solves the problem whose record (layouts.json vrp.problem: the counts and every input block's address)
 * is at `problem`; writes the routes into its `out` block and returns the number of iterations run.
 * The temperature follows the fraction of iterations spent, never the clock: the time limit only stops
 * the search, so a run that the iteration cap stops gives the same plan on a cold or a busy machine.
 */
export function solve(problem: usize): i32 {
  const started = now();
  N = load<i32>(problem, VrpProblem.n);
  V = load<i32>(problem, VrpProblem.vehicleCount);
  J = load<i32>(problem, VrpProblem.jobCount);
  DIM = load<i32>(problem, VrpProblem.dims);
  dur = <usize>load<u32>(problem, VrpProblem.durations);
  dis = <usize>load<u32>(problem, VrpProblem.distances);
  hasDist = dis != 0;
  twP = <usize>load<u32>(problem, VrpProblem.windows);
  compat = <usize>load<u32>(problem, VrpProblem.compat);
  const params = <usize>load<u32>(problem, VrpProblem.params);
  const out = <usize>load<u32>(problem, VrpProblem.out);
  seedRng(<u64>load<f64>(params, VrpParams.seed));
  const maxIter = load<f64>(params, VrpParams.iterations);
  const limitMs = load<f64>(params, VrpParams.timeLimitMs);
  setupVehicles(problem);
  setupJobs(problem);
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
      // With several breaks a job that fits no route alone may fit among others (breaks taken nearer it).
      ok = bestInRoute(q, r, INF, false) < INF || (movedBreaks && unchecked(jRole[q]) == 0);
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
    if (load<f64>(params, VrpParams.warm) != 0) warmStart(out);
    construct();
    for (let r = 0; r < V; r++) copyRoute(r, true);
    for (let k = 0; k < nUnas; k++) unchecked(sUnas[k] = unas[k]);
    sNUnas = nUnas;
    saveBest();
    const mean = meanTravel();
    const t0 = load<f64>(params, VrpParams.startTemperature) * mean;
    const tf = load<f64>(params, VrpParams.endTemperature) * mean;
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
