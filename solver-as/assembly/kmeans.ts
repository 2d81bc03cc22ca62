// k-means for stop clustering. Points become 3-D vectors on the Earth sphere (meters), so squared chord
// distances are the metric everywhere on the globe, including across the antimeridian and near the poles.
// Plain mode: several greedy k-means++ starts, each refined by Lloyd (Hamerly's bounds) and then by
// Hartigan's single-point moves, keeping the lowest sum of squares. Capacitated modes (a size cap, or
// balanced sizes) alternate an exact capacitated assignment (successive shortest paths on the cluster
// graph) with center updates, from a bisection into equal parts and from the best plain result.
// Everything is deterministic: the PRNG is seeded from the input coordinates.

import { bump, bumpFrom, bumpTop, ldf, ldi, stf, sti } from '../lib/memory';

const R: f64 = 6371008.8;
const RAD: f64 = Math.PI / 180.0;
const INF: f64 = Infinity;

/** Sizes are not capped. */
const MODE_PLAIN: i32 = 0;
/** No cluster above `cap` stops. */
const MODE_CAPPED: i32 = 1;
/** Sizes floor(n/k) or ceil(n/k). */
const MODE_BALANCED: i32 = 2;

/** Smallest gain in m² worth a Hartigan move (a millimetre squared): below it is rounding noise. */
const MIN_GAIN: f64 = 1e-6;
const MAX_LLOYD: i32 = 300;
const MAX_HARTIGAN_PASSES: i32 = 200;
const MAX_OUTER: i32 = 100;
/** A repair search settles this many sinks before stopping, so that several paths can follow it. */
const SINKS_PER_SEARCH: i32 = 20;
/** Capacitated starts are compared after rounds stop gaining this fraction; the best is then finished. */
const SCREEN_TOL: f64 = 1e-4;

// ---- memory: a bump region after the static data (lib/memory.ts), reset for each input ----

let inputPtr: usize = 0;
let workBase: usize = 0;

/** Reserves room for n (latitude, longitude) f64 pairs and returns where the caller writes them. */
export function input(n: i32): usize {
  bumpFrom(__heap_base);
  inputPtr = bump(<usize>n << 4);
  workBase = bumpTop();
  return inputPtr;
}

// ---- state of one solve ----

let n: i32 = 0;
let k: i32 = 0;
let X: usize = 0; // 3n: point vectors, centered on their mean
let C: usize = 0; // 3k: centers
let bestC: usize = 0;
let assign: usize = 0; // n
let bestAssign: usize = 0;
let cnt: usize = 0; // k i32
let sums: usize = 0; // 3k
let upper: usize = 0; // n: Hamerly upper bound to own center
let lower: usize = 0; // n: Hamerly lower bound to second center
let half: usize = 0; // k: half distance to nearest other center
let moved: usize = 0; // k: how far each center moved
let oldC: usize = 0; // 3k

@inline function d2(i: i32, centers: usize, j: i32): f64 {
  const p = X + <usize>i * 24;
  const c = centers + <usize>j * 24;
  const dx = load<f64>(p) - load<f64>(c);
  const dy = load<f64>(p, 8) - load<f64>(c, 8);
  const dz = load<f64>(p, 16) - load<f64>(c, 16);
  return dx * dx + dy * dy + dz * dz;
}

@inline function d2pp(i: i32, j: i32): f64 {
  const p = X + <usize>i * 24;
  const q = X + <usize>j * 24;
  const dx = load<f64>(p) - load<f64>(q);
  const dy = load<f64>(p, 8) - load<f64>(q, 8);
  const dz = load<f64>(p, 16) - load<f64>(q, 16);
  return dx * dx + dy * dy + dz * dz;
}

// ---- PRNG (splitmix64) ----

let rng: u64 = 0;

function nextU64(): u64 {
  rng += 0x9E3779B97F4A7C15;
  let z = rng;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EB;
  return z ^ (z >> 31);
}

@inline function nextF64(): f64 {
  return <f64>(nextU64() >> 11) * (1.0 / 9007199254740992.0);
}

