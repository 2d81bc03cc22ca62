import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, createTeam } from '../../src/auth/admin.js';
import { parsePermissionList } from '../../src/auth/permissions.js';
import { UsageRecorder } from '../../src/auth/usage.js';
import { connect, type Sql } from '../../src/db/client.js';
import { TEST_DATABASE_URL } from '../support/app.js';

let sql: Sql;
beforeAll(() => {
  sql = connect(TEST_DATABASE_URL, 2);
});
afterAll(() => sql.end());

describe('UsageRecorder', () => {
  it('keeps the counts of a failed flush and writes them with the next one', async () => {
    const team = await createTeam(sql, { name: 'usage', plan: 'pro' });
    const key = await createKey(sql, { teamId: team.id, name: 'k', permissions: parsePermissionList('all') });
    // A mock for the one failure we cannot cause on a healthy database: the first transaction fails.
    let failures = 1;
    const flaky = new Proxy(sql, {
      get(target, prop, receiver) {
        if (prop === 'begin' && failures > 0) {
          failures--;
          return () => Promise.reject(new Error('connection lost'));
        }
        return Reflect.get(target, prop, receiver);
      },
    }) as Sql;
    const usage = new UsageRecorder(flaky);
    usage.record(key.id, 'GET', '/v1/pois');
    usage.record(key.id, 'GET', '/v1/pois');
    await expect(usage.flush()).rejects.toThrow('connection lost');
    usage.record(key.id, 'GET', '/v1/pois');
    await usage.flush();
    const [row] = await sql<{ count: number }[]>`SELECT sum(count)::int AS count FROM key_usage WHERE key_id = ${key.id}`;
    expect(row.count).toBe(3);
    const [k] = await sql<{ last_used_at: Date | null }[]>`SELECT last_used_at FROM api_keys WHERE id = ${key.id}`;
    expect(k.last_used_at).not.toBeNull();
    await usage.close();
  });
});

/**
 * A TCP hop between the pool and PostgreSQL that can cut the line right after a COMMIT went through:
 * it drops the server's "COMMIT" acknowledgement, closes the connection, and refuses every new one
 * until `restore()`, so the client cannot learn the transaction's fate (pg_xact_status cannot be
 * asked either). What a network partition or a host failing at that moment does.
 */
async function cuttableLine(target: URL) {
  let armed = false;
  let down = false;
  const sockets = new Set<net.Socket>();
  let cut!: () => void;
  const wasCut = new Promise<void>((resolve) => (cut = resolve));
  const server = net.createServer((client) => {
    if (down) return void client.destroy();
    const upstream = net.connect(Number(target.port), target.hostname);
    sockets.add(client).add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
    };
    client
      .on('error', drop)
      .on('close', drop)
      .on('data', (b) => upstream.write(b));
    upstream
      .on('error', drop)
      .on('close', drop)
      .on('data', (b) => {
        // CommandComplete 'C' … "COMMIT\0": the server has committed; the client must not hear it.
        if (armed && b.includes('COMMIT\u0000')) {
          armed = false;
          down = true;
          for (const s of sockets) s.destroy();
          sockets.clear();
          cut();
          return;
        }
        client.write(b);
      });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const url = new URL(target);
  url.port = String((server.address() as net.AddressInfo).port);
  return {
    url: url.toString(),
    wasCut,
    /** The next COMMIT acknowledged by the server is lost, and the line stays down. */
    armNextCommit: () => void (armed = true),
    restore: () => void (down = false),
    close: () =>
      new Promise<void>((done) => {
        for (const s of sockets) s.destroy();
        server.close(() => done());
      }),
  };
}

describe('UsageRecorder when a commit cannot be confirmed', () => {
  it('a flush whose commit went through but whose acknowledgement was lost is not counted twice', async () => {
    const team = await createTeam(sql, { name: 'usage commit lost', plan: 'pro' });
    const key = await createKey(sql, { teamId: team.id, name: 'k', permissions: parsePermissionList('all') });
    const line = await cuttableLine(new URL(TEST_DATABASE_URL));
    const remote = connect(line.url, 2);
    try {
      const usage = new UsageRecorder(remote);
      // A first flush over the line, so the pool has its connection and types before the cut.
      usage.record(key.id, 'GET', '/v1/categories');
      await usage.flush();
      for (let i = 0; i < 3; i++) usage.record(key.id, 'GET', '/v1/pois');
      line.armNextCommit();
      await expect(usage.flush()).rejects.toMatchObject({ code: expect.any(String) });
      await line.wasCut;
      // The server did commit: the rows are there, read on a connection that bypasses the line.
      const count = async () =>
        (await sql<{ n: number }[]>`SELECT coalesce(sum(count), 0)::int AS n FROM key_usage WHERE key_id = ${key.id} AND endpoint = '/v1/pois'`)[0].n;
      expect(await count()).toBe(3);
      line.restore();
      usage.record(key.id, 'GET', '/v1/pois');
      await usage.flush();
      expect(await count()).toBe(4);
      await usage.close();
    } finally {
      await remote.end({ timeout: 1 });
      await line.close();
    }
  });
});
