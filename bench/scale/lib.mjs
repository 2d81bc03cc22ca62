// Helpers of bench/scale/run.mjs (and bench/reach/run.mjs): geometry on the sphere, seeded randomness,
// latency statistics, process memory from /proc, the one HTTP call every workload goes through, the
// synthetic country's file names and arguments, and starting `waymark serve` on a map.
import { execFileSync, spawn } from 'node:child_process';
import http from 'node:http';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export const log = (msg) => process.stderr.write(`[bench/scale] ${msg}\n`);

// ---- randomness -------------------------------------------------------------------------------------------
/** mulberry32: the same seed draws the same points, so two runs of one map ask the same questions. */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const pickOne = (rand, xs) => xs[Math.floor(rand() * xs.length)];

/** k distinct elements (k ≤ xs.length), partial Fisher–Yates on a copy. */
export function sample(rand, xs, k) {
  const a = [...xs];
  for (let i = 0; i < k; i++) {
    const j = i + Math.floor(rand() * (a.length - i));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a.slice(0, k);
}

// ---- geometry ---------------------------------------------------------------------------------------------
const R = 6_371_008.8;
const rad = (d) => (d * Math.PI) / 180;
const deg = (r) => (r * 180) / Math.PI;

export function meters(a, b) {
  const dLat = rad(b.latitude - a.latitude),
    dLon = rad(b.longitude - a.longitude);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a.latitude)) * Math.cos(rad(b.latitude)) * Math.sin(dLon / 2) ** 2;
  return 2 * R * Math.asin(Math.min(1, Math.sqrt(h)));
}

export function bearing(a, b) {
  const φ1 = rad(a.latitude),
    φ2 = rad(b.latitude),
    Δλ = rad(b.longitude - a.longitude);
  return Math.atan2(Math.sin(Δλ) * Math.cos(φ2), Math.cos(φ1) * Math.sin(φ2) - Math.sin(φ1) * Math.cos(φ2) * Math.cos(Δλ));
}

/** The point `dist` meters from `p` towards `brg` (radians from north). */
export function destination(p, brg, dist) {
  const δ = dist / R,
    φ1 = rad(p.latitude),
    λ1 = rad(p.longitude);
  const φ2 = Math.asin(Math.sin(φ1) * Math.cos(δ) + Math.cos(φ1) * Math.sin(δ) * Math.cos(brg));
  const λ2 = λ1 + Math.atan2(Math.sin(brg) * Math.sin(δ) * Math.cos(φ1), Math.cos(δ) - Math.sin(φ1) * Math.sin(φ2));
  return { latitude: +deg(φ2).toFixed(6), longitude: +deg(λ2).toFixed(6) };
}

export const inBox = (p, b) => p.latitude >= b.south && p.latitude <= b.north && p.longitude >= b.west && p.longitude <= b.east;
export const boxDiagonal = (b) => meters({ latitude: b.south, longitude: b.west }, { latitude: b.north, longitude: b.east });
export const randomIn = (rand, b) => ({
  latitude: +(b.south + rand() * (b.north - b.south)).toFixed(6),
  longitude: +(b.west + rand() * (b.east - b.west)).toFixed(6),
});

export function boxOf(points) {
  const b = { west: Infinity, south: Infinity, east: -Infinity, north: -Infinity };
  for (const p of points) {
    b.west = Math.min(b.west, p.longitude);
    b.east = Math.max(b.east, p.longitude);
    b.south = Math.min(b.south, p.latitude);
    b.north = Math.max(b.north, p.latitude);
  }
  return b;
}

/** A GeoJSON LineString's [lon, lat] positions with the distance along the line to each. */
export function measuredLine(coordinates) {
  const pts = coordinates.map(([longitude, latitude]) => ({ latitude, longitude }));
  const at = [0];
  for (let i = 1; i < pts.length; i++) at.push(at[i - 1] + meters(pts[i - 1], pts[i]));
  return { pts, at, length: at[at.length - 1] };
}

/** Position and heading `s` meters along a measured line (linear between its vertices: they are close). */
export function along(line, s) {
  const { pts, at } = line;
  let lo = 0,
    hi = at.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (at[mid] <= s) lo = mid;
    else hi = mid;
  }
  const a = pts[lo],
    b = pts[hi],
    seg = at[hi] - at[lo];
  const f = seg > 0 ? (s - at[lo]) / seg : 0;
  return {
    point: { latitude: a.latitude + f * (b.latitude - a.latitude), longitude: a.longitude + f * (b.longitude - a.longitude) },
    heading: bearing(a, b),
  };
}