function inputHash(): u64 {
  let h: u64 = 0xCBF29CE484222325;
  for (let i = 0; i < n * 2; i++) {
    h = (h ^ load<u64>(inputPtr + (<usize>i << 3))) * 0x100000001B3;
    h ^= h >> 29;
  }
  return h;
}

// ---- projection ----

function project(): void {
  let mx = 0.0, my = 0.0, mz = 0.0;
  for (let i = 0; i < n; i++) {
    const lat = load<f64>(inputPtr + (<usize>i << 4)) * RAD;
    const lon = load<f64>(inputPtr + (<usize>i << 4), 8) * RAD;
    const cl = Math.cos(lat);
    const p = X + <usize>i * 24;
    const x = R * cl * Math.cos(lon), y = R * cl * Math.sin(lon), z = R * Math.sin(lat);
    store<f64>(p, x); store<f64>(p, y, 8); store<f64>(p, z, 16);
    mx += x; my += y; mz += z;
  }
  // Centering keeps the sums of coordinates small, so incremental center updates stay exact enough.
  mx /= <f64>n; my /= <f64>n; mz /= <f64>n;
  for (let i = 0; i < n; i++) {
    const p = X + <usize>i * 24;
    store<f64>(p, load<f64>(p) - mx);
    store<f64>(p, load<f64>(p, 8) - my, 8);
    store<f64>(p, load<f64>(p, 16) - mz, 16);
  }
}

function copyPoint(i: i32, centers: usize, j: i32): void {
  memory.copy(centers + <usize>j * 24, X + <usize>i * 24, 24);
}

// ---- seeding: greedy k-means++ (best of several D²-sampled candidates per center) ----
// Points are kept in groups by their nearest chosen center. A candidate farther than twice the group's
// largest distance from that center cannot be nearer to any of its members, so whole groups are skipped.

let minD: usize = 0; // n: squared distance to the nearest chosen center
let gHead: usize = 0; // k i32: first member of each group
let gNext: usize = 0; // n i32
let gMax: usize = 0; // k: largest minD in the group
let gSum: usize = 0; // k: sum of minD in the group

@inline function d2pc(i: i32, j: i32): f64 {
  return d2(i, C, j);
}

function sample(chosen: i32, total: f64): i32 {
  if (!(total > 0.0)) return <i32>(nextF64() * <f64>n); // every point sits on a center already
  let r = nextF64() * total;
  let g = -1;
  for (let j = 0; j < chosen; j++) {
    const w = ldf(gSum, j);
    if (w > 0.0) {
      g = j;
      if (r < w) break;
      r -= w;
    }
  }
  let last = ldi(gHead, g);
  for (let i = ldi(gHead, g); i >= 0; i = ldi(gNext, i)) {
    const w = ldf(minD, i);
    if (w > 0.0) {
      last = i;
      if (r < w) return i;
      r -= w;
    }
  }
  return last;
}

/** How much the sum of minD would drop if point `cand` became a center. */
function saving(chosen: i32, cand: i32): f64 {
  let s = 0.0;
  for (let j = 0; j < chosen; j++) {
    if (d2pc(cand, j) >= 4.0 * ldf(gMax, j)) continue;
    for (let i = ldi(gHead, j); i >= 0; i = ldi(gNext, i)) {
      const d = d2pp(i, cand);
      const m = ldf(minD, i);
      if (d < m) s += m - d;
    }
  }
  return s;
}

