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