/** Meters from `p` to the nearest segment of a measured line (flat around `p`: only short distances matter). */
export function distanceToLine(p, line) {
  const ky = 111_195,
    kx = ky * Math.cos(rad(p.latitude));
  let best = Infinity;
  const { pts } = line;
  for (let i = 1; i < pts.length; i++) {
    const ax = (pts[i - 1].longitude - p.longitude) * kx,
      ay = (pts[i - 1].latitude - p.latitude) * ky;
    const bx = (pts[i].longitude - p.longitude) * kx,
      by = (pts[i].latitude - p.latitude) * ky;
    // Cheap rejection: a segment wholly more than `best` away on one axis cannot be nearer.
    if ((ax > best && bx > best) || (ax < -best && bx < -best) || (ay > best && by > best) || (ay < -best && by < -best)) continue;
    const dx = bx - ax,
      dy = by - ay,
      len2 = dx * dx + dy * dy;
    const t = len2 > 0 ? Math.max(0, Math.min(1, -(ax * dx + ay * dy) / len2)) : 0;
    best = Math.min(best, Math.hypot(ax + t * dx, ay + t * dy));
  }
  return best;
}

// ---- statistics -------------------------------------------------------------------------------------------
/** n, p50, p95, max and mean of `ms` (0.1 ms), and `pNN` for each of `more` quantiles (0.99: p99). */
export function stats(ms, more = []) {
  const extra = (f) => Object.fromEntries(more.map((p) => [`p${Math.round(p * 100)}`, f(p)]));
  if (!ms.length) return { n: 0, p50: null, p95: null, ...extra(() => null), max: null, mean: null };
  const s = [...ms].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)];
  const r = (x) => +x.toFixed(1);
  return { n: s.length, p50: r(q(0.5)), p95: r(q(0.95)), ...extra((p) => r(q(p))), max: r(s[s.length - 1]), mean: r(s.reduce((a, b) => a + b, 0) / s.length) };
}

// ---- the runs' setting --------------------------------------------------------------------------------------
/** The PostgreSQL the benches make their databases in. */
export const ADMIN_URL = process.env.WAYMARK_BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
/** The URL of database `dbName` on ADMIN_URL's server. */
export const benchDatabaseUrl = (dbName) => ADMIN_URL.replace(/\/[^/]*$/, `/${dbName}`);

/** The short commit checked out in `dir`. */
export const gitCommit = (dir) => execFileSync('git', ['-C', dir, 'rev-parse', '--short', 'HEAD']).toString().trim();

// ---- process memory ---------------------------------------------------------------------------------------
function statusKb(pid, field) {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0; // gone between listing and reading
  }
}

/** The pid and all its live descendants (a build or a server may run helper processes). */
export function processTree(root) {
  const children = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // The command name is in parentheses and may contain spaces: ppid is the 2nd field after the last ')'.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(name));
    } catch {
      // exited meanwhile
    }
  }
  const out = [],
    stack = [root];
  while (stack.length) {
    const p = stack.pop();
    out.push(p);
    stack.push(...(children.get(p) ?? []));
  }
  return out;
}

export const rssBytes = (pid) => statusKb(pid, 'VmRSS') * 1024;
export const hwmBytes = (pid) => statusKb(pid, 'VmHWM') * 1024;
export const treeRssBytes = (root, { excludeRoot = false } = {}) =>
  processTree(root)
    .filter((p) => !(excludeRoot && p === root))
    .reduce((a, p) => a + rssBytes(p), 0);

/** Samples the summed RSS of a process tree until stopped: the peak of processes that run side by side,
 *  which a single process's high-water mark does not show. */
export function rssSampler(root, { everyMs = 200, excludeRoot = false } = {}) {
  let peak = 0;
  const tick = () => {
    peak = Math.max(peak, treeRssBytes(root, { excludeRoot }));
  };
  tick();
  const timer = setInterval(tick, everyMs);
  return {
    stop: () => {
      clearInterval(timer);
      tick();
      return peak;
    },
    get peak() {
      return peak;
    },
  };
}

// ---- HTTP -------------------------------------------------------------------------------------------------
export const REQUEST_TIMEOUT_MS = 30_000;

/** One kept-alive connection per server, as a client library would keep it. */
const agents = new Map();

/**
 * One request, timed from send to the last byte of the body (the body is decoded and parsed after the
 * clock stops: that is the client's cost, not the service's). node:http with a kept-alive connection, not fetch:
 * on this machine fetch's body stream adds 1–3 ms to a 300 kB route (a 520 kB file: fetch 1.9–4.5 ms,
 * node:http 1.2–1.6, curl 0.7), which is the client's time, not the service's. `newConnection` opens a
 * connection for this request alone (its connect is in the time) and closes it after. Never throws: a refused
 * connection, a timeout or a body that is not JSON come back as status 0 with the reason in `message`.
 */
