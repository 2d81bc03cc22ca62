// Same-run A/B of a fresh process's time to ready on one map, between two built checkouts (a commit before
// a change and one after, each a `git worktree` with `npm ci && npm run build`): each round starts A's
// `waymark start`, then B's, on the same map (WAYMARK_MAP; 2 compute threads; a PostgreSQL database of each
// side's own, made and migrated by a first start that is not counted: a restart, as after a deploy), so
// that both sides share the machine's state of the moment. For each start: seconds from spawn to
// `GET /ready` 200, the map load and its warm-up as the server logs them (`map loaded`: ms, warmUpMs), its
// CPU (user, system) and RSS at ready. Ratios B/A of the medians.
//
//   node bench/scale/ready-ab.mjs --a DIR --b DIR --map MAPDIR [--rounds 3] [--label 32x32]
//
// PostgreSQL on 127.0.0.1:5432 (WAYMARK_BENCH_ADMIN_URL overrides); the databases are dropped after.
// Writes bench/results/ready-ab-<label>.json.
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createServer } from 'node:net';
import postgres from 'postgres';

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
const git = (dir) => execFileSync('git', ['-C', dir, 'rev-parse', '--short', 'HEAD']).toString().trim();
const TICK = 100; // clock ticks per second of /proc/PID/stat (USER_HZ)
const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];

/** A port nothing listens on now (the service listens only once it is ready: /ready is polled there). */
const freePort = () =>
  new Promise((res, rej) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
    s.on('error', rej);
  });

const adminUrl = process.env.WAYMARK_BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const dbName = (side) => `waymark_bench_ready_${side}_${process.pid}`;
const dbUrl = (side) => {
  const u = new URL(adminUrl);
  u.pathname = `/${dbName(side)}`;
  return u.toString();
};

/** One fresh start of `side`'s service on the map: its figures once /ready says 200; the process is stopped after. */
async function start(side) {
  const dir = sides[side];
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, ['bin/waymark.js', 'start'], {
    cwd: dir,
    env: { ...process.env, WAYMARK_MAP: mapDir, DATABASE_URL: dbUrl(side), PORT: String(port), WAYMARK_WORKERS: '2' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout.on('data', (d) => (log += d));
  child.stderr.on('data', (d) => (log += d));
  const exited = new Promise((r) => child.on('exit', r));
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${dir}: the service exited (${child.exitCode}) before it was ready:\n${log.slice(-2000)}`);
      if (performance.now() - started > 300_000) throw new Error(`${dir}: not ready after 300 s`);
      const ok = await fetch(`http://127.0.0.1:${port}/ready`).then(
        (r) => r.status === 200,
        () => false,
      );
      if (ok) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const readyS = (performance.now() - started) / 1000;
    const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
    const rss = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))[1]) * 1024;
    const loaded = log
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l))
      .find((l) => l.msg?.startsWith('map loaded'));
    return {
      ready_s: +readyS.toFixed(2),
      load_ms: loaded?.ms,
      warm_up_ms: loaded?.warmUpMs,
      user_s: stat[11] / TICK,
      system_s: stat[12] / TICK,
      rss_bytes: rss,
    };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
const runs = { a: [], b: [] };
try {
  for (const side of ['a', 'b']) {
    await admin.unsafe(`CREATE DATABASE ${dbName(side)}`);
    say(`${side}: ${sides[side]} (${git(sides[side])}), a first start to make its database (not counted)`);
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
  for (const side of ['a', 'b']) await admin.unsafe(`DROP DATABASE IF EXISTS ${dbName(side)} WITH (FORCE)`);
  await admin.end();
}
const FIGURES = ['ready_s', 'load_ms', 'warm_up_ms', 'user_s', 'system_s', 'rss_bytes'];
const medians = Object.fromEntries(['a', 'b'].map((s) => [s, Object.fromEntries(FIGURES.map((f) => [f, median(runs[s].map((r) => r[f]))]))]));
const ratios = Object.fromEntries(FIGURES.map((f) => [f, +(medians.b[f] / medians.a[f]).toFixed(3)]));
const result = {
  label,
  map: mapDir,
  date: new Date().toISOString(),
  machine: { cpus: cpus().length, cpu_model: cpus()[0]?.model, loadavg_end: loadavg() },
  a: { dir: sides.a, commit: git(sides.a) },
  b: { dir: sides.b, commit: git(sides.b) },
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