/** Makes point `cand` center number `c`: members nearer to it move into its group. */
function addCenter(c: i32, cand: i32): void {
  copyPoint(cand, C, c);
  sti(gHead, c, -1);
  let cMax = 0.0, cSum = 0.0;
  for (let j = 0; j < c; j++) {
    if (d2pc(cand, j) >= 4.0 * ldf(gMax, j)) continue;
    let keep = -1;
    let jMax = 0.0, jSum = 0.0;
    let i = ldi(gHead, j);
    while (i >= 0) {
      const nx = ldi(gNext, i);
      const d = d2pp(i, cand);
      if (d < ldf(minD, i)) {
        stf(minD, i, d);
        sti(gNext, i, ldi(gHead, c));
        sti(gHead, c, i);
        cMax = Math.max(cMax, d);
        cSum += d;
      } else {
        sti(gNext, i, keep);
        keep = i;
        const m = ldf(minD, i);
        jMax = Math.max(jMax, m);
        jSum += m;
      }
      i = nx;
    }
    sti(gHead, j, keep);
    stf(gMax, j, jMax);
    stf(gSum, j, jSum);
  }
  stf(gMax, c, cMax);
  stf(gSum, c, cSum);
}

function seed(trials: i32): void {
  const first = <i32>(nextF64() * <f64>n);
  copyPoint(first, C, 0);
  let total = 0.0, most = 0.0;
  for (let i = n - 1; i >= 0; i--) {
    const d = d2pp(i, first);
    stf(minD, i, d);
    sti(gNext, i, i + 1 < n ? i + 1 : -1);
    total += d;
    most = Math.max(most, d);
  }
  sti(gHead, 0, 0);
  stf(gMax, 0, most);
  stf(gSum, 0, total);
  for (let c = 1; c < k; c++) {
    let bestGain = -1.0;
    let best = 0;
    for (let t = 0; t < trials; t++) {
      const cand = sample(c, total);
      const gain = saving(c, cand);
      if (gain > bestGain) { bestGain = gain; best = cand; }
    }
    addCenter(c, best);
    total = 0.0;
    for (let j = 0; j <= c; j++) total += ldf(gSum, j);
  }
}

// ---- centers ----

function recomputeSums(): void {
  memory.fill(sums, 0, <usize>k * 24);
  memory.fill(cnt, 0, <usize>k << 2);
  for (let i = 0; i < n; i++) {
    const a = ldi(assign, i);
    const p = X + <usize>i * 24;
    const s = sums + <usize>a * 24;
    store<f64>(s, load<f64>(s) + load<f64>(p));
    store<f64>(s, load<f64>(s, 8) + load<f64>(p, 8), 8);
    store<f64>(s, load<f64>(s, 16) + load<f64>(p, 16), 16);
    sti(cnt, a, ldi(cnt, a) + 1);
  }
}

/** Centers are the means of their members; an empty cluster keeps its center. */
function centerFromSum(j: i32): void {
  const m = ldi(cnt, j);
  if (m == 0) return;
  const inv = 1.0 / <f64>m;
  const s = sums + <usize>j * 24;
  const c = C + <usize>j * 24;
  store<f64>(c, load<f64>(s) * inv);
  store<f64>(c, load<f64>(s, 8) * inv, 8);
  store<f64>(c, load<f64>(s, 16) * inv, 16);
}

@inline function addTo(j: i32, i: i32, sign: f64): void {
  const p = X + <usize>i * 24;
  const s = sums + <usize>j * 24;
  store<f64>(s, load<f64>(s) + sign * load<f64>(p));
  store<f64>(s, load<f64>(s, 8) + sign * load<f64>(p, 8), 8);
  store<f64>(s, load<f64>(s, 16) + sign * load<f64>(p, 16), 16);
  sti(cnt, j, ldi(cnt, j) + (sign > 0 ? 1 : -1));
}

function sse(): f64 {
  let s = 0.0;
  for (let i = 0; i < n; i++) s += d2(i, C, ldi(assign, i));
  return s;
}

// ---- Lloyd with Hamerly's bounds ----

function nearestTwo(i: i32): i32 {
  let d1 = INF, d2nd = INF;
  let j1 = 0;
  for (let j = 0; j < k; j++) {
    const d = d2(i, C, j);
    if (d < d1) { d2nd = d1; d1 = d; j1 = j; } else if (d < d2nd) d2nd = d;
  }
  stf(upper, i, Math.sqrt(d1));
  stf(lower, i, Math.sqrt(d2nd));
  return j1;
}

