// The API-key cache when the notification (LISTEN) connection is lost: the changes announced while it
// was down are never heard, so when it comes back every cached key is read again — in one statement,
// with the requests that arrive meanwhile waiting for it rather than each going to the database.
// Real PostgreSQL: the listening sessions are terminated (pg_terminate_backend) and kept from coming
// back (ALLOW_CONNECTIONS false) while a key is deactivated, so its notification is really lost.
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKey, createTeam, setKeyActive } from '../../src/auth/admin.js';
import { KeyStore } from '../../src/auth/authenticate.js';
import { parsePermissionList } from '../../src/auth/permissions.js';
import type { App } from '../../src/app.js';
import { connect, type Sql } from '../../src/db/client.js';
import { api, startTestApp, TEST_DATABASE_URL } from '../support/app.js';
import { freshDatabase, sleep } from './support.js';

let db: Awaited<ReturnType<typeof freshDatabase>>;
let admin: postgres.Sql;
let pool: Sql;
let app: (App & { url: string }) | undefined;
const keys: Array<{ key: string; id: string }> = [];
let teamId = '';

/** Key lookups the store sent to the database (its statements on api_keys). */
let lookups = 0;

beforeAll(async () => {
  db = await freshDatabase('keycache');
  admin = postgres(TEST_DATABASE_URL.replace(/\/[^/]*$/, '/postgres'), { max: 1, onnotice: () => {} });
  teamId = (await createTeam(db.sql, { name: 'key cache', plan: 'pro', rateLimit: 1_000_000 })).id;
  for (let i = 0; i < 20; i++) keys.push(await createKey(db.sql, { teamId, name: `k${i}`, permissions: parsePermissionList('all') }));
  pool = connect(db.url, 10);
}, 60_000);
afterAll(async () => {
  await admin?.unsafe(`ALTER DATABASE ${dbName()} ALLOW_CONNECTIONS true`).catch(() => {});
  await app?.close();
  await pool?.end({ timeout: 1 });
  await admin?.end();
  await db?.drop();
});

const dbName = () => new URL(db.url).pathname.slice(1);

/** The store on a pool whose key statements are counted (the counting only looks; PostgreSQL answers). */
function countedStore(): KeyStore {
  const counted = new Proxy(pool, {
    apply(target, thisArg, args) {
      const strings = args[0] as unknown;
      if (Array.isArray(strings) && strings.join('').includes('FROM api_keys k')) lookups++;
      return Reflect.apply(target as unknown as (...a: unknown[]) => unknown, thisArg, args);
    },
  }) as Sql;
  return new KeyStore(counted);
}

/** Terminates the database's listening sessions (each process's LISTEN connection) and waits until they are gone. */
async function terminateListeners(): Promise<number> {
  const [{ n }] = await admin<{ n: number }[]>`
    SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
    WHERE datname = ${dbName()} AND query ILIKE 'listen %'`;
  for (let i = 0; i < 100; i++) {
    const [{ left }] = await admin<{ left: number }[]>`
      SELECT count(*)::int AS left FROM pg_stat_activity WHERE datname = ${dbName()} AND query ILIKE 'listen %'`;
    if (left === 0) break;
    await sleep(20);
  }
  return n;
}

