// Graceful shutdown of a real `waymark serve` process on SIGTERM/SIGINT: every request it has read is
// answered (with `Connection: close`), idle keep-alive connections are closed cleanly, nothing is reset,
// a write commits exactly when it is answered 201, and the process exits 0.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, createTeam } from '../../src/auth/admin.js';
import { parsePermissionList } from '../../src/auth/permissions.js';
import type { Sql } from '../../src/db/client.js';
import { spawnServer, type ServerProcess } from '../support/process.js';
import { countOf, freshDatabase, RawConnection, runLoad, sleep } from './support.js';

let db: Awaited<ReturnType<typeof freshDatabase>>;
let sql: Sql;
const servers: ServerProcess[] = [];

beforeAll(async () => {
  db = await freshDatabase('shutdown');
  sql = db.sql;
});
afterAll(async () => {
  await Promise.allSettled(servers.map((s) => s.stop('SIGKILL')));
  await db?.drop();
});

async function team(): Promise<{ id: string; key: string }> {
  const t = await createTeam(sql, { name: 'shutdown', plan: 'enterprise' });
  return { id: t.id, key: (await createKey(sql, { teamId: t.id, name: 'k', permissions: parsePermissionList('all') })).key };
}

async function serve(env: Record<string, string> = {}): Promise<ServerProcess & { port: number; exited: Promise<{ code: number | null; at: number }> }> {
  const server = await spawnServer({ DATABASE_URL: db.url, WAYMARK_JOBS: 'off', WAYMARK_MAP: 'off', ...env });
  servers.push(server);
  const exited = new Promise<{ code: number | null; at: number }>((resolve) => server.child.once('exit', (code) => resolve({ code, at: performance.now() })));
  return Object.assign(server, { port: Number(new URL(server.url).port), exited });
}

const json = (key: string) => ({ 'X-API-KEY': key, 'Content-Type': 'application/json' });

