import type { Sql } from '../../db/client.js';
import { isUniqueViolation } from '../../db/errors.js';
import { invalid, notFound } from '../../http/errors.js';
import { pageOf, readPage } from '../../http/pagination.js';
import type { Route } from '../../http/router.js';
import { charLength, parseWith } from '../../http/validate.js';
import { isUlid } from '../../lib/ids.js';
import { categoryDocs, createCategorySchema, updateCategorySchema } from './schema.js';
import { categoryJson, createCategory, deleteCategory, findCategory, listCategories, renameCategory } from './store.js';

const taken = () => invalid('name', 'has already been taken');

export function categoryRoutes(sql: Sql): Route[] {
  const find = async (teamId: string, id: string) => {
    if (!isUlid(id)) throw notFound('Category');
    const row = await findCategory(sql, teamId, id.toUpperCase());
    if (!row) throw notFound('Category');
    return row;
  };

  return [
    {
      method: 'GET',
      path: '/v1/categories',
      openapi: categoryDocs.list,
      permission: 'read-categories',
      handler: async (ctx) => {
        const filter = ctx.query.get('name');
        const badFilter = filter !== undefined && (charLength(filter) > 255 || filter.includes('\u0000'));
        const page = readPage(ctx.query, 'ulid', badFilter ? { name: ['must be at most 255 characters, without NUL'] } : {});
        const rows = await listCategories(sql, ctx.teamId, { cursor: page.cursor, limit: page.limit + 1, nameContains: filter });
        const { data, next } = pageOf(rows, page.limit);
        return { status: 200, body: { data: data.map(categoryJson), next } };
      },
    },
    {
      method: 'POST',
      path: '/v1/categories',
      openapi: categoryDocs.create,
      permission: 'create-categories',
      handler: async (ctx) => {
        const body = parseWith(createCategorySchema, await ctx.json());
        try {
          const row = await createCategory(sql, ctx.teamId, body.name);
          return { status: 201, body: { data: categoryJson(row) } };
        } catch (err) {
          if (isUniqueViolation(err)) throw taken();
          throw err;
        }
      },
    },
    {
      method: 'GET',
      path: '/v1/categories/{id}',
      openapi: categoryDocs.get,
      permission: 'read-categories',
      handler: async (ctx) => ({ status: 200, body: { data: categoryJson(await find(ctx.teamId, ctx.params.id)) } }),
    },
    {
      method: 'PUT',
      path: '/v1/categories/{id}',
      openapi: categoryDocs.update,
      permission: 'update-categories',
      handler: async (ctx) => {
        const current = await find(ctx.teamId, ctx.params.id);
        const body = parseWith(updateCategorySchema, await ctx.json());
        if (body.name === undefined || body.name === current.name) return { status: 200, body: { data: categoryJson(current) } };
        try {
          const row = await renameCategory(sql, ctx.teamId, current.id, body.name);
          if (!row) throw notFound('Category');
          return { status: 200, body: { data: categoryJson(row) } };
        } catch (err) {
          if (isUniqueViolation(err)) throw taken();
          throw err;
        }
      },
    },
    {
      method: 'DELETE',
      path: '/v1/categories/{id}',
      openapi: categoryDocs.delete,
      permission: 'delete-categories',
      handler: async (ctx) => {
        if (!isUlid(ctx.params.id)) throw notFound('Category');
        // POIs keep existing: the foreign key sets their category to null.
        if (!(await deleteCategory(sql, ctx.teamId, ctx.params.id.toUpperCase()))) throw notFound('Category');
        return { status: 204 };
      },
    },
  ];
}
