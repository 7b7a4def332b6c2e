/** True when a database error is a unique-constraint violation, on either store. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: unknown } | null;
  return e?.code === '23505' || e?.code === 'SQLITE_CONSTRAINT_UNIQUE' || e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** PostgreSQL lock_timeout (55P03). */
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

/**
 * PostgreSQL undid this transaction to let another finish: a deadlock (40P01) among writes that
 * lock the same rows in different orders (a buyer merged while dues for it are written), or a
 * serialization failure (40001). Nothing of it was written; the same request again succeeds.
 */
export function isWriteCollision(error: unknown): boolean {
  const e = error as { code?: unknown } | null;
  return e?.code === '40P01' || e?.code === '40001';
}