export function call(base, key, method, path, body, { newConnection = false } = {}) {
  const t = performance.now();
  const url = new URL(path, base);
  if (!newConnection && !agents.has(url.origin)) agents.set(url.origin, new http.Agent({ keepAlive: true, maxSockets: 4 }));
  const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
  const failed = (err) => ({
    status: 0,
    ms: performance.now() - t,
    json: null,
    // The timeout's abort reaches node:http as an AbortError.
    message:
      err?.name === 'TimeoutError' || err?.name === 'AbortError'
        ? `timed out after ${REQUEST_TIMEOUT_MS} ms`
        : String(err?.cause?.code ?? err?.code ?? err?.message ?? err),
  });
  return new Promise((resolve) => {
    const req = http.request(
      url,
      {
        method,
        // A new connection per request: no agent, and the server is told to close it after the answer.
        agent: newConnection ? false : agents.get(url.origin),
        headers: {
          'x-api-key': key,
          ...(newConnection ? { connection: 'close' } : {}),
          ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}),
        },
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('error', (err) => resolve(failed(err)));
        res.on('end', () => {
          const ms = performance.now() - t;
          const text = Buffer.concat(chunks).toString('utf8');
          const ok = res.statusCode >= 200 && res.statusCode < 300;
          resolve(answer(res.statusCode, ms, text, ok));
        });
      },
    );
    req.on('error', (err) => resolve(failed(err)));
    req.end(payload);
  });
}

/**
 * An answer whose JSON is parsed when first read: a far route's geometry is tens of thousands of arrays,
 * and parsing (and keeping) every one would load this process's garbage collector, whose pauses land in
 * the next requests' times. Errors are parsed at once for their message.
 */
function answer(status, ms, text, ok) {
  let parsed;
  const parse = () => {
    if (parsed === undefined) {
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        parsed = null; // reported through the status
      }
    }
    return parsed;
  };
  return {
    status,
    ms,
    bytes: Buffer.byteLength(text),
    get json() {
      return parse();
    },
    message: ok ? '' : (parse()?.message ?? text.slice(0, 200)),
  };
}

/** Closes the kept-alive connections (the process can then exit on its own). */
export function closeConnections() {
  for (const a of agents.values()) a.destroy();
  agents.clear();
}

/**
 * What an answer means for the bench. The engine's 422s are told apart by their text (engine-errors.ts):
 * not connected and blocked are legitimate answers (a lorry kept off every way between two points by
 * their limits counts as not connected), too far means the point was not on a usable road.
 */
export function classify(r) {
  if (r.status >= 200 && r.status < 300) return { kind: 'ok' };
  if (r.status === 422) {
    const texts = [r.json?.message ?? '', ...Object.values(r.json?.errors ?? {}).flat()].join(' | ');
    if (/block/i.test(texts)) return { kind: 'blocked' };
    if (/not connect|does not connect|unreachable|cannot be reached|lorry of this size|keeps off the excluded/i.test(texts)) return { kind: 'not_connected' };
    const far = Object.entries(r.json?.errors ?? {}).find(([, msgs]) => msgs.some((m) => /from a road|too far|500 m/i.test(m)));
    if (far) return { kind: 'too_far', index: Number(far[0].split('.')[1]) };
  }
  return { kind: 'error' };
}

export const errorText = (r) => `${r.status || 'no answer'}: ${r.message}`.slice(0, 300);

// ---- the synthetic country ---------------------------------------------------------------------------------
/**
 * Where a synthetic country's extract is cached and the arguments that generate it (with
 * ../shared/tools/synth-country): a seed or origin other than the default is another country, with its
 * own file. Write to `partial` and rename to `out` once generated: an interrupted run must not leave a
 * truncated file to reuse.
 */
export function synthCountry({ tiles, seed = '1', origin, cache }) {
  const variant = `${seed !== '1' ? `-s${seed}` : ''}${origin ? `-o${origin.replace(/,/g, '_')}` : ''}`;
  const out = join(cache, `c${tiles}${variant}.osm.pbf`);
  const work = join(cache, `synth-${tiles}${variant}`);
  const partial = join(cache, `.partial-c${tiles}${variant}.osm.pbf`);
  const args = [
    join(root, '../shared/tools/synth-country/synth-country.mjs'),
    '--tiles',
    tiles,
    '--seed',
    seed,
    '--out',
    partial,
    '--work',
    work,
    ...(origin ? ['--origin', origin] : []),
  ];
  // The country's OPL scratch is several GB on big grids and of no use once the PBF exists.
  return { variant, out, work, partial, args, scratch: join(work, 'country.opl') };
}

