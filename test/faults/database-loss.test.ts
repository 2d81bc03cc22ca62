// Database connections lost under load: a real `waymark serve` process whose PostgreSQL sessions are all
// terminated every 200 ms (pg_terminate_backend, what a failover or an operator does) keeps answering:
// no 500, no stall over 2 s, no TypeError or unhandled rejection in its log, and it is whole again as
// soon as the terminations stop.
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, createTeam } from '../../src/auth/admin.js';
import { parsePermissionList } from '../../src/auth/permissions.js';
import type { Sql } from '../../src/db/client.js';
import { TEST_DATABASE_URL } from '../support/app.js';
import { throwawayCluster } from '../support/cluster.js';
import { spawnServer, type ServerProcess } from '../support/process.js';
import { countOf, freshDatabase, RawConnection, runLoad, sleep } from './support.js';

let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: Sql;
let admin: postgres.Sql;
let server: ServerProcess & { port: number };
let key: string;
const ids: string[] = [];
let category = '';

beforeAll(async () => {
  db = await freshDatabase('dbloss');
  sql = db.sql;
  // The killer runs from the admin database, so that it never terminates itself.
  admin = postgres(TEST_DATABASE_URL.replace(/\/[^/]*$/, '/postgres'), { max: 1, onnotice: () => {} });
  const team = await createTeam(sql, { name: 'db loss', plan: 'pro', rateLimit: 1_000_000 });
  key = (await createKey(sql, { teamId: team.id, name: 'k', permissions: parsePermissionList('all') })).key;
  const spawned = await spawnServer({ DATABASE_URL: db.url, WAYMARK_MAP: 'off', WAYMARK_JOB_LEASE_MS: '2000', LOG_LEVEL: 'warn' });
  server = Object.assign(spawned, { port: Number(new URL(spawned.url).port) });
  const conn = new RawConnection(server.port);
  for (let i = 0; i < 20; i++) {
    const out = await conn.request('POST', '/v1/pois', headers(), JSON.stringify({ name: `p${i}`, latitude: 47.1 + i * 1e-3, longitude: 9.5 }));
    if (out.kind !== 'response' || out.response.status !== 201) throw new Error(JSON.stringify(out));
    ids.push(JSON.parse(out.response.body).data.id);
  }
  const cat = await conn.request('POST', '/v1/categories', headers(), JSON.stringify({ name: 'c' }));
  if (cat.kind === 'response') category = JSON.parse(cat.response.body).data.id;
  conn.destroy();
}, 60_000);
afterAll(async () => {
  await server?.stop('SIGTERM');
  await admin?.end();
  await db?.drop();
});

const headers = () => ({ 'X-API-KEY': key, 'Content-Type': 'application/json' });

/** Above this many milliseconds to open a PostgreSQL session, the every-200-ms kill test cannot hold. */
const SLOW_SESSION_MS = 10;

/** Mean milliseconds to open a session, run one statement and close it (20 in a row). */
async function sessionOpeningMs(): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < 20; i++) {
    const one = postgres(TEST_DATABASE_URL.replace(/\/[^/]*$/, '/postgres'), { max: 1, onnotice: () => {} });
    await one`SELECT 1`;
    await one.end();
  }
  return (performance.now() - started) / 20;
}
const dbName = () => new URL(db.url).pathname.slice(1);

/** Terminates every session of the service's database but the test's own. */
const terminateAll = () => admin`
  SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
  WHERE datname = ${dbName()} AND pid <> pg_backend_pid() AND application_name <> 'waymark-test'`;

/** Reads, distance lists, creates in a transaction, moves and renames: what the API does most. */
const mix = (i: number) => {
  const id = ids[i % ids.length];
  switch (i % 8) {
    case 0:
      return {
        method: 'POST',
        path: '/v1/pois',
        headers: headers(),
        body: JSON.stringify({ name: `new ${i}`, latitude: 47.2, longitude: 9.6, category_id: category }),
      };
    case 1:
      return { method: 'PUT', path: `/v1/pois/${id}`, headers: headers(), body: JSON.stringify({ latitude: 47.1 + (i % 50) * 1e-4 }) };
    case 2:
      return { method: 'GET', path: '/v1/pois?latitude=47.1&longitude=9.5&distance=5000&limit=10', headers: headers() };
    case 3:
      return { method: 'GET', path: `/v1/pois?category_id=${category}&limit=5`, headers: headers() };
    case 4:
      return { method: 'GET', path: '/v1/categories', headers: headers() };
    case 5:
      return { method: 'GET', path: '/v1/info', headers: headers() };
    default:
      return { method: 'GET', path: `/v1/pois/${id}`, headers: headers() };
  }
};

