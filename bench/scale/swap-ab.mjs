// Same-run A/B of what a map hot swap costs the requests being served, between two built checkouts (as
// ready-ab.mjs: each a `git worktree` with `npm run build`). Each round, for A then B: `waymark serve` (2
// compute threads, a PostgreSQL database of each side's own) on a link to one map; once ready, a client
// sends `GET /health` and a car route between two road points near the map's middle, alternately, one at a time on a kept-alive
// connection, timed to the last byte; after 3 s the link is pointed at a second directory of the same map
// (`cp -al` of it: the same files, another path) and the server sent SIGHUP; the client goes on until the
// server's `GET /ready` names the new directory and 2 s more. For each kind: p50, p95, p99 and the longest
// answer before the swap and during it (SIGHUP to the new map serving), and how long the swap took.
//
//   node bench/scale/swap-ab.mjs --a DIR --b DIR --map MAPDIR --map-b MAPDIR2 [--rounds 2] [--label 32x32]
//
// Writes bench/results/swap-ab-<label>.json.
import { rmSync, symlinkSync, renameSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  ADMIN_URL,
  benchDatabaseUrl,
  call,
  createBenchDatabase,
  dropBenchDatabase,
  freePort,
  gitCommit,
  spawnServer,
  stats,
  stopChild,
  waitForReady,
} from './lib.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { values: opt } = parseArgs({
  options: {
    a: { type: 'string' },
    b: { type: 'string' },
    map: { type: 'string' },
    'map-b': { type: 'string' },
    rounds: { type: 'string', default: '2' },
    label: { type: 'string' },
  },
});
if (!opt.a || !opt.b || !opt.map || !opt['map-b']) {
  console.error('usage: node bench/scale/swap-ab.mjs --a DIR --b DIR --map MAPDIR --map-b MAPDIR2 [--rounds 2] [--label NAME]');
  process.exit(2);
}
const sides = { a: resolve(opt.a), b: resolve(opt.b) };
const maps = [resolve(opt.map), resolve(opt['map-b'])];
const label = opt.label ?? basename(maps[0]);
const say = (m) => process.stderr.write(`[bench/swap-ab] ${m}\n`);
const dbName = (side) => `waymark_bench_swap_${side}_${process.pid}`;
const link = join(dirname(maps[0]), `.swap-ab-link-${process.pid}`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function pointLink(target) {
  const next = `${link}.next`;
  rmSync(next, { force: true });
  symlinkSync(target, next);
  renameSync(next, link);
}

async function round(side, keys) {
  pointLink(maps[0]);
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const server = spawnServer({ port, mapDir: link, dbUrl: benchDatabaseUrl(dbName(side)), tag: `serve ${side}`, dir: sides[side] });
  const alive = () => {
    if (server.exit) throw new Error(`serve ${side} exited: ${JSON.stringify(server.exit)}\n${server.stderrTail}`);
  };
  let stop = false;
  try {
    await waitForReady({ base, t0: performance.now(), timeoutMs: 300_000, server, assertAlive: alive });
    // Two road points of the map, found by asking it: a town route of the car, near its middle.
    const bounds = (await call(base, keys[side], 'GET', '/tiles/tiles.json')).json?.bounds;
    const ends = [];
    for (let f = 0.4; bounds && ends.length < 2 && f < 0.6; f += 0.01) {
      const lat = bounds[1] + f * (bounds[3] - bounds[1]);
      const lon = bounds[0] + f * (bounds[2] - bounds[0]);
      const r = await call(base, keys[side], 'GET', `/v1/nearest?profile=driving-car&latitude=${lat}&longitude=${lon}`);
      const p = r.json?.data?.[0]?.location;
      if (r.status === 200 && p) ends.push(p);
    }
    const route = ends.length === 2 ? { profile: 'driving-car', waypoints: ends } : null;
    if (!route) say(`no road points found: /health alone`);
    const times = { before: { health: [], route: [] }, during: { health: [], route: [] } };
    let phase = 'before';
    // A wrong answer or a dead server stops the client; it is thrown when the swap is over (or timed out).
    let failure = null;
    const client = (async () => {
      for (let i = 0; !stop; i++) {
        const kind = route && i % 2 ? 'route' : 'health';
        const r = kind === 'route' ? await call(base, keys[side], 'POST', '/v1/routes', route) : await call(base, '', 'GET', '/health');
        alive();
        if (r.status !== 200) throw new Error(`answer ${r.status}: ${JSON.stringify(r.json).slice(0, 300)}`);
        if (phase !== 'after') times[phase][kind].push(r.ms);
      }
    })().catch((err) => {
      failure = err;
    });
    await sleep(3000);
    pointLink(maps[1]);
    const swapStart = performance.now();
    phase = 'during';
    server.child.kill('SIGHUP');
    for (;;) {
      const r = await call(base, '', 'GET', '/ready', undefined, { newConnection: true });
      if ((r.json?.data ?? r.json)?.map?.dir === maps[1]) break;
      if (failure) throw failure;
      if (performance.now() - swapStart > 120_000) throw new Error('the new map did not serve within 120 s');
      await sleep(50);
    }
    const swapS = +((performance.now() - swapStart) / 1000).toFixed(2);
    phase = 'after';
    await sleep(2000);
    stop = true;
    await client;
    if (failure) throw failure;
    const both = (t) => ({ health: stats(t.health, [0.99]), route: stats(t.route, [0.99]) });
    return { swap_s: swapS, route, before: both(times.before), during: both(times.during) };
  } finally {
    stop = true;
    await stopChild(server);
  }
}

const runs = { a: [], b: [] };
const keys = {};
try {
  for (const side of ['a', 'b']) {
    const { sql, key } = await createBenchDatabase({ adminUrl: ADMIN_URL, dbName: dbName(side), team: 'bench-swap' });
    await sql.end();
    keys[side] = key;
    say(`${side}: ${sides[side]} (${gitCommit(sides[side])})`);
  }
  for (let r = 1; r <= Number(opt.rounds); r++) {
    for (const side of ['a', 'b']) {
      await sleep(5000);
      const out = await round(side, keys);
      runs[side].push(out);
      say(`round ${r} ${side}: swap ${out.swap_s} s; before ${JSON.stringify(out.before)}; during ${JSON.stringify(out.during)}`);
    }
  }
} finally {
  rmSync(link, { force: true });
  for (const side of ['a', 'b']) await dropBenchDatabase(ADMIN_URL, dbName(side), say);
}
const result = {
  label,
  when: new Date().toISOString(),
  machine: { cpu: cpus()[0]?.model, cores: cpus().length, load_after: loadavg().map((x) => +x.toFixed(2)) },
  how: 'per side and round: serve on a link to --map, GET /health and a car route alternately on one kept-alive connection, timed to the last byte; the link moved to --map-b and SIGHUP after 3 s; "during" from SIGHUP to /ready naming the new directory',
  maps,
  a: { dir: sides.a, commit: gitCommit(sides.a), runs: runs.a },
  b: { dir: sides.b, commit: gitCommit(sides.b), runs: runs.b },
};
const out = join(root, 'bench/results', `swap-ab-${label}.json`);
writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
say(`wrote ${out}`);
