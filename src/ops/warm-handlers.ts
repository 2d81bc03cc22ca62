// What a fresh process's first requests would pay, paid before /ready says 200 (app.ts runs these in
// turn). The compute threads are warm by then (engine/warm-up.ts), but a fresh process's first far route
// still took 3–5 × its median on the 32x32 country (bench/scale, first request after ready), and its second
// 2–3 ×: the handlers' validation, the engine's main-thread side and the reply's assembly had run only once
// or never, each profile's far routes once per thread. So: the handlers answer each kind of request a few
// rounds, on points of the map being served, as a team that does not exist (they read nothing of another
// team, and nothing here writes: no rate limit, no usage, no stored result); then requests through the
// socket; then a full collection of the garbage all that left.
import { randomUUID } from 'node:crypto';
import { request, Agent } from 'node:http';
import type { Logger } from 'pino';
import type { AuthInfo } from '../auth/authenticate.js';
import { parsePermissionList } from '../auth/permissions.js';
import { poolSize } from '../compute/pool.js';
import { activeMap, roadPoints } from '../engine/engine.js';
import { RequestContext } from '../http/context.js';
import { HttpError } from '../http/errors.js';
import { rawPayload } from '../http/server.js';
import { Query } from '../http/query.js';
import { RawJson, type Router } from '../http/router.js';
import type { LatLon } from '../lib/lat-lon.js';

/** Rounds of the whole set: a function's optimised code needs a few calls, not one. */
const ROUNDS = 4;
/** Rounds stop after this long (the last one finishes): /ready waits for it. */
const BUDGET_MS = 800;

interface WarmRequest {
  path: string;
  body: Record<string, unknown>;
}

export interface HandlerWarmUp {
  ms: number;
  rounds: number;
  /** Answers by status: a 422 (a sample point the profile cannot reach) warms the same code. */
  statuses: Record<string, number>;
  /** The set sent through the server's socket (warmSocket), answers by status. */
  socket?: Record<string, number>;
}

const at = (p: LatLon) => ({ latitude: +p.lat.toFixed(6), longitude: +p.lon.toFixed(6) });

/**
 * The bench's workloads (bench/scale) on the served map: what a client's first requests ask. The variants
 * (steps, encoded lines, polygons) come first in a round: each makes V8 throw away code it had compiled
 * for the plainer requests (drawing a line, a leg's path, the grid walk), which the rest of the round
 * then compiles again for both.
 */
function requests(): WarmRequest[] {
  const map = activeMap();
  if (!map) return [];
  const routes: WarmRequest[] = [];
  // Far routes for the motor profiles, regional ones for the others (a bicycle's network may be in pieces).
  for (const profile of map.profiles) {
    const motor = profile.startsWith('driving');
    const ends = motor ? roadPoints(profile, 12) : roadPoints(profile, 53, 0.01);
    if (ends.length >= 2) routes.push({ path: '/v1/routes', body: { profile, waypoints: [at(ends[0]), at(ends[ends.length - 1])] } });
  }
  const car = map.profiles.find((p) => p === 'driving-car') ?? map.profiles[0];
  const spread = roadPoints(car, 12);
  const region = roadPoints(car, 53, 0.01);
  // A map of a few ways (a test's) has too few points for the rest.
  if (spread.length < 12 || region.length < 53) return routes;
  const far = [at(spread[0]), at(spread[11])];
  const mid = region[26];
  const d = 0.01;
  const square = [
    [mid.lon - d, mid.lat - d],
    [mid.lon + d, mid.lat - d],
    [mid.lon + d, mid.lat + d],
    [mid.lon - d, mid.lat + d],
    [mid.lon - d, mid.lat - d],
  ];
  return [
    { path: '/v1/routes', body: { profile: car, waypoints: far, steps: true, language: 'en' } },
    { path: '/v1/routes', body: { profile: car, waypoints: far, geometry_format: 'polyline6' } },
    { path: '/v1/routes', body: { profile: car, waypoints: [at(region[0]), at(region[52])], avoid: { polygons: { type: 'Polygon', coordinates: [square] } } } },
    { path: '/v1/isochrones', body: { profile: car, locations: [at(mid)], range: [600] } },
    { path: '/v1/matrix', body: { profile: car, sources: region.slice(0, 10).map(at) } },
    {
      path: '/v1/routes/optimize',
      body: {
        profile: car,
        vehicles: [0, 1, 2].map((i) => ({ id: `van-${i + 1}`, start: at(region[i]), ...(i < 2 ? { end: at(region[i]) } : {}) })),
        stops: region.slice(3).map((p, i) => ({ id: `stop-${i}`, ...at(p) })),
      },
    },
    { path: '/v1/routes', body: { profile: car, waypoints: spread.slice(1, 11).map(at) } },
    ...routes,
  ];
}

