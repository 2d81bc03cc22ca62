import { isUlid, newId } from '../../lib/ids.js';

/** Messaging ids are opaque to clients: a type prefix and a monotonic ULID, so they sort by creation
 *  (lists are newest first by id) and a group id can never be mistaken for a conversation id. */
export const PREFIXES = { group: 'grp_', conversation: 'conv_', message: 'msg_' } as const;

export type Kind = keyof typeof PREFIXES;

export const newMessagingId = (kind: Kind): string => PREFIXES[kind] + newId();

/** The canonical id (ULID part upper-cased), or null when `raw` is not an id of that kind. */
export function parseMessagingId(kind: Kind, raw: string): string | null {
  const prefix = PREFIXES[kind];
  if (!raw.startsWith(prefix)) return null;
  const ulid = raw.slice(prefix.length);
  return isUlid(ulid) ? prefix + ulid.toUpperCase() : null;
}
