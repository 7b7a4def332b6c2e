import { errors } from '../errors.js';

/**
 * PRODUCT part 26: a deleted due is gone for every action on it: 404, as an id that never existed
 * (it is still listed by `since` with include_deleted, for syncing clients).
 */
export function liveDue<T extends { deleted_at: string | null }>(row: T | undefined): T {
  if (!row || row.deleted_at !== null) throw errors.notFound('transaction');
  return row;
}

/** liveDue, and still owing: a paid due answers 409 to what only an open due takes. */
export function openDue<T extends { deleted_at: string | null; status: string }>(row: T | undefined): T {
  const due = liveDue(row);
  if (due.status === 'paid') throw errors.conflict('transaction is already paid');
  return due;
}
