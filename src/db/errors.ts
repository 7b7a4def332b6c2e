/** True when a database error is a unique-constraint violation, on either store. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: unknown } | null;
  return e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** PostgreSQL lock_timeout (55P03) or serialization failure (40001). */
export function isLockTimeout(error: unknown): boolean {
  const e = error as { code?: unknown } | null;
  return e?.code === '55P03';
}