function lloyd(): void {
  for (let i = 0; i < n; i++) sti(assign, i, nearestTwo(i));
  recomputeSums();
  for (let j = 0; j < k; j++) centerFromSum(j);
  for (let it = 0; it < MAX_LLOYD; it++) {
    for (let j = 0; j < k; j++) {
      let m = INF;
      for (let o = 0; o < k; o++) if (o != j) m = Math.min(m, centerD2(j, o));
      stf(half, j, 0.5 * Math.sqrt(m));
    }
    let changed = 0;
    for (let i = 0; i < n; i++) {
      const a = ldi(assign, i);
      const bound = Math.max(ldf(half, a), ldf(lower, i));
      if (ldf(upper, i) <= bound) continue;
      const u = Math.sqrt(d2(i, C, a));
      stf(upper, i, u);
      if (u <= bound) continue;
      const b = nearestTwo(i);
      if (b != a) {
        addTo(a, i, -1.0);
        addTo(b, i, 1.0);
        sti(assign, i, b);
        changed++;
      }
    }
    if (changed == 0) break;
    memory.copy(oldC, C, <usize>k * 24);
    let max1 = 0.0, max2 = 0.0;
    let arg1 = -1;
    for (let j = 0; j < k; j++) {
      centerFromSum(j);
      const p = oldC + <usize>j * 24, c = C + <usize>j * 24;
      const dx = load<f64>(p) - load<f64>(c), dy = load<f64>(p, 8) - load<f64>(c, 8), dz = load<f64>(p, 16) - load<f64>(c, 16);
      const mv = Math.sqrt(dx * dx + dy * dy + dz * dz);
      stf(moved, j, mv);
      if (mv > max1) { max2 = max1; max1 = mv; arg1 = j; } else if (mv > max2) max2 = mv;
    }
    for (let i = 0; i < n; i++) {
      const a = ldi(assign, i);
      stf(upper, i, ldf(upper, i) + ldf(moved, a));
      stf(lower, i, ldf(lower, i) - (a == arg1 ? max2 : max1));
    }
  }
}

@inline function centerD2(a: i32, b: i32): f64 {
  const p = C + <usize>a * 24, q = C + <usize>b * 24;
  const dx = load<f64>(p) - load<f64>(q), dy = load<f64>(p, 8) - load<f64>(q, 8), dz = load<f64>(p, 16) - load<f64>(q, 16);
  return dx * dx + dy * dy + dz * dz;
}

// ---- Hartigan: move single points while that lowers the sum of squares, centers updated at once ----
// Removing i from a saves na/(na−1)·d²(i,a); adding it to b costs nb/(nb+1)·d²(i,b). `lower` holds a lower
// bound on the distance from i to every center but its own (from Lloyd, then from full scans), reduced by
// how far any center has drifted since; a point whose bound already rules out every move is skipped.

let drift: usize = 0; // k: how far each center moved during the current pass
let joinW: usize = 0; // k
let leaveW: usize = 0; // k
let sinceSort: usize = 0; // k: how far each center moved since the neighbour lists were made

function minCount(): i32 {
  let m = n;
  for (let j = 0; j < k; j++) m = min(m, ldi(cnt, j));
  return m;
}

let nbrIdx: usize = 0; // k×M i32: for each center, its M nearest others by distance when listed
let nbrDist: usize = 0; // k×M f64
let M: i32 = 0;

const MAX_NEIGHBOURS: i32 = 24;

/** Lists each center's M nearest other centers, nearest first (insertion into a short sorted buffer). */
function listNeighbours(): void {
  for (let a = 0; a < k; a++) {
    const idx = nbrIdx + (<usize>(a * M) << 2);
    const dst = nbrDist + (<usize>(a * M) << 3);
    let m = 0;
    for (let b = 0; b < k; b++) {
      if (b == a) continue;
      const d = centerD2(a, b);
      if (m == M && d >= ldf(dst, M - 1)) continue;
      let y = m < M ? m++ : M - 1;
      while (y > 0 && ldf(dst, y - 1) > d) {
        stf(dst, y, ldf(dst, y - 1));
        sti(idx, y, ldi(idx, y - 1));
        y--;
      }
      stf(dst, y, d);
      sti(idx, y, b);
    }
    for (let y = 0; y < M; y++) stf(dst, y, Math.sqrt(ldf(dst, y)));
  }
}