/** The team the warm-up asks as: one that does not exist, with every permission and no limits. */
export const warmUpAuth = (): AuthInfo => ({
  keyId: randomUUID(),
  teamId: randomUUID(),
  permissions: parsePermissionList('all'),
  expiresAt: null,
  isActive: true,
  planActive: true,
  rateLimit: null,
  poiLimit: null,
});

/**
 * Runs the warm-up set through `router`'s handlers (no socket: the HTTP server's own code is C++ and the
 * few lines around it already ran for /ready's probes). A handler's failure other than an HTTP answer is
 * logged and the rest go on: a warm-up never stops a start.
 */
export async function warmHandlers(router: Router, log: Logger, auth: AuthInfo, { rounds: most = ROUNDS, budgetMs = BUDGET_MS } = {}): Promise<HandlerWarmUp> {
  const started = performance.now();
  const list = requests();
  const statuses: Record<string, number> = {};
  const threads = Math.max(1, poolSize());
  let rounds = 0;
  while (list.length && rounds < most && (rounds === 0 || performance.now() - started < budgetMs)) {
    rounds++;
    for (const [i, r] of list.entries()) {
      // As many at once as there are compute threads: one at a time, every request went to the same idle
      // thread, and the other's first request of a kind paid (10x10: a bicycle route 7–11 ms against 1).
      const answered = await Promise.all(
        Array.from({ length: threads }, (_, k) =>
          answer(router, r, auth, `warm-up-${rounds}-${i}-${k}`).catch((err: unknown) => {
            log.warn({ err, path: r.path }, 'warm-up request failed');
            return 'failed';
          }),
        ),
      );
      for (const status of answered) statuses[status] = (statuses[status] ?? 0) + 1;
    }
  }
  return { ms: Math.round(performance.now() - started), rounds, statuses };
}

/** Two warm-ups' reports as one: times, rounds and answers added. */
export function addWarmUps(a: HandlerWarmUp, b: HandlerWarmUp): HandlerWarmUp {
  const statuses = { ...a.statuses };
  for (const [k, n] of Object.entries(b.statuses)) statuses[k] = (statuses[k] ?? 0) + n;
  return { ms: a.ms + b.ms, rounds: a.rounds + b.rounds, statuses };
}

async function answer(router: Router, r: WarmRequest, auth: AuthInfo, id: string): Promise<string> {
  const match = router.match('POST', r.path);
  if (match.kind !== 'found') return '404';
  const ctx = new RequestContext(id, 'POST', r.path, match.route.path, match.params, new Query(''), { 'content-type': 'application/json' });
  ctx.auth = auth;
  ctx.attachBody(Promise.resolve(Buffer.from(JSON.stringify(r.body))), undefined);
  try {
    const reply = await match.route.handler(ctx);
    // What `send` does with a reply: a route's text framed in its slot or copied out (the slot given back), or JSON.
    if (reply.body instanceof RawJson) {
      rawPayload(reply.body);
      reply.body.onSent();
    } else if (reply.body !== undefined) JSON.stringify(reply.body);
    return String(reply.status);
  } catch (err) {
    if (err instanceof HttpError) return String(err.status);
    throw err;
  }
}

/** Names the process's own warm-up requests (with a token only it knows) so the metrics and the log leave them out. */
export const WARM_UP_HEADER = 'x-waymark-warm-up';

/** The warm-up set again, through the socket, each request on a new connection and on a kept-alive one at once, answered as the warm-up team (the server's `own`): a fresh process's first request also paid for
 *  the server's own reading of a request with a body (uWS's callbacks, the headers, the body's chunks) —
 *  5–6 ms of a 10 ms first route on the 10x10 country after the handlers were warm — and for its sending of
 *  a 200 with a route's body, which answers of 401 never reached (32x32: the main thread's CPU for a first
 *  route 1.2–1.9 ms against 0.6–0.8 for the same again). Returns the answers by status. */
export async function warmSocket(host: string, port: number, token: string): Promise<Record<string, number>> {
  const hostname = host === '0.0.0.0' || host === '' ? '127.0.0.1' : host === '::' ? '::1' : host;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const statuses: Record<string, number> = {};
  try {
    for (const r of requests()) {
      const body = JSON.stringify(r.body);
      // Both at once, as the handlers' warm-up does: one at a time, both went to the same compute thread.
      const answered = await Promise.all(
        [false, true].map(
          (kept) =>
            new Promise<number>((resolve) => {
              const req = request(
                {
                  hostname,
                  port,
                  method: 'POST',
                  path: r.path,
                  agent: kept ? agent : false,
                  headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), [WARM_UP_HEADER]: token },
                },
                (res) => {
                  res.resume();
                  res.on('end', () => resolve(res.statusCode ?? 0));
                  res.on('error', () => resolve(0));
                },
              );
              req.on('error', () => resolve(0));
              req.end(body);
            }),
        ),
      );
      for (const status of answered) statuses[status] = (statuses[status] ?? 0) + 1;
    }
  } finally {
    agent.destroy();
  }
  return statuses;
}
