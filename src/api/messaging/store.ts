import { type Sql, retryable } from '../../db/client.js';
import { newMessagingId } from './ids.js';
import type { ListQuery } from './listing.js';
import type { ContactInput } from './schema.js';

/** bigint columns arrive as JS BigInt; epoch seconds are well inside the safe integer range. */
const seconds = (value: bigint | number | null): number | null => (value === null ? null : Number(value));

export interface Contact {
  username: string;
  display_name: string | null;
  avatar_url: string | null;
}

export interface GroupRow {
  id: string;
  name: string;
  description: string | null;
  avatar_url: string | null;
  contacts: Contact[];
  conversation_id: string | null;
  created_at: bigint;
  archived_at: bigint | null;
}

export interface ConversationRow {
  id: string;
  contact_id: string | null;
  group_id: string | null;
  pinned_message_id: string | null;
  is_pinned: boolean;
  is_muted: boolean;
  last_active_at: bigint | null;
  last_opened_at: bigint | null;
  created_at: bigint;
  archived_at: bigint | null;
}

export interface MessageRow {
  id: string;
  conversation_id: string;
  text: string;
  created_at: bigint;
}

export const groupJson = (r: GroupRow) => ({
  id: r.id,
  name: r.name,
  description: r.description,
  avatar_url: r.avatar_url,
  // null only after the group's conversation was deleted on its own and not yet recreated.
  conversation_id: r.conversation_id,
  contacts: r.contacts,
  created_at: seconds(r.created_at),
  archived_at: seconds(r.archived_at),
});

export const conversationJson = (r: ConversationRow) => ({
  id: r.id,
  contact_id: r.contact_id,
  group_id: r.group_id,
  pinned_message_id: r.pinned_message_id,
  is_pinned: r.is_pinned,
  is_muted: r.is_muted,
  last_active_at: seconds(r.last_active_at),
  last_opened_at: seconds(r.last_opened_at),
  created_at: seconds(r.created_at),
  archived_at: seconds(r.archived_at),
});

export const messageJson = (r: MessageRow) => ({
  id: r.id,
  conversation_id: r.conversation_id,
  text: r.text,
  created_at: seconds(r.created_at),
});

/** Absent optional contact fields are stored as null so every member has the same shape. */
export const normalizeContacts = (list: ContactInput[]): Contact[] =>
  list.map((c) => ({ username: c.username, display_name: c.display_name ?? null, avatar_url: c.avatar_url ?? null }));

// ---- groups ----------------------------------------------------------------------------------

export interface GroupInput {
  name: string;
  description?: string | null;
  avatar_url?: string | null;
  contacts?: ContactInput[];
}

export interface GroupPatch extends Partial<GroupInput> {
  archived_at?: number | null;
}

const groupSelect = (sql: Sql) =>
  retryable(sql`
  SELECT g.id, g.name, g.description, g.avatar_url, g.contacts, g.created_at, g.archived_at, c.id AS conversation_id
  FROM groups g LEFT JOIN conversations c ON c.team_id = g.team_id AND c.group_id = g.id`);

export async function listGroups(sql: Sql, teamId: string, q: ListQuery & { archived: boolean }): Promise<GroupRow[]> {
  return sql<GroupRow[]>`
    ${groupSelect(sql)}
    WHERE g.team_id = ${teamId}
      AND (g.archived_at IS NOT NULL) = ${q.archived}
      AND (${q.startingAfter}::text IS NULL OR g.id < ${q.startingAfter})
    ORDER BY g.id DESC LIMIT ${q.limit + 1}`;
}

export async function findGroup(sql: Sql, teamId: string, id: string): Promise<GroupRow | undefined> {
  const [row] = await sql<GroupRow[]>`${groupSelect(sql)} WHERE g.team_id = ${teamId} AND g.id = ${id}`;
  return row;
}

