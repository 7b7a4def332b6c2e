import type { TransactionService } from '../transactions/service.js';
import type { Job } from './runner.js';

/**
 * Creates the next due of each recurring series once its latest due's date has arrived in the
 * business's time zone (PRODUCT part 10). Each due is claimed with a conditional update in the
 * transaction that writes its successor (transactions/series.ts), so several worker processes
 * on one PostgreSQL database, or a restart half-way, never create a date twice nor skip one.
 */
export function recurrenceWorker(deps: { transactions: TransactionService }, idleMs = 60_000): Job {
  return {
    name: 'recurrence',
    idleMs,
    runOnce: () => deps.transactions.repeatArrived(),
  };
}
