import { daysBetween } from '../lib/dates.js';

/** PRODUCT part 13's buckets of open balances by days past due. */
export const AGING_BUCKETS = ['current', 'd1_30', 'd31_60', 'd61_90', 'd90_plus'] as const;
export type AgingBucket = (typeof AGING_BUCKETS)[number];
export type Aging = Record<AgingBucket, { count: number; paise: number }>;

export function bucketOf(daysPastDue: number): AgingBucket {
  if (daysPastDue <= 0) return 'current';
  if (daysPastDue <= 30) return 'd1_30';
  if (daysPastDue <= 60) return 'd31_60';
  if (daysPastDue <= 90) return 'd61_90';
  return 'd90_plus';
}

export function agingOf(
  rows: Array<{ due_date: string; count: number | string; paise: number | string | null }>,
  today: string,
): Aging {
  const aging = Object.fromEntries(AGING_BUCKETS.map((b) => [b, { count: 0, paise: 0 }])) as Aging;
  for (const row of rows) {
    const bucket = aging[bucketOf(daysBetween(row.due_date, today))];
    bucket.count += Number(row.count);
    bucket.paise += Number(row.paise ?? 0);
  }
  return aging;
}
