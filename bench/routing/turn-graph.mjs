// What turn costs would cost the map build (issue 31, point 3): the car graph of a built map contracted
// as it is (node-based, what the map holds) and as OSRM's edge-based graph (a node per search edge, an edge
// per allowed turn, each turn priced as OSRM 6.0.0's car.lua prices it), by the same contraction kernel, one
// after the other in this process. Turn prices: `turn_penalty` 7.5 s through car.lua's sigmoid of the angle
// with `turn_bias` 1.075 (left turns dearer), only where more than two roads meet, and U-turns only at dead
// ends (+ `u_turn_penalty` 20 s); angles from the map's shapes (first and last segment of each piece of
// way). Restrictions are already node copies in the search graph, so its turns keep them. Reports the
// graphs' sizes, the contraction time (wall and CPU), the hierarchy's edges and the bytes the map would
// hold for it (4 × 8 bytes per hierarchy edge: head/tail, weight, cm, unpacking pair; + 8 per node), and
// the process's peak RSS (VmHWM). Nothing is written into the map. Writes bench/results/turn-graph-<label>.json.
//   node bench/routing/turn-graph.mjs --map DIR [--profile driving-car] [--label NAME] [--skip-node]
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { contractGraph } from '../../dist/map/graphs/contraction.js';
import { readGraphFiles, readManifest, readShapeFiles } from '../../dist/map/map-dir.js';
import { stats } from '../scale/lib.mjs';

const { values: opt } = parseArgs({
  options: {
    map: { type: 'string' },
    profile: { type: 'string', default: 'driving-car' },
    label: { type: 'string', default: 'map' },
    'skip-node': { type: 'boolean', default: false },
  },
});
if (!opt.map) throw new Error('usage: --map DIR [--profile driving-car] [--label NAME] (see the head of this file)');
const here = resolve(import.meta.dirname, '../..');
const log = (m) => process.stderr.write(`[turn-graph] ${m}\n`);

const TURN_PENALTY_S = 7.5;
const TURN_BIAS = 1.075;
const U_TURN_PENALTY_S = 20;

/** car.lua's turn function (OSRM 6.0.0): seconds for a turn of `angle` degrees (positive = right). */
function turnSeconds(angle, roads, uTurn) {
  let s = 0;
  if (roads > 2 || uTurn) {
    s =
      angle >= 0
        ? TURN_PENALTY_S / (1 + Math.exp(-(((13 / TURN_BIAS) * angle) / 180 - 6.5 * TURN_BIAS)))
        : TURN_PENALTY_S / (1 + Math.exp(-((13 * TURN_BIAS * -angle) / 180 - 6.5 / TURN_BIAS)));
    if (uTurn) s += U_TURN_PENALTY_S;
  }
  return s;
}

const manifest = await readManifest(opt.map);
const meta = manifest.profiles[opt.profile];
if (!meta) throw new Error(`no ${opt.profile} graph in ${opt.map}`);
let t = performance.now();
const shapes = await readShapeFiles(opt.map);
const g = await readGraphFiles(opt.map, opt.profile, meta, shapes);
log(`read ${opt.profile}: ${g.nodeCount} nodes, ${g.edgeCount} edges in ${((performance.now() - t) / 1000).toFixed(1)} s`);

