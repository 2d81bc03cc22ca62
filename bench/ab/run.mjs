// Same-run A/B of the Liechtenstein routing and geocoding benchmarks between two built checkouts (e.g. a
// commit before a change and one after, each a `git worktree` with `npm ci && npm run build`): each round
// runs both benchmarks in A, then in B, so that both sides share the machine's state of the moment, and
// the ratios B/A are taken per round and summarised as a geometric mean over the rounds and the metrics.
// Usage: node bench/ab/run.mjs --a DIR --b DIR [--rounds 2] [--points 50000] [--out ab-liechtenstein.json]
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { values: opts } = parseArgs({
  options: {
    a: { type: 'string' },
    b: { type: 'string' },
    rounds: { type: 'string', default: '2' },
    points: { type: 'string', default: '50000' },
    out: { type: 'string', default: 'ab-liechtenstein.json' },
  },
});
if (!opts.a || !opts.b) {
  console.error('usage: node bench/ab/run.mjs --a DIR --b DIR [--rounds 2] [--points 50000] [--out FILE]');
  process.exit(2);
}
const sides = { a: resolve(opts.a), b: resolve(opts.b) };
const rounds = Number(opts.rounds);
const git = (dir) => execFileSync('git', ['-C', dir, 'rev-parse', '--short', 'HEAD']).toString().trim();

/** Runs one checkout's benchmark script (its own output goes to stderr as progress) and reads its result file. */
function run(dir, script, args, result, env = {}) {
  execFileSync(process.execPath, [join(dir, 'bench', script, 'run.mjs'), ...args], {
    cwd: dir,
    stdio: ['ignore', process.stderr, process.stderr],
    env: { ...process.env, ...env },
  });
  return JSON.parse(readFileSync(join(dir, 'bench', 'results', result), 'utf8'));
}

/** The figures compared: route and matrix p50 per profile and query kind (ms, lower is better), geocoding lookups per second (higher is better). */
function figures(routing, geocoding) {
  const out = {};
  for (const [profile, p] of Object.entries(routing.liechtenstein.profiles))
    for (const kind of ['plain2', 'plain10', 'plain50', 'avoid50', 'avoid500', 'matrix56']) if (p[kind]) out[`${profile} ${kind} p50 ms`] = p[kind].p50;
  out['geocoding in-process lookups/s'] = geocoding.lookupsPerSecond.inProcessOneThread;
  for (const [batch, v] of Object.entries(geocoding.lookupsPerSecond.pool)) out[`geocoding pool ${batch} lookups/s`] = v;
  return out;
}

const perRound = [];
for (let r = 1; r <= rounds; r++) {
  const round = {};
  for (const [side, dir] of Object.entries(sides)) {
    console.error(`== round ${r}/${rounds}: ${side} (${git(dir)}) routing`);
    const routing = run(dir, 'routing', ['--no-pg', '--sizes='], 'routing.json');
    console.error(`== round ${r}/${rounds}: ${side} (${git(dir)}) geocoding`);
    const geocoding = run(dir, 'geocoding', [], 'geocoding.json', { POINTS: opts.points });
    round[side] = figures(routing, geocoding);
  }
  perRound.push(round);
}

// B/A per figure, as "how many times slower B is" for both kinds (time ratio; for rates, A/B).
const ratio = (name, a, b) => (name.endsWith('/s') ? a / b : b / a);
const geomean = (xs) => Math.exp(xs.reduce((s, x) => s + Math.log(x), 0) / xs.length);
const names = Object.keys(perRound[0].a).filter((n) => n in perRound[0].b);
const rows = names.map((name) => {
  const rs = perRound.map((round) => ratio(name, round.a[name], round.b[name]));
  return { name, a: perRound.map((round) => round.a[name]), b: perRound.map((round) => round.b[name]), slowdown: Number(geomean(rs).toFixed(3)) };
});
const group = (pred) => Number(geomean(rows.filter((r) => pred(r.name)).map((r) => r.slowdown)).toFixed(3));
const summary = {
  routing: group((n) => !n.startsWith('geocoding')),
  routingPlain: group((n) => / plain\d+ /.test(n)),
  routingAvoid: group((n) => / avoid\d+ /.test(n)),
  matrix: group((n) => / matrix\d+ /.test(n)),
  geocoding: group((n) => n.startsWith('geocoding')),
};
const result = {
  date: new Date().toISOString(),
  note: 'slowdown = B time / A time (for lookups per second, A rate / B rate), geometric mean over the rounds; summary = geometric means over the figures; > 1 means B is slower. 2 shared cores: single figures are noisy.',
  a: { dir: sides.a, commit: git(sides.a) },
  b: { dir: sides.b, commit: git(sides.b) },
  rounds,
  summary,
  figures: rows,
};
for (const row of rows) console.log(`${row.name.padEnd(44)} A ${row.a.join(' / ')}  B ${row.b.join(' / ')}  slowdown ${row.slowdown}`);
console.log('summary (B vs A, > 1 slower):', JSON.stringify(summary));
writeFileSync(join(root, 'bench', 'results', opts.out), `${JSON.stringify(result, null, 2)}\n`);
console.log(`wrote bench/results/${opts.out}`);