describe('SIGTERM', () => {
  it('under keep-alive load: no 5xx, no reset, every answered request closes its connection, every 201 is a row and every row a 201', async () => {
    const t = await team();
    const server = await serve();
    const seed = new RawConnection(server.port);
    const first = await seed.request('POST', '/v1/pois', json(t.key), JSON.stringify({ name: 'seed', latitude: 47.1, longitude: 9.5 }));
    expect(first.kind === 'response' && first.response.status).toBe(201);
    const seedId = first.kind === 'response' ? JSON.parse(first.response.body).data.id : '';
    // Idle keep-alive connections: used once, then quiet while the server stops.
    const idle = Array.from({ length: 6 }, () => new RawConnection(server.port));
    for (const c of idle) expect((await c.request('GET', '/health')).kind).toBe('response');

    // The signal goes once 100 requests have been answered (not after a fixed time: on a busy machine a
    // second may hold fewer), so the shutdown always lands in the middle of real load.
    let loaded!: () => void;
    const hundred = new Promise<void>((resolve) => (loaded = resolve));
    const load = runLoad({
      port: server.port,
      connections: 16,
      until: server.exited,
      next: (i) =>
        i % 3 === 0
          ? { method: 'POST', path: '/v1/pois', headers: json(t.key), body: JSON.stringify({ name: `load ${i}`, latitude: 47.1 + i * 1e-5, longitude: 9.5 }) }
          : i % 3 === 1
            ? { method: 'GET', path: `/v1/pois/${seedId}`, headers: { 'X-API-KEY': t.key } }
            : { method: 'GET', path: '/v1/pois?limit=5', headers: { 'X-API-KEY': t.key } },
      answered: (n) => n >= 100 && loaded(),
    });
    await Promise.race([hundred, sleep(30_000)]);
    const sentAt = performance.now();
    server.child.kill('SIGTERM');
    const report = await load;
    const exit = await server.exited;

    expect(exit.code, server.output()).toBe(0);
    expect(exit.at - sentAt).toBeLessThan(3000);
    expect(report.requests).toBeGreaterThan(100);
    expect(report.dropped, JSON.stringify(report.dropped)).toEqual([]);
    expect(countOf(report, (s) => s >= 500)).toBe(0);
    expect(countOf(report, (s) => s !== 200 && s !== 201)).toBe(0);
    // Each of the 16 load connections was told to close; the idle ones were closed without a reset.
    expect(report.closes).toBe(16);
    for (const c of idle) {
      await c.whenClosed();
      expect(c.closedWhileIdle).toBe(true);
      expect(c.idleErrors).toEqual([]);
    }
    const rows = await sql<{ id: string }[]>`SELECT id FROM pois WHERE team_id = ${t.id} AND id <> ${seedId} ORDER BY id`;
    expect(rows.map((r) => r.id)).toEqual([...report.created].sort());
  });

  it('waits for a request in flight, answers it with Connection: close, then exits 0 (SIGINT alike)', async () => {
    const t = await team();
    const server = await serve();
    const conn = new RawConnection(server.port);
    await conn.connected;
    // Holding the team's row keeps the create waiting in its transaction. The row is held before the
    // request is sent (a fixed wait for it was too short on a loaded machine: the request then ran first).
    let release!: () => void;
    let locked!: () => void;
    const holding = new Promise<void>((resolve) => (locked = resolve));
    const held = sql.begin(async (tx) => {
      await tx`SELECT 1 FROM teams WHERE id = ${t.id} FOR NO KEY UPDATE`;
      locked();
      await new Promise<void>((resolve) => (release = resolve));
    });
    await Promise.race([holding, held]);
    const pending = conn.request('POST', '/v1/pois', json(t.key), JSON.stringify({ name: 'in flight', latitude: 1, longitude: 2 }));
    // In flight: the server's create waits for the row (not a fixed wait, which a loaded machine outran).
    for (let waited = 0; ; waited += 20) {
      const [{ n }] = await sql<{ n: number }[]>`
        SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`;
      if (n > 0) break;
      if (waited > 10_000) throw new Error('the create never waited for the held row');
      await sleep(20);
    }
    server.child.kill('SIGINT');
    await sleep(700);
    expect(server.child.exitCode).toBeNull();
    release();
    await held;
    const outcome = await pending;
    expect(outcome.kind).toBe('response');
    if (outcome.kind !== 'response') return;
    expect(outcome.response.status).toBe(201);
    expect(outcome.response.headers.connection).toBe('close');
    expect((await server.exited).code).toBe(0);
    const id = JSON.parse(outcome.response.body).data.id;
    expect((await sql`SELECT name FROM pois WHERE id = ${id}`)[0].name).toBe('in flight');
  });

  it('past WAYMARK_SHUTDOWN_TIMEOUT the unanswered request is closed, exits 0 in time, and its write does not commit', async () => {
    const t = await team();
    const server = await serve({ WAYMARK_SHUTDOWN_TIMEOUT: '1' });
    const conn = new RawConnection(server.port);
    await conn.connected;
    let release!: () => void;
    const held = sql.begin(async (tx) => {
      await tx`SELECT 1 FROM teams WHERE id = ${t.id} FOR NO KEY UPDATE`;
      await new Promise<void>((resolve) => (release = resolve));
    });
    await sleep(100);
    const pending = conn.request('POST', '/v1/pois', json(t.key), JSON.stringify({ name: 'never', latitude: 1, longitude: 2 }));
    await sleep(200);
    const sentAt = performance.now();
    server.child.kill('SIGTERM');
    const exit = await server.exited;
    expect(exit.code).toBe(0);
    expect(exit.at - sentAt).toBeGreaterThan(900);
    expect(exit.at - sentAt).toBeLessThan(4000);
    expect((await pending).kind).not.toBe('response');
    release();
    await held;
    await sleep(200);
    expect(await sql`SELECT id FROM pois WHERE team_id = ${t.id}`).toEqual([]);
  });
});