describe('the key cache after the notification connection is lost', () => {
  it('requests that miss on one key share one lookup', async () => {
    const store = countedStore();
    const before = lookups;
    const infos = await Promise.all(Array.from({ length: 50 }, () => store.lookup(keys[19].key)));
    expect(infos.every((i) => i?.keyId === keys[19].id)).toBe(true);
    expect(lookups - before).toBe(1);
  });

  it('warm puts the keys used last in the cache: their first lookups send no statement, one never used does', async () => {
    const used = keys.slice(10, 15);
    for (const [i, k] of used.entries()) await db.sql`UPDATE api_keys SET last_used_at = now() - make_interval(secs => ${i}) WHERE id = ${k.id}`;
    const store = countedStore();
    await store.warm(3);
    const before = lookups;
    const infos = await Promise.all(used.map((k) => store.lookup(k.key)));
    expect(infos.map((i) => i?.keyId)).toEqual(used.map((k) => k.id));
    expect(lookups - before).toBe(0);
    expect((await store.lookup(keys[16].key))?.keyId).toBe(keys[16].id);
    expect(lookups - before).toBe(1);
  });

  it('under a stream of changes, lookups wait for at most the read under way and the next, not for the stream to end', async () => {
    const store = countedStore();
    await store.listen();
    for (const { key } of keys) await store.lookup(key);
    const before = lookups;
    let streaming = true;
    let notifications = 0;
    const stream = (async () => {
      for (; notifications < 40; notifications++) {
        await db.sql`SELECT pg_notify('waymark_auth_changed', '')`;
        await sleep(2);
      }
      streaming = false;
    })();
    const waits: number[] = [];
    while (streaming) {
      const started = performance.now();
      expect((await store.lookup(keys[1].key))?.keyId).toBe(keys[1].id);
      waits.push(performance.now() - started);
      // A cache hit never leaves the microtask queue: let the notifications and the reads in.
      await new Promise((done) => setImmediate(done));
    }
    await stream;
    // Answered all along the stream (a lookup every few reads at worst), each within a read or two.
    expect(waits.length).toBeGreaterThan(10);
    expect(Math.max(...waits)).toBeLessThan(500);
    // Changes announced while a read runs share the next one.
    expect(lookups - before).toBeLessThanOrEqual(notifications + 1);
    await store.close();
  });

  it('a key deactivated while it was down is refused once it is back, and the cached keys are read again in one statement', async () => {
    const store = countedStore();
    await store.listen();
    app = await startTestApp({ DATABASE_URL: db.url, WAYMARK_JOBS: 'off', WAYMARK_MAP: 'off' });
    // Every key cached, in the store and in the service.
    for (const { key } of keys) expect((await store.lookup(key))?.isActive).toBe(true);
    expect((await api(app, 'GET', '/v1/info', { key: keys[0].key })).status).toBe(200);
    expect((await api(app, 'GET', '/v1/info', { key: keys[1].key })).status).toBe(200);

    await admin.unsafe(`ALTER DATABASE ${dbName()} ALLOW_CONNECTIONS false`);
    // The store's listener and the service's.
    expect(await terminateListeners()).toBeGreaterThanOrEqual(2);
    // On a connection opened before: its NOTIFY reaches no one.
    await setKeyActive(db.sql, keys[0].id, false);
    await sleep(300);
    const before = lookups;
    await admin.unsafe(`ALTER DATABASE ${dbName()} ALLOW_CONNECTIONS true`);

    // Back within a second (the listener tries every 250 ms); many requests at once meanwhile.
    const started = performance.now();
    let refused = false;
    while (!refused && performance.now() - started < 3_000) {
      const infos = await Promise.all(keys.flatMap(({ key }) => Array.from({ length: 10 }, () => store.lookup(key))));
      refused = infos[0] === null;
      if (!refused) {
        // Still the cached state: no lookup went out yet.
        expect(lookups - before).toBe(0);
        await sleep(20);
      } else {
        expect(infos.slice(10).every((i) => i?.isActive)).toBe(true);
      }
    }
    expect(refused).toBe(true);
    expect(performance.now() - started).toBeLessThan(1_500);
    // One statement for the twenty cached keys (a second only if the refused key's short TTL ran out).
    expect(lookups - before).toBeGreaterThanOrEqual(1);
    expect(lookups - before).toBeLessThanOrEqual(2);

    const refusedByService = async () => {
      for (let i = 0; i < 60; i++) {
        if ((await api(app!, 'GET', '/v1/info', { key: keys[0].key })).status === 401) return true;
        await sleep(50);
      }
      return false;
    };
    expect(await refusedByService()).toBe(true);
    expect((await api(app, 'GET', '/v1/info', { key: keys[1].key })).status).toBe(200);
    await store.close();
  });
});
