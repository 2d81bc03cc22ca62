// Search bench (issue 32): GET /v1/geo/search and GET /v1/geo/autocomplete through a real `waymark serve` on a
// built map (all its profiles, 2 compute threads), one request at a time, over a kept-alive connection and a
// new connection per request, timed from sending to the last byte (bench/scale/lib.mjs). The queries are the
// map's own addresses: random points reverse geocoded by the server (GET /v1/geo/reverse) give "street
// number, city"; search asks for that text, autocomplete for what a person has typed on the way to it
// (the street's first letters, the street, the street and the number). Each answer is checked: search must
// find the asked street among its results.
//
//   npm run bench:search -- --map DIR [--label NAME] [--requests 200] [--rand-seed 1]
//
// Writes bench/results/search-<label>.json. Targets (issue 32, 32x32 country): search p95 ≤ 20 ms,
// autocomplete p95 ≤ 10 ms. Needs `npm run build` and PostgreSQL on 127.0.0.1:5432 (WAYMARK_BENCH_ADMIN_URL).
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  ADMIN_URL,
  benchDatabaseUrl,
  call,
  closeConnections,
  createBenchDatabase,
  dropBenchDatabase,
  errorText,
  freePort,
  manifestBox,
  randomIn,
  rng,
  spawnServer,
  stopActiveChildren,
  timeInModes,
  waitForReady,
} from '../scale/lib.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const say = (msg) => process.stderr.write(`[bench/search] ${msg}\n`);
const { values: opt } = parseArgs({
  options: {
    map: { type: 'string' },
    label: { type: 'string' },
    requests: { type: 'string', default: '200' },
    warmup: { type: 'string', default: '5' },
    'rand-seed': { type: 'string', default: '1' },
  },
});
if (!opt.map) {
  console.error('--map DIR: a built map (waymark map build)');
  process.exit(2);
}
const mapDir = resolve(opt.map);
const label = opt.label ?? basename(mapDir);
const REQUESTS = Number(opt.requests);
const rand = rng(Number(opt['rand-seed']));
const dbName = 'waymark_bench_search';
const TARGETS = { search: 20, autocomplete: 10 };

let server = null;
let dbCreated = false;
const assertAlive = () => {
  if (server?.exit) throw new Error(`serve exited (${JSON.stringify(server.exit)}): ${server.stderrTail.trim()}`);
};
const q = (params) => new URLSearchParams(params).toString();

