import { monotonicFactory } from 'ulid';

/** Monotonic within the process, so ids sort by creation. */
export const newId: () => string = monotonicFactory();

export const isUlid = (value: string): boolean => /^[0-9A-HJKMNP-TV-Z]{26}$/i.test(value);
export const isUuid = (value: string): boolean => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(value);

/** ISO 8601 UTC with microseconds: `2026-01-02T03:04:05.123456Z`. JS dates carry milliseconds,
 *  so the last three digits are zero. */
export function timestamp(date: Date | null | undefined): string | null {
  if (!date) return null;
  // toISOString always ends in `.mmmZ` for years 0–9999.
  const iso = date.toISOString();
  return `${iso.slice(0, -1)}000Z`;
}