// Bearings (degrees clockwise from north) of each directed original edge where it starts and where it ends.
const P = shapes.pointsE7;
const bearing = (i, j) => {
  const lat = P[2 * i] * 1e-7;
  const dy = (P[2 * j] - P[2 * i]) * 1e-7;
  const dx = (P[2 * j + 1] - P[2 * i + 1]) * 1e-7 * Math.cos((lat * Math.PI) / 180);
  return ((Math.atan2(dx, dy) * 180) / Math.PI + 360) % 360;
};
const G = g.geomCount;
const startB = new Float32Array(2 * G);
const endB = new Float32Array(2 * G);
for (let q = 0; q < G; q++) {
  const a = g.geomFirst[q];
  const b = g.geomLast[q];
  startB[2 * q] = bearing(a, a + 1);
  endB[2 * q] = bearing(b - 1, b);
  startB[2 * q + 1] = bearing(b, b - 1);
  endB[2 * q + 1] = bearing(a + 1, a);
}
// Roads meeting at each search node: the distinct geometries of its edges in and out.
const N = g.nodeCount;
const E = g.edgeCount;
const roads = new Uint8Array(N);
{
  const seen = new Set();
  const inFirst = new Uint32Array(N + 1);
  for (let e = 0; e < E; e++) inFirst[g.head[e] + 1]++;
  for (let v = 0; v < N; v++) inFirst[v + 1] += inFirst[v];
  const inGeom = new Uint32Array(E);
  const fill = inFirst.slice(0, N);
  for (let e = 0; e < E; e++) inGeom[fill[g.head[e]]++] = g.orig[e] >> 1;
  for (let v = 0; v < N; v++) {
    seen.clear();
    for (let e = g.firstOut[v]; e < g.firstOut[v + 1]; e++) seen.add(g.orig[e] >> 1);
    for (let i = inFirst[v]; i < inFirst[v + 1]; i++) seen.add(inGeom[i]);
    roads[v] = Math.min(255, seen.size);
  }
}

// The edge-based graph: node s = search edge e (u → v); an edge s → f for each f leaving v that is not a
// turn back onto e's way (unless v is a dead end), weighing f's duration plus the turn's price.
t = performance.now();
const firstOutX = new Uint32Array(E + 1);
for (let e = 0; e < E; e++) {
  const v = g.head[e];
  const out = g.firstOut[v + 1] - g.firstOut[v];
  let n = 0;
  for (let f = g.firstOut[v]; f < g.firstOut[v + 1]; f++) if (g.orig[f] !== (g.orig[e] ^ 1) || out === 1) n++;
  firstOutX[e + 1] = firstOutX[e] + n;
}
const T = firstOutX[E];
const headX = new Uint32Array(T);
const weightX = new Uint32Array(T);
const origX = new Uint32Array(T);
let uTurns = 0;
let priced = 0;
for (let e = 0; e < E; e++) {
  const v = g.head[e];
  const out = g.firstOut[v + 1] - g.firstOut[v];
  let k = firstOutX[e];
  for (let f = g.firstOut[v]; f < g.firstOut[v + 1]; f++) {
    const uTurn = g.orig[f] === (g.orig[e] ^ 1);
    if (uTurn && out !== 1) continue;
    let angle = startB[g.orig[f]] - endB[g.orig[e]];
    angle = ((angle + 540) % 360) - 180;
    const add = Math.round(10 * turnSeconds(angle, roads[v], uTurn));
    if (uTurn) uTurns++;
    if (add > 0) priced++;
    headX[k] = f;
    weightX[k] = g.weight[f] + add;
    origX[k] = g.orig[f];
    k++;
  }
}
const expandMs = performance.now() - t;
log(`edge-based graph: ${E} nodes, ${T} turns (${uTurns} U-turns at dead ends, ${priced} priced) in ${(expandMs / 1000).toFixed(1)} s`);

/** Contracts in this thread (the kernel's own instance), timing the wall and this process's CPU. */
function contract(name, input) {
  log(`contracting the ${name} graph: ${input.nodeCount} nodes, ${input.edgeCount} edges`);
  const wall = performance.now();
  const cpu = process.cpuUsage();
  let last = 0;
  let contracted = 0;
  let ch;
  try {
    ch = contractGraph(input, input, (done, total) => {
      contracted = done;
      if (performance.now() - last > 10_000) {
        last = performance.now();
        log(`  ${name}: ${done} of ${total} nodes contracted (${((performance.now() - wall) / 1000).toFixed(0)} s)`);
      }
    });
  } catch (err) {
    // The kernel traps when its memory (wasm32: at most 4 GiB) cannot hold the shortcuts it makes.
    const failed = {
      nodes: input.nodeCount,
      edges: input.edgeCount,
      failed: String(err),
      contracted_before: contracted,
      after_s: +((performance.now() - wall) / 1000).toFixed(1),
    };
    log(`  ${name}: ${JSON.stringify(failed)}`);
    return failed;
  }
  const used = process.cpuUsage(cpu);
  const K = ch.chA.length;
  const result = {
    nodes: input.nodeCount,
    edges: input.edgeCount,
    contraction_wall_s: +((performance.now() - wall) / 1000).toFixed(1),
    contraction_cpu_s: +((used.user + used.system) / 1e6).toFixed(1),
    hierarchy_edges: K,
    hierarchy_edges_per_node: +(K / input.nodeCount).toFixed(2),
    hierarchy_bytes: 32 * K + 8 * (input.nodeCount + 1),
    graph_bytes: 12 * input.edgeCount + 4 * (input.nodeCount + 1),
    // The kernel's memory at the end (what it grew to: it never shrinks) and how often its lists ran out of room.
    kernel_bytes: ch.kernelBytes,
    list_compactions: ch.listCompactions,
  };
  log(`  ${name}: ${JSON.stringify(result)}`);
  hierarchies[name] = ch;
  return result;
}
const hierarchies = {};