describe('lost database connections', () => {
  // What made this fail or stall (issue 15, patches/README.md): postgres.js handed the first statement on
  // a new connection the 57P01 of the one it replaced; a transaction's statement issued after its
  // connection closed stayed queued and was taken up by the next connection, which then waited for ever
  // (seen here as every request stalled behind the rate limiter's one connection); killed connections
  // were made again only when a statement needed one; the limiter's rate_take, a write outside a
  // transaction, could not be repeated. Throughput (> 100) is what still fails on a heavily loaded machine.
  it('all of them terminated every 200 ms under load: no 500, no stall over 2 s, nothing thrown', async (ctx) => {
    // The bounds assume a PostgreSQL that opens a session in a few milliseconds. On a host where a new
    // session takes tens of them (seen: 22 ms on a 2-core VM, pgbench -C), every connection of the pool
    // is being reopened when the next kill comes, and the service answers 503 for seconds at a time: the
    // same before and after a change, so the run says so and skips rather than fail on the host.
    const opening = await sessionOpeningMs();
    if (opening > SLOW_SESSION_MS) {
      console.warn(`database-loss: skipped, this host's PostgreSQL takes ${opening.toFixed(1)} ms to open a session (over ${SLOW_SESSION_MS} ms)`);
      ctx.skip();
    }
    let killing = true;
    let kills = 0;
    const killer = (async () => {
      while (killing) {
        kills += (await terminateAll())[0].n;
        await sleep(200);
      }
    })();
    const report = await runLoad({ port: server.port, connections: 12, until: sleep(4000), next: mix });
    killing = false;
    await killer;

    expect(kills).toBeGreaterThan(20);
    expect(report.requests).toBeGreaterThan(100);
    expect(report.dropped).toEqual([]);
    expect(countOf(report, (s) => s === 500 || s === 502)).toBe(0);
    expect(
      countOf(report, (s) => s >= 400 && s !== 503),
      JSON.stringify([...report.statuses]),
    ).toBe(0);
    // A statement lost with its connection is retried once on a new one; only what cannot be repeated
    // safely (a write outside a transaction, or one lost in its COMMIT) is a 503.
    expect(countOf(report, (s) => s === 503)).toBeLessThan(report.requests * 0.02);
    expect(report.maxLatencyMs).toBeLessThan(2000);
    // Whole again at once.
    const after = await runLoad({ port: server.port, connections: 4, until: sleep(500), next: mix });
    expect(
      [...after.statuses.keys()].every((s) => s === 200 || s === 201),
      JSON.stringify([...after.statuses]),
    ).toBe(true);
    expect(server.output()).not.toMatch(/TypeError|unhandled rejection|uncaught/i);
  });
});

