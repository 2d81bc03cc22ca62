import { z } from 'zod';
import type { UsageRecorder } from '../auth/usage.js';
import type { Sql } from '../db/client.js';
import type { RequestContext } from '../http/context.js';
import { forbidden, HttpError, unprocessable } from '../http/errors.js';
import { RawBytes, type Reply, type Route } from '../http/router.js';
import { parseWith } from '../http/validate.js';
import { TrustedProxies } from '../http/client-address.js';
import { teamKeyRoutes } from '../api/keys/routes.js';
import { poiLister } from '../api/pois/routes.js';
import { burnPasswordCheck, verifyPassword } from './passwords.js';
import { COOKIE, crossOrigin, readCookie, SECURITY_HEADERS, sessionCookie } from './security.js';
import { ABSOLUTE_HOURS, sameToken, sessionAuth, SessionStore, type Session } from './sessions.js';
import { asset } from './static.js';
import { teamUsage } from './usage.js';
import { findUserByEmail } from './users.js';

/** Paths of the single-page app: each answers with the app's HTML (part 2 adds its map pages here). */
export const DASHBOARD_PAGES = ['', 'sign-in', 'keys', 'usage', 'pois', 'data', 'imports', 'map', 'routing', 'isochrones', 'clusters', 'optimize'];

/** API routes the dashboard reaches through its session, at /dashboard/api + the API path: the same
 *  handlers (validation, stores, messages, permissions) with the session's team as context. They are
 *  not counted as API usage and not rate limited: the contract says so of the routing page's calls (the
 *  isochrone page's, the map's POIs by drive time, and the optimize page's plans of the team's POIs,
 *  batch optimizations, are routing too). */
export const PROXIED_PREFIXES = [
  '/v1/pois',
  '/v1/attributes',
  '/v1/categories',
  '/v1/imports',
  '/v1/geo/',
  '/v1/routes',
  '/v1/isochrones',
  '/v1/optimizations',
];

const signInSchema = z.strictObject({
  email: z.string({ error: 'is required' }).trim().min(1, 'is required').max(320, 'is too long'),
  password: z.string({ error: 'is required' }).min(1, 'is required').max(1024, 'is too long'),
});

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

const json = (status: number, body: unknown, headers: Record<string, string> = {}): Reply => ({
  status,
  body,
  headers: { 'Cache-Control': 'no-store', ...headers },
});

/** Adds the security headers to every reply, errors included. */
const secured =
  (handler: (ctx: RequestContext) => Promise<Reply> | Reply) =>
  async (ctx: RequestContext): Promise<Reply> => {
    let reply: Reply;
    try {
      reply = await handler(ctx);
    } catch (err) {
      if (!(err instanceof HttpError)) throw err;
      reply = json(err.status, err.body(), err.headers);
    }
    return { ...reply, headers: { ...SECURITY_HEADERS, ...reply.headers } };
  };

export interface DashboardOptions {
  idleMinutes: number;
  /** Mark the session cookie Secure also when no proxy says the request came over TLS. */
  secureCookie: boolean;
  /** Addresses of the proxies whose X-Forwarded-Host and X-Forwarded-For are believed. */
  trustedProxies: readonly string[];
}

