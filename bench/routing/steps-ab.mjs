// Steps beside plain far routes over HTTP, two builds side by side (issue 31: a far route with steps, p95
// ≤ 1.3 × the same route without): `waymark serve` from tree A and from tree B on one map, the same far
// routes (≥ 60 % of the diagonal apart, from points of the map's shapes) asked of both in turn, plain and
// with `steps: true`, kept-alive and on a new connection per request, after one untimed pass over all of
// them; timed a form at a time, from send to the last byte, as bench/scale does. The first `--check` pairs
// are also asked in five forms (steps, a language, polyline6, simplified, plain) and A's and B's bodies compared byte for byte.
// With `--variant alternatives` the same for `alternatives: 3` (issue 36: p95 ≤ 3 × the plain route), its
// forms alternatives 3, 2 with steps, 1 in polyline6, 3 simplified, and plain.
// `--map-b` serves B another map (the same extract built by B, when the trees read different map formats).
// Run `npm run build` in both trees first; PostgreSQL on 127.0.0.1:5432. Writes bench/results/<variant>-ab-<label>.json.
//   node bench/routing/steps-ab.mjs --map DIR [--map-b DIR] --a TREE --b TREE [--variant steps|alternatives] [--pairs 100] [--check 40] [--profiles driving-car] [--label NAME]
import { spawn } from 'node:child_process';
import http from 'node:http';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadavg } from 'node:os';
import { readShapeFiles } from '../../dist/map/map-dir.js';
import { ADMIN_URL, benchDatabaseUrl, createBenchDatabase, dropBenchDatabase, farShapePairs, freePort, rng, stats } from '../scale/lib.mjs';
const { values: opt } = parseArgs({
  options: {
    map: { type: 'string' },
    'map-b': { type: 'string' },
    a: { type: 'string' },
    b: { type: 'string' },
    pairs: { type: 'string', default: '100' },
    check: { type: 'string', default: '40' },
    profiles: { type: 'string' },
    label: { type: 'string', default: 'map' },
    variant: { type: 'string', default: 'steps' },
  },
});
if (!opt.map || !opt.a || !opt.b) throw new Error('usage: --map DIR --a TREE --b TREE (see the head of this file)');
const here = resolve(import.meta.dirname, '../..');
const log = (m) => process.stderr.write(`[${opt.variant}-ab] ${m}\n`);
// The option timed beside plain routes, and the forms whose bodies are compared.
const variants = {
  steps: {
    option: { steps: true },
    forms: [
      { steps: true },
      { steps: true, language: 'en' },
      { steps: true, language: 'de', geometry_format: 'polyline6' },
      { steps: true, overview: 'simplified', geometry_format: 'polyline' },
      {},
    ],
  },
  alternatives: {
    option: { alternatives: 3 },
    forms: [
      { alternatives: 3 },
      { alternatives: 2, steps: true },
      { alternatives: 1, geometry_format: 'polyline6' },
      { alternatives: 3, overview: 'simplified' },
      {},
    ],
  },
};
const variant = variants[opt.variant];
if (!variant) throw new Error(`--variant is one of ${Object.keys(variants).join(', ')}`);
const dbName = `waymark_steps_ab_${process.pid}`;
const { sql, key } = await createBenchDatabase({ adminUrl: ADMIN_URL, dbName, team: 'ab' });
const dbUrl = benchDatabaseUrl(dbName);

