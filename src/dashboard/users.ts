import { type Sql, retryable } from '../db/client.js';
import { newId, timestamp } from '../lib/ids.js';
import { hashPassword, passwordProblem } from './passwords.js';

export interface DashboardUser {
  id: string;
  team_id: string;
  email: string;
  created_at: string | null;
}

const EMAIL = /^[^\s@]+@[^\s@]+$/;

const userJson = (r: Record<string, any>): DashboardUser => ({
  id: r.id,
  team_id: r.team_id,
  email: r.email,
  created_at: timestamp(r.created_at),
});

function checkInput(email: string, password: string): void {
  if (!EMAIL.test(email) || email.length > 320) throw new Error(`'${email}' is not an e-mail address`);
  const problem = passwordProblem(password);
  if (problem) throw new Error(`the password ${problem}`);
}

/** Creates a dashboard user of the team; the e-mail is unique across teams (case-insensitive). */
export async function createUser(sql: Sql, input: { teamId: string; email: string; password: string }): Promise<DashboardUser> {
  const email = input.email.trim();
  checkInput(email, input.password);
  const [team] = await retryable(sql`SELECT 1 FROM teams WHERE id = ${input.teamId}`);
  if (!team) throw new Error(`team ${input.teamId} not found`);
  const hash = await hashPassword(input.password);
  try {
    const [row] = await sql`
      INSERT INTO dashboard_users (id, team_id, email, password_hash)
      VALUES (${newId()}, ${input.teamId}, ${email}, ${hash}) RETURNING *`;
    return userJson(row);
  } catch (err) {
    if ((err as { code?: string }).code === '23505') throw new Error(`a dashboard user with the e-mail ${email} already exists`);
    throw err;
  }
}

/** Sets a new password and ends the user's sessions. */
export async function resetPassword(sql: Sql, email: string, password: string): Promise<DashboardUser> {
  checkInput(email.trim(), password);
  const hash = await hashPassword(password);
  return sql.begin(async (tx) => {
    const [row] = await tx`
      UPDATE dashboard_users SET password_hash = ${hash}, password_changed_at = now()
      WHERE lower(email) = lower(${email.trim()}) RETURNING *`;
    if (!row) throw new Error(`no dashboard user with the e-mail ${email}`);
    await tx`DELETE FROM dashboard_sessions WHERE user_id = ${row.id}`;
    return userJson(row);
  }) as Promise<DashboardUser>;
}

export async function findUserByEmail(sql: Sql, email: string) {
  const [row] = await retryable(sql<{ id: string; team_id: string; email: string; password_hash: string }[]>`
    SELECT id, team_id, email, password_hash FROM dashboard_users WHERE lower(email) = lower(${email.trim()})`);
  return row;
}