/** Adding a point to j costs joinW·d², removing one from j saves leaveW·d² (Hartigan's factors). */
function setWeight(j: i32): void {
  const m = <f64>ldi(cnt, j);
  stf(joinW, j, m / (m + 1.0));
  stf(leaveW, j, m > 1.0 ? m / (m - 1.0) : INF);
}

function hartigan(): void {
  recomputeSums();
  for (let j = 0; j < k; j++) centerFromSum(j);
  // Recomputing the centers from scratch can shift them by rounding; keep the bounds safely below.
  for (let i = 0; i < n; i++) stf(lower, i, ldf(lower, i) * (1.0 - 1e-9) - 1e-6);
  let smallest = minCount();
  for (let j = 0; j < k; j++) setWeight(j);
  // The neighbour lists are rebuilt only once the centers have drifted noticeably since they were sorted.
  let listDrift = INF;
  let listLimit = 0.0;
  for (let pass = 0; pass < MAX_HARTIGAN_PASSES; pass++) {
    let movedAny = 0;
    let maxDrift = 0.0;
    memory.fill(drift, 0, <usize>k << 3);
    if (listDrift > listLimit) {
      listNeighbours();
      memory.fill(sinceSort, 0, <usize>k << 3);
      listDrift = 0.0;
      let spacing = 0.0;
      for (let a = 0; a < k; a++) spacing += ldf(nbrDist, a * M);
      listLimit = 1.0 * spacing / <f64>k;
    }
    for (let i = 0; i < n; i++) {
      const a = ldi(assign, i);
      const na = ldi(cnt, a);
      if (na <= 1) continue;
      const da = d2(i, C, a);
      const stay = da * ldf(leaveW, a);
      const w = <f64>smallest / <f64>(smallest + 1);
      const bound = ldf(lower, i) - maxDrift;
      if (bound > 0.0 && bound * bound * w >= stay) continue;
      // A center b is worth a look only while d(b) could still beat the best: d(b) ≥ |ab| − 2·drift − d(a).
      const rootA = Math.sqrt(da);
      // A move must gain more than rounding noise: stops at one position stay together.
      let best = stay * (1.0 - 1e-12) - MIN_GAIN;
      let bj = -1;
      let nearestOther = INF;
      let unseen = INF;
      const idx = nbrIdx + (<usize>(a * M) << 2);
      const dst = nbrDist + (<usize>(a * M) << 3);
      let m = 0;
      for (; m < M; m++) {
        const far = ldf(dst, m) - 2.0 * listDrift - rootA;
        if (w > 0.0 && far > 0.0 && far * far * w >= best) { unseen = far; break; }
        const j = ldi(idx, m);
        const d = d2(i, C, j);
        nearestOther = Math.min(nearestOther, d);
        const cost = d * ldf(joinW, j);
        if (cost < best) { best = cost; bj = j; }
      }
      if (m == M && M < k - 1) {
        // The list ran out before ruling the rest out: look at every center.
        for (let j = 0; j < k; j++) {
          if (j == a) continue;
          const d = d2(i, C, j);
          nearestOther = Math.min(nearestOther, d);
          const cost = d * ldf(joinW, j);
          if (cost < best) { best = cost; bj = j; }
        }
      }
      if (bj < 0) {
        stf(lower, i, Math.min(Math.sqrt(nearestOther), unseen));
        continue;
      }
      const nb = ldi(cnt, bj);
      const shiftA = rootA / <f64>(na - 1);
      const shiftB = Math.sqrt(d2(i, C, bj)) / <f64>(nb + 1);
      addTo(a, i, -1.0);
      addTo(bj, i, 1.0);
      centerFromSum(a);
      centerFromSum(bj);
      sti(assign, i, bj);
      setWeight(a);
      setWeight(bj);
      stf(lower, i, 0.0);
      stf(drift, a, ldf(drift, a) + shiftA);
      stf(drift, bj, ldf(drift, bj) + shiftB);
      maxDrift = Math.max(maxDrift, Math.max(ldf(drift, a), ldf(drift, bj)));
      stf(sinceSort, a, ldf(sinceSort, a) + shiftA);
      stf(sinceSort, bj, ldf(sinceSort, bj) + shiftB);
      listDrift = Math.max(listDrift, Math.max(ldf(sinceSort, a), ldf(sinceSort, bj)));
      smallest = minCount();
      movedAny++;
    }
    if (movedAny == 0) break;
    for (let i = 0; i < n; i++) stf(lower, i, ldf(lower, i) - maxDrift);
  }
  recomputeSums();
  for (let j = 0; j < k; j++) centerFromSum(j);
}

