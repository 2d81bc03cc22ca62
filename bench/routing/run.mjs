// Routing benchmark: map build, query latencies (engine in-process and through the worker pool), worker
// memory, pgRouting side by side on the same edge table, and synthetic grid graphs of growing size.
// Run `npm run build` first. Figures are noisy: the machine has 2 cores shared with other work.
// Usage: node bench/routing/run.mjs [--quick] [--sizes=10000,100000,1000000] [--no-pg]
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { buildMap, DEFAULT_EXTRACT } from '../../dist/map/build.js';
import { assembleGraph } from '../../dist/map/graphs/graph-assemble.js';
import { addHierarchy } from '../../dist/map/graphs/contraction.js';
import { readGraphFiles, readShapeFiles } from '../../dist/map/map-dir.js';
import { shapesOf } from '../../dist/map/graphs/shapes.js';
import { nodePositionsE7, toDegrees } from '../../dist/map/graphs/road-graph.js';
import { GRAPH_ARRAYS } from '../../dist/map/graphs/road-graph.js';
import { PROFILES } from '../../dist/map/graphs/profiles.js';
import { placeGraphs } from '../../dist/engine/graph-memory.js';
import { RouteCore } from '../../dist/engine/route-core.js';
import { avoidSelectionBox, withinRadiusOfAny } from '../../dist/engine/avoid-area.js';
import { closePool } from '../../dist/compute/pool.js';
import { loadMap, matrix as poolMatrix, route as poolRoute } from '../../dist/engine/engine.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const args = process.argv.slice(2);
const quick = args.includes('--quick');
const noPg = args.includes('--no-pg');
const sizes = (args.find((a) => a.startsWith('--sizes='))?.slice(8) ?? '10000,100000,1000000').split(',').filter(Boolean).map(Number);
const N = (full) => (quick ? Math.max(5, Math.round(full / 10)) : full);
const log = (...a) => console.log(...a);

// ---- helpers ---------------------------------------------------------------------------------------------
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = rng(2024);
function stats(ms) {
  const s = [...ms].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return {
    n: s.length,
    p50: +q(0.5).toFixed(3),
    p95: +q(0.95).toFixed(3),
    max: +s[s.length - 1].toFixed(3),
    mean: +(s.reduce((a, b) => a + b, 0) / s.length).toFixed(3),
  };
}
/** Main-network nodes (edges in and out) at a position no other node shares (no restriction copies). */
function plainNodes(g) {
  const seen = new Map();
  const key = (v) => `${g.nodeCoords[2 * v]},${g.nodeCoords[2 * v + 1]}`;
  for (let v = 0; v < g.nodeCount; v++) seen.set(key(v), (seen.get(key(v)) ?? 0) + 1);
  const out = [];
  for (let v = 0; v < g.nodeCount; v++) if (seen.get(key(v)) === 1 && g.mainNet[v] === 1) out.push(v);
  // In order of position, so that the picked points do not depend on how the build numbers the nodes.
  return out.sort((a, b) => g.nodeCoords[2 * a] - g.nodeCoords[2 * b] || g.nodeCoords[2 * a + 1] - g.nodeCoords[2 * b + 1]);
}
const at = (g, v, jitter = 0) => ({ lat: g.nodeCoords[2 * v] + jitter * (rand() - 0.5), lon: g.nodeCoords[2 * v + 1] + jitter * (rand() - 0.5) });
const pick = (arr) => arr[Math.floor(rand() * arr.length)];

function circlesAround(waypoints, count, radius) {
  const positions = waypoints.map((p) => ({ latitude: p.lat, longitude: p.lon }));
  // Inside the box in which the API looks for POIs to avoid, none over a waypoint.
  const { west: w, south: s, east: e, north: n } = avoidSelectionBox(positions);
  const circles = [];
  while (circles.length < count) {
    const c = { lat: s + rand() * (n - s), lon: w + rand() * (e - w), radius };
    if (!withinRadiusOfAny({ latitude: c.lat, longitude: c.lon }, positions, radius + 5)) circles.push(c);
  }
  return circles;
}

/** Times a query list; failures (blocked/unreachable/too far) are counted, not timed out. */
function timeQueries(fn, queries) {
  const ms = [];
  const outcomes = {};
  for (const q of queries) {
    const t = performance.now();
    const r = fn(q);
    ms.push(performance.now() - t);
    const k = r.ok ? 'ok' : r.error.kind === 'no-route' ? r.error.reason : r.error.kind;
    outcomes[k] = (outcomes[k] ?? 0) + 1;
  }
  return { ...stats(ms), outcomes };
}

