import type { Sql } from '../db/client.js';
import { unauthenticated } from '../http/errors.js';
import { z } from 'zod';
import { dataSchema, timestamp, ulid, type Operation } from '../http/openapi.js';
import type { Route } from '../http/router.js';
import { PERMISSIONS } from './permissions.js';
import { keyJson } from './admin.js';
import type { UsageRecorder } from './usage.js';

export const apiKeySchema = z.object({
  id: ulid,
  name: z.string(),
  last_four: z.string().describe('The last four characters of the key.'),
  last_used_at: timestamp.nullable(),
  expires_at: timestamp.nullable().describe('null: never expires.'),
  is_active: z.boolean(),
  permissions: z.array(z.object({ id: z.int(), name: z.enum(PERMISSIONS) })),
  usage: z.object({
    requests_last_hour: z.int(),
    requests_last_24h: z.int(),
    top_endpoint: z.object({ method: z.string(), endpoint: z.string(), count: z.int() }).nullable()
      .describe('The endpoint the key called most in the last 24 hours; null before its first counted request.'),
  }),
}).meta({ id: 'ApiKey' });

const infoDoc: Operation = {
  operationId: 'getInfo', tag: 'API key', summary: 'The calling API key', description: 'Its permissions and recent usage; needs no permission.',
  responses: { 200: { description: 'The key.', schema: dataSchema('ApiKeyData', apiKeySchema) } },
};

/** GET /v1/info: the calling key, with its usage over the last hour and day. */
export function infoRoutes(sql: Sql, usage: UsageRecorder): Route[] {
  return [
    {
      method: 'GET', path: '/v1/info', openapi: infoDoc,
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