export function dashboardRoutes(
  sql: Sql,
  usage: UsageRecorder,
  apiRoutes: Route[],
  opts: DashboardOptions = { idleMinutes: 30, secureCookie: false, trustedProxies: [] },
): Route[] {
  const sessions = new SessionStore(sql, opts.idleMinutes);
  const proxies = new TrustedProxies(opts.trustedProxies);
  const fromElsewhere = (ctx: RequestContext) => crossOrigin(ctx.headers, proxies.host(ctx.peer, ctx.headers));
  // X-Forwarded-Proto only from a trusted proxy, as X-Forwarded-Host and -For.
  const overTls = (ctx: RequestContext) => opts.secureCookie || (proxies.trusts(ctx.peer) && ctx.headers['x-forwarded-proto'] === 'https');
  const pois = poiLister(sql);

  /** A handler behind the session cookie; state-changing requests also need the session's CSRF token
   *  in X-CSRF-Token and, when the browser sends an Origin, this host's. */
  const authed = (handler: (ctx: RequestContext, session: Session) => Promise<Reply> | Reply) =>
    secured(async (ctx) => {
      const session = await sessions.touch(readCookie(ctx.headers.cookie, COOKIE));
      if (!session) return json(401, { message: 'Your dashboard session has ended. Sign in again.' });
      if (STATE_CHANGING.has(ctx.method) && (fromElsewhere(ctx) || !sameToken(ctx.headers['x-csrf-token'], session.csrfToken))) {
        return json(403, { message: 'The request was refused: its CSRF token is missing or wrong. Reload the page and try again.' });
      }
      ctx.auth = sessionAuth(session);
      return handler(ctx, session);
    });

  const sessionBody = (s: Session) => ({
    data: {
      user: { id: s.userId, email: s.email },
      team: { id: s.teamId, name: s.teamName, plan: s.plan, plan_active: s.planActive },
      csrf_token: s.csrfToken,
    },
  });

  const html = secured(() => {
    const page = asset('index.html');
    if (!page) return { status: 503, body: { message: 'The dashboard is not built: run npm run build.' } };
    return { status: 200, body: new RawBytes(page.body), headers: { 'Content-Type': page.type, 'Cache-Control': 'no-cache' } };
  });

  const routes: Route[] = [
    ...DASHBOARD_PAGES.map((p): Route => ({ method: 'GET', path: `/dashboard/${p}`, public: true, body: 'none', handler: html })),
    {
      method: 'GET',
      path: '/dashboard/assets/{file}',
      public: true,
      body: 'none',
      handler: secured((ctx) => {
        const file = asset(ctx.params.file);
        if (!file || file.type.startsWith('text/html')) return json(404, { message: 'Not found.' });
        const headers = { 'Content-Type': file.type, ETag: file.etag, 'Cache-Control': 'no-cache' };
        if (ctx.headers['if-none-match'] === file.etag) return { status: 304, headers };
        return { status: 200, body: new RawBytes(file.body), headers };
      }),
    },
    {
      method: 'GET',
      path: '/dashboard/api/session',
      public: true,
      body: 'none',
      handler: authed((_ctx, session) => json(200, sessionBody(session))),
    },
    {
      method: 'POST',
      path: '/dashboard/api/session',
      public: true,
      bodyLimit: 16 * 1024,
      handler: secured(async (ctx) => {
        // No session yet, so no CSRF token: a JSON body (a cross-site form cannot send one) and, when
        // given, this host's Origin keep other sites from signing a browser in.
        const type = (ctx.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
        if (type !== 'application/json' || fromElsewhere(ctx)) return json(403, { message: 'Sign in from the dashboard page.' });
        const input = parseWith(signInSchema, await ctx.json());
        const client = proxies.client(ctx.peer, ctx.headers);
        const { wait, by } = await sessions.signInBlockedFor(input.email, client);
        if (wait > 0) {
          const what = by === 'email' ? 'for this e-mail' : 'from your address';
          return json(
            429,
            { message: `Too many failed sign-ins ${what}. Try again in ${Math.ceil(wait / 60)} minute(s).`, retry_after: wait },
            { 'Retry-After': String(wait) },
          );
        }
        const user = await findUserByEmail(sql, input.email);
        const ok = user ? await verifyPassword(input.password, user.password_hash) : (await burnPasswordCheck(input.password), false);
        if (!user || !ok) {
          await sessions.recordFailure(input.email, client);
          return json(401, { message: 'The e-mail or the password is wrong.' });
        }
        await sessions.clearFailures(input.email);
        const { token } = await sessions.create(user.id, user.team_id);
        const session = await sessions.touch(token);
        return json(201, sessionBody(session!), { 'Set-Cookie': sessionCookie(token, ABSOLUTE_HOURS * 3600, overTls(ctx)) });
      }),
    },
    {
      method: 'DELETE',
      path: '/dashboard/api/session',
      public: true,
      body: 'none',
      handler: authed(async (ctx) => {
        await sessions.destroy(readCookie(ctx.headers.cookie, COOKIE));
        return { status: 204, headers: { 'Set-Cookie': sessionCookie('', 0, overTls(ctx)), 'Cache-Control': 'no-store' } };
      }),
    },
    ...teamKeyRoutes(sql, authed),
    {
      method: 'GET',
      path: '/dashboard/api/usage',
      public: true,
      body: 'none',
      handler: authed(async (ctx, s) => {
        await usage.flush();
        return json(200, { data: await teamUsage(sql, s, ctx.query.get('range'), ctx.query.get('key_id')) });
      }),
    },
  ];

  // The POI table's text search on name: GET /v1/pois's filters and pages plus `name` (the API has no
  // name filter, and its list keeps ignoring one).
  routes.push({
    method: 'GET',
    path: '/dashboard/api/pois',
    public: true,
    body: 'none',
    handler: authed(async (ctx) => {
      if (!ctx.auth!.planActive) throw forbidden('Your team does not have an active plan.');
      ctx.require('read-pois');
      const name = (ctx.query.get('name') ?? '').trim();
      if (name.length > 255) throw unprocessable({ name: ['may not be longer than 255 characters'] });
      return { ...(await pois.list(ctx, name)), headers: { 'Cache-Control': 'no-store' } };
    }),
  });

  for (const api of apiRoutes) {
    if (api.public || !PROXIED_PREFIXES.some((p) => api.path === p || api.path.startsWith(p.endsWith('/') ? p : `${p}/`))) continue;
    routes.push({
      method: api.method,
      path: `/dashboard/api${api.path}`,
      public: true,
      body: api.body,
      bodyLimit: api.bodyLimit,
      handler: authed(async (ctx) => {
        // As the API answers a team without an active plan.
        if (!ctx.auth!.planActive) throw forbidden('Your team does not have an active plan.');
        if (api.permission) ctx.require(api.permission);
        const reply = await api.handler(ctx);
        return { ...reply, headers: { 'Cache-Control': 'no-store', ...reply.headers } };
      }),
    });
  }
  // Any other path under /dashboard: a 404 with the headers of every dashboard answer.
  routes.push({
    method: 'GET',
    path: '/dashboard/*',
    public: true,
    body: 'none',
    handler: secured(() => json(404, { message: 'Not found.' })),
  });
  // The client's address: whose X-Forwarded-* to believe, and whose failed sign-ins to count.
  return routes.map((r) => ({ ...r, peer: true }));
}
