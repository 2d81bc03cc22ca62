import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Sql } from '../db/client.js';
import { writeSecretFile } from '../secret-files.js';
import { verifyPassword } from './passwords.js';
import { createUser, findUserByEmail, resetPassword } from './users.js';

export const DEMO_EMAIL = 'demo@waymark.local';

/** The demo team's dashboard sign-in, kept (mode 0600, see writeSecretFile) beside the demo key so every start prints one that
 *  works; a new password is set when the stored one no longer signs in (or the user moved teams). */
export async function ensureDemoUser(sql: Sql, dataDir: string, teamId: string): Promise<{ email: string; password: string }> {
  const file = join(dataDir, 'demo-user.json');
  let password: string | undefined;
  try {
    password = (JSON.parse(readFileSync(file, 'utf8')) as { password: string }).password;
  } catch {
    // none stored yet
  }
  const user = await findUserByEmail(sql, DEMO_EMAIL);
  if (user && user.team_id === teamId && password && (await verifyPassword(password, user.password_hash))) return { email: DEMO_EMAIL, password };
  password = randomBytes(12).toString('base64url');
  if (user && user.team_id !== teamId) await sql`DELETE FROM dashboard_users WHERE id = ${user.id}`;
  if (user && user.team_id === teamId) await resetPassword(sql, DEMO_EMAIL, password);
  else await createUser(sql, { teamId, email: DEMO_EMAIL, password });
  writeSecretFile(dataDir, 'demo-user.json', JSON.stringify({ email: DEMO_EMAIL, password }));
  return { email: DEMO_EMAIL, password };
}
