import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { RateLimiter } from '../../src/auth/rate-limit.js';
import { api, makeTeam, startTestApp } from '../support/app.js';
import { MISSING_ID, API_ONLY, expectRateHeaders } from './helpers.js';

let app: App & { url: string };

beforeAll(async () => {
  app = await startTestApp(API_ONLY);
});
afterAll(() => app.close());

const counted = async (teamId: string) => (await app.sql`SELECT coalesce(sum(count), 0)::int AS n FROM rate_counters WHERE team_id = ${teamId}`)[0].n as number;

describe('rate counters', () => {
  it('drop the minutes that left the rolling hour, which no longer count', async () => {
    const t = await makeTeam(app, { plan: 'basic' });
    await app.sql`INSERT INTO rate_counters (team_id, minute, count) VALUES (${t.teamId}, date_trunc('minute', now()) - interval '2 hours', 100)`;
    const res = await api(app, 'GET', '/v1/info', { key: t.key });
    expect(res.status).toBe(200);
    expect(expectRateHeaders(res).remaining).toBe(99);
    const old = await app.sql`SELECT 1 FROM rate_counters WHERE team_id = ${t.teamId} AND minute < now() - interval '1 hour'`;
    expect(old.length).toBe(0);
  });
});

describe("the limiter's warm-up before the first request", () => {
  it('takes nothing and writes nothing, on a session whose next take then counts as usual', async () => {
    const before = (await app.sql`SELECT count(*)::int AS n FROM rate_counters`)[0].n as number;
    const limiter = new RateLimiter(app.sql);
    try {
      await limiter.warm();
      expect((await app.sql`SELECT count(*)::int AS n FROM rate_counters`)[0].n).toBe(before);
      const t = await makeTeam(app, { plan: 'basic' });
      const taken = await limiter.take(t.teamId, 100);
      expect(taken.allowed).toBe(true);
      expect(await counted(t.teamId)).toBeGreaterThanOrEqual(1);
    } finally {
      await limiter.close();
    }
  });
});

describe('rate-limit headers', () => {
  it('are on every authenticated response, Remaining decreasing, Reset an epoch second in the next hour', async () => {
    const t = await makeTeam(app, { plan: 'basic' });
    const limited = await t.keyWith('read-pois');
    const poi = await api(app, 'POST', '/v1/pois', { key: t.key, body: { name: 'p', latitude: 1, longitude: 1 } });
    const responses = [
      poi,
      await api(app, 'GET', '/v1/info', { key: t.key }),
      await api(app, 'GET', `/v1/pois/${poi.body.data.id}`, { key: t.key }),
      await api(app, 'PUT', `/v1/pois/${poi.body.data.id}`, { key: t.key, body: { name: 'q' } }),
      await api(app, 'GET', `/v1/pois/${MISSING_ID}`, { key: t.key }),
      await api(app, 'POST', '/v1/pois', { key: t.key, body: { name: '' } }),
      await api(app, 'POST', '/v1/pois', { key: t.key, body: '{bad' }),
      await api(app, 'POST', '/v1/categories', { key: limited, body: { name: 'c' } }),
      await api(app, 'DELETE', `/v1/pois/${poi.body.data.id}`, { key: t.key }),
    ];
    expect(responses.map((r) => r.status)).toEqual([201, 200, 200, 200, 404, 422, 400, 403, 204]);
    const now = Date.now() / 1000;
    responses.forEach((r, i) => {
      const h = expectRateHeaders(r);
      expect(h.limit).toBe(100);
      expect(h.remaining).toBe(100 - (i + 1));
      expect(h.reset).toBeGreaterThan(now);
      expect(h.reset).toBeLessThanOrEqual(now + 3600 + 60);
      expect(r.headers.get('x-ratelimit-retry-after')).toBeNull();
      expect(r.headers.get('retry-after')).toBeNull();
    });
  });

  it('uses the plan limits: pro 1000, basic 100, team override wins', async () => {
    const pro = await makeTeam(app, { plan: 'pro' });
    expect(expectRateHeaders(await api(app, 'GET', '/v1/pois', { key: pro.key }))).toMatchObject({ limit: 1000, remaining: 999 });
    const custom = await makeTeam(app, { plan: 'pro', rateLimit: 42 });
    expect(expectRateHeaders(await api(app, 'GET', '/v1/pois', { key: custom.key }))).toMatchObject({ limit: 42, remaining: 41 });
  });

  it('enterprise is unlimited: -1 and -1', async () => {
    const t = await makeTeam(app, { plan: 'enterprise' });
    for (let i = 0; i < 3; i++) {
      const res = await api(app, 'GET', '/v1/pois', { key: t.key });
      expect(res.status).toBe(200);
      const h = expectRateHeaders(res);
      expect(h.limit).toBe(-1);
      expect(h.remaining).toBe(-1);
      expect(h.reset).toBeGreaterThan(Date.now() / 1000);
    }
  });

  it('are absent on 401 and on unknown paths', async () => {
    const res = await api(app, 'GET', '/v1/pois');
    expect(res.status).toBe(401);
    expect(res.headers.get('x-ratelimit-limit')).toBeNull();
  });

  it('the keys of one team share its quota', async () => {
    const t = await makeTeam(app, { plan: 'basic', rateLimit: 10 });
    const k2 = await t.keyWith('read-pois');
    expect(expectRateHeaders(await api(app, 'GET', '/v1/pois', { key: t.key })).remaining).toBe(9);
    expect(expectRateHeaders(await api(app, 'GET', '/v1/pois', { key: k2 })).remaining).toBe(8);
    const other = await makeTeam(app, { plan: 'basic', rateLimit: 10 });
    expect(expectRateHeaders(await api(app, 'GET', '/v1/pois', { key: other.key })).remaining).toBe(9);
  });
});

