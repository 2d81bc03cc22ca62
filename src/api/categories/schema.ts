// Categories: request bodies, the resource, the operations of the OpenAPI document.
import { z } from 'zod';
import { resourceDocs, timestamp, ulid } from '../../http/openapi.js';
import { charLength, typeError } from '../../http/validate.js';

const name = z
  .string({ error: typeError('must be a string') })
  .trim()
  .min(1, 'is required')
  .refine((s) => charLength(s) <= 255, 'may not be longer than 255 characters')
  .meta({ maxLength: 255, description: 'Up to 255 characters, unique in the team.' });
export const createCategorySchema = z.strictObject({ name }).meta({ id: 'CategoryCreate', examples: [{ name: 'Museums' }] });
export const updateCategorySchema = z.strictObject({ name: name.optional() }).meta({ id: 'CategoryUpdate' });

export const categorySchema = z.object({ id: ulid, name: z.string(), created_at: timestamp, updated_at: timestamp }).meta({ id: 'Category' });
export const categoryDocs = resourceDocs({
  tag: 'Categories',
  singular: 'category',
  plural: 'categories',
  name: 'Category',
  item: categorySchema,
  create: createCategorySchema,
  update: updateCategorySchema,
  query: { name: z.string().max(255).describe('Only categories whose name contains this text.') },
  notes: { update: 'Its POIs keep it.', delete: 'Its POIs are kept without a category.' },
});
