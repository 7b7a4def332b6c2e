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

/**
 * A foreign-key violation, on either store: a row the write refers to was removed meanwhile (on
 * PostgreSQL, a buyer merged into another while a due for it was being written).
 */
export function isForeignKeyViolation(error: unknown): boolean {
  const e = error as { code?: unknown } | null;
  return e?.code === '23503' || e?.code === 'SQLITE_CONSTRAINT_FOREIGNKEY';
}
