import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { createKey, createTeam, deleteKey, setKeyActive, updateTeam } from '../../src/auth/admin.js';
import { PERMISSIONS } from '../../src/auth/permissions.js';
import { api, makeTeam, startTestApp, type TestTeam } from '../support/app.js';
import { MISSING_ID, API_ONLY, NO_PLAN, UNAUTHENTICATED, eventually, expect404, expectMessage, expectRateHeaders, lacks } from './helpers.js';

let app: App & { url: string };
let team: TestTeam;

beforeAll(async () => {
  app = await startTestApp(API_ONLY);
  team = await makeTeam(app);
});
afterAll(() => app.close());

const keyIdOf = async (key: string) => (await api(app, 'GET', '/v1/info', { key })).body.data.id as string;

describe('401 Unauthenticated', () => {
  const protectedRoutes: Array<[string, string]> = [
    ['GET', '/v1/info'],
    ['GET', '/v1/pois'],
    ['POST', '/v1/pois'],
    ['GET', `/v1/pois/${MISSING_ID}`],
    ['PUT', `/v1/pois/${MISSING_ID}`],
    ['DELETE', `/v1/pois/${MISSING_ID}`],
    ['GET', '/v1/attributes'],
    ['POST', '/v1/attributes'],
    ['PUT', `/v1/attributes/${MISSING_ID}`],
    ['DELETE', `/v1/categories/${MISSING_ID}`],
    ['GET', '/v1/categories'],
    ['POST', '/v1/categories'],
  ];

  it.each(protectedRoutes)('%s %s without a key', async (method, path) => {
    const res = await api(app, method, path, { body: method === 'POST' || method === 'PUT' ? { name: 'x' } : undefined });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ message: UNAUTHENTICATED });
  });

  it('rejects unknown, malformed and empty keys', async () => {
    for (const key of [`wm_${'A'.repeat(40)}`, 'not-a-key', team.key.slice(0, -1), `${team.key}x`, team.key.toLowerCase(), ' ']) {
      const res = await api(app, 'GET', '/v1/pois', { headers: { 'X-API-KEY': key } });
      expect(res.status, key).toBe(401);
      expect(res.body).toEqual({ message: UNAUTHENTICATED });
    }
  });

  it('ignores the key when sent anywhere but the X-API-KEY header', async () => {
    const res = await api(app, 'GET', '/v1/pois', { headers: { Authorization: `Bearer ${team.key}` } });
    expect(res.status).toBe(401);
    const viaQuery = await api(app, 'GET', `/v1/pois?api_key=${team.key}`);
    expect(viaQuery.status).toBe(401);
  });

  it('accepts the header name in any case', async () => {
    const res = await api(app, 'GET', '/v1/info', { headers: { 'x-api-key': team.key } });
    expect(res.status).toBe(200);
  });

  it('rejects an expired key and accepts one that expires later', async () => {
    const expired = await team.keyWith('all', { expiresAt: new Date(Date.now() - 1000) });
    const res = await api(app, 'GET', '/v1/info', { key: expired });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ message: UNAUTHENTICATED });
    const later = await team.keyWith('all', { expiresAt: new Date(Date.now() + 3_600_000) });
    const ok = await api(app, 'GET', '/v1/info', { key: later });
    expect(ok.status).toBe(200);
    expect(ok.body.data.expires_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  });

  it('rejects a key once its expiry passes, even after it was used', async () => {
    const key = await team.keyWith('all', { expiresAt: new Date(Date.now() + 1500) });
    expect((await api(app, 'GET', '/v1/pois', { key })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1700));
    const res = await api(app, 'GET', '/v1/pois', { key });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ message: UNAUTHENTICATED });
  });

  it('rejects a deactivated key, and accepts it again once reactivated', async () => {
    const key = await team.keyWith('all');
    const id = await keyIdOf(key);
    await setKeyActive(app.sql, id, false);
    const res = await eventually(
      () => api(app, 'GET', '/v1/pois', { key }),
      (r) => r.status === 401,
    );
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ message: UNAUTHENTICATED });
    await setKeyActive(app.sql, id, true);
    const back = await eventually(
      () => api(app, 'GET', '/v1/pois', { key }),
      (r) => r.status === 200,
    );
    expect(back.status).toBe(200);
  });

  it('rejects a deleted key', async () => {
    const key = await team.keyWith('all');
    expect((await api(app, 'GET', '/v1/pois', { key })).status).toBe(200);
    await deleteKey(app.sql, await keyIdOf(key));
    const res = await eventually(
      () => api(app, 'GET', '/v1/pois', { key }),
      (r) => r.status === 401,
    );
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ message: UNAUTHENTICATED });
  });

  it('answers 401 before validating the request', async () => {
    const res = await api(app, 'POST', '/v1/pois', { body: '{broken', headers: { 'X-API-KEY': 'wm_nope' } });
    expect(res.status).toBe(401);
  });
});

