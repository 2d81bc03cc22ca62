import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTeam } from '../../src/auth/admin.js';
import type { App } from '../../src/app.js';
import { projectRoot } from '../../src/lib/paths.js';
import { startTestApp, TEST_DATABASE_URL } from '../support/app.js';
import { signIn } from './support.js';

/** `waymark user create|reset-password`: the password comes from standard input, never a flag. */
const waymark = (args: string[], stdin: string) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = execFile(
      process.execPath,
      [join(projectRoot, 'bin', 'waymark.js'), ...args],
      {
        env: { ...process.env, DATABASE_URL: TEST_DATABASE_URL },
      },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
    child.stdin!.end(stdin);
  });

let app: App & { url: string };
beforeAll(async () => {
  app = await startTestApp({ WAYMARK_MAP: 'off', WAYMARK_JOBS: 'off' });
});
afterAll(() => app?.close());

describe('waymark user', () => {
  it('creates a dashboard user and resets the password from standard input', async () => {
    const team = await createTeam(app.sql, { name: 'CLI users', plan: 'basic' });
    const email = `cli-${Date.now()}@example.test`;
    const created = await waymark(['user', 'create', '--team', team.id, '--email', email, '--json'], 'first password 123\n');
    expect(created.code, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ team_id: team.id, email });
    const s = await signIn(app.url, email, 'first password 123');
    expect(s.status).toBe(201);

    const short = await waymark(['user', 'create', '--team', team.id, '--email', `x${email}`], 'short\n');
    expect(short.code).not.toBe(0);
    expect(short.stderr).toMatch(/at least 10 characters/);
    expect((await waymark(['user', 'create', '--team', team.id, '--email', email, '--password', 'nope'], '')).code).not.toBe(0);

    const reset = await waymark(['user', 'reset-password', '--email', email], 'second password 456\n');
    expect(reset.code, reset.stderr).toBe(0);
    expect(reset.stdout).toMatch(/sessions were ended/);
    expect((await fetch(`${app.url}/dashboard/api/session`, { headers: { cookie: s.cookie } })).status).toBe(401);
    expect((await signIn(app.url, email, 'first password 123')).status).toBe(401);
    expect((await signIn(app.url, email, 'second password 456')).status).toBe(201);
  });
});