/** The group and its conversation, together or not at all. */
export async function createGroup(sql: Sql, teamId: string, input: GroupInput): Promise<GroupRow> {
  const id = newMessagingId('group');
  await sql.begin(async (tx) => {
    await tx`
      INSERT INTO groups (id, team_id, name, description, avatar_url, contacts)
      VALUES (${id}, ${teamId}, ${input.name}, ${input.description ?? null}, ${input.avatar_url ?? null},
              ${tx.json(normalizeContacts(input.contacts ?? []) as never)})`;
    await tx`INSERT INTO conversations (id, team_id, group_id) VALUES (${newMessagingId('conversation')}, ${teamId}, ${id})`;
  });
  return (await findGroup(sql, teamId, id))!;
}

/** Sets only the fields present in `patch` (null clears), so concurrent updates of different fields
 *  do not undo each other. */
export async function updateGroup(sql: Sql, teamId: string, id: string, patch: GroupPatch): Promise<GroupRow | undefined> {
  const has = (field: keyof GroupPatch) => patch[field] !== undefined;
  const rows = await sql`
    UPDATE groups SET
      name = CASE WHEN ${has('name')} THEN ${patch.name ?? null}::text ELSE name END,
      description = CASE WHEN ${has('description')} THEN ${patch.description ?? null}::text ELSE description END,
      avatar_url = CASE WHEN ${has('avatar_url')} THEN ${patch.avatar_url ?? null}::text ELSE avatar_url END,
      contacts = CASE WHEN ${has('contacts')} THEN ${sql.json(normalizeContacts(patch.contacts ?? []) as never)}::jsonb ELSE contacts END,
      archived_at = CASE WHEN ${has('archived_at')} THEN ${patch.archived_at ?? null}::bigint ELSE archived_at END
    WHERE team_id = ${teamId} AND id = ${id} RETURNING id`;
  return rows.length ? findGroup(sql, teamId, id) : undefined;
}

/** The foreign keys cascade: the group's conversation and that conversation's messages go too. */
export async function deleteGroup(sql: Sql, teamId: string, id: string): Promise<boolean> {
  const rows = await sql`DELETE FROM groups WHERE team_id = ${teamId} AND id = ${id} RETURNING id`;
  return rows.length > 0;
}

// ---- conversations ---------------------------------------------------------------------------

export interface ConversationFilter extends ListQuery {
  archived: boolean;
  muted?: boolean;
  pinned?: boolean;
  groupId?: string;
}

export async function listConversations(sql: Sql, teamId: string, f: ConversationFilter): Promise<ConversationRow[]> {
  return retryable(sql<ConversationRow[]>`
    SELECT * FROM conversations
    WHERE team_id = ${teamId}
      AND (archived_at IS NOT NULL) = ${f.archived}
      AND (${f.muted ?? null}::boolean IS NULL OR is_muted = ${f.muted ?? null})
      AND (${f.pinned ?? null}::boolean IS NULL OR is_pinned = ${f.pinned ?? null})
      AND (${f.groupId ?? null}::text IS NULL OR group_id = ${f.groupId ?? null})
      AND (${f.startingAfter}::text IS NULL OR id < ${f.startingAfter})
    ORDER BY id DESC LIMIT ${f.limit + 1}`);
}

export async function findConversation(sql: Sql, teamId: string, id: string): Promise<ConversationRow | undefined> {
  const [row] = await retryable(sql<ConversationRow[]>`SELECT * FROM conversations WHERE team_id = ${teamId} AND id = ${id}`);
  return row;
}

/** Retrieval by id is what "opening" a conversation means, so it stamps `last_opened_at`. */
export async function openConversation(sql: Sql, teamId: string, id: string): Promise<ConversationRow | undefined> {
  const [row] = await sql<ConversationRow[]>`
    UPDATE conversations SET last_opened_at = floor(extract(epoch FROM now())) WHERE team_id = ${teamId} AND id = ${id} RETURNING *`;
  return row;
}

export type CreateConversationResult = { ok: true; row: ConversationRow } | { ok: false; reason: 'unknown-group' | 'group-has-conversation' };

/** The foreign key and the one-conversation-per-group index decide, so concurrent requests cannot
 *  give a group two conversations. */
