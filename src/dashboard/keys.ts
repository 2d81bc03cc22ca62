import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { createKey, keyJson } from '../auth/admin.js';
import { AUTH_CHANGED } from '../auth/authenticate.js';
import { PERMISSIONS, permissionId } from '../auth/permissions.js';
import type { Sql } from '../db/client.js';
import { notFound } from '../http/errors.js';
import { charLength, parseWith, typeError } from '../http/validate.js';
import { isUlid, timestamp } from '../ids.js';

/** Team-scoped key management for the dashboard. Creation goes through auth/admin's createKey (the same
 *  generator and digest as the CLI); every change is announced on AUTH_CHANGED, which clears the key
 *  cache of every API process at once (auth/authenticate.ts). */

const createSchema = z.strictObject({
  name: z.string({ error: typeError('must be a string') }).trim().min(1, 'is required')
    .refine((s) => charLength(s) <= 255, 'may not be longer than 255 characters'),
  permissions: z.array(z.enum([...PERMISSIONS, 'all'] as [string, ...string[]], { error: 'is not a permission' }), { error: typeError('must be a list of permissions') })
    .min(1, 'choose at least one permission'),
  expires_at: z.iso.datetime({ offset: true, error: 'must be a date and time (ISO 8601)' }).nullable().optional()
    .refine((v) => !v || Date.parse(v) > Date.now(), 'must be in the future'),
});

const keyRow = (r: Record<string, any>) => {
  const { team_id: _team, ...rest } = keyJson(r);
  return { ...rest, created_at: timestamp(r.created_at) };
};

/**
 * Announces a key change and waits (up to a second) until this process's own listener has heard it:
 * the KeyStore's cache-clearing callback runs on the same notification (same LISTEN connection) before
 * ours, so the dashboard's reply goes out only once this process has forgotten the old key state — the
 * next API request with the key sees the change. Other processes drop theirs as the NOTIFY reaches them.
 */
const heard = new WeakMap<Sql, { ready: Promise<unknown>; waiting: Map<string, () => void> }>();
async function changed(sql: Sql): Promise<void> {
  let channel = heard.get(sql);
  if (!channel) {
    const waiting = new Map<string, () => void>();
    const ready = sql.listen(AUTH_CHANGED, (payload) => {
      waiting.get(payload)?.();
      waiting.delete(payload);
    }).catch(() => undefined);
    heard.set(sql, (channel = { ready, waiting }));
  }
  const sub = await channel.ready;
  const nonce = `dashboard:${randomBytes(9).toString('base64url')}`;
  const arrived = sub ? new Promise<void>((resolve) => {
    channel.waiting.set(nonce, resolve);
    setTimeout(() => { channel.waiting.delete(nonce); resolve(); }, 1_000).unref();
  }) : Promise.resolve();
  await sql`SELECT pg_notify(${AUTH_CHANGED}, ${nonce})`;
  await arrived;
}

export async function listTeamKeys(sql: Sql, teamId: string) {
  const rows = await sql`SELECT * FROM api_keys WHERE team_id = ${teamId} ORDER BY created_at DESC, id DESC`;
  return rows.map(keyRow);
}

export async function createTeamKey(sql: Sql, teamId: string, body: unknown) {
  const input = parseWith(createSchema, body);
  const ids = input.permissions.includes('all') ? PERMISSIONS.map((_, i) => i + 1) : [...new Set(input.permissions.map(permissionId))].sort((a, b) => a - b);
  const { key, id } = await createKey(sql, { teamId, name: input.name, permissions: ids, expiresAt: input.expires_at ? new Date(input.expires_at) : null });
  const [row] = await sql`SELECT * FROM api_keys WHERE id = ${id} AND team_id = ${teamId}`;
  return { key, ...keyRow(row) };
}

export async function setTeamKeyActive(sql: Sql, teamId: string, id: string, active: boolean) {
  const [row] = isUlid(id) ? await sql`UPDATE api_keys SET is_active = ${active} WHERE id = ${id.toUpperCase()} AND team_id = ${teamId} RETURNING *` : [];
  if (!row) throw notFound('API key');
  await changed(sql);
  return keyRow(row);
}

export async function deleteTeamKey(sql: Sql, teamId: string, id: string): Promise<void> {
  const rows = isUlid(id) ? await sql`DELETE FROM api_keys WHERE id = ${id.toUpperCase()} AND team_id = ${teamId} RETURNING id` : [];
  if (!rows.length) throw notFound('API key');
  await changed(sql);
}
