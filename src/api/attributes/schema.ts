// Attributes: request bodies, the resource, the operations of the OpenAPI document.
import { z } from 'zod';
import { resourceDocs, timestamp, ulid } from '../../http/openapi.js';
import { typeError } from '../../http/validate.js';

const TYPES = ['string', 'number', 'boolean'] as const;

const name = z
  .string({ error: typeError('must be a string') })
  .min(1, 'is required')
  .max(255, 'may not be longer than 255 characters')
  .regex(/^[A-Za-z0-9_]+$/, 'may contain only letters, numbers and underscores')
  .refine((n) => n !== 'limit' && n !== 'cursor', 'is reserved')
  .describe('Letters, numbers and underscores; unique in the team; `limit` and `cursor` are reserved.');

export const createAttributeSchema = z
  .strictObject({
    name,
    type: z.enum(TYPES, { error: 'must be one of string, number, boolean' }).default('string'),
  })
  .meta({ id: 'AttributeCreate', examples: [{ name: 'opening_hours', type: 'string' }] });
export const updateAttributeSchema = z
  .strictObject({
    name: name.optional(),
    type: z.enum(TYPES).optional().describe('May be sent back as it is; it cannot change.'),
  })
  .meta({ id: 'AttributeUpdate' });

export const attributeSchema = z
  .object({ id: ulid, name: z.string(), type: z.enum(TYPES), created_at: timestamp, updated_at: timestamp })
  .meta({ id: 'Attribute' });
export const attributeDocs = resourceDocs({
  tag: 'Attributes',
  singular: 'attribute',
  plural: 'attributes',
  name: 'Attribute',
  item: attributeSchema,
  create: createAttributeSchema,
  update: updateAttributeSchema,
  notes: { update: 'Values on POIs are kept; the type cannot change.', delete: 'Its values on every POI go with it.' },
});
