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
