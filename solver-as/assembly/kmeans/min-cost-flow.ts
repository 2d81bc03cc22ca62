// Capacitated assignment: successive shortest paths over the cluster graph.
// Arc u→v costs the cheapest move of one member of u into v: min over i in u of D[i][v] − D[i][u].
// Potentials keep every reduced cost non-negative, so each search is a dense Dijkstra on k nodes. Prices
// (negated potentials) carry over between rounds: the points' preferred clusters under the last prices
// are already nearly feasible, so few paths are needed once the centers settle.
import { ldf, ldi, stf, sti } from '../../lib/memory';
import { C, INF, MIN_GAIN, MODE_CAPPED, SINKS_PER_SEARCH, assign, cnt, d2, k, n } from './state';

export let Dm: usize = 0; // n×k squared distances
export let arc: usize = 0; // k×k f64
export let arcPt: usize = 0; // k×k i32
export let next: usize = 0; // n: member lists
export let prev: usize = 0;
export let head: usize = 0; // k
export let pot: usize = 0; // k
export let dist: usize = 0; // k
export let pred: usize = 0; // k i32
export let done: usize = 0; // k i32
export let open: usize = 0; // k i32: the nodes a search has not settled yet
export let price: usize = 0; // k
export let bareAssign: usize = 0; // n: the assignment without prices
export let bareCnt: usize = 0; // k
export let target: usize = 0; // k i32
export let order: usize = 0; // k i32
export let prevAssign: usize = 0;
export let capAssign: usize = 0; // the best capacitated result over the starts
export let capC: usize = 0;
export let capPrice: usize = 0;

function unlink(i: i32, c: i32): void {
  const p = ldi(prev, i), q = ldi(next, i);
  if (p >= 0) sti(next, p, q); else sti(head, c, q);
  if (q >= 0) sti(prev, q, p);
  sti(cnt, c, ldi(cnt, c) - 1);
}

function link(i: i32, c: i32): void {
  const h = ldi(head, c);
  sti(next, i, h);
  sti(prev, i, -1);
  if (h >= 0) sti(prev, h, i);
  sti(head, c, i);
  sti(cnt, c, ldi(cnt, c) + 1);
  sti(assign, i, c);
}

export function buildLists(): void {
  memory.fill(cnt, 0, <usize>k << 2);
  for (let j = 0; j < k; j++) sti(head, j, -1);
  for (let i = n - 1; i >= 0; i--) link(i, ldi(assign, i));
}

export function arcRow(u: i32): void {
  const row = arc + (<usize>(u * k) << 3);
  const rowPt = arcPt + (<usize>(u * k) << 2);
  for (let v = 0; v < k; v++) stf(row, v, INF);
  for (let i = ldi(head, u); i >= 0; i = ldi(next, i)) {
    const d = Dm + (<usize>(i * k) << 3);
    const own = ldf(d, u);
    for (let v = 0; v < k; v++) {
      const c = ldf(d, v) - own;
      if (c < ldf(row, v)) { stf(row, v, c); sti(rowPt, v, i); }
    }
  }
  stf(row, u, INF);
}

/**
 * Fills the distance matrix for the current centers and sends each point to its cheapest cluster under
 * the prices (into assign/cnt) and, when `bare`, also with no prices (into bareAssign/bareCnt).
 * Near-ties (stops at one position, centers equal up to rounding) go to the emptier cluster, so that
 * duplicates spread instead of piling into one cluster for the repair to move one by one.
 */
export function assignByPrice(bare: bool): void {
  memory.fill(cnt, 0, <usize>k << 2);
  if (bare) memory.fill(bareCnt, 0, <usize>k << 2);
  for (let i = 0; i < n; i++) {
    const d = Dm + (<usize>(i * k) << 3);
    let best = INF, bestBare = INF;
    let tol = 0.0, tolBare = 0.0;
    let bj = 0, bb = 0;
    for (let j = 0; j < k; j++) {
      const dj = d2(i, C, j);
      stf(d, j, dj);
      const c = dj + ldf(price, j);
      if (c < best - tol) { best = c; tol = tieTolerance(c); bj = j; }
      else if (c <= best + tol && ldi(cnt, j) < ldi(cnt, bj)) bj = j;
      if (bare) {
        if (dj < bestBare - tolBare) { bestBare = dj; tolBare = tieTolerance(dj); bb = j; }
        else if (dj <= bestBare + tolBare && ldi(bareCnt, j) < ldi(bareCnt, bb)) bb = j;
      }
    }
    sti(assign, i, bj);
    sti(cnt, bj, ldi(cnt, bj) + 1);
    if (bare) {
      sti(bareAssign, i, bb);
      sti(bareCnt, bb, ldi(bareCnt, bb) + 1);
    }
  }
}

