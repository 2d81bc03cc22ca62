import { z } from 'zod';

/** zod's missing-vs-wrong-type distinction, phrased like the rest of the API's 422s. */
const typeError = (what: string) => (issue: { input?: unknown }) => (issue.input === undefined ? 'is required' : `must be ${what}`);

const text = (max: number) =>
  z.string({ error: typeError('a string') }).trim().min(1, 'is required').max(max, `may not be longer than ${max} characters`);

const url = z
  .string({ error: typeError('a string') })
  .max(2048, 'may not be longer than 2048 characters')
  .refine((value) => {
    try {
      return ['http:', 'https:'].includes(new URL(value).protocol);
    } catch {
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

const contact = z.strictObject({
  username: text(64),
  display_name: text(255).nullable().optional(),
  avatar_url: url.nullable().optional(),
}, { error: typeError('a contact object ({username, display_name?, avatar_url?})') });
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

export const createGroupSchema = z.strictObject({
  name: groupName,
  description: description.optional(),
  avatar_url: url.nullable().optional(),
  contacts: contacts.optional(),
});

export const updateGroupSchema = z.strictObject({
  name: groupName.optional(),
  description: description.optional(),
  avatar_url: url.nullable().optional(),
  contacts: contacts.optional(),
  archived_at: epochSeconds.nullable().optional(),
});

/** Exactly one of the two is checked by the handler, which names both fields in the 422. */
export const createConversationSchema = z.strictObject({
  contact_id: z.string({ error: typeError('a string') }).min(1, 'is required').max(100, 'may not be longer than 100 characters').optional(),
  group_id: z.string({ error: typeError('a string') }).optional(),
});

export const updateConversationSchema = z.strictObject({
  pinned_message_id: z.string({ error: typeError('a string') }).nullable().optional(),
  is_pinned: z.boolean({ error: typeError('a boolean') }).optional(),
  is_muted: z.boolean({ error: typeError('a boolean') }).optional(),
  archived_at: epochSeconds.nullable().optional(),
});

export const MAX_MESSAGE_LENGTH = 4000;

/** Length counts characters (code points), not UTF-16 units, so an emoji counts once. The text is
 *  stored as sent; only a blank message is refused. */
export const createMessageSchema = z.strictObject({
  text: z
    .string({ error: typeError('a string') })
    .refine((value) => value.trim().length > 0, 'is required')
    .refine((value) => [...value].length <= MAX_MESSAGE_LENGTH, `may not be longer than ${MAX_MESSAGE_LENGTH} characters`),
});
