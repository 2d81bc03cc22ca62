// ISO 8601 datetimes of POST /v1/routes/optimize: parsed to whole epoch seconds with the offset they were
// written in, and written back in one offset (service-spec.md "POST /v1/routes/optimize", rule 1).

export interface Instant {
  /** Whole seconds since the Unix epoch; fractions of a second are rounded to the nearest second. */
  epoch: number;
  /** Minutes east of UTC as written; null when the datetime has no offset (it is then UTC). */
  offsetMinutes: number | null;
}

export const DATETIME_MESSAGE = 'must be an ISO 8601 datetime such as 2025-05-01T08:00:00+02:00';

// Date and time are required, seconds and fractions optional; the offset is Z, ±HH:MM, ±HHMM or ±HH.
const PATTERN = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|([+-])(\d{2})(?::?(\d{2}))?)?$/i;

const daysIn = (year: number, month: number) =>
  month === 2 ? (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31;

/** The instant a datetime names, or null when it is not a valid ISO 8601 datetime. */
export function parseDatetime(text: string): Instant | null {
  const m = PATTERN.exec(text);
  if (!m) return null;
  const [year, month, day, hour, minute, second] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i] ?? 0));
  const fraction = m[7] ? Number(`0.${m[7]}`) : 0;
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || second > 59) return null;
  let offsetMinutes: number | null = null;
  if (m[8] && m[8].toUpperCase() === 'Z') offsetMinutes = 0;
  else if (m[9]) {
    const oh = Number(m[10]),
      om = Number(m[11] ?? 0);
    if (oh > 23 || om > 59) return null;
    offsetMinutes = (m[9] === '-' ? -1 : 1) * (oh * 60 + om);
  }
  // Date.UTC maps years 0–99 to 1900–1999; setUTCFullYear does not.
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day);
  d.setUTCHours(hour, minute, second, 0);
  const epoch = Math.round(d.getTime() / 1000 + fraction) - (offsetMinutes ?? 0) * 60;
  return { epoch, offsetMinutes };
}

/** `YYYY-MM-DDTHH:MM:SS` in the given offset, suffixed `Z` for UTC, else `±HH:MM`. */
export function formatDatetime(epoch: number, offsetMinutes: number): string {
  const d = new Date((epoch + offsetMinutes * 60) * 1000);
  const two = (n: number) => String(n).padStart(2, '0');
  // Built from parts: toISOString writes years outside 0–9999 with six digits.
  const local =
    `${String(d.getUTCFullYear()).padStart(4, '0')}-${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())}` +
    `T${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}`;
  if (offsetMinutes === 0) return `${local}Z`;
  const abs = Math.abs(offsetMinutes);
  return `${local}${offsetMinutes < 0 ? '-' : '+'}${two(Math.floor(abs / 60))}:${two(abs % 60)}`;
}
