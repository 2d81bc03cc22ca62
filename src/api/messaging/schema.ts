import { z } from 'zod';
import type { Operation } from '../../http/openapi.js';

/** zod's missing-vs-wrong-type distinction, phrased like the rest of the API's 422s. */
const typeError = (what: string) => (issue: { input?: unknown }) => (issue.input === undefined ? 'is required' : `must be ${what}`);

const text = (max: number) =>
  z
    .string({ error: typeError('a string') })
    .trim()
    .min(1, 'is required')
    .max(max, `may not be longer than ${max} characters`);

const url = z
  .string({ error: typeError('a string') })
  .max(2048, 'may not be longer than 2048 characters')
  .refine((value) => {
    try {
      return ['http:', 'https:'].includes(new URL(value).protocol);
    } catch {
      // Not a URL at all: the message below says what is expected.
      return false;
    }
  }, 'must be an http or https URL');

/** Unix epoch seconds up to the end of year 9999. */
export const MAX_EPOCH_SECONDS = 253_402_300_799;
const epochSeconds = z
  .int({ error: typeError('an integer (Unix epoch seconds)') })
  .min(0, 'must not be negative')
  .max(MAX_EPOCH_SECONDS, 'must be a Unix timestamp in seconds');

export const MAX_CONTACTS = 1000;

const contact = z.strictObject(
  {
    username: text(64),
    display_name: text(255).nullable().optional(),
    avatar_url: url.nullable().optional(),
  },
  { error: typeError('a contact object ({username, display_name?, avatar_url?})') },
);
export type ContactInput = z.infer<typeof contact>;

/** The member list; a username appears at most once (it identifies the member). */
const contacts = z
  .array(contact, { error: typeError('an array of contact objects') })
  .max(MAX_CONTACTS, `may not hold more than ${MAX_CONTACTS} contacts`)
  .superRefine((list, ctx) => {
    const seen = new Set<string>();
    list.forEach((c, i) => {
      if (seen.has(c.username)) ctx.addIssue({ code: 'custom', path: [i, 'username'], message: 'is listed twice' });
      seen.add(c.username);
    });
  });

const groupName = text(255);
const description = text(1000).nullable();

export const createGroupSchema = z
  .strictObject({
    name: groupName,
    description: description.optional(),
    avatar_url: url.nullable().optional(),
    contacts: contacts.optional(),
  })
  .meta({ id: 'GroupCreate', examples: [{ name: 'Drivers', contacts: [{ username: 'anna' }, { username: 'ben', display_name: 'Ben K.' }] }] });

export const updateGroupSchema = z
  .strictObject({
    name: groupName.optional(),
    description: description.optional(),
    avatar_url: url.nullable().optional(),
    contacts: contacts.optional(),
    archived_at: epochSeconds.nullable().optional(),
  })
  .meta({ id: 'GroupUpdate', description: 'Only what changes; `contacts` replaces the member list; `archived_at` archives (null restores).' });

/** Exactly one of the two is checked by the handler, which names both fields in the 422. */
export const createConversationSchema = z
  .strictObject({
    contact_id: z
      .string({ error: typeError('a string') })
      .min(1, 'is required')
      .max(100, 'may not be longer than 100 characters')
      .optional(),
    group_id: z.string({ error: typeError('a string') }).optional(),
  })
  .meta({ id: 'ConversationCreate', description: 'Exactly one of `contact_id` and `group_id`.', examples: [{ contact_id: 'anna' }] });

export const updateConversationSchema = z
  .strictObject({
    pinned_message_id: z
      .string({ error: typeError('a string') })
      .nullable()
      .optional(),
    is_pinned: z.boolean({ error: typeError('a boolean') }).optional(),
    is_muted: z.boolean({ error: typeError('a boolean') }).optional(),
    archived_at: epochSeconds.nullable().optional(),
  })
  .meta({ id: 'ConversationUpdate' });

export const MAX_MESSAGE_LENGTH = 4000;

/** Length counts characters (code points), not UTF-16 units, so an emoji counts once. The text is
 *  stored as sent; only a blank message is refused. */
export const createMessageSchema = z
  .strictObject({
    text: z
      .string({ error: typeError('a string') })
      .refine((value) => value.trim().length > 0, 'is required')
      .refine((value) => [...value].length <= MAX_MESSAGE_LENGTH, `may not be longer than ${MAX_MESSAGE_LENGTH} characters`)
      .meta({ maxLength: MAX_MESSAGE_LENGTH, description: `Not blank; up to ${MAX_MESSAGE_LENGTH} characters.` }),
  })
  .meta({ id: 'MessageCreate', examples: [{ text: 'On my way.' }] });

// ---- answers and the operations of the OpenAPI document -------------------------------------------

const epoch = z.int().describe('Unix epoch seconds.');
export const contactSchema = z.object({ username: z.string(), display_name: z.string().nullable(), avatar_url: z.string().nullable() }).meta({ id: 'Contact' });
export const groupSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    avatar_url: z.string().nullable(),
    conversation_id: z.string().nullable().describe("null only after the group's conversation was deleted and not yet recreated."),
    contacts: z.array(contactSchema),
    created_at: epoch,
    archived_at: epoch.nullable(),
  })
  .meta({ id: 'Group' });
