import type { BusinessRow } from '../businesses/repository.js';
import type { Db } from '../db/schema.js';
import { presentTransaction } from '../transactions/presenter.js';
import { type ListPosition, listTransactions, type TransactionFilter } from '../transactions/repository.js';
import { Transaction } from '../transactions/schema.js';
import { csvLine } from './csv.js';

/** Every column of the Transaction, in the API's order (amounts in paise). */
export const EXPORT_COLUMNS = Object.keys(Transaction.properties) as (keyof typeof Transaction.properties)[];
/** Rows read per query: big enough that a query's cost is spread, small enough that memory stays flat. */
const BATCH = 1_000;

export interface ExportFilter {
  status?: TransactionFilter['status'];
  contactId?: string;
  since?: string;
  includeDeleted?: boolean;
}

/**
 * The business's dues matching the list filters as CSV text (PRODUCT part 12), one chunk per batch
 * of rows: the header, then the rows in the list's order. Batches are read by keyset
 * (transactions/repository.ts listTransactions after a cursor, PRODUCT part 17) and only when the consumer asks for more, so memory stays
 * flat whatever the number of dues, and each query is short, leaving the store to other requests
 * between batches.
 */
export async function* exportCsv(
  deps: { db: Db; publicBaseUrl: string },
  business: BusinessRow,
  filter: ExportFilter,
  today: string,
): AsyncGenerator<string> {
  const where: TransactionFilter = {
    today,
    ...(filter.status !== undefined && { status: filter.status }),
    ...(filter.contactId !== undefined && { contactId: filter.contactId }),
    ...(filter.since !== undefined && { since: new Date(filter.since).toISOString() }),
    // Deleted dues only reach an incremental sync that asks for them (PRODUCT part 10), as in the list.
    includeDeleted: filter.since !== undefined && filter.includeDeleted === true,
  };
  const ctx = { today, publicBaseUrl: deps.publicBaseUrl, timezone: business.timezone };
  // The header goes out with the first batch: a store that fails on the first read fails the
  // request before anything is sent (a 503, not a cut-off file).
  let chunk = csvLine(EXPORT_COLUMNS);
  let after: ListPosition | undefined;
  for (;;) {
    const rows = await listTransactions(deps.db, business.id, where, BATCH, 0, after);
    if (rows.length === 0) {
      if (chunk !== '') yield chunk;
      return;
    }
    for (const row of rows) {
      const presented = presentTransaction(row, ctx);
      chunk += csvLine(EXPORT_COLUMNS.map((c) => presented[c]));
    }
    yield chunk;
    chunk = '';
    if (rows.length < BATCH) return;
    const last = rows[rows.length - 1] as (typeof rows)[number];
    after = { due_date: last.due_date, created_at: last.created_at, id: last.id };
  }
}
