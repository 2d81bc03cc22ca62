import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { api, makeTeam, startTestApp, type TestTeam } from '../support/app.js';
import { API_ONLY, MISSING_ID, TIMESTAMP } from './helpers.js';

let app: App & { url: string };
let team: TestTeam;

beforeAll(async () => {
  app = await startTestApp(API_ONLY);
  team = await makeTeam(app, { plan: 'pro' });
});
afterAll(() => app.close());

describe('GET /v1/info', () => {
  it('describes the calling key with its permissions and usage', async () => {
    await api(app, 'GET', '/v1/pois', { key: team.key });
    await api(app, 'GET', '/v1/pois', { key: team.key });
    const res = await api(app, 'GET', '/v1/info', { key: team.key });
    expect(res.status).toBe(200);
    const data = res.body.data;
    expect(data.id).toMatch(/^[0-9A-Z]{26}$/);
    expect(data.last_four).toBe(team.key.slice(-4));
    expect(data.is_active).toBe(true);
    expect(data.expires_at).toBeNull();
    expect(data.last_used_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(data.permissions).toHaveLength(15);
    expect(data.permissions[0]).toEqual({ id: 1, name: 'read-pois' });
    expect(data.permissions[14]).toEqual({ id: 15, name: 'write-conversations' });
    expect(data.usage).toEqual({
      requests_last_hour: 3,
      requests_last_24h: 3,
      top_endpoint: { method: 'GET', endpoint: '/v1/pois', count: 2 },
    });
    expect(res.headers.get('x-ratelimit-limit')).toBe('1000');
    expect(res.headers.get('x-ratelimit-remaining')).toBe('997');
    expect(Number(res.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
  });

  it('never returns the full key and needs no permission', async () => {
    const key = await team.keyWith('read-pois');
    const res = await api(app, 'GET', '/v1/info', { key });
    expect(res.status).toBe(200);
    expect(JSON.stringify(res.body)).not.toContain(key);
    expect(res.body.data.permissions).toEqual([{ id: 1, name: 'read-pois' }]);
    expect(res.body.data.usage.top_endpoint).toEqual({ method: 'GET', endpoint: '/v1/info', count: 1 });
  });

  it('has exactly the fields of the API key resource', async () => {
    const key = await team.keyWith('read-pois,plan-routes', { expiresAt: new Date('2099-01-02T03:04:05.678Z') });
    const res = await api(app, 'GET', '/v1/info', { key });
    expect(Object.keys(res.body)).toEqual(['data']);
    const data = res.body.data;
    expect(Object.keys(data).sort()).toEqual(['expires_at', 'id', 'is_active', 'last_four', 'last_used_at', 'name', 'permissions', 'usage']);
    expect(data.name).toBeTypeOf('string');
    expect(data.expires_at).toBe('2099-01-02T03:04:05.678000Z');
    expect(data.last_used_at).toMatch(TIMESTAMP);
    expect(data.permissions).toEqual([
      { id: 1, name: 'read-pois' },
      { id: 13, name: 'plan-routes' },
    ]);
    expect(Object.keys(data.usage).sort()).toEqual(['requests_last_24h', 'requests_last_hour', 'top_endpoint']);
  });

  it('counts this key only, 4xx answers included, and names the route template', async () => {
    const t = await makeTeam(app, { plan: 'enterprise' });
    const other = await t.keyWith('all');
    const poi = (await api(app, 'POST', '/v1/pois', { key: other, body: { name: 'p', latitude: 1, longitude: 1 } })).body.data.id;
    const key = await t.keyWith('read-pois');
    for (const id of [poi, MISSING_ID, poi]) await api(app, 'GET', `/v1/pois/${id}`, { key });
    expect((await api(app, 'POST', '/v1/categories', { key, body: { name: 'x' } })).status).toBe(403);
    const res = await api(app, 'GET', '/v1/info', { key });
    expect(res.body.data.usage).toEqual({
      requests_last_hour: 5,
      requests_last_24h: 5,
      top_endpoint: { method: 'GET', endpoint: '/v1/pois/{id}', count: 3 },
    });
  });

  it('forgets usage older than a day, which it never shows', async () => {
    const t = await makeTeam(app, { plan: 'enterprise' });
    const id = (await api(app, 'GET', '/v1/info', { key: t.key })).body.data.id;
    await app.sql`INSERT INTO key_usage (key_id, team_id, minute, method, endpoint, count)
      VALUES (${id}, ${t.teamId}, date_trunc('minute', now()) - interval '25 hours', 'GET', '/v1/pois', 50)`;
    const res = await api(app, 'GET', '/v1/info', { key: t.key });
    expect(res.body.data.usage.requests_last_24h).toBe(2);
    expect((await app.sql`SELECT 1 FROM key_usage WHERE key_id = ${id} AND minute < now() - interval '24 hours'`).length).toBe(0);
  });

  it('is refused like every other route for a bad key', async () => {
    const res = await api(app, 'GET', '/v1/info', { headers: { 'X-API-KEY': `wm_${'0'.repeat(40)}` } });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ message: 'Unauthenticated. Send an active API key in the X-API-KEY header.' });
  });
});