// ---- road points ------------------------------------------------------------------------------------------
export const routeBody = (waypoints, profile = 'driving-car', avoid) => ({ waypoints, profile, ...(avoid ? { avoid } : {}) });
export const lastPoint = (r) => {
  const c = r.json.data.geometry.coordinates;
  return { latitude: c[c.length - 1][1], longitude: c[c.length - 1][0] };
};
export const firstPoint = (r) => {
  const c = r.json.data.geometry.coordinates;
  return { latitude: c[0][1], longitude: c[0][0] };
};

/** Counts an answer that is not the engine's verdict (5xx, timeouts) in `tally` ({errors, error_samples}). */
export function noteError(tally, r) {
  tally.errors++;
  if (tally.error_samples.length < 5) tally.error_samples.push(errorText(r));
}

/**
 * Road points for `profile`: random points of `box`, each routed to (with `post`, POST /v1/routes) from
 * the nearest point already in `pool` (short routes: cheap probes); a point the server routes to is a
 * road point, and its snapped position (the route's last coordinate) is kept. Points it cannot reach are
 * dropped, so the pool stays in the piece of the network the first points are in. `discovery`
 * ({probes, errors, error_samples}) counts the probes and the answers that are not the engine's verdict.
 */
export async function growRoadPool({ post, rand, pool, profile, box, want, maxProbes, discovery, assertAlive = () => {}, say = log }) {
  let probes = 0,
    failures = 0,
    lastLog = performance.now();
  while (pool.length < want && probes < maxProbes) {
    probes++;
    if (performance.now() - lastLog > 10_000) {
      lastLog = performance.now();
      say(`  ${pool.length}/${want} road points after ${probes} probes`);
    }
    discovery.probes++;
    const cand = randomIn(rand, box);
    let anchor = pool[0];
    for (const p of pool) if (meters(p, cand) < meters(anchor, cand)) anchor = p;
    const r = await post('/v1/routes', routeBody([anchor, cand], profile));
    assertAlive();
    const c = classify(r);
    if (c.kind === 'ok') pool.push(lastPoint(r));
    else if (c.kind === 'error') {
      noteError(discovery, r);
      if (++failures >= 20) throw new Error(`looking for road points: ${failures} errors, the last ${errorText(r)}`);
    }
  }
  return pool;
}

/**
 * Waits for the server (`server` from spawnServer, started at `t0`) to route: ready = the first 200 of
 * POST /v1/routes. Until the server answers, polls every 100 ms; once the engine answers (a point more than
 * 500 m from a road), replaces that point at once: the few extra requests cost milliseconds, and no point
 * has to be known before the server runs. Returns the route's two ends as the first road points.
 */
export async function waitForRoutes({ post, rand, bounds, t0, timeoutMs, server, assertAlive = () => {} }) {
  let A = randomIn(rand, bounds),
    B = randomIn(rand, bounds);
  let engineFirst = null,
    last = null,
    engineTries = 0;
  for (;;) {
    assertAlive();
    if (performance.now() - t0 > timeoutMs) {
      throw new Error(
        `not ready after ${timeoutMs / 1000} s; last answer ${last ? errorText(last) : 'none'}; server stderr ends with:\n${server.stderrTail.trim() || '(nothing)'}`,
      );
    }
    const r = await post('/v1/routes', routeBody([A, B]));
    last = r;
    const c = classify(r);
    if (c.kind === 'ok') {
      const ready = performance.now() - t0;
      return { anchors: [firstPoint(r), lastPoint(r)], ready_ms: ready, engine_first_ms: engineFirst ?? ready, engine_tries: engineTries };
    }
    if (c.kind === 'too_far' || c.kind === 'not_connected') {
      engineFirst ??= performance.now() - t0;
      if (++engineTries > 5000) throw new Error('the server answers but 5000 random points found no two it routes between');
      if (c.kind === 'too_far' && c.index === 0) A = randomIn(rand, bounds);
      else if (c.kind === 'too_far') B = randomIn(rand, bounds);
      else {
        A = randomIn(rand, bounds);
        B = randomIn(rand, bounds);
      }
      continue;
    }
    await new Promise((res) => setTimeout(res, 100));
  }
}

// ---- long commands ----------------------------------------------------------------------------------------
const activeChildren = new Set(); // the process groups running now, ended by stopActiveChildren on an interrupt

/**
 * Runs a long command (generation, build) with its output on our stderr. It gets a process group of its
 * own so that a timeout or an interrupt ends it with everything it started (GNU time does not pass
 * SIGTERM on to the command it measures). `done` resolves with the exit code, or the signal's name.
 */