export async function createConversation(sql: Sql, teamId: string, target: { contactId: string } | { groupId: string }): Promise<CreateConversationResult> {
  const contactId = 'contactId' in target ? target.contactId : null;
  const groupId = 'groupId' in target ? target.groupId : null;
  try {
    // The one-conversation index spans every team and is checked before the team-scoped foreign key, so
    // another team's group must be ruled out first: it is unknown here, not "taken".
    const [row] = await sql<ConversationRow[]>`
      INSERT INTO conversations (id, team_id, contact_id, group_id)
      SELECT ${newMessagingId('conversation')}, ${teamId}, ${contactId}, ${groupId}
      WHERE ${groupId}::text IS NULL OR EXISTS (SELECT 1 FROM groups WHERE team_id = ${teamId} AND id = ${groupId})
      RETURNING *`;
    if (!row) return { ok: false, reason: 'unknown-group' };
    return { ok: true, row };
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === '23503') return { ok: false, reason: 'unknown-group' };
    if (code === '23505') return { ok: false, reason: 'group-has-conversation' };
    throw err;
  }
}

export interface ConversationPatch {
  pinned_message_id?: string | null;
  is_pinned?: boolean;
  is_muted?: boolean;
  archived_at?: number | null;
}

export async function updateConversation(sql: Sql, teamId: string, id: string, patch: ConversationPatch): Promise<ConversationRow | undefined> {
  const has = (field: keyof ConversationPatch) => patch[field] !== undefined;
  const [row] = await sql<ConversationRow[]>`
    UPDATE conversations SET
      pinned_message_id = CASE WHEN ${has('pinned_message_id')} THEN ${patch.pinned_message_id ?? null}::text ELSE pinned_message_id END,
      is_pinned = CASE WHEN ${has('is_pinned')} THEN ${patch.is_pinned ?? null}::boolean ELSE is_pinned END,
      is_muted = CASE WHEN ${has('is_muted')} THEN ${patch.is_muted ?? null}::boolean ELSE is_muted END,
      archived_at = CASE WHEN ${has('archived_at')} THEN ${patch.archived_at ?? null}::bigint ELSE archived_at END
    WHERE team_id = ${teamId} AND id = ${id} RETURNING *`;
  return row;
}

/** Messages go with it (foreign key cascade). */
export async function deleteConversation(sql: Sql, teamId: string, id: string): Promise<boolean> {
  const rows = await sql`DELETE FROM conversations WHERE team_id = ${teamId} AND id = ${id} RETURNING id`;
  return rows.length > 0;
}

// ---- messages --------------------------------------------------------------------------------

export async function messageExists(sql: Sql, teamId: string, conversationId: string, messageId: string): Promise<boolean> {
  const rows = await retryable(sql`SELECT 1 FROM messages WHERE team_id = ${teamId} AND conversation_id = ${conversationId} AND id = ${messageId}`);
  return rows.length > 0;
}

/** Inserts the message and moves the conversation's `last_active_at` in one statement; nothing is
 *  inserted (undefined) when the conversation is not the team's. */
export async function postMessage(sql: Sql, teamId: string, conversationId: string, text: string): Promise<MessageRow | undefined> {
  const [row] = await sql<MessageRow[]>`
    WITH m AS (
      INSERT INTO messages (id, team_id, conversation_id, text)
      SELECT ${newMessagingId('message')}, team_id, id, ${text} FROM conversations WHERE team_id = ${teamId} AND id = ${conversationId}
      RETURNING id, conversation_id, text, created_at
    ), touched AS (
      UPDATE conversations c SET last_active_at = GREATEST(c.last_active_at, m.created_at) FROM m WHERE c.id = m.conversation_id
    )
    SELECT * FROM m`;
  return row;
}

export async function listMessages(sql: Sql, teamId: string, conversationId: string, q: ListQuery): Promise<MessageRow[]> {
  return retryable(sql<MessageRow[]>`
    SELECT id, conversation_id, text, created_at FROM messages
    WHERE team_id = ${teamId} AND conversation_id = ${conversationId} AND (${q.startingAfter}::text IS NULL OR id < ${q.startingAfter})
    ORDER BY id DESC LIMIT ${q.limit + 1}`);
}