@inline function tieTolerance(v: f64): f64 {
  return 1e-12 * Math.abs(v) + MIN_GAIN;
}

// Which clusters give and take stops in each phase.
const PHASE_REPAIR: i32 = 0; // from clusters above their limit to clusters below it
const PHASE_IMPROVE: i32 = 1; // balanced: which clusters hold the extra stop; capped: where the room is used

export let phaseMode: i32 = 0;
export let phaseCap: i32 = 0;
export let phaseQ: i32 = 0;

@inline function isSource(phase: i32, j: i32): bool {
  const c = ldi(cnt, j);
  if (phase == PHASE_REPAIR) return phaseMode == MODE_CAPPED ? c > phaseCap : c > ldi(target, j);
  return phaseMode == MODE_CAPPED ? c > 0 : c == phaseQ + 1;
}

@inline function isSink(phase: i32, j: i32): bool {
  const c = ldi(cnt, j);
  if (phase == PHASE_REPAIR) return phaseMode == MODE_CAPPED ? c < phaseCap : c < ldi(target, j);
  return phaseMode == MODE_CAPPED ? c < phaseCap : c == phaseQ;
}

/**
 * Dijkstra from every source at once (a super source whose arcs are priced to stay non-negative).
 * `stopAtSink` ends at the first sink reached; otherwise every node is labelled. Returns pS, the super
 * source's potential: the real cost of the best path into v is dist(v) − pS + pot(v).
 */
function search(phase: i32, stopAtSink: bool): f64 {
  let pS = -INF;
  for (let j = 0; j < k; j++) if (isSource(phase, j)) pS = Math.max(pS, ldf(pot, j));
  let u = -1;
  let du = INF;
  let at = -1;
  let settledSinks = 0;
  for (let v = 0; v < k; v++) {
    const d = isSource(phase, v) ? pS - ldf(pot, v) : INF;
    stf(dist, v, d);
    sti(pred, v, -1);
    sti(done, v, 0);
    sti(open, v, v);
    if (d < du) { du = d; u = v; at = v; }
  }
  let openN = k;
  while (u >= 0) {
    sti(done, u, 1);
    sti(open, at, ldi(open, --openN));
    if (stopAtSink && isSink(phase, u) && ++settledSinks >= SINKS_PER_SEARCH) {
      // Early stop: unlabelled nodes count as far as the last sink, which keeps reduced costs non-negative.
      for (let q = 0; q < openN; q++) stf(dist, ldi(open, q), du);
      return pS;
    }
    // Relax u's arcs to the unsettled nodes and find the next node to settle in the same sweep.
    const pu = ldf(pot, u);
    const row = arc + (<usize>(u * k) << 3);
    const from = u;
    const base = du;
    u = -1;
    du = INF;
    for (let q = 0; q < openN; q++) {
      const v = ldi(open, q);
      let dv = ldf(dist, v);
      const nd = base + Math.max(0.0, ldf(row, v) + pu - ldf(pot, v));
      if (nd < dv) { dv = nd; stf(dist, v, nd); sti(pred, v, from); }
      if (dv < du) { du = dv; u = v; at = q; }
    }
  }
  return pS;
}

function updatePotentials(): void {
  for (let v = 0; v < k; v++) {
    const d = ldf(dist, v);
    if (d < INF) stf(pot, v, ldf(pot, v) + d);
  }
}

export let pathPt: usize = 0; // k i32: the point moved along each arc of a path
export let pathTo: usize = 0; // k i32
export let stale: usize = 0; // k i32: arc entries whose cheapest member just left

/** Moves one point along each arc of the path ending at v (chosen before any move), updating arc rows. */
function movePath(v: i32): void {
  let m = 0;
  for (let u = ldi(pred, v); u >= 0; u = ldi(pred, v)) {
    sti(pathPt, m, ldi(arcPt, u * k + v));
    sti(pathTo, m++, v);
    v = u;
  }
  for (let e = 0; e < m; e++) {
    const i = ldi(pathPt, e);
    const from = ldi(assign, i);
    unlink(i, from);
    leaveRow(from, i);
    link(i, ldi(pathTo, e));
    joinRow(ldi(pathTo, e), i);
  }
}

/** Point i joined u: it can only lower u's arc costs. */
function joinRow(u: i32, i: i32): void {
  const row = arc + (<usize>(u * k) << 3);
  const rowPt = arcPt + (<usize>(u * k) << 2);
  const d = Dm + (<usize>(i * k) << 3);
  const own = ldf(d, u);
  for (let w = 0; w < k; w++) {
    if (w == u) continue;
    const c = ldf(d, w) - own;
    if (c < ldf(row, w)) { stf(row, w, c); sti(rowPt, w, i); }
  }
}