export function runChild(cmd, args, what, timeoutMs, say = log, spawnOptions = {}) {
  const child = spawn(cmd, args, { stdio: ['ignore', 2, 2], detached: true, ...spawnOptions });
  activeChildren.add(child);
  const t = performance.now();
  const beat = setInterval(() => say(`  still ${what} after ${Math.round((performance.now() - t) / 1000)} s`), 60_000);
  const timer = setTimeout(() => {
    say(`${what}: no end after ${timeoutMs / 1000} s, stopping it`);
    killGroup(child, 'SIGTERM');
    setTimeout(() => killGroup(child, 'SIGKILL'), 10_000).unref();
  }, timeoutMs);
  const done = new Promise((res) =>
    child.on('exit', (c, sig) => {
      clearInterval(beat);
      clearTimeout(timer);
      activeChildren.delete(child);
      res(c ?? sig);
    }),
  );
  return { child, done };
}

export function killGroup(child, signal) {
  try {
    process.kill(-child.pid, signal);
  } catch {
    /* already gone */
  }
}

/** Ends every command runChild started that is still running (SIGTERM, then SIGKILL after 2 s). */
export async function stopActiveChildren() {
  if (!activeChildren.size) return;
  for (const c of activeChildren) killGroup(c, 'SIGTERM');
  await new Promise((r) => setTimeout(r, 2000));
  for (const c of activeChildren) killGroup(c, 'SIGKILL');
}

// ---- the map --------------------------------------------------------------------------------------------
/** The shared shapes' grid box from the manifest (format 5), else a profile's (older formats). */
export function manifestBox(manifest) {
  const grids = [manifest.shapes?.grid, manifest.profiles?.['driving-car']?.grid, ...Object.values(manifest.profiles ?? {}).map((p) => p.grid)].filter(Boolean);
  const g = grids.find((x) => [x.minLat, x.minLon, x.cellLat, x.cellLon, x.rows, x.cols].every(Number.isFinite));
  if (!g) return null;
  return { south: g.minLat, west: g.minLon, north: g.minLat + g.rows * g.cellLat, east: g.minLon + g.cols * g.cellLon };
}

// ---- the database -----------------------------------------------------------------------------------------
/**
 * A fresh database `dbName` (dropped first if left over), migrated, with an enterprise team named `team`
 * (no rate limit, no POI limit) and a key with every permission. `onCreated` is called as soon as the
 * database exists (so that cleanup drops it even if what follows fails). Needs `npm run build`.
 */
export async function createBenchDatabase({ adminUrl, dbName, team: teamName, onCreated = () => {} }) {
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.unsafe(`CREATE DATABASE ${dbName}`);
    onCreated();
  } finally {
    await admin.end({ timeout: 5 });
  }
  const { connect } = await import('../../dist/db/client.js');
  const { migrate } = await import('../../dist/db/migrate.js');
  const { createKey, createTeam } = await import('../../dist/auth/admin.js');
  const { parsePermissionList } = await import('../../dist/auth/permissions.js');
  const sql = connect(adminUrl.replace(/\/[^/]*$/, `/${dbName}`), 2);
  await migrate(sql);
  const team = await createTeam(sql, { name: teamName, plan: 'enterprise' });
  const { key } = await createKey(sql, { teamId: team.id, name: teamName, permissions: parsePermissionList('all') });
  return { sql, key, teamId: team.id };
}