describe('the database stopped and started', () => {
  it('answers 503 with Retry-After while it is down, and is whole again within a second of it coming back', async () => {
    const cluster = await throwawayCluster();
    if (!cluster) {
      console.warn('skipped: no PostgreSQL binaries to run a cluster of our own');
      return;
    }
    let own: ServerProcess | undefined;
    const { connect } = await import('../../src/db/client.js');
    const { migrate } = await import('../../src/db/migrate.js');
    const { setKeyActive } = await import('../../src/auth/admin.js');
    const direct = connect(cluster.url, 1, { application_name: 'waymark-test' });
    try {
      await migrate(direct);
      const t = await createTeam(direct, { name: 'restart', plan: 'enterprise' });
      const created = await createKey(direct, { teamId: t.id, name: 'k', permissions: parsePermissionList('all') });
      own = await spawnServer({ DATABASE_URL: cluster.url, WAYMARK_MAP: 'off', LOG_LEVEL: 'warn' });
      const port = Number(new URL(own.url).port);
      const h = { 'X-API-KEY': created.key, 'Content-Type': 'application/json' };
      const conn = new RawConnection(port);
      const call = async (method = 'GET', path = '/v1/info', body?: string) => {
        const started = performance.now();
        const out = await conn.request(method, path, h, body);
        if (out.kind !== 'response') throw new Error(JSON.stringify(out));
        return { ...out.response, ms: performance.now() - started };
      };
      expect((await call()).status).toBe(200);

      await cluster.stop();
      for (const [method, path, body] of [
        ['GET', '/v1/info'],
        ['GET', '/v1/pois'],
        ['POST', '/v1/categories', '{"name":"down"}'],
        ['GET', '/v1/info'],
      ]) {
        const res = await call(method, path, body);
        // The key is cached: /v1/info may still answer from memory; whatever needs the database is a 503.
        expect([200, 503], `${method} ${path}: ${res.body}`).toContain(res.status);
        if (res.status === 503) {
          expect(res.headers['retry-after']).toBe('1');
          expect(JSON.parse(res.body).message).toMatch(/database/i);
        }
        expect(res.ms).toBeLessThan(2000);
      }
      expect((await call('GET', '/v1/pois')).status).toBe(503);

      await cluster.start();
      const back = performance.now();
      let recovered = Infinity;
      while (performance.now() - back < 5000) {
        const res = await call('GET', '/v1/pois');
        if (res.status === 200) {
          recovered = performance.now() - back;
          break;
        }
        await sleep(20);
      }
      expect(recovered).toBeLessThan(1000);
      expect((await call('POST', '/v1/categories', '{"name":"up"}')).status).toBe(201);
      // Notifications flow again: a key deactivated now is refused at once, not when its cache entry ages out.
      await sleep(600);
      await setKeyActive(direct, created.id, false);
      await sleep(300);
      expect((await call()).status).toBe(401);
      expect(own.output()).not.toMatch(/TypeError|unhandled rejection|uncaught/i);
      expect(own.child.exitCode).toBeNull();
    } finally {
      await own?.stop('SIGKILL');
      await direct.end({ timeout: 1 }).catch(() => {});
      await cluster.remove();
    }
  }, 60_000);
});

describe('the database not up when the service starts', () => {
  it('serve waits for it (WAYMARK_DATABASE_WAIT), saying so, and starts once it answers; past the wait it stops with the reason', async () => {
    const cluster = await throwawayCluster();
    if (!cluster) {
      console.warn('skipped: no PostgreSQL binaries to run a cluster of our own');
      return;
    }
    let own: ServerProcess | undefined;
    try {
      await cluster.stop();
      const env = { DATABASE_URL: cluster.url, WAYMARK_MAP: 'off', LOG_LEVEL: 'warn' };
      // Past the wait: the start stops with exit code 1 and the reason, after trying for that long.
      const started = performance.now();
      const failed = await spawnServer({ ...env, WAYMARK_DATABASE_WAIT: '1' }, 30_000).then(
        (s) => s.stop('SIGKILL').then(() => 'started'),
        (err: Error) => err.message,
      );
      expect(failed).toMatch(/server exited with 1/);
      expect(failed).toMatch(/cannot reach the database \(check DATABASE_URL\)/);
      expect(failed).toMatch(/the database does not answer yet: trying again/);
      expect(performance.now() - started).toBeGreaterThanOrEqual(1000);

      // Within the wait: the database comes up 2 s after the start, and the service is whole.
      const starting = spawnServer({ ...env, WAYMARK_DATABASE_WAIT: '30' }, 45_000);
      await sleep(2000);
      await cluster.start();
      own = await starting;
      expect(own.output()).toMatch(/the database does not answer yet: trying again/);
      const health = await fetch(`${own.url}/health`);
      expect(health.status).toBe(200);
      // Migrated: a key made now is known to the service.
      const { connect } = await import('../../src/db/client.js');
      const direct = connect(cluster.url, 1, { application_name: 'waymark-test' });
      try {
        const t = await createTeam(direct, { name: 'late', plan: 'enterprise' });
        const created = await createKey(direct, { teamId: t.id, name: 'k', permissions: parsePermissionList('all') });
        expect((await fetch(`${own.url}/v1/info`, { headers: { 'X-API-KEY': created.key } })).status).toBe(200);
      } finally {
        await direct.end({ timeout: 1 });
      }
      expect(own.output()).not.toMatch(/TypeError|unhandled rejection|uncaught/i);
    } finally {
      await own?.stop('SIGKILL');
      await cluster.remove();
    }
  }, 90_000);
});
