import { isUniqueViolation } from '../../db/errors.js';
import type { Sql } from '../../db/client.js';
import { invalid, notFound } from '../../http/errors.js';
import { pageOf, readPage } from '../../http/pagination.js';
import type { Route } from '../../http/router.js';
import { parseWith } from '../../http/validate.js';
import { isUlid } from '../../lib/ids.js';
import { attributeDocs, createAttributeSchema, updateAttributeSchema } from './schema.js';
import { attributeJson, createAttribute, deleteAttribute, findAttribute, listAttributes, renameAttribute } from './store.js';

const taken = () => invalid('name', 'has already been taken');

export function attributeRoutes(sql: Sql): Route[] {
  const find = async (teamId: string, id: string) => {
    if (!isUlid(id)) throw notFound('Attribute');
    const row = await findAttribute(sql, teamId, id.toUpperCase());
    if (!row) throw notFound('Attribute');
    return row;
  };

  return [
    {
      method: 'GET',
      path: '/v1/attributes',
      openapi: attributeDocs.list,
      permission: 'read-attributes',
      handler: async (ctx) => {
        const page = readPage(ctx.query);
        const { data, next } = pageOf(await listAttributes(sql, ctx.teamId, page.cursor, page.limit + 1), page.limit);
        return { status: 200, body: { data: data.map(attributeJson), next } };
      },
    },
    {
      method: 'POST',
      path: '/v1/attributes',
      openapi: attributeDocs.create,
      permission: 'create-attributes',
      handler: async (ctx) => {
        const body = parseWith(createAttributeSchema, await ctx.json());
        try {
          const row = await createAttribute(sql, ctx.teamId, body);
          return { status: 201, body: { data: attributeJson(row) } };
        } catch (err) {
          if (isUniqueViolation(err)) throw taken();
          throw err;
        }
      },
    },
    {
      method: 'GET',
      path: '/v1/attributes/{id}',
      openapi: attributeDocs.get,
      permission: 'read-attributes',
      handler: async (ctx) => ({ status: 200, body: { data: attributeJson(await find(ctx.teamId, ctx.params.id)) } }),
    },
    {
      method: 'PUT',
      path: '/v1/attributes/{id}',
      openapi: attributeDocs.update,
      permission: 'update-attributes',
      handler: async (ctx) => {
        const current = await find(ctx.teamId, ctx.params.id);
        // The type may be sent back as it is (a client PUTting the resource it read), never changed.
        const { type, ...raw } = await ctx.json();
        if (type !== undefined && type !== current.type) throw invalid('type', 'cannot be changed after creation');
        const body = parseWith(updateAttributeSchema, raw);
        if (body.name === undefined || body.name === current.name) return { status: 200, body: { data: attributeJson(current) } };
        try {
          const row = await renameAttribute(sql, ctx.teamId, current.id, body.name);
          if (!row) throw notFound('Attribute');
          return { status: 200, body: { data: attributeJson(row) } };
        } catch (err) {
          if (isUniqueViolation(err)) throw taken();
          throw err;
        }
      },
    },
    {
      method: 'DELETE',
      path: '/v1/attributes/{id}',
      openapi: attributeDocs.delete,
      permission: 'delete-attributes',
      handler: async (ctx) => {
        if (!isUlid(ctx.params.id)) throw notFound('Attribute');
        if (!(await deleteAttribute(sql, ctx.teamId, ctx.params.id.toUpperCase()))) throw notFound('Attribute');
        return { status: 204 };
      },
    },
  ];
}