export async function dropBenchDatabase(adminUrl, dbName, say = log) {
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`).catch((err) => say(`dropping ${dbName}: ${err.message}`));
  await admin.end({ timeout: 5 }).catch(() => {});
}

/** New POIs are geocoded in the background by the server; waits (up to 2 min) for that to finish so it
 *  does not share the cores with the timed requests. */
export async function waitForGeocoding(sql, say = log) {
  const t = performance.now();
  try {
    for (let i = 0; i < 240; i++) {
      const [{ n }] = await sql`SELECT count(*)::int AS n FROM pois WHERE geocode_pending`;
      if (n === 0) break;
      if (i % 20 === 0) say(`  waiting for the background geocoding of ${n} POIs`);
      await new Promise((r) => setTimeout(r, 500));
    }
  } catch (err) {
    say(`  cannot tell whether geocoding is done (${err.message}); going on`);
  }
  say(`  geocoding settled after ${((performance.now() - t) / 1000).toFixed(2)} s`);
}

/**
 * `count` pairs of points of the map's shapes (`readShapeFiles`) at least 60 % of their extent apart (the
 * diagonal of 2,000 points' box), each kept when `routes(a, b)` resolves true (the server routes it), drawn
 * with rng(1): the far routes the benches of bench/routing ask. Returns { pairs, diagonal } (meters).
 */
export async function farShapePairs({ shapes, count, routes }) {
  const rand = rng(1);
  const pts = shapes.pointsE7;
  const n = pts.length / 2;
  const pick = () => {
    const p = Math.floor(rand() * n);
    return { latitude: pts[2 * p] * 1e-7, longitude: pts[2 * p + 1] * 1e-7 };
  };
  const diagonal = boxDiagonal(boxOf(Array.from({ length: 2000 }, pick)));
  const pairs = [];
  for (let tries = 0; pairs.length < count && tries < 100_000; tries++) {
    const a = pick(),
      b = pick();
    if (meters(a, b) >= 0.6 * diagonal && (await routes(a, b))) pairs.push([a, b]);
  }
  return { pairs, diagonal };
}

// ---- the server -------------------------------------------------------------------------------------------
export function freePort() {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
  });
}

/**
 * `waymark serve` on `mapDir` (every profile the map holds) with `workers` compute workers, from checkout
 * `dir` (this one unless given: ready-ab.mjs starts two), logging at `logLevel`. Returns
 * { child, pid, exit, stderrTail }: `exit` is set once it has exited, `stderrTail` keeps its last output.
 */
export function spawnServer({ port, mapDir, dbUrl, workers = 2, tag = 'serve', dir = root, logLevel = 'warn' }) {
  const env = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    DATABASE_URL: dbUrl,
    WAYMARK_MAP: mapDir,
    WAYMARK_WORKERS: String(workers),
    LOG_LEVEL: logLevel,
  };
  const child = spawn(process.execPath, [join(dir, 'bin/waymark.js'), 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const s = { child, pid: child.pid, exit: null, stderrTail: '' };
  const keepTail = (chunk) => {
    s.stderrTail = (s.stderrTail + chunk).slice(-8000);
  };
  // The log (pino, on stdout) is at warn level unless asked: what it says is why a request failed, so it is shown.
  const show = (c) => {
    keepTail(c);
    for (const line of String(c).split('\n')) if (line.trim()) process.stderr.write(`[${tag}] ${line}\n`);
  };
  child.stdout.on('data', show);
  child.stderr.on('data', show);
  child.on('exit', (code, signal) => {
    s.exit = { code, signal };
  });
  return s;
}

// ---- timing in both connection modes ------------------------------------------------------------------------
/** A kept-alive connection (as a client library keeps one) and a new connection per request (connect in the
 *  time, closed after): the first hides connection setup, the second shows what a client without a pool sees. */
export const MODES = ['keepalive', 'new_connection'];

/**
 * Sends `items` one at a time with `send(item, mode)` in each mode of MODES, timed from send to the last byte.
 * `judge(r, item)` says what an answer is: { kind: 'ok' | 'not_connected' | 'blocked' | 'error', why?, seen? }.
 * Every kind but 'error' is an engine answer and counts in `ms` (`ms_ok`: the 2xx alone, when other answers
 * were timed too); `seen` of the first five ok answers is kept as `checks`. `warmup` items are sent untimed
 * before each mode. `onAnswer(item, r, verdict, mode)` sees every timed answer. Never throws for an answer;
 * `assertAlive` throws for a dead server.
 */
export async function timeInModes({ name, items, send, judge, warmup = 0, onAnswer = () => {}, assertAlive = () => {}, say = log }) {
  const out = {};
  for (const mode of MODES) {
    // Each kept-alive run opens its own connection: one left idle through the run before may be closed by
    // the server's idle timeout (uWS: 10 s) as it is reused, a reset no client sees twice.
    if (mode === 'keepalive') closeConnections();
    const m = { requests: items.length, ok: 0, errors: 0, error_samples: [], checks: [] };
    for (const item of items.slice(0, warmup)) {
      await send(item, mode);
      assertAlive();
    }
    const all = [],
      okMs = [];
    let lastLog = performance.now();
    for (let i = 0; i < items.length; i++) {
      const r = await send(items[i], mode);
      assertAlive();
      const v = judge(r, items[i]);
      if (v.kind === 'error') {
        m.errors++;
        if (m.error_samples.length < 5) m.error_samples.push(v.why ?? errorText(r));
      } else {
        m[v.kind] = (m[v.kind] ?? 0) + 1;
        all.push(r.ms);
        if (v.kind === 'ok') {
          okMs.push(r.ms);
          if (m.checks.length < 5 && v.seen !== undefined) m.checks.push(v.seen);
        }
      }
      onAnswer(items[i], r, v, mode);
      if (performance.now() - lastLog > 5000) {
        lastLog = performance.now();
        say(`  ${name} ${mode}: ${i + 1}/${items.length}`);
      }
    }
    m.ms = stats(all);
    if (okMs.length !== all.length) m.ms_ok = stats(okMs);
    if (!m.checks.length) delete m.checks;
    const others = Object.keys(m).filter((k) => ['not_connected', 'blocked'].includes(k));
    say(
      `  ${name} ${mode}: p50 ${m.ms.p50} ms, p95 ${m.ms.p95} ms, max ${m.ms.max} ms; ok ${m.ok}${others.map((k) => `, ${k.replace('_', ' ')} ${m[k]}`).join('')}, errors ${m.errors}${m.errors ? ` (${m.error_samples[0]})` : ''}`,
    );
    out[mode] = m;
  }
  return out;
}

/**
 * The first request a server gets after it said ready (`item` on a new connection, as the first client after a
 * deploy has no connection yet), then the same again on a kept-alive one: what the first paid that the second
 * did not is a cost left to the first client (a lazily built structure, code not yet compiled, pages not yet
 * read). { ms, again_ms, kind, error? }.
 */
export async function firstAfterReady({ name, item, send, judge, assertAlive = () => {}, say = log }) {
  const r = await send(item, 'new_connection');
  assertAlive();
  const v = judge(r, item);
  const again = await send(item, 'keepalive');
  assertAlive();
  const out = { ms: +r.ms.toFixed(1), again_ms: +again.ms.toFixed(1), kind: v.kind, ...(v.kind === 'error' ? { error: v.why ?? errorText(r) } : {}) };
  say(`  ${name}: first request after ready ${out.ms} ms (${v.kind}), the same again ${out.again_ms} ms`);
  return out;
}

/** The first request after ready over the new-connection median (it opened a connection too); target ≤ 2. */
export const firstRatio = (first, timed) => (first?.ms != null && timed?.new_connection?.ms?.p50 ? +(first.ms / timed.new_connection.ms.p50).toFixed(2) : null);

// ---- OSRM, the routing peer ---------------------------------------------------------------------------------
/**
 * OSRM 6.0.0 data of `osm` for each of `algorithms` ('ch': osrm-contract, 'mld': osrm-partition +
 * osrm-customize) in `dir`/<algorithm>/map.osrm*, built niced on first use and reused after: one osrm-extract
 * with the build's own car.lua, its output copied once per algorithm (../shared/peers/osrm: each pipeline on
 * its own copy). Each algorithm's folder is built as <name>.partial and renamed when complete. Returns
 * { bin, profile, dir, seconds: {extract, ch, mld} } (seconds of what ran now, niced).
 */
export async function prepareOsrm({ bin, osm, dir, algorithms, timeoutMs, say = log }) {
  const tools = [
    'osrm-extract',
    ...(algorithms.includes('ch') ? ['osrm-contract'] : []),
    ...(algorithms.includes('mld') ? ['osrm-partition', 'osrm-customize'] : []),
  ];
  const missing = tools.filter((t) => !existsSync(join(bin, t)));
  if (missing.length) throw new Error(`no ${missing.join(', ')} in ${bin}: run bash ../shared/peers/osrm/build.sh /tmp/osrm-bin`);
  const profile = join(bin, '../osrm-backend-6.0.0/profiles/car.lua');
  const figures = { bin, profile, dir, seconds: {} };
  const todo = algorithms.filter((a) => !existsSync(join(dir, a, 'map.osrm.properties')));
  if (!todo.length) {
    say(`reusing the OSRM data in ${dir} (${algorithms.join(', ')})`);
    return figures;
  }
  if (!osm) throw new Error('OSRM needs the OSM extract the map was built from');
  const niced = async (cmd, args, what, cwd) => {
    say(`${what}: nice -n 19 ${cmd} ${args.join(' ')} (in ${cwd})`);
    const t = performance.now();
    const code = await runChild('nice', ['-n', '19', cmd, ...args], what, timeoutMs, say, { cwd }).done;
    if (code !== 0) throw new Error(`${what} exited ${code}`);
    return +((performance.now() - t) / 1000).toFixed(2);
  };
  const extracted = join(dir, 'extract');
  mkdirSync(dir, { recursive: true });
  rmSync(extracted, { recursive: true, force: true });
  mkdirSync(extracted);
  symlinkSync(resolve(osm), join(extracted, 'map.osm.pbf'));
  figures.seconds.extract = await niced(join(bin, 'osrm-extract'), ['-p', profile, 'map.osm.pbf'], 'osrm-extract', extracted);
  for (const algorithm of todo) {
    const partial = join(dir, `${algorithm}.partial`);
    rmSync(partial, { recursive: true, force: true });
    mkdirSync(partial);
    for (const f of readdirSync(extracted).filter((n) => n.startsWith('map.osrm'))) copyFileSync(join(extracted, f), join(partial, f));
    if (algorithm === 'ch') figures.seconds.ch = await niced(join(bin, 'osrm-contract'), ['map.osrm'], 'osrm-contract', partial);
    else {
      const p = await niced(join(bin, 'osrm-partition'), ['map.osrm'], 'osrm-partition', partial);
      figures.seconds.mld = +(p + (await niced(join(bin, 'osrm-customize'), ['map.osrm'], 'osrm-customize', partial))).toFixed(2);
    }
    rmSync(join(dir, algorithm), { recursive: true, force: true });
    renameSync(partial, join(dir, algorithm));
  }
  rmSync(extracted, { recursive: true, force: true });
  return figures;
}

/**
 * osrm-routed on `dir`/<algorithm> (prepareOsrm), ready when `probePath` gets any HTTP answer. Its log lines
 * carry its own time per request; those of paths matching `logged` are kept in order in `.logged` (ms).
 * Returns { child, pid, exit, logged, tail, base, ready_s }.
 */
export async function startOsrmRouted({ bin, dir, algorithm, probePath, logged = /\/(route|table)\/v1\//, extraArgs = [], say = log }) {
  if (!existsSync(join(bin, 'osrm-routed'))) throw new Error(`no osrm-routed in ${bin}: run bash ../shared/peers/osrm/build.sh /tmp/osrm-bin`);
  const port = await freePort();
  const cwd = join(dir, algorithm);
  const child = spawn(join(bin, 'osrm-routed'), ['--algorithm', algorithm, '-i', '127.0.0.1', '-p', String(port), ...extraArgs, 'map.osrm'], {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const o = { child, pid: child.pid, exit: null, logged: [], tail: '', base: `http://127.0.0.1:${port}`, ready_s: null };
  let partial = '';
  const onLine = (chunk) => {
    o.tail = (o.tail + chunk).slice(-4000);
    const lines = (partial + chunk).split('\n');
    partial = lines.pop();
    // [info] 01-02-2025 10:11:12 1.23ms 127.0.0.1 - agent 200 /route/v1/driving/…
    for (const line of lines) {
      const m = / (\d+(?:\.\d+)?)ms (.*)$/.exec(line);
      if (m && logged.test(m[2])) o.logged.push(Number(m[1]));
    }
  };
  child.stdout.on('data', onLine);
  child.stderr.on('data', onLine);
  child.on('exit', (code, signal) => {
    o.exit = { code, signal };
  });
  const t = performance.now();
  for (;;) {
    if (o.exit) throw new Error(`osrm-routed (${algorithm}) exited ${JSON.stringify(o.exit)}:\n${o.tail}`);
    const r = await call(o.base, '', 'GET', probePath, undefined, { newConnection: true });
    if (r.status !== 0) break;
    if (performance.now() - t > 300_000) {
      await stopChild(o);
      throw new Error(`osrm-routed (${algorithm}) not answering after 300 s:\n${o.tail}`);
    }
    await new Promise((res) => setTimeout(res, 100));
  }
  o.ready_s = +((performance.now() - t) / 1000).toFixed(2);
  say(`osrm-routed --algorithm ${algorithm} ready on ${o.base} in ${o.ready_s} s, RSS ${(rssBytes(child.pid) / 1e9).toFixed(2)} GB`);
  return o;
}

