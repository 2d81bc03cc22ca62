// Attributes: request bodies, the resource, the operations of the OpenAPI document.
import { z } from 'zod';
import { dataSchema, pageQuery, pageSchema, timestamp, ulid, type Operation } from '../http/openapi.js';
import { typeError } from '../http/validate.js';

const TYPES = ['string', 'number', 'boolean'] as const;

const name = z
  .string({ error: typeError('must be a string') })
  .min(1, 'is required')
  .max(255, 'may not be longer than 255 characters')
  .regex(/^[A-Za-z0-9_]+$/, 'may contain only letters, numbers and underscores')
  .refine((n) => n !== 'limit' && n !== 'cursor', 'is reserved')
  .describe('Letters, numbers and underscores; unique in the team; `limit` and `cursor` are reserved.');

export const createAttributeSchema = z.strictObject({
  name,
  type: z.enum(TYPES, { error: 'must be one of string, number, boolean' }).default('string'),
}).meta({ id: 'AttributeCreate', examples: [{ name: 'opening_hours', type: 'string' }] });
export const updateAttributeSchema = z.strictObject({
  name: name.optional(),
  type: z.enum(TYPES).optional().describe('May be sent back as it is; it cannot change.'),
}).meta({ id: 'AttributeUpdate' });

export const attributeSchema = z.object({ id: ulid, name: z.string(), type: z.enum(TYPES), created_at: timestamp, updated_at: timestamp }).meta({ id: 'Attribute' });
const attributeData = dataSchema('AttributeData', attributeSchema);

const needs = (p: string) => `Needs the \`${p}\` permission.`;

export const attributeDocs = {
  list: {
    operationId: 'listAttributes', tag: 'Attributes', summary: 'List attributes', description: needs('read-attributes'),
    query: pageQuery(),
    responses: { 200: { description: 'A page of attributes sorted by id.', schema: pageSchema('AttributePage', attributeSchema) } },
    errors: [422],
  },
  create: {
    operationId: 'createAttribute', tag: 'Attributes', summary: 'Create an attribute', description: needs('create-attributes'),
    body: createAttributeSchema,
    responses: { 201: { description: 'The attribute.', schema: attributeData } },
    errors: [422],
  },
  get: {
    operationId: 'getAttribute', tag: 'Attributes', summary: 'Get an attribute', description: needs('read-attributes'),
    responses: { 200: { description: 'The attribute.', schema: attributeData } },
    errors: [404],
  },
  update: {
    operationId: 'updateAttribute', tag: 'Attributes', summary: 'Rename an attribute', description: `${needs('update-attributes')} Values on POIs are kept; the type cannot change.`,
    body: updateAttributeSchema,
    responses: { 200: { description: 'The attribute.', schema: attributeData } },
    errors: [404, 422],
  },
  delete: {
    operationId: 'deleteAttribute', tag: 'Attributes', summary: 'Delete an attribute', description: `${needs('delete-attributes')} Its values on every POI go with it.`,
    responses: { 204: { description: 'Deleted.' } },
    errors: [404],
  },
} satisfies Record<string, Operation>;
