// The demo key and the demo password are secrets: 0600 files in a 0700 data directory, also when an
// older version left them world-readable and they are rewritten. The demo sign-in printed at every start
// must work: kept while the database still holds the password set with it, replaced when someone changed
// it (`waymark user reset-password`), and recognised from an older file that kept no hash.
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureDemoKey } from '../../src/cli/demo.js';
import { ensureDemoUser } from '../../src/dashboard/demo.js';
import { verifyPassword } from '../../src/dashboard/passwords.js';
import { findUserByEmail, resetPassword } from '../../src/dashboard/users.js';
import { connect, type Sql } from '../../src/db/client.js';
import { TEST_DATABASE_URL } from '../support/app.js';

const mode = (path: string) => statSync(path).mode & 0o777;

let root: string;
let sql: Sql;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'waymark-modes-'));
  sql = connect(TEST_DATABASE_URL, 2);
});
afterAll(async () => {
  await sql.end({ timeout: 1 });
  rmSync(root, { recursive: true, force: true });
});

describe('secret files', () => {
  it('are made 0600 in a 0700 data directory', async () => {
    const dataDir = join(root, 'fresh', 'data');
    const key = await ensureDemoKey(sql, dataDir);
    await ensureDemoUser(sql, dataDir, key.teamId);
    expect(mode(dataDir)).toBe(0o700);
    expect(mode(join(dataDir, 'demo-key.json'))).toBe(0o600);
    expect(mode(join(dataDir, 'demo-user.json'))).toBe(0o600);
  });

  it('are made private again when rewritten over world-readable ones in a world-readable directory', async () => {
    const dataDir = join(root, 'old');
    mkdirSync(dataDir, { mode: 0o755 });
    chmodSync(dataDir, 0o755);
    // What an older version left: a key this database does not know, and a password that does not sign in.
    for (const [name, content] of [
      ['demo-key.json', { key: 'wm_stale', teamId: 'none' }],
      ['demo-user.json', { email: 'demo@waymark.local', password: 'stale' }],
    ] as const) {
      writeFileSync(join(dataDir, name), JSON.stringify(content), { mode: 0o644 });
      chmodSync(join(dataDir, name), 0o644);
    }
    const key = await ensureDemoKey(sql, dataDir);
    expect(key.key).not.toBe('wm_stale');
    const user = await ensureDemoUser(sql, dataDir, key.teamId);
    expect(user.password).not.toBe('stale');
    expect(JSON.parse(readFileSync(join(dataDir, 'demo-key.json'), 'utf8')).key).toBe(key.key);
    expect(mode(dataDir)).toBe(0o700);
    expect(mode(join(dataDir, 'demo-key.json'))).toBe(0o600);
    expect(mode(join(dataDir, 'demo-user.json'))).toBe(0o600);
  });
});

const stored = (dataDir: string) => JSON.parse(readFileSync(join(dataDir, 'demo-user.json'), 'utf8')) as { email: string; password: string; hash?: string };
const signsIn = async (password: string) => verifyPassword(password, (await findUserByEmail(sql, 'demo@waymark.local'))!.password_hash);

describe('the demo sign-in', () => {
  it('keeps a working sign-in, replaces one changed behind its back, and upgrades a file without a hash', async () => {
    const dataDir = join(root, 'demo-user');
    const { teamId } = await ensureDemoKey(sql, dataDir);
    const first = await ensureDemoUser(sql, dataDir, teamId);
    expect(await signsIn(first.password)).toBe(true);
    expect(stored(dataDir).hash).toBe((await findUserByEmail(sql, first.email))!.password_hash);
    expect((await ensureDemoUser(sql, dataDir, teamId)).password).toBe(first.password);

    await resetPassword(sql, first.email, 'changed by an operator');
    const second = await ensureDemoUser(sql, dataDir, teamId);
    expect(second.password).not.toBe(first.password);
    expect(await signsIn(second.password)).toBe(true);

    // A file from before the hash was kept: the password is checked once and the hash written beside it.
    writeFileSync(join(dataDir, 'demo-user.json'), JSON.stringify({ email: second.email, password: second.password }));
    expect((await ensureDemoUser(sql, dataDir, teamId)).password).toBe(second.password);
    expect(stored(dataDir).hash).toBe((await findUserByEmail(sql, second.email))!.password_hash);
  });
});
