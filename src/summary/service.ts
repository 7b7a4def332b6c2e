import type { BusinessRow } from '../businesses/repository.js';
import type { Db } from '../db/schema.js';
import type { Clock } from '../lib/clock.js';
import { localDate, localMonth } from '../lib/dates.js';
import { type Aging, readAging, readTotals, type Totals } from '../totals/aggregates.js';
import { creditOf } from '../transactions/receipt-repository.js';

export class SummaryService {
  constructor(private readonly deps: { db: Db; clock: Clock }) {}

  /** Totals in O(1) reads whatever the number of dues; see aggregates.ts. */
  async get(business: BusinessRow): Promise<Totals & { creditPaise: number }> {
    const now = this.deps.clock.now();
    const [totals, creditPaise] = await Promise.all([
      readTotals(this.deps.db, business.id, localDate(business.timezone, now), localMonth(business.timezone, now)),
      creditOf(this.deps.db, business.id),
    ]);
    return { ...totals, creditPaise };
  }

  /** Open balances by days past due (GET /v1/aging, the dashboard), from running aggregates: no scan. */
  aging(business: Pick<BusinessRow, 'id' | 'timezone'>): Promise<Aging> {
    return readAging(this.deps.db, business.id, localDate(business.timezone, this.deps.clock.now()));
  }
}