/** A binary min-heap of (key, item). */
class Heap {
  keys = [];
  items = [];
  push(k, x) {
    const K = this.keys,
      I = this.items;
    let i = K.length;
    K.push(k);
    I.push(x);
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (K[p] <= k) break;
      K[i] = K[p];
      I[i] = I[p];
      i = p;
    }
    K[i] = k;
    I[i] = x;
  }
  pop() {
    const K = this.keys,
      I = this.items;
    const x = I[0];
    const k = K.pop(),
      y = I.pop();
    if (K.length) {
      let i = 0;
      for (;;) {
        let c = 2 * i + 1;
        if (c >= K.length) break;
        if (c + 1 < K.length && K[c + 1] < K[c]) c++;
        if (K[c] >= k) break;
        K[i] = K[c];
        I[i] = I[c];
        i = c;
      }
      K[i] = k;
      I[i] = y;
    }
    return x;
  }
  get size() {
    return this.keys.length;
  }
}

/** A bidirectional CH query (upward from the sources, downward into the targets, no stalling) over `ch`,
 *  labels in distF/distB (one per node): the best cost and the nodes settled. Sources and targets are [node, cost] pairs. */
function chQuery(ch, sources, targets, distF, distB) {
  // One side per direction: upward edges from the sources, downward edges (read at their lower end) into the targets.
  const sides = [
    { dist: distF, heap: new Heap(), first: ch.upFirst, next: ch.upHead, weight: ch.upWeight },
    { dist: distB, heap: new Heap(), first: ch.dnFirst, next: ch.dnTail, weight: ch.dnWeight },
  ];
  const reach = (side, v, c) => {
    if (c < side.dist[v]) {
      side.dist[v] = c;
      side.heap.push(c, v);
    }
  };
  for (const [i, seeds] of [sources, targets].entries()) {
    sides[i].dist.fill(Infinity);
    for (const [v, c] of seeds) reach(sides[i], v, c);
  }
  const [f, b] = sides;
  let best = Infinity,
    settled = 0;
  while (f.heap.size || b.heap.size) {
    const side = b.heap.size === 0 || (f.heap.size > 0 && f.heap.keys[0] <= b.heap.keys[0]) ? f : b;
    const h = side.heap;
    if (h.keys[0] >= best) {
      h.keys.length = h.items.length = 0;
      continue;
    }
    const k = h.keys[0];
    const v = h.pop();
    if (k > side.dist[v]) continue;
    settled++;
    const other = side === f ? b : f;
    if (other.dist[v] + k < best) best = other.dist[v] + k;
    for (let e = side.first[v]; e < side.first[v + 1]; e++) reach(side, side.next[e], k + side.weight[e]);
  }
  return { best, settled };
}

