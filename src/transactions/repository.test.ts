import { describe, expect, it } from 'vitest';
import { planStore } from '../db/sqlite/plans.test-support.js';
import { countTransactions, listTransactions, type TransactionFilter } from './repository.js';

/**
 * SQLite plans these queries without statistics, so which index a filter lands on is checked
 * here: a wrong pick walks every open due of the business (seconds at a million dues).
 */
describe('due list and count query plans (SQLite)', () => {
  const { db, planOf } = planStore('plans-');

  const business = '01959c4e-0000-7000-8000-000000000001';
  const contact = '01959c4e-0000-7000-8000-000000000002';

  const cases: [string, Omit<TransactionFilter, 'today'>, RegExp, RegExp?][] = [
    // a count needs no order: any index of the business's dues will do
    [
      'no filter',
      {},
      /USING INDEX transactions_business_due \(business_id=\?\)/,
      /INDEX transactions_business_\w+ \(business_id=\?\)/,
    ],
    [
      'a status',
      { status: 'overdue' },
      /transactions_business_open_due \(business_id=\? AND open=\? AND due_date<\?\)/,
    ],
    ['a contact', { contactId: contact }, /transactions_business_contact_due \(business_id=\? AND contact_id=\?\)/],
    ['a status and a contact', { status: 'outstanding', contactId: contact }, /transactions_business_contact_due/],
    ['overdue and a contact', { status: 'overdue', contactId: contact }, /transactions_business_contact_due/],
    ['a status and since', { status: 'pending', since: '2026-01-01T00:00:00.000Z' }, /transactions_business_updated/],
  ];

  const after = { due_date: '2026-11-01', created_at: '2026-10-01T00:00:00.000Z', id: contact };
  const cursorCases: [string, Omit<TransactionFilter, 'today'>, RegExp][] = [
    ['no filter', {}, /transactions_business_due \(business_id=\? AND \(due_date,created_at,id\)<\(\?,\?,\?\)\)/],
    [
      'a status',
      { status: 'outstanding' },
      /transactions_business_open_due \(business_id=\? AND open=\? AND \(due_date,created_at,id\)<\(\?,\?,\?\)\)/,
    ],
    [
      'a contact',
      { contactId: contact },
      /transactions_business_contact_due \(business_id=\? AND contact_id=\? AND \(due_date,created_at,id\)<\(\?,\?,\?\)\)/,
    ],
  ];
  for (const [name, filter, index] of cursorCases) {
    it(`starts a cursor page with ${name} inside the index range, without sorting`, async () => {
      const plan = await planOf(() => listTransactions(db, business, { ...filter, today: '2026-11-23' }, 50, 0, after));
      expect(plan).toMatch(index);
      expect(plan).not.toMatch(/TEMP B-TREE/);
    });
  }

  it('finds a deep offset page from the index alone (a deferred join), then reads only its rows', async () => {
    const plan = await planOf(() => listTransactions(db, business, { today: '2026-11-23' }, 50, 999_000));
    expect(plan).toMatch(
      /SCAN transactions USING COVERING INDEX transactions_business_due \(business_id=\?\)|SEARCH transactions USING COVERING INDEX transactions_business_due \(business_id=\?\)/,
    );
    expect(plan).toMatch(/USING INDEX sqlite_autoindex_transactions_1 \(id=\?\)|USING PRIMARY KEY/);
  });

  it('walks the due-date order for a since that matches many dues, without sorting them', async () => {
    const since = '2020-01-01T00:00:00.000Z';
    const filter = { since, sinceMatchesMany: true, today: '2026-11-23' };
    const plan = await planOf(() => listTransactions(db, business, filter, 200, 0));
    expect(plan).toMatch(/transactions_business_due \(business_id=\?\)/);
    expect(plan).not.toMatch(/TEMP B-TREE/);
    const deep = await planOf(() => listTransactions(db, business, filter, 200, 5000));
    expect(deep).toMatch(/COVERING INDEX transactions_business_due \(business_id=\?\)/);
  });

  for (const [name, filter, index, countIndex = index] of cases) {
    it(`lists with ${name} through the right index, without sorting`, async () => {
      const plan = await planOf(() => listTransactions(db, business, { ...filter, today: '2026-11-23' }, 50, 0));
      expect(plan).toMatch(index);
      if (filter.since === undefined) expect(plan).not.toMatch(/TEMP B-TREE/);
    });

    it(`counts with ${name} through the same index`, async () => {
      expect(await planOf(() => countTransactions(db, business, { ...filter, today: '2026-11-23' }))).toMatch(
        countIndex,
      );
    });
  }
});