// ---- capacitated assignment: successive shortest paths over the cluster graph ----
// Arc u→v costs the cheapest move of one member of u into v: min over i in u of D[i][v] − D[i][u].
// Potentials keep every reduced cost non-negative, so each search is a dense Dijkstra on k nodes. Prices
// (negated potentials) carry over between rounds: the points' preferred clusters under the last prices
// are already nearly feasible, so few paths are needed once the centers settle.

let Dm: usize = 0; // n×k squared distances
let arc: usize = 0; // k×k f64
let arcPt: usize = 0; // k×k i32
let next: usize = 0; // n: member lists
let prev: usize = 0;
let head: usize = 0; // k
let pot: usize = 0; // k
let dist: usize = 0; // k
let pred: usize = 0; // k i32
let done: usize = 0; // k i32
let open: usize = 0; // k i32: the nodes a search has not settled yet
let price: usize = 0; // k
let bareAssign: usize = 0; // n: the assignment without prices
let bareCnt: usize = 0; // k
let target: usize = 0; // k i32
let order: usize = 0; // k i32
let prevAssign: usize = 0;
let capAssign: usize = 0; // the best capacitated result over the starts
let capC: usize = 0;
let capPrice: usize = 0;

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

function buildLists(): void {
  memory.fill(cnt, 0, <usize>k << 2);
  for (let j = 0; j < k; j++) sti(head, j, -1);
  for (let i = n - 1; i >= 0; i--) link(i, ldi(assign, i));
}