try {
  const manifest = JSON.parse(readFileSync(join(mapDir, 'manifest.json'), 'utf8'));
  const box = manifestBox(manifest);
  const { sql, key } = await createBenchDatabase({ adminUrl: ADMIN_URL, dbName, team: 'bench search', onCreated: () => (dbCreated = true) });
  await sql.end({ timeout: 5 });
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const t0 = performance.now();
  server = spawnServer({ port, mapDir, dbUrl: benchDatabaseUrl(dbName) });
  const readyMs = await waitForReady({ base, t0, timeoutMs: 300_000, server, assertAlive });
  say(`serve ready in ${(readyMs / 1000).toFixed(1)} s on ${mapDir}`);
  const get = (path, mode = 'keepalive') => call(base, key, 'GET', path, undefined, { newConnection: mode === 'new_connection' });

  // The map's own addresses, found by asking the server where random points are.
  const addresses = [];
  const seen = new Set();
  for (let probes = 0; addresses.length < REQUESTS && probes < 40 * REQUESTS; probes++) {
    const p = randomIn(rand, box);
    const r = await get(`/v1/geo/reverse?${q({ latitude: p.latitude.toFixed(6), longitude: p.longitude.toFixed(6) })}`);
    assertAlive();
    // The answer's street carries the house number ("Städtle 38"); only numbered addresses are asked for.
    const a = r.json?.data;
    const numbered = /^(.*\S)\s+(\S*\d\S*)$/.exec(a?.street ?? '');
    if (r.status !== 200 || !numbered || !a?.city?.name) continue;
    const text = `${a.street}, ${a.city.name}`;
    if (seen.has(text)) continue;
    seen.add(text);
    addresses.push({ street: numbered[1], numbered: a.street, text });
  }
  if (addresses.length < REQUESTS / 2) throw new Error(`only ${addresses.length} addresses found by reverse geocoding`);
  say(`${addresses.length} addresses to ask for`);

  const judgeSearch = (r, item) => {
    if (r.status !== 200) return { kind: 'error', why: errorText(r) };
    const results = r.json?.data ?? [];
    const found = results.some((x) => JSON.stringify(x).includes(item.street));
    return found ? { kind: 'ok', seen: results.length } : { kind: 'error', why: `no result on ${item.street} for '${item.text}'` };
  };
  const judgeAny = (r) => (r.status === 200 ? { kind: 'ok', seen: (r.json?.data ?? []).length } : { kind: 'error', why: errorText(r) });
  const typed = addresses.flatMap((a) => [a.street.slice(0, 4), a.street, a.numbered]);
  const WARMUP = Number(opt.warmup);
  // The slowest questions of each workload, to say what the tail is made of.
  const slowest = { search: [], autocomplete: [] };
  const keepSlow = (list, text) => (_item, r) => {
    list.push({ q: text(_item), ms: +r.ms.toFixed(1) });
    list.sort((x, y) => y.ms - x.ms).splice(8);
  };
  const search = await timeInModes({
    name: 'search',
    items: addresses,
    send: (a, mode) => get(`/v1/geo/search?${q({ q: a.text })}`, mode),
    judge: judgeSearch,
    onAnswer: keepSlow(slowest.search, (a) => a.text),
    warmup: WARMUP,
    assertAlive,
    say,
  });
  const autocomplete = await timeInModes({
    name: 'autocomplete',
    items: typed,
    send: (t, mode) => get(`/v1/geo/autocomplete?${q({ q: t })}`, mode),
    judge: judgeAny,
    onAnswer: keepSlow(slowest.autocomplete, (t) => t),
    warmup: WARMUP,
    assertAlive,
    say,
  });
  const workloads = { search, autocomplete };
  const met = Object.fromEntries(
    Object.entries(TARGETS).map(([k, target]) => {
      const p95 = (mode) => workloads[k][mode]?.ms?.p95;
      return [
        k,
        {
          target_p95_ms: target,
          p95_keepalive: p95('keepalive'),
          p95_new_connection: p95('new_connection'),
          met: p95('keepalive') <= target && p95('new_connection') <= target,
        },
      ];
    }),
  );
  const git = (() => {
    try {
      return readFileSync(join(root, '.git/HEAD'), 'utf8').trim();
    } catch {
      return null;
    }
  })();
  const result = {
    label,
    map: { dir: mapDir, formatVersion: manifest.formatVersion, geocoder: manifest.geocoder ?? null },
    machine: { cpus: cpus().length, cpu_model: cpus()[0]?.model, loadavg_end: loadavg() },
    git_head: git,
    method: 'one request at a time, kept-alive connection then a new connection per request, timed to the last byte',
    addresses: addresses.length,
    workloads,
    slowest,
    met,
  };
  const out = join(root, 'bench/results', `search-${label}.json`);
  writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
  say(`wrote ${out}`);
  for (const [k, m] of Object.entries(met))
    console.log(
      `${k.padEnd(13)} kept-alive p50 ${workloads[k].keepalive.ms.p50} / p95 ${m.p95_keepalive} ms · new connection p50 ${workloads[k].new_connection.ms.p50} / p95 ${m.p95_new_connection} ms · target ≤ ${m.target_p95_ms} ${m.met ? '✓' : '✗'}`,
    );
} finally {
  closeConnections();
  await stopActiveChildren();
  if (server && !server.exit) {
    server.child.kill('SIGTERM');
    // Its database goes once it has stopped using it.
    for (let i = 0; i < 100 && !server.exit; i++) await new Promise((r) => setTimeout(r, 100));
  }
  if (dbCreated) await dropBenchDatabase(ADMIN_URL, dbName, say);
}