function serve(tree, port, map) {
  const env = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATABASE_URL: dbUrl,
    WAYMARK_MAP: resolve(map),
    WAYMARK_WORKERS: '2',
    LOG_LEVEL: 'warn',
    ...(opt.profiles ? { WAYMARK_PROFILES: opt.profiles } : {}),
  };
  const child = spawn(process.execPath, [join(tree, 'bin/waymark.js'), 'serve'], { env, stdio: ['ignore', 'inherit', 'inherit'] });
  return { child, base: `http://127.0.0.1:${port}` };
}
const agents = new Map();
function call(base, body, fresh) {
  const t = performance.now();
  const url = new URL('/v1/routes', base);
  if (!agents.has(base)) agents.set(base, new http.Agent({ keepAlive: true, maxSockets: 1 }));
  const payload = Buffer.from(JSON.stringify(body));
  return new Promise((res) => {
    const req = http.request(
      url,
      {
        method: 'POST',
        agent: fresh ? false : agents.get(base),
        headers: { 'x-api-key': key, 'content-type': 'application/json', 'content-length': payload.length, ...(fresh ? { connection: 'close' } : {}) },
      },
      (r) => {
        const chunks = [];
        r.on('data', (c) => chunks.push(c));
        r.on('end', () => res({ status: r.statusCode, ms: performance.now() - t, body: Buffer.concat(chunks) }));
      },
    );
    req.on('error', (e) => res({ status: 0, ms: 0, body: Buffer.from(String(e)) }));
    req.end(payload);
  });
}
async function ready(base) {
  for (let i = 0; i < 6000; i++) {
    const ok = await new Promise((res) =>
      http.get(new URL('/ready', base), { agent: false }, (r) => (r.resume(), res(r.statusCode === 200))).on('error', () => res(false)),
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${base} not ready`);
}
const servers = { A: serve(resolve(opt.a), await freePort(), opt.map), B: serve(resolve(opt.b), await freePort(), opt['map-b'] ?? opt.map) };
try {
  for (const s of Object.values(servers)) await ready(s.base);
  log('both ready');
  // Far pairs of road points from the map's shapes (the server snaps them), ≥ 60 % of the diagonal: B's map,
  // which this tree reads.
  const shapes = await readShapeFiles(resolve(opt['map-b'] ?? opt.map));
  const { pairs, diagonal: diag } = await farShapePairs({
    shapes,
    count: +opt.pairs,
    routes: async (a, b) => (await call(servers.B.base, { waypoints: [a, b], profile: 'driving-car' }, false)).status === 200,
  });
  log(`${pairs.length} pairs, diagonal ${(diag / 1000).toFixed(0)} km`);
  // Which server is asked first for each pair.
  const rand = rng(2);
  // Byte comparison of A and B on the first `check` pairs, in several forms.
  let same = 0,
    differ = 0;
  for (const [i, [a, b]] of pairs.slice(0, +opt.check).entries()) {
    for (const f of variant.forms) {
      // Every fifth with a waypoint between (alternatives are for 2 waypoints only).
      const via = i % 5 === 4 && !f.alternatives;
      const body = { waypoints: via ? [a, pairs[(i + 1) % pairs.length][0], b] : [a, b], profile: 'driving-car', ...f };
      const [x, y] = [await call(servers.A.base, body, false), await call(servers.B.base, body, false)];
      if (x.status === y.status && x.body.equals(y.body)) same++;
      else {
        differ++;
        if (differ <= 5) log(`differ: pair ${i} ${JSON.stringify(f)}: ${x.status} ${x.body.length} vs ${y.status} ${y.body.length}`);
      }
    }
  }
  log(`bodies: ${same} the same, ${differ} differ`);
  // Timing: per mode, a pass over the pairs plain, then one with the variant, A and B in random order per
  // pair. Not the two forms of one pair one after the other: the plain route left that route's graph and
  // shapes in the CPU's caches for the variant asked next, which then cost ~half its real extra (32x32,
  // steps ÷ plain p95 1.1–1.2 that way, 1.6 asked as bench/scale's (f) asks them, a form at a time).
  const times = {};
  const bytes = {};
  const put = (k, ms) => (times[k] ??= []).push(ms);
  for (let warm = 0; warm < 1; warm++)
    for (const [a, b] of pairs)
      for (const s of Object.values(servers))
        for (const f of [{}, variant.option]) await call(s.base, { waypoints: [a, b], profile: 'driving-car', ...f }, false);
  for (const mode of ['keepalive', 'new_connection']) {
    for (const [kind, f] of Object.entries({ plain: {}, [opt.variant]: variant.option })) {
      for (const [a, b] of pairs) {
        const order = rand() < 0.5 ? ['A', 'B'] : ['B', 'A'];
        for (const name of order) {
          const r = await call(servers[name].base, { waypoints: [a, b], profile: 'driving-car', ...f }, mode === 'new_connection');
          if (r.status !== 200) {
            log(`${name} ${kind} ${r.status}`);
            continue;
          }
          put(`${name} ${kind} ${mode}`, r.ms);
          (bytes[`${name} ${kind}`] ??= []).push(r.body.length);
        }
      }
    }
  }
  const result = {
    map: opt.map,
    map_b: opt['map-b'],
    a: opt.a,
    b: opt.b,
    pairs: pairs.length,
    same,
    differ,
    loadavg: loadavg(),
    stats: {},
    ratios: {},
    median_bytes: {},
  };
  for (const [k, ms] of Object.entries(times)) result.stats[k] = stats(ms);
  for (const [k, xs] of Object.entries(bytes)) result.median_bytes[k] = xs.sort((x, y) => x - y)[xs.length >> 1];
  for (const name of ['A', 'B'])
    for (const mode of ['keepalive', 'new_connection'])
      for (const q of ['p50', 'p95'])
        result.ratios[`${name} ${mode} ${q}`] = +(result.stats[`${name} ${opt.variant} ${mode}`][q] / result.stats[`${name} plain ${mode}`][q]).toFixed(2);
  for (const [k, v] of Object.entries(result.stats)) console.log(`${k.padEnd(28)} p50 ${v.p50} p95 ${v.p95} ms`);
  console.log(`${opt.variant} over plain`, result.ratios, 'median bodies', result.median_bytes);
  const file = join(here, 'bench/results', `${opt.variant}-ab-${opt.label}.json`);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  log(`wrote ${file}`);
} finally {
  for (const s of Object.values(servers)) s.child.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 1500));
  await sql.end({ timeout: 5 });
  await dropBenchDatabase(ADMIN_URL, dbName);
}