function querySuite(core, profile, g) {
  const nodes = plainNodes(g);
  const wp = (k) => Array.from({ length: k }, () => at(g, pick(nodes), 0.0004));
  const route = (q) => core.route(q);
  // Warm-up (JIT, WASM tier-up).
  for (let i = 0; i < 50; i++) core.route({ profile, waypoints: wp(2) });
  const out = {};
  out.plain2 = timeQueries(
    route,
    Array.from({ length: N(1000) }, () => ({ profile, waypoints: wp(2) })),
  );
  out.plain10 = timeQueries(
    route,
    Array.from({ length: N(100) }, () => ({ profile, waypoints: wp(10) })),
  );
  out.plain50 = timeQueries(
    route,
    Array.from({ length: N(30) }, () => ({ profile, waypoints: wp(50) })),
  );
  out.avoid50 = timeQueries(
    route,
    Array.from({ length: N(200) }, () => {
      const w = wp(2);
      return { profile, waypoints: w, avoid: { circles: circlesAround(w, 50, 50) } };
    }),
  );
  out.avoid500 = timeQueries(
    route,
    Array.from({ length: N(100) }, () => {
      const w = wp(2);
      return { profile, waypoints: w, avoid: { circles: circlesAround(w, 500, 30) } };
    }),
  );
  out.matrix56 = timeQueries(
    (q) => core.matrix(q),
    Array.from({ length: N(20) }, () => ({ profile, points: wp(56) })),
  );
  return out;
}

// ---- Liechtenstein ------------------------------------------------------------------------------------------
const results = {
  startedAt: new Date().toISOString(),
  note: 'engine times are in-process (RouteCore on the main thread); pool figures add the worker hop. Unblocked queries (plain routes, matrices, the first search of an avoided leg) use the contraction hierarchy; avoidance searches are A* over the graph with the blocked bitset, with potentials from the hierarchy. 2 shared cores: noisy.',
  liechtenstein: {},
  pgrouting: null,
  pool: {},
  synthetic: [],
};
const work = mkdtempSync(join(tmpdir(), 'waymark-bench-'));
const mapDir = join(work, 'map');
log('building the Liechtenstein map ...');
const t0 = performance.now();
const manifest = await buildMap(DEFAULT_EXTRACT, mapDir);
results.liechtenstein.buildMs = Math.round(performance.now() - t0);
results.liechtenstein.mapBytes = Number(execFileSync('du', ['-sb', mapDir]).toString().split('\t')[0]);
log(`  built in ${results.liechtenstein.buildMs} ms, ${(results.liechtenstein.mapBytes / 1e6).toFixed(1)} MB`);

const graphs = {};
// Coordinates in degrees beside the graphs' 1e-7-degree integers, for picking waypoints.
const withDegrees = (g) => Object.assign(g, { nodeCoords: toDegrees(nodePositionsE7(g)) });
const shapes = await readShapeFiles(mapDir);
for (const p of PROFILES) graphs[p] = withDegrees(await readGraphFiles(mapDir, p, manifest.profiles[p], shapes));
const shared = placeGraphs(graphs);
const core = new RouteCore(shared);
results.liechtenstein.sharedMemoryBytes =
  Object.values(shared.profiles).reduce((a, p) => a + p.memory.buffer.byteLength, 0) +
  shared.shapes.pointsE7.byteLength +
  shared.shapes.gridFirst.byteLength +
  shared.shapes.gridItems.byteLength;
results.liechtenstein.profiles = {};
for (const p of PROFILES) {
  const profileBytes = Number(
    execFileSync('du', ['-sb', join(mapDir, p)])
      .toString()
      .split('\t')[0],
  );
  log(`profile ${p}: ${graphs[p].nodeCount} nodes, ${graphs[p].edgeCount} edges`);
  const suite = querySuite(core, p, graphs[p]);
  const meta = manifest.profiles[p];
  results.liechtenstein.profiles[p] = {
    nodes: graphs[p].nodeCount,
    edges: graphs[p].edgeCount,
    hierarchyEdges: meta.hierarchyEdges,
    hierarchyMs: meta.hierarchyMs,
    bytes: profileBytes,
    ...suite,
  };
  log(`  hierarchy: ${meta.hierarchyEdges} edges built in ${meta.hierarchyMs} ms`);
  for (const [k, v] of Object.entries(suite)) log(`  ${k.padEnd(9)} p50 ${v.p50} ms  p95 ${v.p95} ms  (${JSON.stringify(v.outcomes)})`);
}

