import { recordAudit } from '../audit/record.js';
import type { Db } from '../db/schema.js';
import type { Clock } from '../lib/clock.js';
import { localDate } from '../lib/dates.js';
import * as aggregates from '../totals/aggregates.js';
import { dueEntry } from '../transactions/audit.js';
import { balanceOf } from '../transactions/domain.js';
import * as repo from '../transactions/repository.js';
import type { Job } from './runner.js';

/** The zone whose date changes first (UTC+14): no business anywhere is past this date yet. */
const EARLIEST_ZONE = 'Pacific/Kiritimati';

/**
 * PRODUCT part 3: moves stored pending dues whose due date has passed (in the business's time
 * zone) to overdue, soon after local midnight. Reads never depend on it (they apply the date rule
 * themselves); it keeps stored status, updated_at (for incremental sync) and the running totals
 * honest. Each batch updates the dues and the totals in one transaction, and only rows still
 * pending are moved, so concurrent sweepers and mark-paid calls cannot double-count.
 */
export function overdueSweeper(
  deps: { db: Db; clock: Clock },
  { idleMs = 60_000, daysPerRun = 200, duesPerBatch = 500 } = {},
): Job {
  return {
    name: 'overdue-sweeper',
    idleMs,
    async runOnce(signal) {
      const now = deps.clock.now();
      const days = await repo.pendingDaysBefore(deps.db, localDate(EARLIEST_ZONE, now), daysPerRun);
      let moved = 0;
      for (const day of days) {
        if (signal.aborted) break;
        if (day.due_date >= localDate(day.timezone, now)) continue;
        for (;;) {
          const batch = await deps.db.transaction().execute(async (trx) => {
            const rows = await repo.markOverdueBatch(
              trx,
              day.business_id,
              day.due_date,
              now.toISOString(),
              duesPerBatch,
            );
            // Also with nothing moved: on PostgreSQL the day's rows may sum to nothing yet stay, one
            // per shard, until folded here (totals/aggregates.ts).
            const paise = rows.reduce((sum, r) => sum + balanceOf(r), 0);
            await aggregates.movePendingToOverdue(trx, day.business_id, day.due_date, rows.length, paise);
            // The stored status is audited: each due moved is an entry by the system.
            await recordAudit(
              trx,
              day.business_id,
              now,
              rows.map((r) => dueEntry('updated', { id: r.id, status: 'pending' }, { id: r.id, status: 'overdue' })),
            );
            return rows.length;
          });
          moved += batch;
          if (batch < duesPerBatch || signal.aborted) break;
        }
      }
      return moved;
    },
  };
}
