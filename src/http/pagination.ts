import { isUlid, isUuid } from '../lib/ids.js';
import type { FieldErrors } from './errors.js';
import { unprocessable } from './errors.js';
import type { Query } from './query.js';

export interface Page {
  limit: number;
  cursor: string | null;
}

/** `limit` 1..100 (default 15) and `cursor` (a ULID, or a UUID on the geolocation lists). */
export function readPage(query: Query, cursorKind: 'ulid' | 'uuid' = 'ulid', errors: FieldErrors = {}): Page {
  const rawLimit = query.get('limit');
  let limit = 15;
  if (rawLimit !== undefined) {
    if (!/^\d+$/.test(rawLimit) || Number(rawLimit) < 1 || Number(rawLimit) > 100) {
      errors.limit = ['must be an integer between 1 and 100'];
    } else limit = Number(rawLimit);
  }
  const cursor = query.get('cursor') ?? null;
  if (cursor !== null && !(cursorKind === 'ulid' ? isUlid(cursor) : isUuid(cursor))) {
    errors.cursor = [`must be a ${cursorKind === 'ulid' ? 'ULID' : 'UUID'} returned as next`];
  }
  if (Object.keys(errors).length) throw unprocessable(errors);
  return { limit, cursor: cursor === null ? null : cursorKind === 'ulid' ? cursor.toUpperCase() : cursor.toLowerCase() };
}

/** Rows fetched with `limit + 1` become `{data, next}`. */
export function pageOf<T extends { id: string }>(rows: T[], limit: number): { data: T[]; next: string | null } {
  const more = rows.length > limit;
  const data = more ? rows.slice(0, limit) : rows;
  return { data, next: more ? data[data.length - 1].id : null };
}