// ---- pgRouting on the same car edge table -------------------------------------------------------------------
async function pgrouting() {
  const admin = postgres('postgres://postgres@127.0.0.1:5432/postgres', { onnotice: () => {} });
  await admin.unsafe('DROP DATABASE IF EXISTS waymark_bench_routing');
  await admin.unsafe('CREATE DATABASE waymark_bench_routing');
  await admin.end();
  const sql = postgres('postgres://postgres@127.0.0.1:5432/waymark_bench_routing', { onnotice: () => {} });
  try {
    await sql.unsafe('CREATE EXTENSION pgrouting CASCADE');
    const g = graphs['driving-car'];
    await sql.unsafe(
      'CREATE TABLE edges (id integer PRIMARY KEY, source integer, target integer, cost float8, reverse_cost float8, x1 float8, y1 float8, x2 float8, y2 float8)',
    );
    const rows = [];
    for (let v = 0; v < g.nodeCount; v++) {
      for (let e = g.firstOut[v]; e < g.firstOut[v + 1]; e++) {
        const w = g.head[e];
        rows.push({
          id: e + 1,
          source: v,
          target: w,
          cost: g.weight[e],
          reverse_cost: -1,
          x1: g.nodeCoords[2 * v + 1],
          y1: g.nodeCoords[2 * v],
          x2: g.nodeCoords[2 * w + 1],
          y2: g.nodeCoords[2 * w],
        });
      }
    }
    for (let i = 0; i < rows.length; i += 2000) await sql`INSERT INTO edges ${sql(rows.slice(i, i + 2000))}`;
    const nodes = plainNodes(g);
    const pairs = Array.from({ length: N(100) }, () => [pick(nodes), pick(nodes)]);
    const edgeSql = 'SELECT id, source, target, cost, reverse_cost FROM edges';
    const edgeSqlXY = 'SELECT id, source, target, cost, reverse_cost, x1, y1, x2, y2 FROM edges';
    const eng = [],
      dij = [],
      bda = [];
    let equal = 0,
      equalBdAstar = 0,
      compared = 0,
      bothUnreachable = 0;
    for (const [s, t] of pairs) {
      let t1 = performance.now();
      const r = core.route({ profile: 'driving-car', waypoints: [at(g, s), at(g, t)] });
      eng.push(performance.now() - t1);
      t1 = performance.now();
      const d = await sql`SELECT agg_cost FROM pgr_dijkstra(${edgeSql}, ${s}::bigint, ${t}::bigint, true) ORDER BY seq DESC LIMIT 1`;
      dij.push(performance.now() - t1);
      t1 = performance.now();
      const a = await sql`SELECT agg_cost FROM pgr_bdAstar(${edgeSqlXY}, ${s}::bigint, ${t}::bigint, true, heuristic := 0) ORDER BY seq DESC LIMIT 1`;
      bda.push(performance.now() - t1);
      const pg = s === t ? 0 : d.length ? d[0].agg_cost : Infinity;
      const pga = s === t ? 0 : a.length ? a[0].agg_cost : Infinity;
      const mine = r.ok ? r.value.duration * 10 : Infinity;
      if (mine === Infinity && pg === Infinity) bothUnreachable++;
      else {
        compared++;
        if (Math.abs(mine - pg) < 1e-6) equal++;
        else log(`  cost mismatch ${s}->${t}: engine ${mine} pgr_dijkstra ${pg}`);
        if (Math.abs(pga - pg) < 1e-6) equalBdAstar++;
      }
    }
    const res = {
      profile: 'driving-car',
      edges: rows.length,
      pairs: pairs.length,
      compared,
      equalCosts: equal,
      bothUnreachable,
      // pgr_bdAstar is not exact on this directed graph: it sometimes returns a longer path than pgr_dijkstra.
      bdAstarEqualToDijkstra: equalBdAstar,
      engine: stats(eng),
      pgr_dijkstra: stats(dij),
      pgr_bdAstar: stats(bda),
    };
    res.speedRatio = {
      dijkstraOverEngineP50: +(res.pgr_dijkstra.p50 / res.engine.p50).toFixed(1),
      bdAstarOverEngineP50: +(res.pgr_bdAstar.p50 / res.engine.p50).toFixed(1),
    };
    return res;
  } finally {
    await sql.end();
    const admin2 = postgres('postgres://postgres@127.0.0.1:5432/postgres', { onnotice: () => {} });
    await admin2.unsafe('DROP DATABASE IF EXISTS waymark_bench_routing');
    await admin2.end();
  }
}
if (!noPg) {
  log('pgRouting comparison (driving-car, same search-graph edges) ...');
  try {
    results.pgrouting = await pgrouting();
    const r = results.pgrouting;
    log(
      `  engine = pgr_dijkstra on ${r.equalCosts}/${r.compared} (pgr_bdAstar = pgr_dijkstra on ${r.bdAstarEqualToDijkstra}); p50 engine ${r.engine.p50} ms, pgr_dijkstra ${r.pgr_dijkstra.p50} ms, pgr_bdAstar ${r.pgr_bdAstar.p50} ms`,
    );
  } catch (err) {
    results.pgrouting = { error: String(err?.message ?? err) };
    log('  pgRouting failed:', results.pgrouting.error);
  }
}

