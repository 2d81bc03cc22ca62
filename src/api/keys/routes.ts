// The API key resource: GET /v1/info (the calling key, with its usage), and a team's keys as the
// dashboard manages them at /dashboard/api/keys behind its session. Every change is announced on
// AUTH_CHANGED, which clears the key cache of every API process at once (auth/authenticate.ts).
import { createKey, keyJson } from '../../auth/admin.js';
import { announceAuthChange } from '../../auth/authenticate.js';
import { PERMISSIONS, permissionId } from '../../auth/permissions.js';
import type { UsageRecorder } from '../../auth/usage.js';
import type { Sql } from '../../db/client.js';
import type { RequestContext } from '../../http/context.js';
import { notFound, unauthenticated } from '../../http/errors.js';
import type { Reply, Route } from '../../http/router.js';
import { parseWith } from '../../http/validate.js';
import { isUlid } from '../../lib/ids.js';
import { createKeySchema, infoDoc, keyActiveSchema } from './schema.js';
import { deleteTeamKey, findTeamKey, keyWithUsage, listTeamKeys, setTeamKeyActive, teamKeyJson } from './store.js';

/** GET /v1/info: the calling key, with its usage over the last hour and day. */
export function infoRoutes(sql: Sql, usage: UsageRecorder): Route[] {
  return [
    {
      method: 'GET',
      path: '/v1/info',
      openapi: infoDoc,
      handler: async (ctx) => {
        await usage.flush();
        const { key, totals, top } = await keyWithUsage(sql, ctx.auth!.keyId);
        // Deleted since it authenticated this request: it is no longer a key.
        if (!key) throw unauthenticated();
        const { team_id: _team, ...data } = keyJson(key);
        return {
          status: 200,
          body: {
            data: {
              ...data,
              usage: {
                requests_last_hour: totals.hour,
                requests_last_24h: totals.day,
                top_endpoint: top ? { method: top.method, endpoint: top.endpoint, count: top.count } : null,
              },
            },
          },
        };
      },
    },
  ];
}

/** What the dashboard puts in front of a handler: its session (whose team the keys are), CSRF check and headers. */
export type SessionGate = (handler: (ctx: RequestContext, session: { teamId: string }) => Promise<Reply>) => Route['handler'];

const json = (status: number, body: unknown): Reply => ({ status, body, headers: { 'Cache-Control': 'no-store' } });

/** The dashboard's key management: a team's keys, listed, created, switched on or off, deleted. */
export function teamKeyRoutes(sql: Sql, authed: SessionGate): Route[] {
  return [
    {
      method: 'GET',
      path: '/dashboard/api/keys',
      public: true,
      body: 'none',
      handler: authed(async (_ctx, s) => json(200, { data: (await listTeamKeys(sql, s.teamId)).map(teamKeyJson) })),
    },
    {
      method: 'POST',
      path: '/dashboard/api/keys',
      public: true,
      handler: authed(async (ctx, s) => {
        const input = parseWith(createKeySchema, await ctx.json());
        const ids = input.permissions.includes('all')
          ? PERMISSIONS.map((_, i) => i + 1)
          : [...new Set(input.permissions.map(permissionId))].sort((a, b) => a - b);
        const { key, id } = await createKey(sql, {
          teamId: s.teamId,
          name: input.name,
          permissions: ids,
          expiresAt: input.expires_at ? new Date(input.expires_at) : null,
        });
        return json(201, { data: { key, ...teamKeyJson(await findTeamKey(sql, s.teamId, id)) } });
      }),
    },
    {
      method: 'PUT',
      path: '/dashboard/api/keys/{id}',
      public: true,
      handler: authed(async (ctx, s) => {
        const body = parseWith(keyActiveSchema, await ctx.json());
        const id = ctx.params.id;
        const row = isUlid(id) ? await setTeamKeyActive(sql, s.teamId, id.toUpperCase(), body.is_active) : undefined;
        if (!row) throw notFound('API key');
        await announceAuthChange(sql);
        return json(200, { data: teamKeyJson(row) });
      }),
    },
    {
      method: 'DELETE',
      path: '/dashboard/api/keys/{id}',
      public: true,
      body: 'none',
      handler: authed(async (ctx, s) => {
        const id = ctx.params.id;
        if (!(isUlid(id) && (await deleteTeamKey(sql, s.teamId, id.toUpperCase())))) throw notFound('API key');
        await announceAuthChange(sql);
        return { status: 204, headers: { 'Cache-Control': 'no-store' } };
      }),
    },
  ];
}
