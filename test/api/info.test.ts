import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { api, makeTeam, startTestApp, type TestTeam } from '../support/app.js';

let app: App & { url: string };
let team: TestTeam;

beforeAll(async () => {
  app = await startTestApp();
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
});
