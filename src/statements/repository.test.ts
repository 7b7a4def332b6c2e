import { describe, expect, it } from 'vitest';
import { planStore } from '../db/sqlite/plans.test-support.js';
import * as repo from './repository.js';

/**
 * A statement reads O(months + entries in its period): each of its reads is a range of one of the
 * contact's indexes, bounded on both sides where it reads entries (SQLite plans without
 * statistics, so a wrong pick would walk the contact's whole history). The newest entries read the
 * same indexes from their end, in their order: no sort of the contact's rows.
 */
describe('statement query plans (SQLite)', () => {
  const { db, planOf } = planStore('statement-plans-');
  const contact = '01959c4e-0000-7000-8000-000000000002';
  const since = '2026-10-01T00:00:00.000Z';
  const until = '2026-11-02T18:30:00.000Z';

  const cases: [string, () => Promise<unknown>, RegExp][] = [
    [
      'the kept months before a month',
      () => repo.keptMonths(db, contact, { side: 'before', month: '2026-10' }),
      /SEARCH contact_ledger_months USING INDEX \w+ \(contact_id=\? AND month<\?\)/,
    ],
    [
      'the kept months through a month',
      () => repo.keptMonths(db, contact, { side: 'through', month: '2026-10' }),
      /SEARCH contact_ledger_months USING INDEX \w+ \(contact_id=\? AND month<\?\)/,
    ],
    [
      'the dues',
      () => repo.duesBetween(db, contact, since, until),
      /transactions_contact_created \(contact_id=\? AND created_at>\? AND created_at<\?\)/,
    ],
    [
      'the receipts',
      () => repo.receiptsReceivedBetween(db, contact, '2026-10-01', '2026-11-02'),
      /receipts_contact_received \(contact_id=\? AND received_on>\? AND received_on<\?\)/,
    ],
    [
      'the reversals',
      () => repo.reversalsBetween(db, contact, since, until),
      /receipts_contact_reversed \(contact_id=\? AND reversed_at>\? AND reversed_at<\?\)/,
    ],
    [
      'the adjustments',
      () => repo.adjustmentsBetween(db, contact, since, until),
      /adjustments_contact_created \(contact_id=\? AND created_at>\? AND created_at<\?\)/,
    ],
    // The buyer's page: each kind's newest entries, read backwards from the index's end, no sort.
    ['the newest dues', () => repo.newestDues(db, contact, 51), /transactions_contact_created \(contact_id=\?\)/],
    ['the newest receipts', () => repo.newestReceipts(db, contact, 51), /receipts_contact_received \(contact_id=\?\)/],
    ['the newest reversals', () => repo.newestReversals(db, contact, 51), /receipts_contact_reversed \(contact_id=\?/],
    [
      'the newest adjustments',
      () => repo.newestAdjustments(db, contact, 51),
      /adjustments_contact_created \(contact_id=\?\)/,
    ],
    // The aging: the contact's kept open days alone, not its dues.
    ['the open days', () => repo.openDaysOf(db, contact), /contact_open_days .*\(contact_id=\?\)/],
  ];
  for (const [name, run, expected] of cases) {
    it(`reads ${name} by the contact's index`, async () => {
      const plan = await planOf(run);
      expect(plan).toMatch(expected);
      expect(plan).not.toMatch(/SCAN|TEMP B-TREE/);
    });
  }
});