export const conversationSchema = z
  .object({
    id: z.string(),
    contact_id: z.string().nullable(),
    group_id: z.string().nullable(),
    pinned_message_id: z.string().nullable(),
    is_pinned: z.boolean(),
    is_muted: z.boolean(),
    last_active_at: epoch.nullable(),
    last_opened_at: epoch.nullable(),
    created_at: epoch,
    archived_at: epoch.nullable(),
  })
  .meta({ id: 'Conversation' });
export const messageSchema = z.object({ id: z.string(), conversation_id: z.string(), text: z.string(), created_at: epoch }).meta({ id: 'Message' });

const list = (id: string, item: z.ZodType) => z.object({ has_more: z.boolean(), data: z.array(item) }).meta({ id });
const listQuery = (kind: string) => ({
  limit: z.int().min(1).max(100).default(10),
  starting_after: z.string().describe(`A ${kind} id: the page holds older ${kind}s than it (lists are newest first).`),
});
const bool = (text: string) => z.enum(['true', 'false', '1', '0']).describe(text);
const reads = 'Needs the `read-conversations` permission.';
const writes = 'Needs the `write-conversations` permission.';
const groupIdParam = { id: 'The group id.' };
const conversationIdParam = { id: 'The conversation id.' };

export const groupDocs = {
  list: {
    operationId: 'listGroups',
    tag: 'Groups',
    summary: 'List groups',
    description: `${reads} Newest first.`,
    query: { ...listQuery('group'), archived: bool('true: only archived groups; otherwise only the others.') },
    responses: { 200: { description: 'A page of groups.', schema: list('GroupList', groupSchema) } },
    errors: [422],
  },
  create: {
    operationId: 'createGroup',
    tag: 'Groups',
    summary: 'Create a group',
    description: `${writes} Its conversation is created with it.`,
    body: createGroupSchema,
    responses: { 201: { description: 'The group.', schema: groupSchema } },
    errors: [422],
  },
  get: {
    operationId: 'getGroup',
    tag: 'Groups',
    summary: 'Get a group',
    description: reads,
    pathParams: groupIdParam,
    responses: { 200: { description: 'The group.', schema: groupSchema } },
    errors: [404],
  },
  update: {
    operationId: 'updateGroup',
    tag: 'Groups',
    summary: 'Update, archive or restore a group',
    description: writes,
    pathParams: groupIdParam,
    body: updateGroupSchema,
    responses: { 200: { description: 'The updated group.', schema: groupSchema } },
    errors: [404, 422],
  },
  delete: {
    operationId: 'deleteGroup',
    tag: 'Groups',
    summary: 'Delete a group',
    description: `${writes} Permanent; its messages go with it.`,
    pathParams: groupIdParam,
    responses: { 204: { description: 'Deleted.' } },
    errors: [404],
  },
} satisfies Record<string, Operation>;

export const conversationDocs = {
  list: {
    operationId: 'listConversations',
    tag: 'Conversations',
    summary: 'List conversations',
    description: `${reads} Newest first.`,
    query: {
      ...listQuery('conversation'),
      muted: bool('true: only muted ones; false: only the others.'),
      archived: bool('true: only archived ones; otherwise only the others.'),
      pinned: bool('true: only pinned ones; false: only the others.'),
      group_id: z.string().describe('Only the conversation of this group.'),
    },
    responses: { 200: { description: 'A page of conversations.', schema: list('ConversationList', conversationSchema) } },
    errors: [422],
  },
  create: {
    operationId: 'createConversation',
    tag: 'Conversations',
    summary: 'Create a conversation',
    description: writes,
    body: createConversationSchema,
    responses: { 201: { description: 'The conversation, `last_active_at` and `last_opened_at` null.', schema: conversationSchema } },
    errors: [422],
  },
  get: {
    operationId: 'getConversation',
    tag: 'Conversations',
    summary: 'Open a conversation',
    description: `${reads} Sets \`last_opened_at\`.`,
    pathParams: conversationIdParam,
    responses: { 200: { description: 'The conversation.', schema: conversationSchema } },
    errors: [404],
  },
  update: {
    operationId: 'updateConversation',
    tag: 'Conversations',
    summary: 'Pin, mute or archive a conversation',
    description: writes,
    pathParams: conversationIdParam,
    body: updateConversationSchema,
    responses: { 200: { description: 'The updated conversation.', schema: conversationSchema } },
    errors: [404, 422],
  },
  delete: {
    operationId: 'deleteConversation',
    tag: 'Conversations',
    summary: 'Delete a conversation',
    description: `${writes} Permanent; its messages go with it.`,
    pathParams: conversationIdParam,
    responses: { 204: { description: 'Deleted.' } },
    errors: [404],
  },
  messages: {
    operationId: 'listMessages',
    tag: 'Conversations',
    summary: 'List the messages of a conversation',
    description: `${reads} Newest first.`,
    pathParams: conversationIdParam,
    query: listQuery('message'),
    responses: { 200: { description: 'A page of messages.', schema: list('MessageList', messageSchema) } },
    errors: [404, 422],
  },
  post: {
    operationId: 'postMessage',
    tag: 'Conversations',
    summary: 'Post a message',
    description: writes,
    pathParams: conversationIdParam,
    body: createMessageSchema,
    responses: { 201: { description: 'The message.', schema: messageSchema } },
    errors: [404, 422],
  },
} satisfies Record<string, Operation>;
