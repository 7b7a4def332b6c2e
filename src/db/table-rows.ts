import type { Insertable } from 'kysely';
import type { Database } from './schema.js';

/** Rows for one table (every row with the same keys); `omit` names keys that are not columns. */
export type TableRows = {
  [T in keyof Database & string]: { table: T; rows: readonly Insertable<Database[T]>[]; omit?: readonly string[] };
}[keyof Database & string];
