import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.js';
import { projectRoot } from '../../src/paths.js';
import { api, startTestApp, TEST_DATABASE_URL } from '../support/app.js';

const run = promisify(execFile);
const waymark = async (...args: string[]) => {
  const { stdout } = await run(process.execPath, [join(projectRoot, 'bin', 'waymark.js'), ...args], {
    env: { ...process.env, DATABASE_URL: TEST_DATABASE_URL },
  });
  return stdout;
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
    expect(key.permissions).toEqual([{ id: 1, name: 'read-pois' }, { id: 13, name: 'plan-routes' }]);
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

  it('expires keys at their expiry date', async () => {
    const team = await json('team', 'create', '--name', 'exp', '--plan', 'basic');
    const past = await json('key', 'create', '--team', team.id, '--name', 'old', '--permissions', 'all', '--expires', '2020-01-01T00:00:00Z');
    expect(past.expires_at).toBe('2020-01-01T00:00:00.000000Z');
    expect((await api(app, 'GET', '/v1/info', { key: past.key })).status).toBe(401);
  });

  it('refuses bad input with a message and a non-zero exit', async () => {
    await expect(waymark('team', 'create', '--name', 'x', '--plan', 'gold')).rejects.toThrow(/--plan must be one of basic, pro, enterprise/);
    await expect(waymark('key', 'create', '--team', 'x', '--name', 'y', '--permissions', 'fly')).rejects.toThrow(/unknown permission 'fly'/);
    expect(await waymark()).toContain('waymark <command>');
  });
});