function arcRow(u: i32): void {
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
function assignByPrice(bare: bool): void {
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

let phaseMode: i32 = 0;
let phaseCap: i32 = 0;
let phaseQ: i32 = 0;

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

let pathPt: usize = 0; // k i32: the point moved along each arc of a path
let pathTo: usize = 0; // k i32
let stale: usize = 0; // k i32: arc entries whose cheapest member just left

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
function repair(): void {
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

let mark: usize = 0; // k i32: 0 unseen, 1 on the search stack, 2 leads nowhere
let scanPos: usize = 0; // k i32
let stack: usize = 0; // k i32

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
function improve(): void {
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

/** Balanced targets: the r clusters the priced assignment fills most get the extra stop. */
function chooseTargets(q: i32, r: i32): void {
  for (let j = 0; j < k; j++) sti(order, j, j);
  for (let a = 1; a < k; a++) {
    const x = ldi(order, a);
    let b = a - 1;
    while (b >= 0 && ldi(cnt, ldi(order, b)) < ldi(cnt, x)) { sti(order, b + 1, ldi(order, b)); b--; }
    sti(order, b + 1, x);
  }
  for (let a = 0; a < k; a++) sti(target, ldi(order, a), a < r ? q + 1 : q);
}

/** Stops that must move under the current assignment: above the limit (capped) or above ceil(n/k). */
function overfill(counts: usize): i32 {
  let over = 0;
  for (let j = 0; j < k; j++) {
    const c = ldi(counts, j);
    over += max(0, c - (phaseMode == MODE_CAPPED ? phaseCap : phaseQ + 1));
  }
  return over;
}

/**
 * Alternates the exact capacitated assignment with moving the centers to their members' means, until the
 * assignment repeats or a round lowers the sum of squares by less than the fraction `tol`. `warm` starts
 * from the prices left in `price` by an earlier run on nearby centers.
 */
function capacitated(mode: i32, cap: i32, tol: f64, warm: bool): void {
  const q = n / k, r = n % k;
  phaseMode = mode;
  phaseCap = cap;
  phaseQ = q;
  if (!warm) memory.fill(price, 0, <usize>k << 3);
  let bestSse = INF;
  for (let outer = 0; outer < MAX_OUTER; outer++) {
    // The last round's prices usually leave little to repair, but not after a large move of the centers:
    // start from whichever of them and no prices overfills the clusters less.
    const compare = outer > 0 || warm;
    assignByPrice(compare);
    if (compare) {
      const withPrices = overfill(cnt);
      if (overfill(bareCnt) < withPrices) {
        memory.fill(price, 0, <usize>k << 3);
        memory.copy(assign, bareAssign, <usize>n << 2);
        memory.copy(cnt, bareCnt, <usize>k << 2);
      }
    }
    for (let j = 0; j < k; j++) stf(pot, j, -ldf(price, j));
    if (mode == MODE_BALANCED) chooseTargets(q, r);
    buildLists();
    for (let j = 0; j < k; j++) arcRow(j);
    repair();
    if (mode == MODE_CAPPED || r > 0) improve();
    let top = -INF;
    for (let j = 0; j < k; j++) top = Math.max(top, ldf(pot, j));
    for (let j = 0; j < k; j++) stf(price, j, top - ldf(pot, j));

    recomputeSums();
    for (let j = 0; j < k; j++) centerFromSum(j);
    const s = sse();
    let same = outer > 0;
    for (let i = 0; i < n && same; i++) if (ldi(assign, i) != ldi(prevAssign, i)) same = false;
    if (same || !(s < bestSse * (1.0 - tol))) {
      if (s > bestSse) {
        memory.copy(assign, prevAssign, <usize>n << 2);
        recomputeSums();
        for (let j = 0; j < k; j++) centerFromSum(j);
      }
      return;
    }
    bestSse = s;
    memory.copy(prevAssign, assign, <usize>n << 2);
  }
}

// ---- balanced starts: recursive coordinate bisection ----
// Cut the points along the wider of two perpendicular directions at the count-weighted median, recursively,
// into k parts of floor/ceil(n/k) points. The parts' means are compact, evenly filled start centers for
// the capacitated rounds, far closer to balanced than the centers of plain k-means.

let keys: usize = 0; // n f64
let perm: usize = 0; // n i32
let axisU: usize = 0; // 2×3 f64: the plane of the points (first two principal axes)

/** The two leading principal axes of the centered points, by power iteration on the 3×3 scatter. */
function principalPlane(): void {
  let sxx = 0.0, sxy = 0.0, sxz = 0.0, syy = 0.0, syz = 0.0, szz = 0.0;
  for (let i = 0; i < n; i++) {
    const p = X + <usize>i * 24;
    const x = load<f64>(p), y = load<f64>(p, 8), z = load<f64>(p, 16);
    sxx += x * x; sxy += x * y; sxz += x * z; syy += y * y; syz += y * z; szz += z * z;
  }
  for (let a = 0; a < 2; a++) {
    // Start off any axis found before; deflate by projecting it out each step.
    let vx = a == 0 ? 0.6 : -0.48, vy = a == 0 ? 0.48 : 0.6, vz = a == 0 ? 0.64 : 0.0;
    for (let it = 0; it < 60; it++) {
      let wx = sxx * vx + sxy * vy + sxz * vz;
      let wy = sxy * vx + syy * vy + syz * vz;
      let wz = sxz * vx + syz * vy + szz * vz;
      if (a == 1) {
        const ux = load<f64>(axisU), uy = load<f64>(axisU, 8), uz = load<f64>(axisU, 16);
        const dot = wx * ux + wy * uy + wz * uz;
        wx -= dot * ux; wy -= dot * uy; wz -= dot * uz;
      }
      const len = Math.sqrt(wx * wx + wy * wy + wz * wz);
      if (!(len > 0.0)) break;
      vx = wx / len; vy = wy / len; vz = wz / len;
    }
    const o = axisU + <usize>a * 24;
    store<f64>(o, vx); store<f64>(o, vy, 8); store<f64>(o, vz, 16);
  }
}

@inline function along(i: i32, dx: f64, dy: f64, dz: f64): f64 {
  const p = X + <usize>i * 24;
  return load<f64>(p) * dx + load<f64>(p, 8) * dy + load<f64>(p, 16) * dz;
}

/** Reorders perm[lo, hi) so that the m-th smallest key is at m, smaller keys before it, larger after. */
function select(lo: i32, hi: i32, m: i32): void {
  let l = lo, h = hi - 1;
  while (l < h) {
    const mid = l + ((h - l) >> 1);
    // Median of three as the pivot keeps sorted runs from degrading the selection.
    const a = ldf(keys, ldi(perm, l)), b = ldf(keys, ldi(perm, mid)), c = ldf(keys, ldi(perm, h));
    const pivot = a < b ? (b < c ? b : a < c ? c : a) : (a < c ? a : b < c ? c : b);
    let i = l, j = h;
    while (i <= j) {
      while (ldf(keys, ldi(perm, i)) < pivot) i++;
      while (ldf(keys, ldi(perm, j)) > pivot) j--;
      if (i <= j) {
        const t = ldi(perm, i);
        sti(perm, i, ldi(perm, j));
        sti(perm, j, t);
        i++;
        j--;
      }
    }
    if (m <= j) h = j;
    else if (m >= i) l = i;
    else return;
  }
}

let nextLabel: i32 = 0;

function bisect(lo: i32, hi: i32, parts: i32, dx: f64, dy: f64, dz: f64, ex: f64, ey: f64, ez: f64): void {
  if (parts == 1) {
    for (let a = lo; a < hi; a++) sti(assign, ldi(perm, a), nextLabel);
    nextLabel++;
    return;
  }
  let dMin = INF, dMax = -INF, eMin = INF, eMax = -INF;
  for (let a = lo; a < hi; a++) {
    const i = ldi(perm, a);
    const d = along(i, dx, dy, dz), e = along(i, ex, ey, ez);
    dMin = Math.min(dMin, d); dMax = Math.max(dMax, d);
    eMin = Math.min(eMin, e); eMax = Math.max(eMax, e);
  }
  const useD = dMax - dMin >= eMax - eMin;
  for (let a = lo; a < hi; a++) {
    const i = ldi(perm, a);
    stf(keys, i, useD ? along(i, dx, dy, dz) : along(i, ex, ey, ez));
  }
  const left = parts >> 1;
  const cut = lo + <i32>Math.round(<f64>(hi - lo) * <f64>left / <f64>parts);
  select(lo, hi, cut);
  bisect(lo, cut, left, dx, dy, dz, ex, ey, ez);
  bisect(cut, hi, parts - left, dx, dy, dz, ex, ey, ez);
}

/** Labels the points with a bisection whose cut directions are the principal plane turned by `angle`. */
function bisectionStart(angle: f64): void {
  const c = Math.cos(angle), s = Math.sin(angle);
  const ux = load<f64>(axisU), uy = load<f64>(axisU, 8), uz = load<f64>(axisU, 16);
  const vx = load<f64>(axisU, 24), vy = load<f64>(axisU, 32), vz = load<f64>(axisU, 40);
  for (let i = 0; i < n; i++) sti(perm, i, i);
  nextLabel = 0;
  bisect(0, n, k,
    c * ux + s * vx, c * uy + s * vy, c * uz + s * vz,
    c * vx - s * ux, c * vy - s * uy, c * vz - s * uz);
  recomputeSums();
  for (let j = 0; j < k; j++) centerFromSum(j);
}

// ---- entry point ----

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
