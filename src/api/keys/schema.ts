// The API key resource's schemas: the key as GET /v1/info shows it, and the dashboard's bodies that
// create a key and switch one on or off.
import { z } from 'zod';
import { PERMISSIONS } from '../../auth/permissions.js';
import { dataSchema, timestamp, ulid, type Operation } from '../../http/openapi.js';
import { charLength, typeError } from '../../http/validate.js';

export const apiKeySchema = z
  .object({
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
      top_endpoint: z
        .object({ method: z.string(), endpoint: z.string(), count: z.int() })
        .nullable()
        .describe('The endpoint the key called most in the last 24 hours; null before its first counted request.'),
    }),
  })
  .meta({ id: 'ApiKey' });

export const infoDoc: Operation = {
  operationId: 'getInfo',
  tag: 'API key',
  summary: 'The calling API key',
  description: 'Its permissions and recent usage; needs no permission.',
  responses: { 200: { description: 'The key.', schema: dataSchema('ApiKeyData', apiKeySchema) } },
};

/** POST /dashboard/api/keys. */
export const createKeySchema = z.strictObject({
  name: z
    .string({ error: typeError('must be a string') })
    .trim()
    .min(1, 'is required')
    .refine((s) => charLength(s) <= 255, 'may not be longer than 255 characters'),
  permissions: z
    .array(z.enum([...PERMISSIONS, 'all'] as [string, ...string[]], { error: 'is not a permission' }), { error: typeError('must be a list of permissions') })
    .min(1, 'choose at least one permission'),
  expires_at: z.iso
    .datetime({ offset: true, error: 'must be a date and time (ISO 8601)' })
    .nullable()
    .optional()
    .refine((v) => !v || Date.parse(v) > Date.now(), 'must be in the future'),
});

/** PUT /dashboard/api/keys/{id}. */
export const keyActiveSchema = z.strictObject({ is_active: z.boolean({ error: 'must be true or false' }) });
