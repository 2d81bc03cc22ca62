/** PostgreSQL unique-violation on the named constraint (or any, without a name). */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const e = err as { code?: string; constraint_name?: string };
  return e?.code === '23505' && (!constraint || e.constraint_name === constraint);
}

/** PostgreSQL foreign-key violation on the named constraint: the row referred to is gone. */
export function isForeignKeyViolation(err: unknown, constraint: string): boolean {
  const e = err as { code?: string; constraint_name?: string };
  return e?.code === '23503' && e.constraint_name === constraint;
}

/** postgres.js and socket codes of a connection that could not be made or was lost. */
const CONNECTION_CODES = new Set([
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'ENOTFOUND',
]);

/**
 * The database could not be reached, or the connection broke under the statement: a connection error,
 * a server shutting down or restarting (57P01–57P03), class 08, or too many connections (53300).
 * Not a fault of the request; answered 503 with Retry-After.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (isBrokenSocketWrite(err)) return true;
  const code = (err as { code?: unknown })?.code;
  if (typeof code !== 'string') return false;
  return CONNECTION_CODES.has(code) || code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03' || code === '53300';
}

/**
 * postgres.js 3.4.9, asked to run the next statement of a transaction whose connection has just closed,
 * writes to the socket it has already dropped and fails with this TypeError instead of a connection
 * error: the statement never left the process. patches/postgres+3.4.9.patch refuses such a statement
 * with CONNECTION_CLOSED instead; this stays for an unpatched copy.
 */
export function isBrokenSocketWrite(err: unknown): boolean {
  return err instanceof TypeError && /of null \(reading '(write|cork|uncork)'\)/.test(err.message);
}

/** The connection broke or could not be made before the server could have finished the statement:
 *  PostgreSQL rolled back whatever it had started of it. */
export function isConnectionLost(err: unknown): boolean {
  if (isBrokenSocketWrite(err)) return true;
  const code = (err as { code?: unknown })?.code;
  return typeof code === 'string' && LOST.has(code);
}
const LOST = new Set(['CONNECTION_CLOSED', 'ECONNRESET', 'EPIPE', 'ECONNREFUSED', '57P01', '57P02', '57P03', '08000', '08003', '08006', '08001', '08004']);

/** A lost connection as the error it is: postgres.js's TypeError for a write to its dropped socket
 *  becomes a CONNECTION_CLOSED like the others, so that logs and callers see one kind. */
export function asConnectionError(err: unknown): unknown {
  if (!isBrokenSocketWrite(err)) return err;
  return Object.assign(new Error('write CONNECTION_CLOSED (the connection closed before the statement was sent)'), { code: 'CONNECTION_CLOSED' });
}
