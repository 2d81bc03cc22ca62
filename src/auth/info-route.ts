import type { Sql } from '../db/client.js';
import { unauthenticated } from '../http/errors.js';
import type { Route } from '../http/router.js';
import { keyJson } from './admin.js';
import type { UsageRecorder } from './usage.js';

/** GET /v1/info: the calling key, with its usage over the last hour and day. */
export function infoRoutes(sql: Sql, usage: UsageRecorder): Route[] {
  return [
    {
      method: 'GET', path: '/v1/info',
      handler: async (ctx) => {
        await usage.flush();
        const keyId = ctx.auth!.keyId;
        const [[key], [totals], [top]] = await Promise.all([
          sql`SELECT * FROM api_keys WHERE id = ${keyId}`,
          sql<{ hour: number; day: number }[]>`
            SELECT coalesce(sum(count) FILTER (WHERE minute > now() - interval '60 minutes'), 0)::int AS hour,
                   coalesce(sum(count), 0)::int AS day
            FROM key_usage WHERE key_id = ${keyId} AND minute > now() - interval '24 hours'`,
          sql<{ method: string; endpoint: string; count: number }[]>`
            SELECT method, endpoint, sum(count)::int AS count FROM key_usage
            WHERE key_id = ${keyId} AND minute > now() - interval '24 hours'
            GROUP BY method, endpoint ORDER BY count DESC, endpoint, method LIMIT 1`,
        ]);
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
