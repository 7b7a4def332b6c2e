import type { BusinessRow } from '../businesses/repository.js';
import type { Db } from '../db/schema.js';
import type { Clock } from '../lib/clock.js';
import { localDate, localMonth } from '../lib/dates.js';
import { type Aging, readAging, readTotals, type Totals } from '../totals/read.js';

export class SummaryService {
  constructor(private readonly deps: { db: Db; clock: Clock }) {}

  /** Totals in O(1) reads whatever the number of dues; see aggregates.ts. */
  get(business: BusinessRow): Promise<Totals> {
    const now = this.deps.clock.now();
    return readTotals(this.deps.db, business.id, localDate(business.timezone, now), localMonth(business.timezone, now));
  }

  /** Open balances by days past due (GET /v1/aging, the dashboard), from running aggregates: no scan. */
  aging(business: Pick<BusinessRow, 'id' | 'timezone'>): Promise<Aging> {
    return readAging(this.deps.db, business.id, localDate(business.timezone, this.deps.clock.now()));
  }
}
