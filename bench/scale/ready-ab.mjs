// Same-run A/B of a fresh process's time to ready on one map, between two built checkouts (a commit before
// a change and one after, each a `git worktree` with `npm ci && npm run build`): each round starts A's
// `waymark serve`, then B's, on the same map (2 compute threads; a PostgreSQL database of each side's
// own), so that both sides share the machine's state of the moment; a first start of each is not counted
// (a restart, as after a deploy: the map's files in the page cache for both). For each start: seconds
// from spawn to `GET /ready` 200, the map load and its warm-up as the server logs them (`map loaded`: ms,
// warmUpMs), its CPU (user, system) and RSS at ready. Ratios B/A of the medians.
//
//   node bench/scale/ready-ab.mjs --a DIR --b DIR --map MAPDIR [--rounds 3] [--label 32x32]
//
// PostgreSQL on 127.0.0.1:5432 (WAYMARK_BENCH_ADMIN_URL overrides); the databases are dropped after.
// Writes bench/results/ready-ab-<label>.json.
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ADMIN_URL, createBenchDatabase, dropBenchDatabase, freePort, gitCommit, rssBytes, spawnServer, stopChild, waitForReady } from './lib.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { values: opt } = parseArgs({
  options: { a: { type: 'string' }, b: { type: 'string' }, map: { type: 'string' }, rounds: { type: 'string', default: '3' }, label: { type: 'string' } },
});
if (!opt.a || !opt.b || !opt.map) {
  console.error('usage: node bench/scale/ready-ab.mjs --a DIR --b DIR --map MAPDIR [--rounds 3] [--label NAME]');
  process.exit(2);
}
const sides = { a: resolve(opt.a), b: resolve(opt.b) };
const mapDir = resolve(opt.map);
const label = opt.label ?? basename(mapDir);
const say = (m) => process.stderr.write(`[bench/ready-ab] ${m}\n`);
const TICK = 100; // clock ticks per second of /proc/PID/stat (USER_HZ)
const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];

const dbName = (side) => `waymark_bench_ready_${side}_${process.pid}`;
const dbUrl = (side) => ADMIN_URL.replace(/\/[^/]*$/, `/${dbName(side)}`);

/** One fresh start of `side`'s service on the map: its figures once /ready says 200; the process is stopped after. */
async function start(side) {
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
    return {
      ready_s: +(readyMs / 1000).toFixed(2),
      load_ms: loaded?.ms,
      warm_up_ms: loaded?.warmUpMs,
      user_s: stat[11] / TICK,
      system_s: stat[12] / TICK,
      rss_bytes: rssBytes(server.pid),
    };
  } finally {
    await stopChild(server);
  }
}

const runs = { a: [], b: [] };
try {
  for (const side of ['a', 'b']) {
    const { sql } = await createBenchDatabase({ adminUrl: ADMIN_URL, dbName: dbName(side), team: 'bench-ready' });
    await sql.end();
    say(`${side}: ${sides[side]} (${gitCommit(sides[side])}), a first start (not counted)`);
    await start(side);
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
    }
  }
} finally {
  for (const side of ['a', 'b']) await dropBenchDatabase(ADMIN_URL, dbName(side), say);
}
const FIGURES = ['ready_s', 'load_ms', 'warm_up_ms', 'user_s', 'system_s', 'rss_bytes'];
const medians = Object.fromEntries(['a', 'b'].map((s) => [s, Object.fromEntries(FIGURES.map((f) => [f, median(runs[s].map((r) => r[f]))]))]));
const ratios = Object.fromEntries(FIGURES.map((f) => [f, +(medians.b[f] / medians.a[f]).toFixed(3)]));
const result = {
  label,
  map: mapDir,
  date: new Date().toISOString(),
  machine: { cpus: cpus().length, cpu_model: cpus()[0]?.model, loadavg_end: loadavg() },
  a: { dir: sides.a, commit: gitCommit(sides.a) },
  b: { dir: sides.b, commit: gitCommit(sides.b) },
  rounds: Number(opt.rounds),
  runs,
  medians,
  ratios_b_over_a: ratios,
};
const out = join(root, 'bench', 'results', `ready-ab-${label}.json`);
writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
say(`medians A ${JSON.stringify(medians.a)}`);
say(`medians B ${JSON.stringify(medians.b)}`);
say(`B/A ${JSON.stringify(ratios)}; wrote ${out}`);
