// Route options of issue 36 beside plain routes, in one run on the Liechtenstein map (or another with
// --map): the same random pairs routed plain, with `exclude`, an avoided polygon, a curbside destination, a
// bearing at the start, and 3 alternatives, the variants taking turns pair by pair. In-process (RouteCore
// on this thread, no worker hop), the least of three runs per route (process-wide CPU time counts the
// engine's background compilation and collection; one run's clock counts the other processes on shared
// cores). Run `npm run build` first.
// Usage: node bench/routing/options.mjs [--pairs=300] [--map=DIR --label=NAME] [--profiles=driving-car,foot-walking]
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_EXTRACT, ensureMap } from '../../dist/map/build.js';
import { readGraphFiles, readManifest, readShapeFiles } from '../../dist/map/map-dir.js';
import { nodePositionsE7, toDegrees } from '../../dist/map/graphs/road-graph.js';
import { EXCLUDE_BIT } from '../../dist/map/graphs/profiles.js';
import { placeGraphs } from '../../dist/engine/graph-memory.js';
import { RouteCore } from '../../dist/engine/route-core.js';
import { rng } from '../scale/lib.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const arg = (name) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const pairs = Number(arg('pairs') ?? 300);
const label = arg('label') ?? (arg('map') ? 'map' : 'li');
const profiles = (arg('profiles') ?? 'driving-car,foot-walking').split(',');

const rand = rng(36);
const stats = (ms) => {
  const s = [...ms].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return { n: s.length, p50: +q(0.5).toFixed(3), p95: +q(0.95).toFixed(3), max: +s[s.length - 1].toFixed(2) };
};

const dir = arg('map') ?? (await ensureMap(join(root, 'data', 'test-maps'), DEFAULT_EXTRACT));
const manifest = await readManifest(dir);
const shapes = await readShapeFiles(dir);
const graphs = {};
for (const p of profiles) {
  const g = await readGraphFiles(dir, p, manifest.profiles[p], shapes);
  graphs[p] = Object.assign(g, { nodeCoords: toDegrees(nodePositionsE7(g)) });
}
const core = new RouteCore(placeGraphs(graphs));

/** A square of `side` meters around a point, as the engine's polygon rings. */
const square = (lat, lon, side) => {
  const dLat = side / 2 / 111_320,
    dLon = side / 2 / (111_320 * Math.cos((lat * Math.PI) / 180));
  return [
    [
      [lon - dLon, lat - dLat],
      [lon + dLon, lat - dLat],
      [lon + dLon, lat + dLat],
      [lon - dLon, lat + dLat],
      [lon - dLon, lat - dLat],
    ],
  ];
};

const results = {
  startedAt: new Date().toISOString(),
  pairs,
  map: dir,
  note: 'ms per route (least of 3 runs), in-process RouteCore, variants in turn',
  profiles: {},
};
for (const profile of Object.keys(graphs)) {
  const g = graphs[profile];
  const nodes = [];
  for (let v = 0; v < g.nodeCount; v++) if (g.mainNet[v] === 1) nodes.push(v);
  const at = (v) => ({ lat: g.nodeCoords[2 * v], lon: g.nodeCoords[2 * v + 1] });
  const queries = [];
  while (queries.length < pairs) {
    const a = at(nodes[Math.floor(rand() * nodes.length)]),
      b = at(nodes[Math.floor(rand() * nodes.length)]);
    const plain = core.route({ profile, waypoints: [a, b] });
    if (!plain.ok || plain.value.geometry.length < 10) continue;
    const m = plain.value.geometry.length / 2;
    const k = 2 * Math.floor(m / 2);
    queries.push({ a, b, mid: { lat: plain.value.geometry[k + 1], lon: plain.value.geometry[k] } });
  }
  const variants = {
    plain: (q) => ({ profile, waypoints: [q.a, q.b] }),
    'exclude unpaved': (q) => ({ profile, waypoints: [q.a, q.b], exclude: EXCLUDE_BIT.unpaved }),
    'avoid polygon 400 m': (q) => ({ profile, waypoints: [q.a, q.b], avoid: { circles: [], polygons: [square(q.mid.lat, q.mid.lon, 400)] } }),
    'curb destination': (q) => ({ profile, waypoints: [q.a, { lat: q.b.lat + 0.0001, lon: q.b.lon }], waypointOptions: [null, { curb: true, side: 'right' }] }),
    'bearing at start': (q) => ({ profile, waypoints: [q.a, q.b], waypointOptions: [{ bearing: { value: 90, range: 90 } }, null] }),
    '3 alternatives': (q) => ({ profile, waypoints: [q.a, q.b], alternatives: 3 }),
  };
  // Warm-up of every kind (JIT, WASM tier-up).
  for (const make of Object.values(variants)) for (const q of queries.slice(0, 30)) core.route(make(q));
  const ms = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
  const failed = Object.fromEntries(Object.keys(variants).map((name) => [name, 0]));
  let found = 0;
  for (const q of queries) {
    for (const [name, make] of Object.entries(variants)) {
      const query = make(q);
      // The least of three runs: on shared cores a run is as often slowed by others as by its own work.
      let best = Infinity,
        r;
      for (let k = 0; k < 3; k++) {
        const t = performance.now();
        r = core.route(query);
        best = Math.min(best, performance.now() - t);
      }
      ms[name].push(best);
      if (!r.ok) failed[name]++;
      else if (name === '3 alternatives') found += r.value.alternatives?.length ?? 0;
    }
  }
  const out = {};
  for (const name of Object.keys(variants)) {
    out[name] = { ...stats(ms[name]), failed: failed[name], ...(name === '3 alternatives' ? { alternativesFound: found } : {}) };
    console.log(profile, name.padEnd(22), JSON.stringify(out[name]));
  }
  results.profiles[profile] = out;
}
mkdirSync(join(root, 'bench', 'results'), { recursive: true });
writeFileSync(
  join(root, 'bench', 'results', label === 'li' ? 'routing-options.json' : `routing-options-${label}.json`),
  `${JSON.stringify(results, null, 2)}\n`,
);
