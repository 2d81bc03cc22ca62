import type { Readable } from 'node:stream';
import type { AuthInfo } from '../auth/authenticate.js';
import { hasPermission } from '../auth/permissions.js';
import { badRequest, forbidden, unprocessable, type FieldErrors } from './errors.js';
import type { Query } from './query.js';

export const JSON_BODY_LIMIT = 1024 * 1024;

/** Everything a handler may know about the request. Built synchronously in the uWS callback, since
 *  the uWS request object is gone after the first await. */
export class RequestContext {
  auth: AuthInfo | null = null;
  aborted = false;
  /** The client's address, for routes that ask for it (`Route.peer`). */
  peer: string | undefined;
  readonly responseHeaders: Record<string, string> = {};
  private bodyPromise: Promise<Buffer> | undefined;
  private bodyStream: Readable | undefined;

  constructor(
    readonly id: string,
    readonly method: string,
    readonly path: string,
    readonly route: string,
    readonly params: Record<string, string>,
    readonly query: Query,
    readonly headers: Record<string, string>,
  ) {}

  /** Set by the server before the handler runs. */
  attachBody(body: Promise<Buffer> | undefined, stream: Readable | undefined): void {
    this.bodyPromise = body;
    this.bodyStream = stream;
  }

  /** The authenticated team; every handler behind auth can rely on it. */
  get teamId(): string {
    if (!this.auth) throw new Error('unauthenticated context');
    return this.auth.teamId;
  }

  /** 403 unless the key has the permission. */
  require(permission: string): void {
    if (!this.auth || !hasPermission(this.auth.permissions, permission)) {
      throw forbidden(`This API key lacks the '${permission}' permission.`);
    }
  }

  /** The body as a JSON object: 400 for a wrong content type, invalid JSON or a non-object. */
  async json(): Promise<Record<string, unknown>> {
    const type = (this.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    if (type && type !== 'application/json' && !type.endsWith('+json')) {
      throw badRequest('The request body must be JSON (Content-Type: application/json).');
    }
    const raw = this.bodyPromise ? await this.bodyPromise : Buffer.alloc(0);
    let value: unknown;
    try {
      // JSON text is UTF-8 (RFC 8259): bytes that are not are refused, not replaced.
      value = JSON.parse(strictUtf8.decode(raw));
    } catch {
      throw badRequest('The request body is not valid JSON (UTF-8).');
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw badRequest('The request body must be a JSON object.');
    }
    const unstorable = unstorableTextPaths(value);
    if (Object.keys(unstorable).length) throw unprocessable(unstorable);
    return value as Record<string, unknown>;
  }

  /** The raw body as a stream, for uploads; it errors with a 413 HttpError past the route's limit. */
  stream(): Readable {
    if (!this.bodyStream) throw new Error('route does not stream its body');
    return this.bodyStream;
  }
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** PostgreSQL stores neither NUL nor an unpaired surrogate, though JSON can carry both as escapes
 *  (jsonb refuses the surrogate, text would store U+FFFD in its place). */
const textProblem = (s: string): string | undefined =>
  s.includes('\u0000')
    ? 'may not contain NUL characters'
    : UNPAIRED_SURROGATE.test(s)
      ? 'may not contain unpaired UTF-16 surrogates (\\ud800-\\udfff escapes)'
      : undefined;

/** Field paths of strings (values or keys) that PostgreSQL cannot store as sent.
 *  Iterative: a 1 MB body can nest deeper than the call stack. */
function unstorableTextPaths(root: object): FieldErrors {
  const out: FieldErrors = Object.create(null);
  const stack: Array<[unknown, string]> = [[root, '']];
  while (stack.length) {
    const [value, path] = stack.pop()!;
    if (typeof value === 'string') {
      const problem = textProblem(value);
      if (problem) out[path] = [problem];
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        const p = path ? `${path}.${key}` : key;
        const problem = textProblem(key);
        if (problem) out[p] = [problem];
        else stack.push([item, p]);
      }
    }
  }
  return out;
}
