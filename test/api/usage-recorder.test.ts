import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, createTeam } from '../../src/auth/admin.js';
import { parsePermissionList } from '../../src/auth/permissions.js';
import { UsageRecorder } from '../../src/auth/usage.js';
import { connect, type Sql } from '../../src/db/client.js';
import { backgroundErrorCounts, setBackgroundLog } from '../../src/lib/background-errors.js';
import { freshDatabase } from '../faults/support.js';
import { api, startTestApp, TEST_DATABASE_URL } from '../support/app.js';

let sql: Sql;
beforeAll(() => {
  sql = connect(TEST_DATABASE_URL, 2);
});
afterAll(() => sql.end());

/** The recorder's counts as written, by endpoint. */
const written = async (db: Sql, keyId: string) =>
  Object.fromEntries(
    (await db<{ endpoint: string; n: number }[]>`SELECT endpoint, sum(count)::int AS n FROM key_usage WHERE key_id = ${keyId} GROUP BY 1`).map((r) => [
      r.endpoint,
      r.n,
    ]),
  );

describe('UsageRecorder', () => {
  it('a batch cut off by the session being terminated mid-write is written on the next flush, once', async () => {
    const team = await createTeam(sql, { name: 'usage', plan: 'pro' });
    const key = await createKey(sql, { teamId: team.id, name: 'k', permissions: parsePermissionList('all') });
    const name = `usage-terminated-${process.pid}`;
    const own = connect(TEST_DATABASE_URL, 1, { application_name: name });
    try {
      const usage = new UsageRecorder(own);
      usage.record(key.id, team.id, 'GET', '/v1/pois');
      usage.record(key.id, team.id, 'GET', '/v1/pois');
      // Holds the flush's transaction open on its first statement so that its backend can be terminated
      // under it (what a database restart or an operator's pg_terminate_backend does), every time: the
      // client repeats a transaction whose connection was lost a few times before it gives up.
      const locker = connect(TEST_DATABASE_URL, 1);
      let settled = false;
      let flushing!: Promise<void>;
      let terminated = 0;
      await locker.begin(async (tx) => {
        await tx`SELECT id FROM api_keys WHERE id = ${key.id} FOR UPDATE`;
        // The flush starts once the key's row is held: started before, it could be done before the lock.
        flushing = usage.flush().finally(() => (settled = true));
        flushing.catch(() => {});
        for (let i = 0; i < 500 && !settled; i++) {
          const rows = await sql<{ pid: number }[]>`
            SELECT pid FROM pg_stat_activity WHERE application_name = ${name} AND wait_event_type = 'Lock'`;
          for (const { pid } of rows) terminated += (await sql<{ ok: boolean }[]>`SELECT pg_terminate_backend(${pid}) AS ok`)[0].ok ? 1 : 0;
          await new Promise((done) => setTimeout(done, 20));
        }
      });
      expect(terminated).toBeGreaterThan(0);
      await locker.end();
      await expect(flushing).rejects.toMatchObject({ code: expect.any(String) });
      expect(await written(sql, key.id)).toEqual({});
      usage.record(key.id, team.id, 'GET', '/v1/pois');
      await usage.flush();
      expect(await written(sql, key.id)).toEqual({ '/v1/pois': 3 });
      const [k] = await sql<{ last_used_at: Date | null }[]>`SELECT last_used_at FROM api_keys WHERE id = ${key.id}`;
      expect(k.last_used_at).not.toBeNull();
      await usage.close();
    } finally {
      await own.end();
    }
  });
});

