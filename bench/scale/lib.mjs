// Helpers of bench/scale/run.mjs: geometry on the sphere, seeded randomness, latency statistics, process
// memory from /proc, and the one HTTP call every workload goes through.
import http from 'node:http';
import { readFileSync, readdirSync } from 'node:fs';

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
export function stats(ms) {
  if (!ms.length) return { n: 0, p50: null, p95: null, max: null, mean: null };
  const s = [...ms].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)];
  const r = (x) => +x.toFixed(1);
  return { n: s.length, p50: r(q(0.5)), p95: r(q(0.95)), max: r(s[s.length - 1]), mean: r(s.reduce((a, b) => a + b, 0) / s.length) };
}

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
 * node:http 1.2–1.6, curl 0.7), which is the client's time, not the service's. Never throws: a refused
 * connection, a timeout or a body that is not JSON come back as status 0 with the reason in `message`.
 */
export function call(base, key, method, path, body) {
  const t = performance.now();
  const url = new URL(path, base);
  if (!agents.has(url.origin)) agents.set(url.origin, new http.Agent({ keepAlive: true, maxSockets: 4 }));
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
        agent: agents.get(url.origin),
        headers: { 'x-api-key': key, ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}) },
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
    if (/not connect|does not connect|unreachable|cannot be reached|lorry of this size/i.test(texts)) return { kind: 'not_connected' };
    const far = Object.entries(r.json?.errors ?? {}).find(([, msgs]) => msgs.some((m) => /from a road|too far|500 m/i.test(m)));
    if (far) return { kind: 'too_far', index: Number(far[0].split('.')[1]) };
  }
  return { kind: 'error' };
}

export const errorText = (r) => `${r.status || 'no answer'}: ${r.message}`.slice(0, 300);