describe('403 team without an active plan', () => {
  it('refuses every request of a team whose plan was never active', async () => {
    const t = await makeTeam(app, { plan: 'basic', planActive: false });
    for (const [method, path] of [
      ['GET', '/v1/info'],
      ['GET', '/v1/pois'],
      ['POST', '/v1/categories'],
      ['GET', `/v1/attributes/${MISSING_ID}`],
    ]) {
      const res = await api(app, method, path, { key: t.key, body: method === 'POST' ? { name: 'x' } : undefined });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body).toEqual({ message: NO_PLAN });
      expect(expectRateHeaders(res).limit).toBe(100);
    }
  });

  it('refuses a team whose plan becomes inactive, and serves it again once reactivated', async () => {
    const t = await makeTeam(app, { plan: 'pro' });
    expect((await api(app, 'GET', '/v1/pois', { key: t.key })).status).toBe(200);
    await updateTeam(app.sql, t.teamId, { planActive: false });
    const res = await eventually(
      () => api(app, 'GET', '/v1/pois', { key: t.key }),
      (r) => r.status === 403,
    );
    expect(res.body).toEqual({ message: NO_PLAN });
    await updateTeam(app.sql, t.teamId, { planActive: true });
    const back = await eventually(
      () => api(app, 'GET', '/v1/pois', { key: t.key }),
      (r) => r.status === 200,
    );
    expect(back.status).toBe(200);
  });

  it('stays 403 past the rate limit, with the counters but no Retry-After', async () => {
    const t = await makeTeam(app, { plan: 'basic', planActive: false, rateLimit: 2 });
    const remaining: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await api(app, 'GET', '/v1/pois', { key: t.key });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ message: NO_PLAN });
      remaining.push(expectRateHeaders(res).remaining);
      expect(res.headers.get('retry-after')).toBeNull();
      expect(res.headers.get('x-ratelimit-retry-after')).toBeNull();
    }
    expect(remaining).toEqual([1, 0, 0, 0]);
  });

  it('checks the key before the plan: a bad key of such a team is 401', async () => {
    const res = await api(app, 'GET', '/v1/pois', { headers: { 'X-API-KEY': `wm_${'b'.repeat(40)}` } });
    expect(res.status).toBe(401);
  });
});