/** SIGTERM, then SIGKILL after 10 s, to a child `{ child, exit }` (spawnServer, startOsrmRouted). */
export async function stopChild(c) {
  if (!c || c.exit) return;
  c.child.kill('SIGTERM');
  for (let i = 0; i < 100 && !c.exit; i++) await new Promise((r) => setTimeout(r, 100));
  if (!c.exit) {
    c.child.kill('SIGKILL');
    for (let i = 0; i < 50 && !c.exit; i++) await new Promise((r) => setTimeout(r, 100));
  }
}

/** Polls GET /ready (every 50 ms) until it answers 200, as an orchestrator would before sending traffic;
 *  returns the milliseconds since `t0`. */
export async function waitForReady({ base, t0, timeoutMs, server, assertAlive = () => {} }) {
  let last = null;
  for (;;) {
    assertAlive();
    const r = await call(base, '', 'GET', '/ready', undefined, { newConnection: true });
    if (r.status === 200) return performance.now() - t0;
    last = r;
    if (performance.now() - t0 > timeoutMs) {
      throw new Error(
        `/ready not 200 after ${timeoutMs / 1000} s; last ${errorText(last)}; server output ends with:\n${server.stderrTail.trim() || '(nothing)'}`,
      );
    }
    await new Promise((res) => setTimeout(res, 50));
  }
}