describe('429 after the limit', () => {
  it('counts 4xx answers, refuses the rest with {message, retry_after} and Retry-After headers, and does not count 429s', async () => {
    const t = await makeTeam(app, { plan: 'basic', rateLimit: 5 });
    const readOnly = await t.keyWith('read-pois');
    const statuses = [
      (await api(app, 'GET', '/v1/pois', { key: t.key })).status,
      (await api(app, 'GET', `/v1/pois/${MISSING_ID}`, { key: t.key })).status,
      (await api(app, 'GET', '/v1/pois?limit=0', { key: t.key })).status,
      (await api(app, 'POST', '/v1/pois', { key: readOnly, body: { name: 'x', latitude: 1, longitude: 1 } })).status,
      (await api(app, 'POST', '/v1/pois', { key: t.key, body: 'nope' })).status,
    ];
    expect(statuses).toEqual([200, 404, 422, 403, 400]);
    for (let i = 0; i < 3; i++) {
      const res = await api(app, 'GET', i === 1 ? '/v1/info' : '/v1/pois', { key: i === 2 ? readOnly : t.key });
      expect(res.status).toBe(429);
      expect(Object.keys(res.body).sort()).toEqual(['message', 'retry_after']);
      expect(res.body.message).toBeTypeOf('string');
      expect(Number.isInteger(res.body.retry_after)).toBe(true);
      expect(res.body.retry_after).toBeGreaterThan(0);
      expect(res.body.retry_after).toBeLessThanOrEqual(3600);
      const h = expectRateHeaders(res);
      expect(h).toMatchObject({ limit: 5, remaining: 0 });
      expect(res.headers.get('x-ratelimit-retry-after')).toBe(String(res.body.retry_after));
      expect(res.headers.get('retry-after')).toBe(String(res.body.retry_after));
      expect(h.reset).toBeGreaterThan(Date.now() / 1000);
    }
    expect(await counted(t.teamId)).toBe(5);
    // The refusal comes before any work: nothing was created.
    const [{ n }] = await app.sql`SELECT count(*)::int AS n FROM pois WHERE team_id = ${t.teamId}`;
    expect(n).toBe(0);
  });

  it('refused requests do nothing, even valid writes', async () => {
    const t = await makeTeam(app, { plan: 'basic', rateLimit: 1 });
    expect((await api(app, 'GET', '/v1/pois', { key: t.key })).status).toBe(200);
    const res = await api(app, 'POST', '/v1/categories', { key: t.key, body: { name: 'never' } });
    expect(res.status).toBe(429);
    const [{ n }] = await app.sql`SELECT count(*)::int AS n FROM categories WHERE team_id = ${t.teamId}`;
    expect(n).toBe(0);
  });

  it('N+k concurrent requests against a limit of N admit exactly N', async () => {
    const t = await makeTeam(app, { plan: 'basic', rateLimit: 5 });
    const results = await Promise.all(Array.from({ length: 12 }, () => api(app, 'GET', '/v1/pois', { key: t.key })));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(7);
    const remaining = results
      .filter((r) => r.status === 200)
      .map((r) => expectRateHeaders(r).remaining)
      .sort();
    expect(remaining).toEqual([0, 1, 2, 3, 4]);
    expect(await counted(t.teamId)).toBe(5);
  });

  it('a team over its limit does not affect another team', async () => {
    const full = await makeTeam(app, { plan: 'basic', rateLimit: 1 });
    await api(app, 'GET', '/v1/pois', { key: full.key });
    expect((await api(app, 'GET', '/v1/pois', { key: full.key })).status).toBe(429);
    const fresh = await makeTeam(app, { plan: 'basic', rateLimit: 1 });
    expect((await api(app, 'GET', '/v1/pois', { key: fresh.key })).status).toBe(200);
  });
});
