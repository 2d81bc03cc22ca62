import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Sql } from '../../src/db/client.js';
import { createKey, createTeam } from '../../src/auth/admin.js';
import { parsePermissionList } from '../../src/auth/permissions.js';
import { TEST_DATABASE_URL } from '../support/app.js';
import { spawnServer, type ServerProcess } from '../support/process.js';

// Two API processes on one database, as in a scaled deployment: the shared state is PostgreSQL only.
let sql: Sql;
let servers: ServerProcess[] = [];

beforeAll(async () => {
  sql = connect(TEST_DATABASE_URL, 2);
  servers = await Promise.all([1, 2].map(() => spawnServer({ DATABASE_URL: TEST_DATABASE_URL, WAYMARK_JOBS: 'off' })));
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await sql.end();
});

async function teamKey(rateLimit: number | null, plan: 'basic' | 'pro' | 'enterprise' = 'pro') {
  const team = await createTeam(sql, { name: 'multi', plan, rateLimit });
  return (await createKey(sql, { teamId: team.id, name: 'k', permissions: parsePermissionList('all') })).key;
}

describe('rate limit across processes', () => {
  it('admits exactly the limit of limit+10 concurrent requests spread over two processes', async () => {
    const limit = 60;
    const key = await teamKey(limit);
    const statuses = await Promise.all(
      Array.from({ length: limit + 10 }, (_, i) => fetch(`${servers[i % 2].url}/v1/categories`, { headers: { 'X-API-KEY': key } }).then((r) => r.status)),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(limit);
    expect(statuses.filter((s) => s === 429)).toHaveLength(10);
  });

  it('shares the count between processes for a large limit, and gives unused leases back', async () => {
    const limit = 100_000;
    const key = await teamKey(limit);
    for (let round = 0; round < 3; round++) {
      const statuses = await Promise.all(
        Array.from({ length: 40 }, (_, i) => fetch(`${servers[i % 2].url}/v1/categories`, { headers: { 'X-API-KEY': key } }).then((r) => r.status)),
      );
      expect(statuses.every((s) => s === 200)).toBe(true);
    }
    const used = async () => {
      const [row] = await sql<{ used: number }[]>`
        SELECT coalesce(sum(c.count), 0)::int AS used FROM rate_counters c JOIN api_keys k ON k.team_id = c.team_id
        WHERE k.last_four = ${key.slice(-4)} AND c.minute > now() - interval '60 minutes'`;
      return row.used;
    };
    // While busy, processes hold leased blocks; once quiet (lease 1 s + one sweep), the shared count
    // is exactly what was served.
    expect(await used()).toBeGreaterThanOrEqual(120);
    await new Promise((r) => setTimeout(r, 2_300));
    expect(await used()).toBe(120);
    const res = await fetch(`${servers[0].url}/v1/categories`, { headers: { 'X-API-KEY': key } });
    expect(res.status, servers[0].output()).toBe(200);
    expect(Number(res.headers.get('x-ratelimit-remaining'))).toBe(limit - 121);
  });

  it('a key deactivated by another process is refused at once (NOTIFY drops the caches)', async () => {
    const team = await createTeam(sql, { name: 'notify', plan: 'enterprise' });
    const created = await createKey(sql, { teamId: team.id, name: 'k', permissions: parsePermissionList('all') });
    for (const s of servers) expect((await fetch(`${s.url}/v1/info`, { headers: { 'X-API-KEY': created.key } })).status).toBe(200);
    const { setKeyActive } = await import('../../src/auth/admin.js');
    await setKeyActive(sql, created.id, false);
    await new Promise((r) => setTimeout(r, 200));
    for (const s of servers) expect((await fetch(`${s.url}/v1/info`, { headers: { 'X-API-KEY': created.key } })).status).toBe(401);
  });

  it('a write through one process shows in the next read through the other (held JSON, distance index)', async () => {
    const key = await teamKey(null, 'enterprise');
    const call = (server: ServerProcess, method: string, path: string, body?: unknown) =>
      fetch(`${server.url}${path}`, {
        method,
        headers: { 'X-API-KEY': key, 'content-type': 'application/json' },
        body: body ? JSON.stringify(body) : undefined,
      }).then(async (r) => ({ status: r.status, body: r.status === 204 ? null : await r.json() }));
    const near = '/v1/pois?latitude=47.14&longitude=9.52&distance=1000';
    const [reader, writer] = servers;
    const poi = (await call(writer, 'POST', '/v1/pois', { name: 'first', latitude: 47.14, longitude: 9.52 })).body.data.id;
    // The reader holds the POI's JSON and builds its index of the team's positions.
    for (let i = 0; i < 20; i++) {
      expect((await call(reader, 'GET', `/v1/pois/${poi}`)).body.data.name).toBe('first');
      expect((await call(reader, 'GET', near)).body.data.map((p: { id: string }) => p.id)).toEqual([poi]);
      await new Promise((r) => setTimeout(r, 20));
    }
    expect((await call(writer, 'PUT', `/v1/pois/${poi}`, { name: 'renamed' })).status).toBe(200);
    expect((await call(reader, 'GET', `/v1/pois/${poi}`)).body.data.name).toBe('renamed');
    expect((await call(reader, 'GET', near)).body.data[0].name).toBe('renamed');
    const second = (await call(writer, 'POST', '/v1/pois', { name: 'second', latitude: 47.1401, longitude: 9.5201 })).body.data.id;
    expect((await call(reader, 'GET', near)).body.data.map((p: { id: string }) => p.id)).toEqual([poi, second].sort());
    expect((await call(writer, 'PUT', `/v1/pois/${poi}`, { latitude: 10 })).status).toBe(200);
    expect((await call(reader, 'GET', near)).body.data.map((p: { id: string }) => p.id)).toEqual([second]);
    expect((await call(writer, 'DELETE', `/v1/pois/${second}`)).status).toBe(204);
    expect((await call(reader, 'GET', `/v1/pois/${second}`)).status).toBe(404);
    expect((await call(reader, 'GET', near)).body.data).toEqual([]);
  });

  it('finishes in-flight requests on SIGTERM and exits 0', async () => {
    const extra = await spawnServer({ DATABASE_URL: TEST_DATABASE_URL, WAYMARK_JOBS: 'off' });
    const key = await teamKey(null, 'enterprise');
    const inflight = Promise.all(Array.from({ length: 20 }, () => fetch(`${extra.url}/v1/info`, { headers: { 'X-API-KEY': key } }).then((r) => r.status)));
    // Awaited below; a fetch refused during the shutdown must not count as an unhandled rejection meanwhile.
    inflight.catch(() => {});
    await new Promise((r) => setTimeout(r, 5));
    const code = await extra.stop('SIGTERM');
    const statuses = await inflight.catch(() => []);
    expect(code).toBe(0);
    // Requests accepted before the signal were answered, not dropped.
    expect(statuses.every((s) => s === 200)).toBe(true);
  });
});
