import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { api, startTestApp, TEST_DATABASE_URL } from '../support/app.js';
import { inProcess } from '../support/process.js';
import { AUTH_CHANGED, SERVER_APPLICATION } from '../../src/auth/authenticate.js';
import { connect } from '../../src/db/client.js';

/** The CLI in this process (see inProcess): what it prints, or its error as a rejection. */
const waymark = async (...args: string[]) => {
  const run = await inProcess(args, { DATABASE_URL: TEST_DATABASE_URL });
  if (run.code !== 0) throw new Error(`waymark ${args.join(' ')} exited ${run.code}: ${run.stderr}`);
  return run.stdout;
};
const json = async (...args: string[]) => JSON.parse(await waymark(...args, '--json'));

let app: App & { url: string };
beforeAll(async () => {
  app = await startTestApp({ WAYMARK_MAP: 'off', WAYMARK_JOBS: 'off' });
});
afterAll(() => app.close());

describe('waymark CLI', () => {
  it('creates a team and a key that authenticates with exactly its permissions', async () => {
    const team = await json('team', 'create', '--name', 'CLI team', '--plan', 'pro', '--rate-limit', '500');
    expect(team).toMatchObject({ name: 'CLI team', plan: 'pro', plan_active: true, rate_limit: 500, poi_limit: null });
    const key = await json('key', 'create', '--team', team.id, '--name', 'ops', '--permissions', 'read-pois,plan-routes');
    expect(key.key).toMatch(/^wm_[A-Za-z0-9]{40}$/);
    expect(key.permissions).toEqual([
      { id: 1, name: 'read-pois' },
      { id: 13, name: 'plan-routes' },
    ]);
    const info = await api(app, 'GET', '/v1/info', { key: key.key });
    expect(info.status).toBe(200);
    expect(info.headers.get('x-ratelimit-limit')).toBe('500');
    expect((await api(app, 'POST', '/v1/categories', { key: key.key, body: { name: 'x' } })).status).toBe(403);

    const listed = await json('key', 'list', '--team', team.id);
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ id: key.id, last_four: key.key.slice(-4), is_active: true });
    expect(JSON.stringify(listed)).not.toContain(key.key);

    await waymark('key', 'deactivate', key.id);
    expect((await api(app, 'GET', '/v1/info', { key: key.key })).status).toBe(401);
    await waymark('key', 'activate', key.id);
    expect((await api(app, 'GET', '/v1/info', { key: key.key })).status).toBe(200);

    await waymark('team', 'update', team.id, '--inactive');
    const inactive = await api(app, 'GET', '/v1/info', { key: key.key });
    expect(inactive.status).toBe(403);
    expect(inactive.body.message).toBe('Your team does not have an active plan.');
    await waymark('team', 'update', team.id, '--active', '--plan', 'enterprise', '--rate-limit', 'none');
    expect((await api(app, 'GET', '/v1/info', { key: key.key })).headers.get('x-ratelimit-limit')).toBe('-1');

    await waymark('key', 'delete', key.id);
    expect((await api(app, 'GET', '/v1/info', { key: key.key })).status).toBe(401);
  });

  it('a key change returns only once every server listening has heard it', async () => {
    // A second server whose listener answers 400 ms late (its event loop busy, its notification delivered
    // late): the command must not return before it, or that server would still serve the old key.
    const slow = connect(TEST_DATABASE_URL, 1, { application_name: SERVER_APPLICATION });
    const heard: string[] = [];
    await slow.listen(AUTH_CHANGED, (nonce) => {
      heard.push(nonce);
      setTimeout(() => slow`SELECT pg_notify('waymark_auth_heard', ${nonce})`.catch(() => {}), 400);
    });
    try {
      const team = await json('team', 'create', '--name', 'two servers', '--plan', 'basic');
      const key = await json('key', 'create', '--team', team.id, '--name', 'k', '--permissions', 'all');
      heard.length = 0;
      const started = performance.now();
      await waymark('key', 'deactivate', key.id);
      const took = performance.now() - started;
      // At least ours: test files running beside this one share the database, and their key changes
      // reach this listener too.
      expect(heard.length).toBeGreaterThanOrEqual(1);
      expect(took).toBeGreaterThanOrEqual(400);
      expect(took).toBeLessThan(2_000);
      expect((await api(app, 'GET', '/v1/info', { key: key.key })).status).toBe(401);
    } finally {
      await slow.end({ timeout: 1 });
    }
  });

  it('expires keys at their expiry date', async () => {
    const team = await json('team', 'create', '--name', 'exp', '--plan', 'basic');
    const past = await json('key', 'create', '--team', team.id, '--name', 'old', '--permissions', 'all', '--expires', '2020-01-01T00:00:00Z');
    expect(past.expires_at).toBe('2020-01-01T00:00:00.000000Z');
    expect((await api(app, 'GET', '/v1/info', { key: past.key })).status).toBe(401);
  });

  it('says what is wrong in words, never SQL, exit 1; as JSON with --json', async () => {
    const env = { DATABASE_URL: TEST_DATABASE_URL };
    const unknownTeam = '01ARZ3NDEKTSV4RRFFQ69G5FAV';
    for (const args of [
      ['key', 'create', '--team', unknownTeam, '--name', 'k'],
      ['key', 'list', '--team', unknownTeam],
      ['team', 'update', unknownTeam, '--name', 'n'],
    ]) {
      const run = await inProcess(args, env);
      expect(run, args.join(' ')).toMatchObject({ code: 1, stdout: '' });
      expect(run.stderr).toBe(`waymark: team ${unknownTeam} not found\n`);
    }
    const missingKey = await inProcess(['key', 'delete', unknownTeam, '--json'], env);
    expect(missingKey.code).toBe(1);
    expect(JSON.parse(missingKey.stderr)).toEqual({ error: `key ${unknownTeam} not found` });
    const noFile = await inProcess(['import', '/nonexistent.csv', '--team', unknownTeam], env);
    expect(noFile).toMatchObject({ code: 1, stderr: 'waymark: /nonexistent.csv: no such file\n' });
    const down = await inProcess(['team', 'create', '--name', 'x'], { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' });
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/^waymark: cannot reach the database \(check DATABASE_URL\)/);
  });
});
