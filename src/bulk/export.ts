import type { BusinessRow } from '../businesses/repository.js';
import { presentTransaction } from '../transactions/presenter.js';
import type { ListPosition } from '../transactions/repository.js';
import { type ListTransactionsInput, Transaction } from '../transactions/schema.js';
import type { TransactionService } from '../transactions/service.js';
import { csvLine } from './csv.js';

/** Every column of the Transaction, in the API's order (amounts in paise). */
export const EXPORT_COLUMNS = Object.keys(Transaction.properties) as (keyof typeof Transaction.properties)[];
/** Rows read per query: big enough that a query's cost is spread, small enough that memory stays flat. */
const BATCH = 1_000;

/** The list's filters (GET /v1/transactions), without its paging. */
export type ExportFilter = Pick<ListTransactionsInput, 'status' | 'contact_id' | 'since' | 'include_deleted'>;

/**
 * The business's dues matching the list filters as CSV text (PRODUCT part 12), one chunk per batch
 * of rows: the header, then the rows in the list's order. Batches are cursor pages of the list
 * (TransactionService.listBatch: each one an index range from where the last stopped, under the
 * business's read gate), read only when the consumer asks for more, so memory stays flat whatever
 * the number of dues and each query is short, leaving the store to other requests between batches.
 */
export async function* exportCsv(
  deps: { transactions: TransactionService; publicBaseUrl: string },
  business: BusinessRow,
  filter: ExportFilter,
): AsyncGenerator<string> {
  const today = deps.transactions.today(business);
  const ctx = { today, publicBaseUrl: deps.publicBaseUrl, timezone: business.timezone };
  // The header goes out with the first batch: a store that fails on the first read fails the
  // request before anything is sent (a 503, not a cut-off file).
  let chunk = csvLine(EXPORT_COLUMNS);
  let after: ListPosition | undefined;
  for (;;) {
    const rows = await deps.transactions.listBatch(business, filter, after, BATCH, today);
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