describe('403 missing permission', () => {
  let poiId: string;
  let attributeId: string;
  let categoryId: string;

  beforeAll(async () => {
    poiId = (await api(app, 'POST', '/v1/pois', { key: team.key, body: { name: 'perm poi', latitude: 1, longitude: 2 } })).body.data.id;
    attributeId = (await api(app, 'POST', '/v1/attributes', { key: team.key, body: { name: 'perm_attr' } })).body.data.id;
    categoryId = (await api(app, 'POST', '/v1/categories', { key: team.key, body: { name: 'perm category' } })).body.data.id;
  });

  const routes: Array<[string, string, string, 'poi' | 'attribute' | 'category' | null, unknown]> = [
    ['read-pois', 'GET', '/v1/pois', null, undefined],
    ['create-pois', 'POST', '/v1/pois', null, { name: 'nope', latitude: 1, longitude: 1 }],
    ['read-pois', 'GET', '/v1/pois/{id}', 'poi', undefined],
    ['update-pois', 'PUT', '/v1/pois/{id}', 'poi', { name: 'changed' }],
    ['delete-pois', 'DELETE', '/v1/pois/{id}', 'poi', undefined],
    ['read-attributes', 'GET', '/v1/attributes', null, undefined],
    ['create-attributes', 'POST', '/v1/attributes', null, { name: 'nope' }],
    ['read-attributes', 'GET', '/v1/attributes/{id}', 'attribute', undefined],
    ['update-attributes', 'PUT', '/v1/attributes/{id}', 'attribute', { name: 'changed' }],
    ['delete-attributes', 'DELETE', '/v1/attributes/{id}', 'attribute', undefined],
    ['read-categories', 'GET', '/v1/categories', null, undefined],
    ['create-categories', 'POST', '/v1/categories', null, { name: 'nope' }],
    ['read-categories', 'GET', '/v1/categories/{id}', 'category', undefined],
    ['update-categories', 'PUT', '/v1/categories/{id}', 'category', { name: 'changed' }],
    ['delete-categories', 'DELETE', '/v1/categories/{id}', 'category', undefined],
  ];

  const idOf = (kind: 'poi' | 'attribute' | 'category' | null) =>
    kind === 'poi' ? poiId : kind === 'attribute' ? attributeId : kind === 'category' ? categoryId : '';

  it.each(routes)('%s is needed for %s %s', async (permission, method, template, kind, body) => {
    const others = PERMISSIONS.filter((p) => p !== permission).join(',');
    const key = await team.keyWith(others);
    const path = template.replace('{id}', idOf(kind));
    const res = await api(app, method, path, { key, body });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ message: lacks(permission) });
    expectRateHeaders(res);
    // Checked before the resource is looked up or the body is read.
    const missing = await api(app, method, template.replace('{id}', MISSING_ID), { key, body: body === undefined ? undefined : '{broken' });
    expect(missing.status).toBe(403);
    expect(missing.body).toEqual({ message: lacks(permission) });
    // And the key with only that permission passes the check.
    const only = await team.keyWith(permission);
    const allowed = await api(app, method, template.replace('{id}', MISSING_ID), { key: only, body: body === undefined ? undefined : { name: '' } });
    expect(allowed.status).toBe(kind ? 404 : method === 'POST' ? 422 : 200);
  });

  it('changes nothing when refused', async () => {
    const key = await team.keyWith('read-pois,read-attributes,read-categories');
    expect((await api(app, 'DELETE', `/v1/pois/${poiId}`, { key })).status).toBe(403);
    expect((await api(app, 'PUT', `/v1/pois/${poiId}`, { key, body: { name: 'hacked' } })).status).toBe(403);
    expect((await api(app, 'GET', `/v1/pois/${poiId}`, { key })).body.data.name).toBe('perm poi');
    expect((await api(app, 'DELETE', `/v1/categories/${categoryId}`, { key })).status).toBe(403);
    expect((await api(app, 'GET', `/v1/categories/${categoryId}`, { key })).status).toBe(200);
    expect((await api(app, 'DELETE', `/v1/attributes/${attributeId}`, { key })).status).toBe(403);
    expect((await api(app, 'GET', `/v1/attributes/${attributeId}`, { key })).status).toBe(200);
  });

  it('GET /v1/info needs no permission at all', async () => {
    const { key } = await createKey(app.sql, { teamId: team.teamId, name: 'bare', permissions: [] });
    const res = await api(app, 'GET', '/v1/info', { key });
    expect(res.status).toBe(200);
    expect(res.body.data.permissions).toEqual([]);
    const pois = await api(app, 'GET', '/v1/pois', { key });
    expect(pois.body).toEqual({ message: lacks('read-pois') });
  });
});

