// Same-run A/B of a fresh process's time to ready on one map, between two built checkouts (a commit before
// a change and one after, each a `git worktree` with `npm ci && npm run build`): each round starts A's
// `waymark serve`, then B's, on the same map (2 compute threads; a PostgreSQL database of each side's
// own), so that both sides share the machine's state of the moment; a first start of each is not counted
// (a restart, as after a deploy: the map's files in the page cache for both). For each start: seconds
// from spawn to `GET /ready` 200, the map load and its warm-up as the server logs them (`map loaded`: ms,
// warmUpMs), its CPU (user, system) and RSS at ready. Ratios B/A of the medians.
//
// With --first N, each counted start is also asked N car routes avoiding a small polygon on their plain
// route (waypoints 100–145 km apart, in different parts of the map, found on A's uncounted start) as soon as
// /ready says 200, one after another on new connections, then the same N again: each answer's time and the
// server's minor page faults (/proc/PID/stat minflt) while it was asked. A first search into a part of the
// map pays for the pages of its scratch that no search had touched; the second pass shows the same
// requests with their pages in.
//
//   node bench/scale/ready-ab.mjs --a DIR --b DIR --map MAPDIR [--rounds 3] [--label 32x32] [--first 6]
//
// PostgreSQL on 127.0.0.1:5432 (WAYMARK_BENCH_ADMIN_URL overrides); the databases are dropped after.
// Writes bench/results/ready-ab-<label>.json.
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  ADMIN_URL,
  benchDatabaseUrl,
  along,
  call,
  classify,
  createBenchDatabase,
  dropBenchDatabase,
  firstPoint,
  freePort,
  gitCommit,
  growRoadPool,
  lastPoint,
  manifestBox,
  measuredLine,
  meters,
  rng,
  rssBytes,
  spawnServer,
  stopChild,
  waitForReady,
} from './lib.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { values: opt } = parseArgs({
  options: {
    a: { type: 'string' },
    b: { type: 'string' },
    map: { type: 'string' },
    rounds: { type: 'string', default: '3' },
    label: { type: 'string' },
    first: { type: 'string', default: '0' },
  },
});
if (!opt.a || !opt.b || !opt.map) {
  console.error('usage: node bench/scale/ready-ab.mjs --a DIR --b DIR --map MAPDIR [--rounds 3] [--label NAME] [--first N]');
  process.exit(2);
}
const sides = { a: resolve(opt.a), b: resolve(opt.b) };
const mapDir = resolve(opt.map);
const label = opt.label ?? basename(mapDir);
const say = (m) => process.stderr.write(`[bench/ready-ab] ${m}\n`);
const TICK = 100; // clock ticks per second of /proc/PID/stat (USER_HZ)
const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];

const dbName = (side) => `waymark_bench_ready_${side}_${process.pid}`;
const dbUrl = (side) => benchDatabaseUrl(dbName(side));

const FIRST = Number(opt.first);
const minorFaults = (pid) => Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[7]);

/**
 * The --first requests, found on a running server (`base`, `key`): FIRST pairs of car road points 100–145 km
 * apart, each pair away from the others' ends, each avoiding a 400 m square around its plain route's middle.
 */
async function avoidingRoutes(base, key) {
  const post = (path, body) => call(base, key, 'POST', path, body);
  const box = manifestBox(JSON.parse(readFileSync(join(mapDir, 'manifest.json'), 'utf8')));
  const rand = rng(7);
  const discovery = { probes: 0, errors: 0, error_samples: [] };
  const seed = [];
  for (let tries = 0; !seed.length; tries++) {
    if (tries === 2000) throw new Error('--first: 2,000 pairs of random points of the map, none routed between');
    const r = await post('/v1/routes', {
      profile: 'driving-car',
      waypoints: [0, 1].map(() => ({ latitude: box.south + rand() * (box.north - box.south), longitude: box.west + rand() * (box.east - box.west) })),
    });
    if (classify(r).kind === 'ok') seed.push(firstPoint(r), lastPoint(r));
  }
  const pool = await growRoadPool({ post, rand, pool: seed, profile: 'driving-car', box, want: 200, maxProbes: 4000, discovery, say });
  const out = [];
  const used = [];
  for (let tries = 0; out.length < FIRST && tries < 20_000; tries++) {
    const a = pool[Math.floor(rand() * pool.length)],
      b = pool[Math.floor(rand() * pool.length)];
    const d = meters(a, b);
    if (d < 100_000 || d > 145_000 || used.some((u) => meters(u, a) < 150_000 || meters(u, b) < 150_000)) continue;
    const plain = await post('/v1/routes', { profile: 'driving-car', waypoints: [a, b] });
    if (classify(plain).kind !== 'ok') continue;
    const line = measuredLine(plain.json.data.geometry.coordinates);
    const { point: m } = along(line, line.length / 2);
    const dLat = 200 / 111_320,
      dLon = 200 / (111_320 * Math.cos((m.latitude * Math.PI) / 180));
    const ring = [
      [m.longitude - dLon, m.latitude - dLat],
      [m.longitude + dLon, m.latitude - dLat],
      [m.longitude + dLon, m.latitude + dLat],
      [m.longitude - dLon, m.latitude + dLat],
      [m.longitude - dLon, m.latitude - dLat],
    ];
    const body = { profile: 'driving-car', waypoints: [a, b], avoid: { polygons: { type: 'Polygon', coordinates: [ring] } } };
    if (classify(await post('/v1/routes', body)).kind !== 'ok') continue;
    used.push(a, b);
    out.push(body);
  }
  say(`--first: ${out.length} routes avoiding a square on their way (${discovery.probes} probes for road points)`);
  return out;
}