const result = {
  map: opt.map,
  label: opt.label,
  profile: opt.profile,
  started_at: new Date().toISOString(),
  machine: { cpu: cpus()[0]?.model, cores: cpus().length, memory_bytes: totalmem(), node: process.version, load_start: loadavg() },
  method:
    "the map's search graph contracted by the map build's kernel (contractGraph, one thread) as it is and as an edge-based graph of the same roads (a node per search edge, an edge per allowed turn: U-turns only at dead ends; car.lua 6.0.0's turn_penalty 7.5 s, turn_bias 1.075, u_turn_penalty 20 s, priced where more than two roads meet); traffic signals not priced",
  turns: { expand_s: +(expandMs / 1000).toFixed(1), u_turns_at_dead_ends: uTurns, priced_turns: priced },
  node_based: opt['skip-node']
    ? null
    : contract('node-based', { nodeCount: N, edgeCount: E, firstOut: g.firstOut, head: g.head, weight: g.weight, orig: g.orig, geomCm: g.geomCm }),
  edge_based: contract('edge-based', { nodeCount: E, edgeCount: T, firstOut: firstOutX, head: headX, weight: weightX, orig: origX, geomCm: g.geomCm }),
};
// The process's high-water mark (the contractions run synchronously: no sampler would see them).
result.peak_rss_bytes = 1024 * Number(readFileSync('/proc/self/status', 'utf8').match(/VmHWM:\s+(\d+)/)[1]);
// The same pairs of graph nodes asked of both hierarchies by the same JS query: from node s (the
// edge-based graph: every edge leaving s, at its cost) to node t (every edge arriving at t).
if (result.node_based && !result.edge_based.failed) {
  const PAIRS = 300;
  let seed = 12345;
  const rand = () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
  const pairs = [];
  while (pairs.length < PAIRS) {
    const s = Math.floor(rand() * N),
      t = Math.floor(rand() * N);
    if (s !== t && g.firstOut[s + 1] > g.firstOut[s] && g.mainNet[s] && g.mainNet[t]) pairs.push([s, t]);
  }
  const inEdges = new Map();
  for (const [, t] of pairs) inEdges.set(t, []);
  for (let e = 0; e < E; e++) inEdges.get(g.head[e])?.push(e);
  const fN = new Float64Array(N),
    bN = new Float64Array(N),
    fE = new Float64Array(E),
    bE = new Float64Array(E);
  const rows = { node_based: [], edge_based: [] };
  let cheaper = 0,
    connected = 0;
  for (const [s, t] of pairs) {
    let w = performance.now();
    const a = chQuery(hierarchies['node-based'], [[s, 0]], [[t, 0]], fN, bN);
    rows.node_based.push({ ms: performance.now() - w, settled: a.settled });
    const sources = [];
    for (let e = g.firstOut[s]; e < g.firstOut[s + 1]; e++) sources.push([e, g.weight[e]]);
    w = performance.now();
    const b = chQuery(
      hierarchies['edge-based'],
      sources,
      inEdges.get(t).map((e) => [e, 0]),
      fE,
      bE,
    );
    rows.edge_based.push({ ms: performance.now() - w, settled: b.settled });
    if (Number.isFinite(a.best) && Number.isFinite(b.best)) {
      connected++;
      if (b.best < a.best) cheaper++;
    }
  }
  const summary = (r) => ({ ms: stats(r.map((x) => x.ms)), settled: stats(r.map((x) => x.settled)) });
  result.queries = {
    pairs: PAIRS,
    how: 'random pairs of main-network graph nodes; a bidirectional CH search in JS without stalling, the same code over both hierarchies',
    node_based: summary(rows.node_based),
    edge_based: summary(rows.edge_based),
    both_connected: connected,
    edge_based_cheaper_than_node_based: cheaper,
  };
  result.ratio ??= {};
  result.ratio.query_settled_p50 = +(result.queries.edge_based.settled.p50 / result.queries.node_based.settled.p50).toFixed(2);
  result.ratio.query_ms_p50 = +(result.queries.edge_based.ms.p50 / result.queries.node_based.ms.p50).toFixed(2);
  log(`queries: ${JSON.stringify(result.queries)}`);
}
result.machine.load_end = loadavg();
if (result.node_based && !result.edge_based.failed) {
  result.ratio = {
    ...result.ratio,
    nodes: +(result.edge_based.nodes / result.node_based.nodes).toFixed(2),
    contraction_cpu: +(result.edge_based.contraction_cpu_s / result.node_based.contraction_cpu_s).toFixed(2),
    hierarchy_bytes: +(result.edge_based.hierarchy_bytes / result.node_based.hierarchy_bytes).toFixed(2),
  };
}
console.log(JSON.stringify(result, null, 2));
mkdirSync(join(here, 'bench/results'), { recursive: true });
writeFileSync(join(here, `bench/results/turn-graph-${opt.label}.json`), `${JSON.stringify(result, null, 2)}\n`);
