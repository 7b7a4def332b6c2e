import type { BusinessRow } from '../businesses/repository.js';
import type { ListPosition } from '../transactions/repository.js';
import { type ListTransactionsInput, Transaction } from '../transactions/schema.js';
import type { TransactionService } from '../transactions/service.js';
import { csvLine } from './csv.js';
import { type LineRow, lineOf, lineSelection, positionOf } from './export-lines.js';

/** Every column of the Transaction, in the API's order (amounts in paise). */
export type ExportColumn = keyof typeof Transaction.properties;
export const EXPORT_COLUMNS = Object.keys(Transaction.properties) as ExportColumn[];

/** The list's filters (GET /v1/transactions), without its paging. */
export type ExportFilter = Pick<ListTransactionsInput, 'status' | 'contact_id' | 'since' | 'include_deleted'>;

const LINES = lineSelection(EXPORT_COLUMNS);
/**
 * Lines per query: a line is ~300 bytes, so two batches in hand are well under a MB. On SQLite
 * 1,000 rather than 2,000 since the lines come from the read thread by structured clone
 * (read-worker.mjs): a first export of a million dues grew RSS by 15-16 MB, against 48-52 MB
 * (bench/README.md, 2026-11-25).
 */
const LINE_BATCH = 1_000;
/**
 * The text handed to the response at a time (~64 KB, the response stream's mark): a batch's
 * 1,000 lines are ~330 KB, and strings that large live in V8's large-object space until a full
 * collection, so pieces this size (new space, collected young) kept the main thread's heap from
 * growing with the batches (bench/README.md, 2026-11-25).
 */
const PIECE = 64 * 1024;

/**
 * The business's dues matching the list filters as CSV text (PRODUCT part 12): the header, then
 * the rows in the list's order, in pieces of ~64 KB. Batches are cursor pages of the list
 * (TransactionService.listBatchAs: each one an index range from where the last stopped, under the
 * business's read gate), read only when the consumer asks for more, so memory stays flat whatever
 * the number of dues and each query is short, leaving the store to other requests between batches.
 * Each line is written by the query (export-lines.ts), on either store, so this thread only joins
 * lines and sends them.
 */
export async function* exportCsv(
  deps: { transactions: TransactionService; publicBaseUrl: string },
  business: BusinessRow,
  filter: ExportFilter,
): AsyncGenerator<string> {
  const today = deps.transactions.today(business);
  // The header goes out with the first batch: a store that fails on the first read fails the
  // request before anything is sent (a 503, not a cut-off file).
  let chunk = csvLine(EXPORT_COLUMNS);
  const read = (after: ListPosition | undefined) => {
    const rows = deps.transactions.listBatchAs<LineRow>(
      LINES,
      business,
      filter,
      after,
      LINE_BATCH,
      today,
      deps.publicBaseUrl,
    );
    // Handled at once: a read ahead that fails while the consumer is away (or gone) is not an
    // unhandled rejection; awaiting it below still throws.
    rows.catch(() => {});
    return rows;
  };
  // One batch is read ahead: the store (a read thread on SQLite, the server on PostgreSQL) reads
  // the next batch while this one is sent, instead of each waiting on the other. At most two
  // batches are held, whatever the number of dues.
  let next: Promise<LineRow[]> | undefined = read(undefined);
  while (next) {
    const rows = await next;
    next = undefined;
    if (rows.length === LINE_BATCH) next = read(positionOf(rows[rows.length - 1] as LineRow));
    for (const row of rows) {
      chunk += row.line ?? lineOf(row, business.timezone, today);
      if (chunk.length >= PIECE) {
        yield chunk;
        chunk = '';
      }
    }
    if (chunk !== '') yield chunk;
    chunk = '';
  }
}
