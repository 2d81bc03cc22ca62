import { unprocessable, type FieldErrors } from '../../http/errors.js';
import type { Query } from '../../http/query.js';
import { parseMessagingId, type Kind } from './ids.js';

export const DEFAULT_LIMIT = 10;
export const MAX_LIMIT = 100;

export interface ListQuery {
  limit: number;
  /** Stripe style: the page holds items older (smaller id) than this one. */
  startingAfter: string | null;
}

/** Reads `limit` and `starting_after`, collecting problems into `errors`; the caller throws once
 *  every parameter has been checked, so a client sees all its mistakes in one 422. */
export function readListQuery(query: Query, kind: Kind, errors: FieldErrors): ListQuery {
  const rawLimit = query.get('limit');
  let limit = DEFAULT_LIMIT;
  if (rawLimit !== undefined) {
    if (/^\d+$/.test(rawLimit) && Number(rawLimit) >= 1 && Number(rawLimit) <= MAX_LIMIT) limit = Number(rawLimit);
    else errors.limit = [`must be an integer between 1 and ${MAX_LIMIT}`];
  }
  const rawAfter = query.get('starting_after');
  let startingAfter: string | null = null;
  if (rawAfter !== undefined) {
    startingAfter = parseMessagingId(kind, rawAfter);
    if (!startingAfter) errors.starting_after = [`must be a ${kind} id`];
  }
  return { limit, startingAfter };
}

/** `true`/`false` (also `1`/`0`), else a 422 entry; absent is undefined. */
export function readBoolean(query: Query, name: string, errors: FieldErrors): boolean | undefined {
  const raw = query.get(name);
  if (raw === undefined) return undefined;
  const value = raw.toLowerCase();
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  errors[name] = ['must be a boolean (true or false)'];
  return undefined;
}

/** Archiving hides an item from the everyday list, as a mail or chat archive does: `archived=true`
 *  lists only archived items, `archived=false` or no `archived` only the others. Groups and
 *  conversations share this rule so the two lists behave alike. */
export function readArchived(query: Query, errors: FieldErrors): boolean {
  return readBoolean(query, 'archived', errors) ?? false;
}

export function throwIfAny(errors: FieldErrors): void {
  if (Object.keys(errors).length) throw unprocessable(errors);
}

/** Rows fetched with `limit + 1`, newest first, become the `{has_more, data}` list. */
export function listOf<T>(rows: T[], limit: number): { has_more: boolean; data: T[] } {
  return { has_more: rows.length > limit, data: rows.slice(0, limit) };
}
