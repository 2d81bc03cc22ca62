import { type Sql, retryable } from '../db/client.js';
import { newId, timestamp } from '../lib/ids.js';
import { announceAuthChange } from './authenticate.js';
import { generateKey, keyDigest } from './keys.js';
import { permissionObjects } from './permissions.js';
import type { PlanName } from './plans.js';

/** Team and key management for the CLI (and the dashboard): not reachable through the public API. */

export interface TeamInput {
  name: string;
  plan: PlanName;
  planActive?: boolean;
  poiLimit?: number | null;
  rateLimit?: number | null;
}

export async function createTeam(sql: Sql, input: TeamInput) {
  const [row] = await sql`
    INSERT INTO teams (id, name, plan, plan_active, poi_limit, rate_limit)
    VALUES (${newId()}, ${input.name}, ${input.plan}, ${input.planActive ?? true}, ${input.poiLimit ?? null}, ${input.rateLimit ?? null})
    RETURNING *`;
  return teamJson(row);
}

/** Changes only the fields given (a null limit clears the override), in one statement, so concurrent
 *  updates of different fields keep each other's changes. */
export async function updateTeam(sql: Sql, id: string, input: Partial<TeamInput>) {
  const [row] = await sql`
    UPDATE teams SET
      name = coalesce(${input.name ?? null}::text, name),
      plan = coalesce(${input.plan ?? null}::text, plan),
      plan_active = coalesce(${input.planActive ?? null}::boolean, plan_active),
      poi_limit = CASE WHEN ${input.poiLimit !== undefined} THEN ${input.poiLimit ?? null}::int ELSE poi_limit END,
      rate_limit = CASE WHEN ${input.rateLimit !== undefined} THEN ${input.rateLimit ?? null}::int ELSE rate_limit END
    WHERE id = ${id} RETURNING *`;
  if (!row) throw new Error(`team ${id} not found`);
  await announceAuthChange(sql);
  return teamJson(row);
}

export async function getTeam(sql: Sql, id: string) {
  const [row] = await retryable(sql`SELECT * FROM teams WHERE id = ${id}`);
  return row ? teamJson(row) : null;
}

export async function createKey(sql: Sql, input: { teamId: string; name: string; permissions: number[]; expiresAt?: Date | null }) {
  const key = generateKey();
  const [row] = await sql`
    INSERT INTO api_keys (id, team_id, name, digest, last_four, permissions, expires_at)
    VALUES (${newId()}, ${input.teamId}, ${input.name}, ${keyDigest(key)}, ${key.slice(-4)}, ${input.permissions}::smallint[], ${input.expiresAt ?? null})
    RETURNING *`;
  await announceAuthChange(sql);
  return { key, ...keyJson(row) };
}

export async function listKeys(sql: Sql, teamId: string) {
  const rows = await retryable(sql`SELECT * FROM api_keys WHERE team_id = ${teamId} ORDER BY id`);
  return rows.map(keyJson);
}

export async function setKeyActive(sql: Sql, id: string, active: boolean) {
  const [row] = await sql`UPDATE api_keys SET is_active = ${active} WHERE id = ${id} RETURNING *`;
  if (!row) throw new Error(`key ${id} not found`);
  await announceAuthChange(sql);
  return keyJson(row);
}

export async function deleteKey(sql: Sql, id: string): Promise<void> {
  const rows = await sql`DELETE FROM api_keys WHERE id = ${id} RETURNING id`;
  if (!rows.length) throw new Error(`key ${id} not found`);
  await announceAuthChange(sql);
}

const teamJson = (r: Record<string, any>) => ({
  id: r.id as string,
  name: r.name as string,
  plan: r.plan as PlanName,
  plan_active: r.plan_active as boolean,
  poi_limit: r.poi_limit as number | null,
  rate_limit: r.rate_limit as number | null,
  created_at: timestamp(r.created_at),
});

export const keyJson = (r: Record<string, any>) => ({
  id: r.id as string,
  team_id: r.team_id as string,
  name: r.name as string,
  last_four: r.last_four as string,
  last_used_at: timestamp(r.last_used_at),
  expires_at: timestamp(r.expires_at),
  is_active: r.is_active as boolean,
  permissions: permissionObjects(r.permissions.map(Number)),
});