/** The --first requests on a server that has just said ready, then again: ms and the server's minor faults each. */
async function firstRequests(base, key, pid) {
  const pass = async () => {
    const ms = [],
      faults = [];
    for (const body of firstBodies) {
      const f0 = minorFaults(pid);
      const r = await call(base, key, 'POST', '/v1/routes', body, { newConnection: true });
      if (classify(r).kind !== 'ok') throw new Error(`a --first route answered ${r.status}`);
      faults.push(minorFaults(pid) - f0);
      ms.push(+r.ms.toFixed(1));
    }
    return { ms, faults };
  };
  const first = await pass();
  const again = await pass();
  return { first, again };
}
let firstBodies = [];
const keys = {};

/** One fresh start of `side`'s service on the map: its figures once /ready says 200; the process is stopped after. */
async function start(side, { find = false } = {}) {
  const port = await freePort();
  const t0 = performance.now();
  const server = spawnServer({ port, mapDir, dbUrl: dbUrl(side), dir: sides[side], tag: `serve ${side}`, logLevel: 'info' });
  // The log's `map loaded` line, whole (a chunk may end mid-line).
  let loaded = null;
  let text = '';
  server.child.stdout.on('data', (chunk) => {
    text += chunk;
    const lines = text.split('\n');
    text = lines.pop();
    for (const line of lines) if (line.includes('"map loaded')) loaded = JSON.parse(line);
  });
  try {
    const readyMs = await waitForReady({
      base: `http://127.0.0.1:${port}`,
      t0,
      timeoutMs: 300_000,
      server,
      assertAlive: () => {
        if (server.exit) throw new Error(`${sides[side]}: the service exited before it was ready:\n${server.stderrTail}`);
      },
    });
    const stat = readFileSync(`/proc/${server.pid}/stat`, 'utf8').split(') ')[1].split(' ');
    const figures = {
      ready_s: +(readyMs / 1000).toFixed(2),
      load_ms: loaded?.ms,
      warm_up_ms: loaded?.warmUpMs,
      user_s: stat[11] / TICK,
      system_s: stat[12] / TICK,
      rss_bytes: rssBytes(server.pid),
    };
    const base = `http://127.0.0.1:${port}`;
    if (find) firstBodies = await avoidingRoutes(base, keys[side]);
    else if (firstBodies.length) figures.first_requests = await firstRequests(base, keys[side], server.pid);
    return figures;
  } finally {
    await stopChild(server);
  }
}

const runs = { a: [], b: [] };
try {
  for (const side of ['a', 'b']) {
    const { sql, key } = await createBenchDatabase({ adminUrl: ADMIN_URL, dbName: dbName(side), team: 'bench-ready' });
    keys[side] = key;
    await sql.end();
    say(`${side}: ${sides[side]} (${gitCommit(sides[side])}), a first start (not counted)`);
    await start(side, { find: FIRST > 0 && side === 'a' });
  }
  for (let round = 1; round <= Number(opt.rounds); round++) {
    for (const side of ['a', 'b']) {
      // The map's files in the page cache and the last process's memory given back, for both alike.
      await new Promise((r) => setTimeout(r, 5000));
      const r = await start(side);
      runs[side].push(r);
      say(
        `round ${round} ${side}: ready ${r.ready_s} s (load ${r.load_ms} ms, warm-up ${r.warm_up_ms} ms), CPU ${r.user_s} + ${r.system_s} s, RSS ${(r.rss_bytes / 1e9).toFixed(2)} GB`,
      );
      if (r.first_requests) {
        const { first, again } = r.first_requests;
        say(
          `  first requests: ${first.ms.join(', ')} ms (${first.faults.join(', ')} faults); again ${again.ms.join(', ')} ms (${again.faults.join(', ')} faults)`,
        );
      }
    }
  }
} finally {
  for (const side of ['a', 'b']) await dropBenchDatabase(ADMIN_URL, dbName(side), say);
}
const FIGURES = ['ready_s', 'load_ms', 'warm_up_ms', 'user_s', 'system_s', 'rss_bytes'];
const medians = Object.fromEntries(['a', 'b'].map((s) => [s, Object.fromEntries(FIGURES.map((f) => [f, median(runs[s].map((r) => r[f]))]))]));
const ratios = Object.fromEntries(FIGURES.map((f) => [f, +(medians.b[f] / medians.a[f]).toFixed(3)]));
// --first: the medians over every start's requests, each pass.
if (firstBodies.length) {
  for (const side of ['a', 'b']) {
    for (const pass of ['first', 'again']) {
      for (const what of ['ms', 'faults']) medians[side][`${pass}_requests_${what}`] = median(runs[side].flatMap((r) => r.first_requests[pass][what]));
    }
  }
  for (const f of ['first_requests_ms', 'again_requests_ms']) ratios[f] = +(medians.b[f] / medians.a[f]).toFixed(3);
}
const result = {
  label,
  map: mapDir,
  date: new Date().toISOString(),
  machine: { cpus: cpus().length, cpu_model: cpus()[0]?.model, loadavg_end: loadavg() },
  a: { dir: sides.a, commit: gitCommit(sides.a) },
  b: { dir: sides.b, commit: gitCommit(sides.b) },
  rounds: Number(opt.rounds),
  ...(firstBodies.length && { first_requests: { count: firstBodies.length, bodies: firstBodies } }),
  runs,
  medians,
  ratios_b_over_a: ratios,
};
const out = join(root, 'bench', 'results', `ready-ab-${label}.json`);
writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
say(`medians A ${JSON.stringify(medians.a)}`);
say(`medians B ${JSON.stringify(medians.b)}`);
say(`B/A ${JSON.stringify(ratios)}; wrote ${out}`);