describe('UsageRecorder when one batch keeps failing', () => {
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  beforeAll(async () => {
    db = await freshDatabase('usagepoison');
    // A real refusal by the database, for one endpoint only (a trigger, in a database of this test's own).
    await db.sql.unsafe(`
      CREATE FUNCTION refuse_poison() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.endpoint = '/v1/poison' THEN RAISE EXCEPTION 'poisoned batch'; END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER refuse_poison BEFORE INSERT ON key_usage FOR EACH ROW EXECUTE FUNCTION refuse_poison();`);
  });
  afterAll(() => db?.drop());

  it('does not hold up the batches after it, is retried, and is written once the database takes it', async () => {
    const team = await createTeam(db.sql, { name: 'poison', plan: 'pro' });
    const key = await createKey(db.sql, { teamId: team.id, name: 'k', permissions: parsePermissionList('all') });
    const usage = new UsageRecorder(db.sql);
    usage.record(key.id, team.id, 'GET', '/v1/poison');
    await expect(usage.flush()).rejects.toThrow('poisoned batch');
    for (let i = 0; i < 3; i++) {
      usage.record(key.id, team.id, 'GET', '/v1/pois');
      // The poisoned batch fails again; the new one is written all the same.
      await expect(usage.flush()).rejects.toThrow('poisoned batch');
      expect(await written(db.sql, key.id)).toEqual({ '/v1/pois': i + 1 });
    }
    await db.sql`DROP TRIGGER refuse_poison ON key_usage`;
    await usage.flush();
    expect(await written(db.sql, key.id)).toEqual({ '/v1/pois': 3, '/v1/poison': 1 });
    await usage.close();
  });

  it('a batch that fails for good is dropped after its tries, logged and counted, and the rest goes on', async () => {
    await db.sql`CREATE TRIGGER refuse_poison BEFORE INSERT ON key_usage FOR EACH ROW EXECUTE FUNCTION refuse_poison()`;
    const team = await createTeam(db.sql, { name: 'poison for good', plan: 'pro' });
    const key = await createKey(db.sql, { teamId: team.id, name: 'k', permissions: parsePermissionList('all') });
    const usage = new UsageRecorder(db.sql);
    const dropped = () => backgroundErrorCounts().get('usage-batch-dropped') ?? 0;
    const before = dropped();
    const logged: Array<{ obj: any; msg: string }> = [];
    setBackgroundLog({ warn: (obj, msg) => logged.push({ obj, msg }) });
    usage.record(key.id, team.id, 'GET', '/v1/poison');
    let tries = 0;
    while (dropped() === before && tries < 100) {
      tries++;
      await usage.flush().catch(() => {});
    }
    expect(tries).toBe(20);
    expect(dropped()).toBe(before + 1);
    const line = logged.find((l) => l.obj.task === 'usage-batch-dropped');
    expect(line?.msg).toBe('background task failed: usage-batch-dropped');
    expect(line?.obj).toMatchObject({ attempts: 20, requests: 1, batch: expect.any(String) });
    expect(String(line?.obj.err)).toContain('poisoned batch');
    usage.record(key.id, team.id, 'GET', '/v1/pois');
    await usage.flush();
    expect(await written(db.sql, key.id)).toEqual({ '/v1/pois': 1 });
    await db.sql`DROP TRIGGER refuse_poison ON key_usage`;
    await usage.close();
  });

  it("a running server's failing usage writes show in /metrics as waymark_background_errors_total{task}", async () => {
    await db.sql.unsafe(`
      CREATE FUNCTION refuse_categories() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.endpoint = '/v1/categories' THEN RAISE EXCEPTION 'no categories today'; END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER refuse_categories BEFORE INSERT ON key_usage FOR EACH ROW EXECUTE FUNCTION refuse_categories();`);
    const app = await startTestApp({ DATABASE_URL: db.url, WAYMARK_MAP: 'off', WAYMARK_JOBS: 'off' });
    try {
      const team = await createTeam(db.sql, { name: 'metrics', plan: 'enterprise' });
      const key = await createKey(db.sql, { teamId: team.id, name: 'k', permissions: parsePermissionList('all') });
      expect((await api(app, 'GET', '/v1/categories', { key: key.key })).status).toBe(200);
      const count = async () => {
        const text = await (await fetch(`${app.url}/metrics`)).text();
        return Number(/^waymark_background_errors_total\{task="usage-flush"\} (\d+)$/m.exec(text)?.[1] ?? 0);
      };
      const first = await count();
      let now = first;
      for (let i = 0; i < 50 && now <= first; i++) {
        await new Promise((done) => setTimeout(done, 100));
        now = await count();
      }
      expect(now).toBeGreaterThan(first);
      expect(now).toBeGreaterThan(0);
      // Taken once the database takes it: nothing was lost meanwhile.
      await db.sql`DROP TRIGGER refuse_categories ON key_usage`;
      for (let i = 0; i < 50 && (await written(db.sql, key.id))['/v1/categories'] !== 1; i++) await new Promise((done) => setTimeout(done, 100));
      expect(await written(db.sql, key.id)).toEqual({ '/v1/categories': 1 });
    } finally {
      await app.close();
    }
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
      usage.record(key.id, team.id, 'GET', '/v1/categories');
      await usage.flush();
      for (let i = 0; i < 3; i++) usage.record(key.id, team.id, 'GET', '/v1/pois');
      line.armNextCommit();
      await expect(usage.flush()).rejects.toMatchObject({ code: expect.any(String) });
      await line.wasCut;
      // The server did commit: the rows are there, read on a connection that bypasses the line.
      const count = async () =>
        (await sql<{ n: number }[]>`SELECT coalesce(sum(count), 0)::int AS n FROM key_usage WHERE key_id = ${key.id} AND endpoint = '/v1/pois'`)[0].n;
      expect(await count()).toBe(3);
      line.restore();
      usage.record(key.id, team.id, 'GET', '/v1/pois');
      await usage.flush();
      expect(await count()).toBe(4);
      await usage.close();
    } finally {
      await remote.end({ timeout: 1 });
      await line.close();
    }
  });
});
