import { checkIntegrity, type IntegrityReport } from '../../db/integrity.js';
import type { Executor } from '../../db/schema.js';
import { businessTotalsCheck } from './business-totals.js';
import { openByDayCheck, pendingByDayCheck } from './by-day.js';
import { type BusinessScope, type Difference, keyset, PAGE, type VerifyCheck } from './check.js';
import { contactBalancesCheck } from './contact-balances.js';
import { contactScoresCheck } from './contact-scores.js';
import { dueCountersCheck } from './due-counters.js';
import { duePaymentsCheck } from './due-payments.js';
import { ledgerMonthsCheck } from './ledger-months.js';
import { paidByMonthCheck } from './paid-by-month.js';
import { receiptsCheck } from './receipts.js';

export type { BusinessScope, Difference, VerifyCheck } from './check.js';

/**
 * Every kept figure's check (one file each). Data versions (business_totals.data_version) are
 * counters of changes, not sums of rows: there is nothing to recompute them from.
 */
export const CHECKS: readonly VerifyCheck[] = [
  businessTotalsCheck,
  pendingByDayCheck,
  openByDayCheck,
  paidByMonthCheck,
  duePaymentsCheck,
  dueCountersCheck,
  receiptsCheck,
  contactBalancesCheck,
  contactScoresCheck,
  ledgerMonthsCheck,
];

/** Differences listed at most in a report (all are counted). */
const MAX_LISTED = 1000;

export interface VerifyReport {
  /** true only when the integrity check found nothing wrong (or could not run) and every figure agrees */
  ok: boolean;
  integrity: IntegrityReport;
  businesses: number;
  checks: { name: string; describes: string; differences: number }[];
  /** the first MAX_LISTED differences */
  differences: Difference[];
  differences_total: number;
}

/**
 * Checks the store: its integrity, then every kept figure of every business (or of one)
 * recomputed from the rows. Reads only.
 */
export async function verifyStore(
  db: Executor,
  opts: { businessId?: string; checks?: readonly VerifyCheck[]; integrity?: boolean } = {},
): Promise<VerifyReport> {
  const checks = opts.checks ?? CHECKS;
  const integrity: IntegrityReport =
    opts.integrity === false ? { status: 'skipped', note: 'not asked for', problems: [] } : await checkIntegrity(db);
  const counts = new Map(checks.map((c) => [c.name, 0]));
  const differences: Difference[] = [];
  let total = 0;
  let businesses = 0;
  for await (const business of businessesOf(db, opts.businessId)) {
    businesses++;
    for (const check of checks) {
      const found = await check.run(db, business);
      counts.set(check.name, (counts.get(check.name) ?? 0) + found.length);
      total += found.length;
      differences.push(...found.slice(0, Math.max(0, MAX_LISTED - differences.length)));
    }
  }
  return {
    ok: integrity.status !== 'failed' && total === 0,
    integrity,
    businesses,
    checks: checks.map((c) => ({ name: c.name, describes: c.describes, differences: counts.get(c.name) ?? 0 })),
    differences,
    differences_total: total,
  };
}

function businessesOf(db: Executor, only: string | undefined): AsyncGenerator<BusinessScope> {
  return keyset(
    (after) =>
      db
        .selectFrom('businesses')
        .select(['id', 'timezone'])
        .$if(only !== undefined, (q) => q.where('id', '=', only as string))
        .$if(after !== null, (q) => q.where('id', '>', after as string))
        .orderBy('id')
        .limit(PAGE)
        .execute(),
    (row) => row.id,
  );
}

/** One line per difference, for people. */
export function describeDifference(d: Difference): string {
  return `${d.check}: business ${d.business_id}, ${d.subject}, ${d.field}: kept ${d.kept ?? 'nothing'}, the rows say ${d.expected ?? 'nothing'}`;
}