describe('404 and 405', () => {
  it('answers 404 {message} for unknown paths, with or without a key', async () => {
    for (const path of ['/v1/nothing', '/v2/pois', '/', '/v1/pois/a/b', '/v1']) {
      for (const key of [team.key, undefined]) {
        const res = await api(app, 'GET', path, { key });
        expect(res.status, path).toBe(404);
        expectMessage(res, 404);
      }
    }
  });

  it('answers 405 for a known path with an unsupported method, naming the allowed ones', async () => {
    const cases: Array<[string, string, string[]]> = [
      ['DELETE', '/v1/pois', ['GET', 'HEAD', 'POST']],
      ['PUT', '/v1/attributes', ['GET', 'HEAD', 'POST']],
      ['PATCH', `/v1/pois/${MISSING_ID}`, ['GET', 'HEAD', 'PUT', 'DELETE']],
      ['POST', `/v1/categories/${MISSING_ID}`, ['GET', 'HEAD', 'PUT', 'DELETE']],
      ['POST', '/v1/info', ['GET', 'HEAD']],
      ['HEAD', '/v1/routes', ['POST']],
    ];
    for (const [method, path, allow] of cases) {
      const res = await api(app, method, path, { key: team.key, body: ['GET', 'HEAD', 'DELETE'].includes(method) ? undefined : {} });
      expect(res.status, `${method} ${path}`).toBe(405);
      if (method !== 'HEAD') expectMessage(res, 405);
      expect((res.headers.get('allow') ?? '').split(/,\s*/).sort()).toEqual([...allow].sort());
    }
  });

  it('answers HEAD like GET, authenticated and counted, without a body', async () => {
    const get = await api(app, 'GET', '/v1/info', { key: team.key });
    const head = await fetch(`${app.url}/v1/info`, { method: 'HEAD', headers: { 'X-API-KEY': team.key } });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    expect(head.headers.get('content-type')).toBe('application/json');
    expect(head.headers.get('x-ratelimit-limit')).toBe(get.headers.get('x-ratelimit-limit'));
    expect((await fetch(`${app.url}/v1/info`, { method: 'HEAD' })).status).toBe(401);
  });

  it('answers 404 with the resource name for missing and malformed ids', async () => {
    for (const id of [MISSING_ID, 'not-an-id', MISSING_ID.toLowerCase()]) {
      expect404(await api(app, 'GET', `/v1/pois/${id}`, { key: team.key }), 'POI');
      expect404(await api(app, 'PUT', `/v1/pois/${id}`, { key: team.key, body: { name: 'x' } }), 'POI');
      expect404(await api(app, 'DELETE', `/v1/pois/${id}`, { key: team.key }), 'POI');
      expect404(await api(app, 'GET', `/v1/attributes/${id}`, { key: team.key }), 'Attribute');
      expect404(await api(app, 'PUT', `/v1/attributes/${id}`, { key: team.key, body: { name: 'x' } }), 'Attribute');
      expect404(await api(app, 'DELETE', `/v1/attributes/${id}`, { key: team.key }), 'Attribute');
      expect404(await api(app, 'GET', `/v1/categories/${id}`, { key: team.key }), 'Category');
      expect404(await api(app, 'PUT', `/v1/categories/${id}`, { key: team.key, body: { name: 'x' } }), 'Category');
      expect404(await api(app, 'DELETE', `/v1/categories/${id}`, { key: team.key }), 'Category');
    }
  });

  it('never leaks internals in error bodies', async () => {
    const res = await api(app, 'GET', `/v1/pois/${'%E0%A4%A'}`, { key: team.key });
    expect(res.status).toBeLessThan(500);
    expect(JSON.stringify(res.body)).not.toMatch(/stack|SELECT|at .*\.js/);
  });
});

describe('teams and plans', () => {
  it('a key sees its own team only, whichever of the team keys is used', async () => {
    const t = await createTeam(app.sql, { name: 'two keys', plan: 'enterprise' });
    const k1 = (await createKey(app.sql, { teamId: t.id, name: 'a', permissions: [1, 2] })).key;
    const k2 = (await createKey(app.sql, { teamId: t.id, name: 'b', permissions: [1] })).key;
    const created = await api(app, 'POST', '/v1/pois', { key: k1, body: { name: 'shared', latitude: 0, longitude: 0 } });
    expect(created.status).toBe(201);
    const list = await api(app, 'GET', '/v1/pois', { key: k2 });
    expect(list.body.data.map((p: { id: string }) => p.id)).toEqual([created.body.data.id]);
    expect((await api(app, 'GET', '/v1/pois', { key: team.key })).body.data.map((p: { id: string }) => p.id)).not.toContain(created.body.data.id);
  });
});
