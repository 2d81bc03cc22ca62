import type { Sql } from '../../db/client.js';
import { invalid, notFound, unprocessable, type FieldErrors } from '../../http/errors.js';
import type { Route } from '../../http/router.js';
import { parseWith } from '../../http/validate.js';
import { parseMessagingId } from './ids.js';
import { listOf, readArchived, readBoolean, readListQuery, throwIfAny } from './listing.js';
import { conversationDocs, createConversationSchema, createMessageSchema, updateConversationSchema } from './schema.js';
import {
  conversationJson,
  createConversation,
  deleteConversation,
  findConversation,
  findGroup,
  listConversations,
  listMessages,
  messageExists,
  messageJson,
  openConversation,
  postMessage,
  updateConversation,
} from './store.js';

const UNKNOWN_GROUP = 'does not name a group of this team';

export function conversationRoutes(sql: Sql): Route[] {
  /** A malformed id cannot name a conversation: 404 like an unknown one. */
  const conversationId = (raw: string): string => {
    const id = parseMessagingId('conversation', raw);
    if (!id) throw notFound('Conversation');
    return id;
  };
  const existing = async (teamId: string, raw: string) => {
    const row = await findConversation(sql, teamId, conversationId(raw));
    if (!row) throw notFound('Conversation');
    return row;
  };

  return [
    {
      method: 'GET',
      path: '/v1/conversations',
      openapi: conversationDocs.list,
      permission: 'read-conversations',
      handler: async (ctx) => {
        const errors: FieldErrors = {};
        const page = readListQuery(ctx.query, 'conversation', errors);
        const archived = readArchived(ctx.query, errors);
        const muted = readBoolean(ctx.query, 'muted', errors);
        const pinned = readBoolean(ctx.query, 'pinned', errors);
        const rawGroup = ctx.query.get('group_id');
        const groupId = rawGroup === undefined ? undefined : (parseMessagingId('group', rawGroup) ?? undefined);
        // Filtering by a group the team does not have is a mistake worth telling, as on POST.
        if (rawGroup !== undefined && (!groupId || !(await findGroup(sql, ctx.teamId, groupId)))) errors.group_id = [UNKNOWN_GROUP];
        throwIfAny(errors);
        const rows = await listConversations(sql, ctx.teamId, { ...page, archived, muted, pinned, groupId });
        const list = listOf(rows, page.limit);
        return { status: 200, body: { has_more: list.has_more, data: list.data.map(conversationJson) } };
      },
    },
    {
      method: 'POST',
      path: '/v1/conversations',
      openapi: conversationDocs.create,
      permission: 'write-conversations',
      handler: async (ctx) => {
        const body = parseWith(createConversationSchema, await ctx.json());
        if ((body.contact_id === undefined) === (body.group_id === undefined)) {
          const message = body.contact_id === undefined ? 'one of contact_id or group_id is required' : 'send contact_id or group_id, not both';
          throw unprocessable({ contact_id: [message], group_id: [message] }, message);
        }
        let target: { contactId: string } | { groupId: string };
        if (body.contact_id !== undefined) target = { contactId: body.contact_id };
        else {
          const groupId = parseMessagingId('group', body.group_id!);
          if (!groupId) throw invalid('group_id', UNKNOWN_GROUP);
          target = { groupId };
        }
        const result = await createConversation(sql, ctx.teamId, target);
        if (!result.ok) {
          // A group keeps a single conversation (its conversation_id); a new one can be made only
          // after that one was deleted.
          throw invalid('group_id', result.reason === 'unknown-group' ? UNKNOWN_GROUP : 'already has a conversation');
        }
        return { status: 201, body: conversationJson(result.row) };
      },
    },
    {
      method: 'GET',
      path: '/v1/conversations/{id}',
      openapi: conversationDocs.get,
      permission: 'read-conversations',
      handler: async (ctx) => {
        const row = await openConversation(sql, ctx.teamId, conversationId(ctx.params.id));
        if (!row) throw notFound('Conversation');
        return { status: 200, body: conversationJson(row) };
      },
    },
    {
      method: 'PUT',
      path: '/v1/conversations/{id}',
      openapi: conversationDocs.update,
      permission: 'write-conversations',
      handler: async (ctx) => {
        const current = await existing(ctx.teamId, ctx.params.id);
        const body = parseWith(updateConversationSchema, await ctx.json());
        let pinned = body.pinned_message_id;
        if (typeof pinned === 'string') {
          // Messages are only ever deleted with their conversation, so the check cannot go stale.
          const messageId = parseMessagingId('message', pinned);
          if (!messageId || !(await messageExists(sql, ctx.teamId, current.id, messageId))) {
            throw invalid('pinned_message_id', 'does not name a message of this conversation');
          }
          pinned = messageId;
        }
        const row = await updateConversation(sql, ctx.teamId, current.id, { ...body, pinned_message_id: pinned });
        if (!row) throw notFound('Conversation');
        return { status: 200, body: conversationJson(row) };
      },
    },
    {
      method: 'DELETE',
      path: '/v1/conversations/{id}',
      openapi: conversationDocs.delete,
      permission: 'write-conversations',
      handler: async (ctx) => {
        if (!(await deleteConversation(sql, ctx.teamId, conversationId(ctx.params.id)))) throw notFound('Conversation');
        return { status: 204 };
      },
    },
    {
      method: 'GET',
      path: '/v1/conversations/{id}/messages',
      openapi: conversationDocs.messages,
      permission: 'read-conversations',
      handler: async (ctx) => {
        const conversation = await existing(ctx.teamId, ctx.params.id);
        const errors: FieldErrors = {};
        const page = readListQuery(ctx.query, 'message', errors);
        throwIfAny(errors);
        const list = listOf(await listMessages(sql, ctx.teamId, conversation.id, page), page.limit);
        return { status: 200, body: { has_more: list.has_more, data: list.data.map(messageJson) } };
      },
    },
    {
      method: 'POST',
      path: '/v1/conversations/{id}/messages',
      openapi: conversationDocs.post,
      permission: 'write-conversations',
      handler: async (ctx) => {
        const id = conversationId(ctx.params.id);
        const body = parseWith(createMessageSchema, await ctx.json());
        const row = await postMessage(sql, ctx.teamId, id, body.text);
        if (!row) throw notFound('Conversation');
        return { status: 201, body: messageJson(row) };
      },
    },
  ];
}
