import type { Sql } from '../../db/client.js';
import { notFound, type FieldErrors } from '../../http/errors.js';
import type { Route } from '../../http/router.js';
import { parseWith } from '../../http/validate.js';
import { parseMessagingId } from './ids.js';
import { listOf, readArchived, readListQuery, throwIfAny } from './listing.js';
import { createGroupSchema, groupDocs, updateGroupSchema } from './schema.js';
import { createGroup, deleteGroup, findGroup, groupJson, listGroups, updateGroup } from './store.js';

/** Groups answer bare objects (no `data` envelope), as the spec says for groups and conversations. */
export function groupRoutes(sql: Sql): Route[] {
  /** A malformed id cannot name a group: 404 like an unknown one. */
  const groupId = (raw: string): string => {
    const id = parseMessagingId('group', raw);
    if (!id) throw notFound('Group');
    return id;
  };

  return [
    {
      method: 'GET',
      path: '/v1/groups',
      openapi: groupDocs.list,
      permission: 'read-conversations',
      handler: async (ctx) => {
        const errors: FieldErrors = {};
        const page = readListQuery(ctx.query, 'group', errors);
        const archived = readArchived(ctx.query, errors);
        throwIfAny(errors);
        const rows = await listGroups(sql, ctx.teamId, { ...page, archived });
        const list = listOf(rows, page.limit);
        return { status: 200, body: { has_more: list.has_more, data: list.data.map(groupJson) } };
      },
    },
    {
      method: 'POST',
      path: '/v1/groups',
      openapi: groupDocs.create,
      permission: 'write-conversations',
      handler: async (ctx) => {
        const body = parseWith(createGroupSchema, await ctx.json());
        return { status: 201, body: groupJson(await createGroup(sql, ctx.teamId, body)) };
      },
    },
    {
      method: 'GET',
      path: '/v1/groups/{id}',
      openapi: groupDocs.get,
      permission: 'read-conversations',
      handler: async (ctx) => {
        const row = await findGroup(sql, ctx.teamId, groupId(ctx.params.id));
        if (!row) throw notFound('Group');
        return { status: 200, body: groupJson(row) };
      },
    },
    {
      method: 'PUT',
      path: '/v1/groups/{id}',
      openapi: groupDocs.update,
      permission: 'write-conversations',
      handler: async (ctx) => {
        const id = groupId(ctx.params.id);
        // 404 before 422: a client fixing its body for a group that is not there gains nothing.
        if (!(await findGroup(sql, ctx.teamId, id))) throw notFound('Group');
        const body = parseWith(updateGroupSchema, await ctx.json());
        const row = await updateGroup(sql, ctx.teamId, id, body);
        if (!row) throw notFound('Group');
        return { status: 200, body: groupJson(row) };
      },
    },
    {
      method: 'DELETE',
      path: '/v1/groups/{id}',
      openapi: groupDocs.delete,
      permission: 'write-conversations',
      handler: async (ctx) => {
        if (!(await deleteGroup(sql, ctx.teamId, groupId(ctx.params.id)))) throw notFound('Group');
        return { status: 204 };
      },
    },
  ];
}
