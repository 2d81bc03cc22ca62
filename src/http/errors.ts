import type { ZodError } from 'zod';

export type FieldErrors = Record<string, string[]>;

/** An error that becomes an HTTP response as it is: status, JSON body, extra headers. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
  body(): Record<string, unknown> {
    return { message: this.message, ...this.extra };
  }
}

export const badRequest = (message: string) => new HttpError(400, message);
export const unauthenticated = () => new HttpError(401, 'Unauthenticated. Send an active API key in the X-API-KEY header.');
export const forbidden = (message: string) => new HttpError(403, message);
export const notFound = (resource: string) => new HttpError(404, `${resource} not found.`);
export const payloadTooLarge = (limitBytes: number) => new HttpError(413, `The request body exceeds the limit of ${limitBytes} bytes.`);
export const serviceUnavailable = (message: string) => new HttpError(503, message);

/** 422 with the field paths of DECISIONS.md: `{message, errors: {"waypoints.1.latitude": ["..."]}}`. */
export function unprocessable(errors: FieldErrors, message?: string): HttpError {
  const first = Object.entries(errors)[0];
  return new HttpError(422, message ?? (first ? `${first[0]}: ${first[1][0]}` : 'The given data was invalid.'), { errors });
}

/** One field, one message. */
export const invalid = (field: string, message: string) => unprocessable({ [field]: [message] });

export function zodErrors(error: ZodError): FieldErrors {
  // No prototype: a field path such as `__proto__` (an unknown key in a body) must stay a plain key.
  const out: FieldErrors = Object.create(null);
  for (const issue of error.issues) {
    let path = issue.path.map(String).join('.');
    const message = issue.message;
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const p = path ? `${path}.${key}` : key;
        (out[p] ??= []).push('is not an accepted field');
      }
      continue;
    }
    if (!path) path = 'body';
    (out[path] ??= []).push(message);
  }
  return out;
}
