import { isUniqueViolation } from '../db/errors.js';
import type { Sql } from '../db/client.js';
import { invalid, notFound } from '../http/errors.js';
import { pageOf, readPage } from '../http/pagination.js';
import type { Route } from '../http/router.js';
import { parseWith } from '../http/validate.js';
import { isUlid, newId } from '../ids.js';
import { attributeDocs, createAttributeSchema, updateAttributeSchema } from './schema.js';
import { attributeJson, type AttributeRow } from './store.js';

const taken = () => invalid('name', 'has already been taken');

export function attributeRoutes(sql: Sql): Route[] {
  const find = async (teamId: string, id: string) => {
    if (!isUlid(id)) throw notFound('Attribute');
    const [row] = await sql<AttributeRow[]>`SELECT * FROM attributes WHERE team_id = ${teamId} AND id = ${id.toUpperCase()}`;
    if (!row) throw notFound('Attribute');
    return row;
  };

  return [
    {
      method: 'GET', path: '/v1/attributes', openapi: attributeDocs.list, permission: 'read-attributes',
      handler: async (ctx) => {
        const page = readPage(ctx.query);
        const rows = await sql<AttributeRow[]>`
          SELECT * FROM attributes WHERE team_id = ${ctx.teamId} AND (${page.cursor}::text IS NULL OR id > ${page.cursor})
          ORDER BY id LIMIT ${page.limit + 1}`;
        const { data, next } = pageOf(rows, page.limit);
        return { status: 200, body: { data: data.map(attributeJson), next } };
      },
    },
    {
      method: 'POST', path: '/v1/attributes', openapi: attributeDocs.create, permission: 'create-attributes',
      handler: async (ctx) => {
        const body = parseWith(createAttributeSchema, await ctx.json());
        try {
          const [row] = await sql<AttributeRow[]>`
            INSERT INTO attributes (id, team_id, name, type) VALUES (${newId()}, ${ctx.teamId}, ${body.name}, ${body.type}) RETURNING *`;
          return { status: 201, body: { data: attributeJson(row) } };
        } catch (err) {
          if (isUniqueViolation(err)) throw taken();
          throw err;
        }
      },
    },
    {
      method: 'GET', path: '/v1/attributes/{id}', openapi: attributeDocs.get, permission: 'read-attributes',
      handler: async (ctx) => ({ status: 200, body: { data: attributeJson(await find(ctx.teamId, ctx.params.id)) } }),
    },
    {
      method: 'PUT', path: '/v1/attributes/{id}', openapi: attributeDocs.update, permission: 'update-attributes',
      handler: async (ctx) => {
        const current = await find(ctx.teamId, ctx.params.id);
        // The type may be sent back as it is (a client PUTting the resource it read), never changed.
        const { type, ...raw } = await ctx.json();
        if (type !== undefined && type !== current.type) throw invalid('type', 'cannot be changed after creation');
        const body = parseWith(updateAttributeSchema, raw);
        if (body.name === undefined || body.name === current.name) return { status: 200, body: { data: attributeJson(current) } };
        try {
          // Values are stored by attribute id, so a rename keeps them on every POI.
          const [row] = await sql<AttributeRow[]>`
            UPDATE attributes SET name = ${body.name}, updated_at = now() WHERE team_id = ${ctx.teamId} AND id = ${current.id} RETURNING *`;
          if (!row) throw notFound('Attribute');
          return { status: 200, body: { data: attributeJson(row) } };
        } catch (err) {
          if (isUniqueViolation(err)) throw taken();
          throw err;
        }
      },
    },
    {
      method: 'DELETE', path: '/v1/attributes/{id}', openapi: attributeDocs.delete, permission: 'delete-attributes',
      handler: async (ctx) => {
        if (!isUlid(ctx.params.id)) throw notFound('Attribute');
        const id = ctx.params.id.toUpperCase();
        // The POIs' values go first: the team's poi_versions row (bumped by both statements) must be the
        // last lock taken, as in every other writer of POIs, or this and a PUT of one of them deadlock.
        const deleted = await sql.begin(async (tx) => {
          const found = await tx`SELECT 1 FROM attributes WHERE team_id = ${ctx.teamId} AND id = ${id} FOR UPDATE`;
          if (!found.length) return 0;
          await tx`UPDATE pois SET attrs = attrs - ${id}::text, updated_at = now() WHERE team_id = ${ctx.teamId} AND attrs ? ${id}`;
          return (await tx`DELETE FROM attributes WHERE team_id = ${ctx.teamId} AND id = ${id}`).count;
        });
        if (!deleted) throw notFound('Attribute');
        return { status: 204 };
      },
    },
  ];
}
