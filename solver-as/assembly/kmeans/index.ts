// k-means for stop clustering. Points become 3-D vectors on the Earth sphere (meters), so squared chord
// distances are the metric everywhere on the globe, including across the antimeridian and near the poles.
// Plain mode: several greedy k-means++ starts, each refined by Lloyd (Hamerly's bounds) and then by
// Hartigan's single-point moves, keeping the lowest sum of squares. Capacitated modes (a size cap, or
// balanced sizes) alternate an exact capacitated assignment (successive shortest paths on the cluster
// graph) with center updates, from a bisection into equal parts and from the best plain result.
// Everything is deterministic: the PRNG is seeded from the input coordinates.
// The modules: state.ts (every global, the input, distances, random numbers), centers.ts, one file per
// algorithm (seeding.ts, lloyd.ts, hartigan.ts, capacitated.ts, bisection.ts) and the min-cost flow
// the capacitated assignment runs on (min-cost-flow.ts).

import { bump, bumpFrom } from '../../lib/memory';
import { axisU, bisectionStart, keys, perm, principalPlane } from './bisection';
import { capacitated } from './capacitated';
import { project, sse } from './centers';
import { M, MAX_NEIGHBOURS, drift, hartigan, joinW, leaveW, nbrDist, nbrIdx, sinceSort } from './hartigan';
import { lloyd } from './lloyd';
import { Dm, arc, arcPt, bareAssign, bareCnt, capAssign, capC, capPrice, dist, done, head, mark, next, open, order, pathPt, pathTo, pot, pred, prev, prevAssign, price, scanPos, stack, stale, target } from './min-cost-flow';
import { gHead, gMax, gNext, gSum, minD, seed } from './seeding';
import { C, INF, MODE_PLAIN, SCREEN_TOL, X, assign, bestAssign, bestC, cnt, half, input, inputHash, k, lower, moved, n, oldC, rng, sums, upper, workBase } from './state';

export { input } from './state';

let assignOut: usize = 0;

/**
 * Clusters the n points written at input(n) into k clusters. mode: 0 plain, 1 at most `cap` per cluster,
 * 2 balanced. Returns the within-cluster sum of squared chord distances (m²); the cluster of each point
 * is at assignment(). Plain k-means runs `restarts` times from greedy k-means++ seeds; the capacitated
 * modes run from `starts` bisection starts (turned evenly through a quarter circle) and, when restarts
 * > 0, also from the best plain result. The lowest sum of squares wins.
 */
export function solve(count: i32, clusters: i32, mode: i32, cap: i32, restarts: i32, starts: i32): f64 {
  n = count;
  k = clusters;
  bumpFrom(workBase);
  X = bump(<usize>n * 24);
  C = bump(<usize>k * 24);
  bestC = bump(<usize>k * 24);
  oldC = bump(<usize>k * 24);
  sums = bump(<usize>k * 24);
  assign = bump(<usize>n << 2);
  bestAssign = bump(<usize>n << 2);
  prevAssign = bump(<usize>n << 2);
  cnt = bump(<usize>k << 2);
  upper = bump(<usize>n << 3);
  lower = bump(<usize>n << 3);
  minD = bump(<usize>n << 3);
  gHead = bump(<usize>k << 2);
  gNext = bump(<usize>n << 2);
  gMax = bump(<usize>k << 3);
  gSum = bump(<usize>k << 3);
  half = bump(<usize>k << 3);
  moved = bump(<usize>k << 3);
  drift = bump(<usize>k << 3);
  joinW = bump(<usize>k << 3);
  leaveW = bump(<usize>k << 3);
  sinceSort = bump(<usize>k << 3);
  M = min(k - 1, MAX_NEIGHBOURS);
  nbrIdx = bump(<usize>k * <usize>M << 2);
  nbrDist = bump(<usize>k * <usize>M << 3);

  project();
  rng = inputHash();
  const trials = 6 + 3 * <i32>Math.log(<f64>k);
  let best = INF;
  for (let r = 0; r < (mode == MODE_PLAIN ? max(1, restarts) : restarts); r++) {
    seed(trials);
    lloyd();
    hartigan();
    const s = sse();
    if (s < best) {
      best = s;
      memory.copy(bestAssign, assign, <usize>n << 2);
      memory.copy(bestC, C, <usize>k * 24);
    }
  }
  if (mode != MODE_PLAIN) {
    Dm = bump(<usize>n * <usize>k << 3);
    arc = bump(<usize>k * <usize>k << 3);
    arcPt = bump(<usize>k * <usize>k << 2);
    next = bump(<usize>n << 2);
    prev = bump(<usize>n << 2);
    head = bump(<usize>k << 2);
    pot = bump(<usize>k << 3);
    dist = bump(<usize>k << 3);
    pred = bump(<usize>k << 2);
    done = bump(<usize>k << 2);
    open = bump(<usize>k << 2);
    price = bump(<usize>k << 3);
    target = bump(<usize>k << 2);
    pathPt = bump(<usize>k << 2);
    pathTo = bump(<usize>k << 2);
    stale = bump(<usize>k << 2);
    order = bump(<usize>k << 2);
    bareAssign = bump(<usize>n << 2);
    bareCnt = bump(<usize>k << 2);
    keys = bump(<usize>n << 3);
    perm = bump(<usize>n << 2);
    axisU = bump(48);
    capAssign = bump(<usize>n << 2);
    capC = bump(<usize>k * 24);
    capPrice = bump(<usize>k << 3);
    mark = bump(<usize>k << 2);
    scanPos = bump(<usize>k << 2);
    stack = bump(<usize>k << 2);
    principalPlane();
    // Every start runs to a loose tolerance; only the best is then refined to convergence.
    const fromPlain = restarts > 0;
    const runs = starts + (fromPlain ? 1 : 0);
    best = INF;
    for (let s = 0; s < runs; s++) {
      if (s < starts) bisectionStart(<f64>s * (Math.PI / 2.0) / <f64>starts);
      else {
        memory.copy(assign, bestAssign, <usize>n << 2);
        memory.copy(C, bestC, <usize>k * 24);
      }
      capacitated(mode, cap, runs > 1 ? SCREEN_TOL : 1e-12, false);
      const e = sse();
      if (e < best) {
        best = e;
        memory.copy(capAssign, assign, <usize>n << 2);
        memory.copy(capC, C, <usize>k * 24);
        memory.copy(capPrice, price, <usize>k << 3);
      }
    }
    if (runs > 1) {
      memory.copy(C, capC, <usize>k * 24);
      memory.copy(price, capPrice, <usize>k << 3);
      capacitated(mode, cap, 1e-12, true);
      best = sse();
      memory.copy(capAssign, assign, <usize>n << 2);
      memory.copy(capC, C, <usize>k * 24);
    }
    memory.copy(bestAssign, capAssign, <usize>n << 2);
    memory.copy(bestC, capC, <usize>k * 24);
  }
  memory.copy(assign, bestAssign, <usize>n << 2);
  memory.copy(C, bestC, <usize>k * 24);
  assignOut = assign;
  return best;
}

/** Where solve() left the cluster index (0-based, as the kernel numbers them) of each point. */
export function assignment(): usize {
  return assignOut;
}