/** Point i left u: only the arcs it was cheapest for need a new minimum over the remaining members. */
function leaveRow(u: i32, i: i32): void {
  const row = arc + (<usize>(u * k) << 3);
  const rowPt = arcPt + (<usize>(u * k) << 2);
  let m = 0;
  for (let w = 0; w < k; w++) {
    if (w != u && ldi(rowPt, w) == i) { sti(stale, m++, w); stf(row, w, INF); }
  }
  if (m == 0) return;
  for (let j = ldi(head, u); j >= 0; j = ldi(next, j)) {
    const d = Dm + (<usize>(j * k) << 3);
    const own = ldf(d, u);
    for (let e = 0; e < m; e++) {
      const w = ldi(stale, e);
      const c = ldf(d, w) - own;
      if (c < ldf(row, w)) { stf(row, w, c); sti(rowPt, w, j); }
    }
  }
}

/**
 * Shortest paths from sources to sinks until no source is left. After each search the new potentials make
 * every shortest path's arcs cost zero; more paths made only of such arcs are shortest too, so they are
 * taken by depth-first search before paying for the next full search.
 */
export function repair(): void {
  for (;;) {
    let any = false;
    for (let j = 0; j < k && !any; j++) any = isSource(PHASE_REPAIR, j);
    if (!any) return;
    search(PHASE_REPAIR, true);
    updatePotentials();
    let t = -1;
    let best = INF;
    for (let v = 0; v < k; v++) {
      if (isSink(PHASE_REPAIR, v) && ldi(done, v) != 0 && ldf(dist, v) < best) { best = ldf(dist, v); t = v; }
    }
    if (t < 0) unreachable();
    movePath(t);
    zeroCostPaths();
  }
}

export let mark: usize = 0; // k i32: 0 unseen, 1 on the search stack, 2 leads nowhere
export let scanPos: usize = 0; // k i32
export let stack: usize = 0; // k i32

function zeroCostPaths(): void {
  let scale = 1.0;
  for (let v = 0; v < k; v++) scale = Math.max(scale, Math.abs(ldf(pot, v)));
  const eps = 1e-12 * scale;
  memory.fill(mark, 0, <usize>k << 2);
  for (let s = 0; s < k; s++) {
    while (ldi(mark, s) == 0 && isSource(PHASE_REPAIR, s)) {
      let top = 0;
      sti(stack, 0, s);
      sti(pred, s, -1);
      sti(mark, s, 1);
      sti(scanPos, s, 0);
      let found = -1;
      while (top >= 0) {
        const u = ldi(stack, top);
        if (u != s && isSink(PHASE_REPAIR, u)) { found = u; break; }
        let advanced = false;
        if (ldi(head, u) >= 0) {
          const row = arc + (<usize>(u * k) << 3);
          const pu = ldf(pot, u);
          let v = ldi(scanPos, u);
          for (; v < k; v++) {
            if (ldi(mark, v) != 0) continue;
            if (ldf(row, v) + pu - ldf(pot, v) <= eps) {
              sti(pred, v, u);
              sti(mark, v, 1);
              sti(scanPos, v, 0);
              sti(stack, ++top, v);
              advanced = true;
              break;
            }
          }
          sti(scanPos, u, v + 1);
        }
        if (!advanced) {
          sti(mark, u, 2);
          top--;
        }
      }
      if (found < 0) break;
      // The path's clusters changed members: let later searches pass through them again.
      for (let e = 0; e <= top; e++) sti(mark, ldi(stack, e), 0);
      movePath(found);
    }
  }
}

/** Moves a stop along the cheapest path from a source to a sink while that lowers the cost. */
export function improve(): void {
  for (let guard = 0; guard < n * 4; guard++) {
    let any = false;
    for (let j = 0; j < k && !any; j++) any = isSource(PHASE_IMPROVE, j);
    if (!any) return;
    const pS = search(PHASE_IMPROVE, false);
    let bestCost = INF;
    let t = -1;
    let scale = Math.abs(pS);
    for (let v = 0; v < k; v++) {
      if (!isSink(PHASE_IMPROVE, v) || !(ldf(dist, v) < INF)) continue;
      const c = ldf(dist, v) - pS + ldf(pot, v);
      scale = Math.max(scale, Math.abs(ldf(pot, v)));
      if (c < bestCost) { bestCost = c; t = v; }
    }
    updatePotentials();
    if (t < 0 || !(bestCost < -1e-9 * Math.max(1.0, scale))) return;
    movePath(t);
  }
}
