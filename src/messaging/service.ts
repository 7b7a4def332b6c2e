import type { BusinessRow } from '../businesses/repository.js';
import type { Db } from '../db/schema.js';
import { addDays, instantAt, localMonth } from '../lib/dates.js';
import { PRICING_CATEGORIES } from './prices.js';
import * as repo from './repository.js';
import type { UsageResponse } from './schema.js';

/** The instants a business-local month spans: [its first midnight, the next month's). */
export function monthSpan(timezone: string, month: string): { from: string; to: string } {
  const [year = 0, m = 1] = month.split('-').map(Number);
  const next = m === 12 ? `${year + 1}-01` : `${year}-${String(m + 1).padStart(2, '0')}`;
  return {
    from: instantAt(timezone, `${month}-01`, 0).toISOString(),
    to: instantAt(timezone, `${next}-01`, 0).toISOString(),
  };
}

/** Thousandths of a paisa as paise, fractions kept to three places. */
const paise = (millipaise: number) => Math.round(millipaise) / 1000;

/** What a business's messages cost (PRODUCT part 25): the usage read and the dashboard's figures. */
export class MessagingService {
  constructor(private readonly deps: { db: Db }) {}

  async usage(business: BusinessRow, month: string): Promise<UsageResponse> {
    const { from, to } = monthSpan(business.timezone, month);
    const rows = await repo.usageByCategory(this.deps.db, business.id, from, to);
    const categories = Object.fromEntries(
      PRICING_CATEGORIES.map((c) => [c, { count: 0, cost_paise: 0 }]),
    ) as UsageResponse['categories'];
    let messages = 0;
    let cost = 0;
    let unpriced = 0;
    for (const row of rows) {
      const count = Number(row.count);
      const rowCost = Number(row.cost ?? 0);
      messages += count;
      cost += rowCost;
      const bucket = row.category === null ? undefined : categories[row.category as keyof typeof categories];
      if (bucket) {
        bucket.count += count;
        bucket.cost_paise = paise(rowCost);
      } else unpriced += count;
    }
    return { month, messages, cost_paise: paise(cost), categories, unpriced };
  }

  /**
   * The dashboard's pair for a month: what the business's reminders cost, and the money received
   * that month on dues reminded before the payment (by a reminder sent that month or in the 31
   * days before it).
   */
  async remindersReturn(business: BusinessRow, month: string): Promise<{ costPaise: number; collectedPaise: number }> {
    const { from, to } = monthSpan(business.timezone, month);
    const remindedFrom = `${addDays(from.slice(0, 10), -31)}${from.slice(10)}`;
    const [cost, collected] = await Promise.all([
      repo.reminderCost(this.deps.db, business.id, from, to),
      repo.collectedAfterReminders(this.deps.db, business.id, { remindedFrom, from, to }),
    ]);
    return { costPaise: paise(cost), collectedPaise: collected };
  }

  /** The business's current month, YYYY-MM. */
  currentMonth(business: BusinessRow, now: Date): string {
    return localMonth(business.timezone, now);
  }
}
