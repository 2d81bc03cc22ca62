// Categories: request bodies, the resource, the operations of the OpenAPI document.
import { z } from 'zod';
import { dataSchema, pageQuery, pageSchema, timestamp, ulid, type Operation } from '../http/openapi.js';
import { charLength, typeError } from '../http/validate.js';

const name = z.string({ error: typeError('must be a string') }).trim().min(1, 'is required')
  .refine((s) => charLength(s) <= 255, 'may not be longer than 255 characters').meta({ maxLength: 255, description: 'Up to 255 characters, unique in the team.' });
export const createCategorySchema = z.strictObject({ name }).meta({ id: 'CategoryCreate', examples: [{ name: 'Museums' }] });
export const updateCategorySchema = z.strictObject({ name: name.optional() }).meta({ id: 'CategoryUpdate' });

export const categorySchema = z.object({ id: ulid, name: z.string(), created_at: timestamp, updated_at: timestamp }).meta({ id: 'Category' });
const categoryData = dataSchema('CategoryData', categorySchema);

const needs = (p: string) => `Needs the \`${p}\` permission.`;

export const categoryDocs = {
  list: {
    operationId: 'listCategories', tag: 'Categories', summary: 'List categories', description: needs('read-categories'),
    query: { ...pageQuery(), name: z.string().max(255).describe('Only categories whose name contains this text.') },
    responses: { 200: { description: 'A page of categories sorted by id.', schema: pageSchema('CategoryPage', categorySchema) } },
    errors: [422],
  },
  create: {
    operationId: 'createCategory', tag: 'Categories', summary: 'Create a category', description: needs('create-categories'),
    body: createCategorySchema,
    responses: { 201: { description: 'The category.', schema: categoryData } },
    errors: [422],
  },
  get: {
    operationId: 'getCategory', tag: 'Categories', summary: 'Get a category', description: needs('read-categories'),
    responses: { 200: { description: 'The category.', schema: categoryData } },
    errors: [404],
  },
  update: {
    operationId: 'updateCategory', tag: 'Categories', summary: 'Rename a category', description: `${needs('update-categories')} Its POIs keep it.`,
    body: updateCategorySchema,
    responses: { 200: { description: 'The category.', schema: categoryData } },
    errors: [404, 422],
  },
  delete: {
    operationId: 'deleteCategory', tag: 'Categories', summary: 'Delete a category', description: `${needs('delete-categories')} Its POIs are kept without a category.`,
    responses: { 204: { description: 'Deleted.' } },
    errors: [404],
  },
} satisfies Record<string, Operation>;