// ---- worker pool: latency through the pool and memory with 1 and 2 workers ---------------------------------
for (const workers of [1, 2]) {
  process.env.WAYMARK_WORKERS = String(workers);
  const before = process.memoryUsage();
  await loadMap(mapDir);
  const g = graphs['driving-car'];
  const nodes = plainNodes(g);
  for (let i = 0; i < 100; i++) await poolRoute({ profile: 'driving-car', waypoints: [at(g, pick(nodes)), at(g, pick(nodes))] }).catch(() => {});
  const ms = [];
  for (let i = 0; i < N(500); i++) {
    const t = performance.now();
    await poolRoute({ profile: 'driving-car', waypoints: [at(g, pick(nodes)), at(g, pick(nodes))] }).catch(() => {});
    ms.push(performance.now() - t);
  }
  // Concurrent load: throughput with every worker busy (64 in flight, below the pool's queue limit).
  const t = performance.now();
  let done = 0;
  const total = N(2000);
  await Promise.all(
    Array.from({ length: 64 }, async () => {
      while (done < total) {
        done++;
        await poolRoute({ profile: 'driving-car', waypoints: [at(g, pick(nodes)), at(g, pick(nodes))] }).catch(() => {});
      }
    }),
  );
  const throughput = total / ((performance.now() - t) / 1000);
  const mx = [];
  for (let i = 0; i < N(20); i++) {
    const points = Array.from({ length: 56 }, () => at(g, pick(nodes), 0.0004));
    const t1 = performance.now();
    await poolMatrix({ profile: 'driving-car', points });
    mx.push(performance.now() - t1);
  }
  const after = process.memoryUsage();
  results.pool[`${workers}worker`] = {
    sequential: stats(ms),
    routesPerSecond: Math.round(throughput),
    matrix56: stats(mx),
    rssBytes: after.rss,
    rssDeltaBytes: after.rss - before.rss,
    sharedMemoryBytes: after.arrayBuffers, // includes the shared graph memory once, whatever the worker count
  };
  log(
    `pool ${workers} worker(s): sequential p50 ${results.pool[`${workers}worker`].sequential.p50} ms, ${Math.round(throughput)} routes/s, matrix56 p50 ${results.pool[`${workers}worker`].matrix56.p50} ms, rss ${(after.rss / 1e6).toFixed(0)} MB`,
  );
}
await closePool();

// ---- synthetic grid graphs --------------------------------------------------------------------------------
/** A grid of side×side junctions ~110 m apart with random speeds, 5% of streets missing, 10% oneway. */
function gridGraph(nodes) {
  const side = Math.round(Math.sqrt(nodes));
  const n = side * side;
  const nodeCoords = new Float64Array(2 * n);
  for (let i = 0; i < side; i++)
    for (let j = 0; j < side; j++) {
      nodeCoords[2 * (i * side + j)] = 47 + i * 0.001;
      nodeCoords[2 * (i * side + j) + 1] = 9 + j * 0.00147;
    }
  const A = [],
    B = [],
    F = [],
    Bw = [],
    L = [];
  for (let i = 0; i < side; i++) {
    for (let j = 0; j < side; j++) {
      const v = i * side + j;
      for (const w of [j + 1 < side ? v + 1 : -1, i + 1 < side ? v + side : -1]) {
        if (w < 0 || rand() < 0.05) continue;
        const len = w === v + 1 ? 111.6 : 111.2;
        const kmh = 30 + Math.floor(rand() * 70);
        const tenths = Math.max(1, Math.round((len / (kmh / 3.6)) * 10));
        const oneway = rand() < 0.1;
        A.push(v);
        B.push(w);
        F.push(tenths);
        Bw.push(oneway ? 0 : tenths);
        L.push(len);
      }
    }
  }
  // Each street its own two-point shape: points 2g and 2g+1.
  const G = A.length;
  const geomFirst = new Uint32Array(G),
    geomLast = new Uint32Array(G),
    pointsE7 = new Int32Array(4 * G);
  const used = new Uint8Array(((2 * G) >> 3) + 1);
  for (let g = 0; g < G; g++) {
    geomFirst[g] = 2 * g;
    geomLast[g] = 2 * g + 1;
    used[(2 * g) >> 3] |= 1 << ((2 * g) & 7);
    pointsE7.set(
      [nodeCoords[2 * A[g]], nodeCoords[2 * A[g] + 1], nodeCoords[2 * B[g]], nodeCoords[2 * B[g] + 1]].map((x) => Math.round(x * 1e7)),
      4 * g,
    );
  }
  return {
    input: {
      nodeCount: n,
      nodeCoords,
      geomA: Uint32Array.from(A),
      geomB: Uint32Array.from(B),
      geomFwd: Uint32Array.from(F),
      geomBwd: Uint32Array.from(Bw),
      geomWay: Float64Array.from(A.map((_, g) => g + 1)),
      geomCm: Uint32Array.from(L, (m) => Math.round(m * 100)),
      geomFirst,
      geomLast,
      restrictions: [],
    },
    shapes: shapesOf({ pointsE7, used }),
  };
}

