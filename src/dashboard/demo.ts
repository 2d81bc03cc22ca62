import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Sql } from '../db/client.js';
import { writeSecretFile } from '../lib/secret-files.js';
import { verifyPassword } from './passwords.js';
import { createUser, findUserByEmail, resetPassword } from './users.js';

export const DEMO_EMAIL = 'demo@waymark.local';

/** The demo team's dashboard sign-in, kept (mode 0600, see writeSecretFile) beside the demo key so every start prints one that
 *  works; a new password is set when the stored one no longer signs in (or the user moved teams). */
export async function ensureDemoUser(sql: Sql, dataDir: string, teamId: string): Promise<{ email: string; password: string }> {
  const file = join(dataDir, 'demo-user.json');
  let stored: { password?: string; hash?: string } = {};
  try {
    stored = JSON.parse(readFileSync(file, 'utf8')) as typeof stored;
  } catch {
    // none stored yet
  }
  const user = await findUserByEmail(sql, DEMO_EMAIL);
  const { password } = stored;
  if (user && user.team_id === teamId && password) {
    // The hash kept beside the password is the one set with it: while the database still holds it, the
    // password signs in, and a start need not spend a scrypt (a third of a second while the workers load).
    if (stored.hash === user.password_hash) return { email: DEMO_EMAIL, password };
    if (await verifyPassword(password, user.password_hash)) return remember(dataDir, password, user.password_hash);
  }
  const fresh = randomBytes(12).toString('base64url');
  if (user && user.team_id !== teamId) await sql`DELETE FROM dashboard_users WHERE id = ${user.id}`;
  if (user && user.team_id === teamId) await resetPassword(sql, DEMO_EMAIL, fresh);
  else await createUser(sql, { teamId, email: DEMO_EMAIL, password: fresh });
  return remember(dataDir, fresh, (await findUserByEmail(sql, DEMO_EMAIL))!.password_hash);
}

function remember(dataDir: string, password: string, hash: string): { email: string; password: string } {
  writeSecretFile(dataDir, 'demo-user.json', JSON.stringify({ email: DEMO_EMAIL, password, hash }));
  return { email: DEMO_EMAIL, password };
}
