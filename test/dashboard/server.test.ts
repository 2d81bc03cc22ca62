import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { SIGN_IN_MAX_FAILURES } from '../../src/dashboard/sessions.js';
import { createUser, resetPassword } from '../../src/dashboard/users.js';
import { api, makeTeam, startTestApp } from '../support/app.js';
import { makeDashboardTeam, signIn } from './support.js';

/** The dashboard's server side over plain HTTP: sessions, CSRF, rate limit, headers, team scoping. */
let app: App & { url: string };
beforeAll(async () => {
  app = await startTestApp({ WAYMARK_MAP: 'off', WAYMARK_JOBS: 'off' });
});
afterAll(() => app?.close());

const req = (path: string, init: RequestInit & { cookie?: string; csrf?: string } = {}) => {
  const headers: Record<string, string> = { ...(init.headers as Record<string, string>) };
  if (init.cookie) headers.cookie = init.cookie;
  if (init.csrf) headers['x-csrf-token'] = init.csrf;
  if (typeof init.body === 'string') headers['content-type'] ??= 'application/json';
  return fetch(`${app.url}${path}`, { ...init, headers });
};

describe('dashboard server', () => {
  it('serves the app with a strict CSP and the security headers', async () => {
    for (const path of ['/dashboard/', '/dashboard', '/dashboard/keys', '/dashboard/pois']) {
      const res = await req(path);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      const csp = res.headers.get('content-security-policy')!;
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      expect(csp).toContain("frame-ancestors 'none'");
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      const html = await res.text();
      expect(html).not.toMatch(/https?:\/\//);
      expect(html).not.toMatch(/<script>(?!<\/script>)/);
    }
    const js = await req('/dashboard/assets/app.js');
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    const etag = js.headers.get('etag')!;
    expect((await req('/dashboard/assets/app.js', { headers: { 'if-none-match': etag } })).status).toBe(304);
    expect((await req('/dashboard/assets/app.css')).headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect((await req('/dashboard/assets/..%2fpackage.json')).status).toBe(404);
    expect((await req('/dashboard/assets/routes.js')).status).toBe(404);
  });

  it('signs in and out; a wrong password and an unknown e-mail get the same 401', async () => {
    const t = await makeDashboardTeam(app);
    const wrong = await signIn(app.url, t.email, 'not the password');
    const unknown = await signIn(app.url, `nobody-${Date.now()}@example.test`, 'not the password');
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body.message).toBe(unknown.body.message);

    const s = await signIn(app.url, t.email.toUpperCase(), t.password);
    expect(s.status).toBe(201);
    expect(s.setCookie).toMatch(/^wm_session=[\w-]{43}; Path=\/dashboard; HttpOnly; SameSite=Lax; Max-Age=\d+$/);
    expect(s.body.data).toMatchObject({ user: { email: t.email }, team: { id: t.teamId } });
    const me = await req('/dashboard/api/session', { cookie: s.cookie });
    expect(me.status).toBe(200);
    expect(((await me.json()) as any).data.csrf_token).toBe(s.csrf);

    // X-Forwarded-Proto from a client that is not a trusted proxy changes nothing (behind a trusted TLS
    // proxy the cookie is Secure: test/dashboard/sign-in-limits.test.ts).
    const tls = await fetch(`${app.url}/dashboard/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-proto': 'https' },
      body: JSON.stringify({ email: t.email, password: t.password }),
    });
    expect(tls.status).toBe(201);
    expect(tls.headers.get('set-cookie')).not.toMatch(/Secure/);

    const out = await req('/dashboard/api/session', { method: 'DELETE', cookie: s.cookie, csrf: s.csrf });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/^wm_session=; .*Max-Age=0/);
    expect((await req('/dashboard/api/session', { cookie: s.cookie })).status).toBe(401);
    expect((await req('/dashboard/api/keys', { cookie: s.cookie })).status).toBe(401);
  });

  it('refuses state-changing requests without the CSRF token or from another origin', async () => {
    const t = await makeDashboardTeam(app);
    const s = await signIn(app.url, t.email, t.password);
    const body = JSON.stringify({ name: 'csrf', permissions: ['all'] });
    const noToken = await req('/dashboard/api/keys', { method: 'POST', cookie: s.cookie, body });
    expect(noToken.status).toBe(403);
    expect(((await noToken.json()) as any).message).toMatch(/CSRF/);
    expect((await req('/dashboard/api/keys', { method: 'POST', cookie: s.cookie, csrf: 'x'.repeat(43), body })).status).toBe(403);
    expect(
      (await req('/dashboard/api/keys', { method: 'POST', cookie: s.cookie, csrf: s.csrf, body, headers: { origin: 'https://evil.example' } })).status,
    ).toBe(403);
    expect(
      (await req('/dashboard/api/v1/pois', { method: 'POST', cookie: s.cookie, body: JSON.stringify({ name: 'x', latitude: 1, longitude: 1 }) })).status,
    ).toBe(403);
    expect((await req(`/dashboard/api/session`, { method: 'DELETE', cookie: s.cookie })).status).toBe(403);
    // Sign-in itself: only JSON from this origin (a cross-site form cannot send JSON).
    const form = await fetch(`${app.url}/dashboard/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify({ email: t.email, password: t.password }),
    });
    expect(form.status).toBe(403);
    const ok = await req('/dashboard/api/keys', { method: 'POST', cookie: s.cookie, csrf: s.csrf, body });
    expect(ok.status).toBe(201);
    expect((await req('/dashboard/api/session', { cookie: s.cookie })).status).toBe(200);
  });

  it('rate-limits failed sign-ins per e-mail', async () => {
    const t = await makeDashboardTeam(app);
    for (let i = 0; i < SIGN_IN_MAX_FAILURES; i++) expect((await signIn(app.url, t.email, `wrong ${i}`)).status).toBe(401);
    const blocked = await signIn(app.url, t.email, t.password);
    expect(blocked.status).toBe(429);
    expect(blocked.body.message).toMatch(/Too many failed sign-ins/);
    // Others are not affected.
    const other = await makeDashboardTeam(app);
    expect((await signIn(app.url, other.email, other.password)).status).toBe(201);
  });

  it('ends idle sessions and the sessions of a reset password', async () => {
    const t = await makeDashboardTeam(app);
    const a = await signIn(app.url, t.email, t.password);
    const b = await signIn(app.url, t.email, t.password);
    await app.sql`UPDATE dashboard_sessions SET last_seen_at = now() - interval '31 minutes' WHERE team_id = ${t.teamId}
                  AND csrf_token = ${a.csrf}`;
    expect((await req('/dashboard/api/session', { cookie: a.cookie })).status).toBe(401);
    expect((await req('/dashboard/api/session', { cookie: b.cookie })).status).toBe(200);
    await resetPassword(app.sql, t.email, 'a brand new password');
    expect((await req('/dashboard/api/session', { cookie: b.cookie })).status).toBe(401);
    expect((await signIn(app.url, t.email, t.password)).status).toBe(401);
    expect((await signIn(app.url, t.email, 'a brand new password')).status).toBe(201);
  });

  it('stores only scrypt hashes and refuses short passwords and duplicate e-mails', async () => {
    const t = await makeDashboardTeam(app);
    const [row] = await app.sql`SELECT password_hash FROM dashboard_users WHERE email = ${t.email}`;
    expect(row.password_hash).toMatch(/^scrypt\$32768\$8\$1\$[\w-]+\$[\w-]+$/);
    expect(row.password_hash).not.toContain(t.password);
    await expect(createUser(app.sql, { teamId: t.teamId, email: `short-${Date.now()}@example.test`, password: 'short' })).rejects.toThrow(/at least 10/);
    await expect(createUser(app.sql, { teamId: t.teamId, email: t.email.toUpperCase(), password: 'long enough password' })).rejects.toThrow(/already exists/);
  });

  it('scopes keys, usage and data to the session team; key changes reach the API at once', async () => {
    const t = await makeDashboardTeam(app);
    const s = await signIn(app.url, t.email, t.password);
    const other = await makeTeam(app);
    const [otherKey] = await app.sql`SELECT id FROM api_keys WHERE team_id = ${other.teamId}`;
    const j = (body: unknown) => JSON.stringify(body);
    expect((await req(`/dashboard/api/keys/${otherKey.id}`, { method: 'PUT', cookie: s.cookie, csrf: s.csrf, body: j({ is_active: false }) })).status).toBe(
      404,
    );
    expect((await req(`/dashboard/api/keys/${otherKey.id}`, { method: 'DELETE', cookie: s.cookie, csrf: s.csrf })).status).toBe(404);
    expect((await req(`/dashboard/api/usage?key_id=${otherKey.id}`, { cookie: s.cookie })).status).toBe(404);
    expect((await api(app, 'GET', '/v1/info', { key: other.key })).status).toBe(200);
    const list = (await (await req('/dashboard/api/keys', { cookie: s.cookie })).json()) as any;
    expect(list.data).toEqual([]);

    const bad = await req('/dashboard/api/keys', {
      method: 'POST',
      cookie: s.cookie,
      csrf: s.csrf,
      body: j({ name: '', permissions: ['nope'], expires_at: '2001-01-01T00:00:00Z' }),
    });
    expect(bad.status).toBe(422);
    expect(Object.keys(((await bad.json()) as any).errors).sort()).toEqual(['expires_at', 'name', 'permissions.0']);

    const created = (await (
      await req('/dashboard/api/keys', { method: 'POST', cookie: s.cookie, csrf: s.csrf, body: j({ name: 'ci', permissions: ['read-pois'] }) })
    ).json()) as any;
    const key = created.data.key as string;
    expect(created.data).toMatchObject({ name: 'ci', last_four: key.slice(-4), is_active: true, permissions: [{ id: 1, name: 'read-pois' }] });
    expect((await api(app, 'GET', '/v1/pois', { key })).status).toBe(200);
    expect((await api(app, 'POST', '/v1/categories', { key, body: { name: 'x' } })).status).toBe(403);
    const listed = (await (await req('/dashboard/api/keys', { cookie: s.cookie })).json()) as any;
    expect(JSON.stringify(listed)).not.toContain(key);

    await req(`/dashboard/api/keys/${created.data.id}`, { method: 'PUT', cookie: s.cookie, csrf: s.csrf, body: j({ is_active: false }) });
    expect((await api(app, 'GET', '/v1/pois', { key })).status).toBe(401);
    await req(`/dashboard/api/keys/${created.data.id}`, { method: 'PUT', cookie: s.cookie, csrf: s.csrf, body: j({ is_active: true }) });
    expect((await api(app, 'GET', '/v1/pois', { key })).status).toBe(200);
    expect((await req(`/dashboard/api/keys/${created.data.id}`, { method: 'DELETE', cookie: s.cookie, csrf: s.csrf })).status).toBe(204);
    expect((await api(app, 'GET', '/v1/pois', { key })).status).toBe(401);

    // Data goes through the API's handlers with the session's team: same validation, same isolation.
    const poi = await req('/dashboard/api/v1/pois', { method: 'POST', cookie: s.cookie, csrf: s.csrf, body: j({ name: 'A', latitude: 95, longitude: 1 }) });
    expect(poi.status).toBe(422);
    expect(((await poi.json()) as any).errors).toEqual({ latitude: ['must be between -90 and 90'] });
    const made = await api(app, 'POST', '/v1/pois', { key: other.key, body: { name: 'theirs', latitude: 1, longitude: 1 } });
    expect((await req(`/dashboard/api/v1/pois/${made.body.data.id}`, { cookie: s.cookie })).status).toBe(404);
    const mine = (await (await req('/dashboard/api/v1/pois', { cookie: s.cookie })).json()) as any;
    expect(mine.data).toEqual([]);
  });

  it('a key deactivated in the dashboard is refused by another server process at once', async () => {
    const other = await startTestApp({ WAYMARK_MAP: 'off', WAYMARK_JOBS: 'off' });
    try {
      const t = await makeDashboardTeam(app);
      const s = await signIn(app.url, t.email, t.password);
      const made = (await (
        await req('/dashboard/api/keys', { method: 'POST', cookie: s.cookie, csrf: s.csrf, body: JSON.stringify({ name: 'mp', permissions: ['read-pois'] }) })
      ).json()) as any;
      const key = made.data.key as string;
      expect((await api(other, 'GET', '/v1/pois', { key })).status).toBe(200);
      await req(`/dashboard/api/keys/${made.data.id}`, { method: 'PUT', cookie: s.cookie, csrf: s.csrf, body: JSON.stringify({ is_active: false }) });
      // The other process learns it by NOTIFY: within a few milliseconds, never the cache's 30 s.
      const started = Date.now();
      while ((await api(other, 'GET', '/v1/pois', { key })).status !== 401) {
        expect(Date.now() - started).toBeLessThan(1_000);
        await new Promise((r) => setTimeout(r, 5));
      }
      await req(`/dashboard/api/keys/${made.data.id}`, { method: 'PUT', cookie: s.cookie, csrf: s.csrf, body: JSON.stringify({ is_active: true }) });
      const again = Date.now();
      while ((await api(other, 'GET', '/v1/pois', { key })).status !== 200) {
        expect(Date.now() - again).toBeLessThan(1_000);
        await new Promise((r) => setTimeout(r, 5));
      }
    } finally {
      await other.close();
    }
  });

  it('reports usage per team and key by endpoint, and leaves dashboard calls uncounted', async () => {
    const t = await makeDashboardTeam(app, { plan: 'basic' });
    const s = await signIn(app.url, t.email, t.password);
    const k = (await (
      await req('/dashboard/api/keys', { method: 'POST', cookie: s.cookie, csrf: s.csrf, body: JSON.stringify({ name: 'u', permissions: ['all'] }) })
    ).json()) as any;
    for (let i = 0; i < 3; i++) await api(app, 'GET', '/v1/pois', { key: k.data.key });
    expect((await api(app, 'GET', '/v1/categories/nope', { key: k.data.key })).status).toBe(404);
    for (let i = 0; i < 5; i++) await req('/dashboard/api/v1/pois', { cookie: s.cookie });
    const u = ((await (await req('/dashboard/api/usage', { cookie: s.cookie })).json()) as any).data;
    expect(u.total.reduce((a: number, b: number) => a + b, 0)).toBe(4);
    expect(u.endpoints.map((e: any) => [e.endpoint, e.total])).toEqual([
      ['GET /v1/pois', 3],
      ['GET /v1/categories/{id}', 1],
    ]);
    expect(u.keys).toEqual([{ id: k.data.id, count: 4, deleted: false }]);
    expect(u.status_classes.map((c: any) => [c.status_class, c.total])).toEqual([
      ['2xx', 3],
      ['4xx', 1],
    ]);
    expect(u.plan).toEqual({ name: 'basic', active: true });
    expect(u.rate).toMatchObject({ limit: 100, used: 4, remaining: 96 });
    expect(u.pois).toEqual({ count: 0, limit: 1000 });
    const month = ((await (await req(`/dashboard/api/usage?range=30d&key_id=${k.data.id}`, { cookie: s.cookie })).json()) as any).data;
    expect(month.buckets).toHaveLength(30);
    expect(month.total.at(-1)).toBe(4);
    expect((await req('/dashboard/api/usage?range=1y', { cookie: s.cookie })).status).toBe(400);
  });

  it("keeps a deleted key's usage: its history, the 'deleted key' line, and the team's rolling hour", async () => {
    const t = await makeDashboardTeam(app, { plan: 'basic' });
    const s = await signIn(app.url, t.email, t.password);
    const make = async (name: string) =>
      (
        (await (
          await req('/dashboard/api/keys', { method: 'POST', cookie: s.cookie, csrf: s.csrf, body: JSON.stringify({ name, permissions: ['all'] }) })
        ).json()) as any
      ).data;
    const gone = await make('to delete');
    const kept = await make('kept');
    for (let i = 0; i < 3; i++) expect((await api(app, 'GET', '/v1/pois', { key: gone.key })).status).toBe(200);
    expect((await api(app, 'GET', '/v1/pois', { key: kept.key })).status).toBe(200);
    const usage = async (q = '') => ((await (await req(`/dashboard/api/usage${q}`, { cookie: s.cookie })).json()) as any).data;
    const before = await usage();
    expect(before.rate.used).toBe(4);
    expect((await req(`/dashboard/api/keys/${gone.id}`, { method: 'DELETE', cookie: s.cookie, csrf: s.csrf })).status).toBe(204);
    expect((await api(app, 'GET', '/v1/pois', { key: gone.key })).status).toBe(401);
    const after = await usage();
    expect(after.rate.used).toBe(4);
    expect(after.total.reduce((a: number, b: number) => a + b, 0)).toBe(4);
    expect(after.keys).toEqual(
      expect.arrayContaining([
        { id: gone.id, count: 3, deleted: true },
        { id: kept.id, count: 1, deleted: false },
      ]),
    );
    expect((await usage('?range=30d')).total.at(-1)).toBe(4);
    // The deleted key's own history can still be asked for.
    expect((await usage(`?key_id=${gone.id}`)).total.reduce((a: number, b: number) => a + b, 0)).toBe(3);
  });

  it('searches the POI table by name (case-insensitive, wildcards literal); the API list keeps ignoring a name', async () => {
    const t = await makeDashboardTeam(app);
    const s = await signIn(app.url, t.email, t.password);
    const other = await makeTeam(app);
    const k = (await (
      await req('/dashboard/api/keys', { method: 'POST', cookie: s.cookie, csrf: s.csrf, body: JSON.stringify({ name: 'n', permissions: ['all'] }) })
    ).json()) as any;
    for (const name of ['Café Central', 'Central Depot', 'Bakery 100%', 'Bakery 1000']) {
      expect((await api(app, 'POST', '/v1/pois', { key: k.data.key, body: { name, latitude: 47.14, longitude: 9.52 } })).status).toBe(201);
    }
    expect((await api(app, 'POST', '/v1/pois', { key: other.key, body: { name: 'Central (other team)', latitude: 47.14, longitude: 9.52 } })).status).toBe(201);
    const names = async (query: string) => {
      const res = await req(`/dashboard/api/pois${query}`, { cookie: s.cookie });
      expect(res.status, query).toBe(200);
      return ((await res.json()) as any).data.map((p: any) => p.name).sort();
    };
    expect(await names('?name=central')).toEqual(['Café Central', 'Central Depot']);
    expect(await names('?name=100%25')).toEqual(['Bakery 100%']);
    expect(await names('?name=_')).toEqual([]);
    expect(await names('?name=')).toHaveLength(4);
    expect(await names('?name=central&limit=1')).toHaveLength(1);
    expect(await names('?name=bakery&latitude=47.14&longitude=9.52&distance=100')).toEqual(['Bakery 100%', 'Bakery 1000']);
    const bad = await req('/dashboard/api/pois?limit=0', { cookie: s.cookie });
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as any).errors.limit).toBeDefined();
    expect((await req(`/dashboard/api/pois?name=${'x'.repeat(256)}`, { cookie: s.cookie })).status).toBe(422);
    expect((await req('/dashboard/api/pois?name=central')).status).toBe(401);
    // The contract's list has no name filter: the parameter changes nothing there.
    const listed = await api(app, 'GET', '/v1/pois?name=central', { key: k.data.key });
    expect(listed.status).toBe(200);
    expect(listed.body.data).toHaveLength(4);
  });
});