for (const size of sizes) {
  log(`synthetic grid ~${size} nodes ...`);
  let t = performance.now();
  const { input, shapes } = gridGraph(size);
  const assembled = assembleGraph(input, shapes);
  const assembleMs = performance.now() - t;
  log(`  assembled in ${Math.round(assembleMs)} ms; contracting ...`);
  t = performance.now();
  const g = withDegrees(addHierarchy(assembled));
  const hierarchyMs = performance.now() - t;
  log(`  hierarchy: ${g.chA.length} edges (${g.edgeCount} in the graph) in ${Math.round(hierarchyMs)} ms`);
  const bytes = GRAPH_ARRAYS.reduce((a, [k]) => a + g[k].byteLength, 0);
  const sc = new RouteCore(placeGraphs({ grid: g }));
  const nodes = plainNodes(g);
  const wp = (k) => Array.from({ length: k }, () => at(g, pick(nodes), 0.0003));
  for (let i = 0; i < 20; i++) sc.route({ profile: 'grid', waypoints: wp(2) });
  const big = size >= 1_000_000;
  const entry = {
    nodes: g.nodeCount,
    edges: g.edgeCount,
    hierarchyEdges: g.chA.length,
    buildMs: Math.round(assembleMs + hierarchyMs),
    assembleMs: Math.round(assembleMs),
    hierarchyMs: Math.round(hierarchyMs),
    bytes,
    plain2: timeQueries(
      (q) => sc.route(q),
      Array.from({ length: N(big ? 200 : 500) }, () => ({ profile: 'grid', waypoints: wp(2) })),
    ),
    avoid50: timeQueries(
      (q) => sc.route(q),
      Array.from({ length: N(big ? 50 : 100) }, () => {
        const w = wp(2);
        return { profile: 'grid', waypoints: w, avoid: { circles: circlesAround(w, 50, 50) } };
      }),
    ),
    avoid500: timeQueries(
      (q) => sc.route(q),
      Array.from({ length: N(big ? 50 : 100) }, () => {
        const w = wp(2);
        return { profile: 'grid', waypoints: w, avoid: { circles: circlesAround(w, 500, 30) } };
      }),
    ),
    matrix56: timeQueries(
      (q) => sc.matrix(q),
      Array.from({ length: N(10) }, () => ({ profile: 'grid', points: wp(56) })),
    ),
  };
  results.synthetic.push(entry);
  log(
    `  ${entry.nodes} nodes, build ${entry.buildMs} ms (hierarchy ${entry.hierarchyMs} ms), ${(bytes / 1e6).toFixed(0)} MB; plain p50 ${entry.plain2.p50} p95 ${entry.plain2.p95} ms; avoid500 p95 ${entry.avoid500.p95} ms; matrix56 p50 ${entry.matrix56.p50} p95 ${entry.matrix56.p95} ms`,
  );
}

rmSync(work, { recursive: true, force: true });
results.finishedAt = new Date().toISOString();
mkdirSync(join(root, 'bench', 'results'), { recursive: true });
writeFileSync(join(root, 'bench', 'results', 'routing.json'), JSON.stringify(results, null, 2));
log('written bench/results/routing.json');
