// The API key resource's SQL: a team's keys as the dashboard manages them, the calling key with its
// usage (GET /v1/info). Creating a key
// is auth/admin.ts's createKey, shared with the CLI (one generator, one digest).
import { keyJson } from '../../auth/admin.js';
import { type Sql, retryable } from '../../db/client.js';
import { timestamp } from '../../lib/ids.js';

/** A key as the dashboard shows it: no team, with its creation time. */
export const teamKeyJson = (r: Record<string, any>) => {
  const { team_id: _team, ...rest } = keyJson(r);
  return { ...rest, created_at: timestamp(r.created_at) };
};

/** The team's keys, newest first. */
export async function listTeamKeys(sql: Sql, teamId: string) {
  return retryable(sql`SELECT * FROM api_keys WHERE team_id = ${teamId} ORDER BY created_at DESC, id DESC`);
}

export async function findTeamKey(sql: Sql, teamId: string, id: string) {
  const [row] = await retryable(sql`SELECT * FROM api_keys WHERE id = ${id} AND team_id = ${teamId}`);
  return row;
}

/** `id` is a ULID in upper case; undefined when the team has no such key. */
export async function setTeamKeyActive(sql: Sql, teamId: string, id: string, active: boolean) {
  const [row] = await sql`UPDATE api_keys SET is_active = ${active} WHERE id = ${id} AND team_id = ${teamId} RETURNING *`;
  return row;
}

/** `id` is a ULID in upper case; false when the team has no such key. */
export async function deleteTeamKey(sql: Sql, teamId: string, id: string): Promise<boolean> {
  const rows = await sql`DELETE FROM api_keys WHERE id = ${id} AND team_id = ${teamId} RETURNING id`;
  return rows.length > 0;
}

/** A key (undefined when it is gone) with its counted requests over the last hour and day and its most called endpoint. */
export async function keyWithUsage(sql: Sql, keyId: string) {
  const [[key], [totals], [top]] = await Promise.all([
    retryable(sql`SELECT * FROM api_keys WHERE id = ${keyId}`),
    retryable(sql<{ hour: number; day: number }[]>`
      SELECT coalesce(sum(count) FILTER (WHERE minute > now() - interval '60 minutes'), 0)::int AS hour,
             coalesce(sum(count), 0)::int AS day
      FROM key_usage WHERE key_id = ${keyId} AND minute > now() - interval '24 hours'`),
    retryable(sql<{ method: string; endpoint: string; count: number }[]>`
      SELECT method, endpoint, sum(count)::int AS count FROM key_usage
      WHERE key_id = ${keyId} AND minute > now() - interval '24 hours'
      GROUP BY method, endpoint ORDER BY count DESC, endpoint, method LIMIT 1`),
  ]);
  return { key, totals, top: top as { method: string; endpoint: string; count: number } | undefined };
}
