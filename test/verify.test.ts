import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../src/lib/dates.js';
import { PAGE } from '../src/ops/verify/check.js';
import { verifyStore } from '../src/ops/verify/index.js';
import { type Harness, STORE, startHarness, type TestBusiness } from './helpers/harness.js';
import { seedLedger } from './helpers/ledger.js';

// 12:00 in Kolkata.
const NOW = '2026-11-21T06:30:00.000Z';

let h: Harness;
let biz: TestBusiness;
let ledger: Awaited<ReturnType<typeof seedLedger>>;
beforeAll(async () => {
  h = await startHarness({ now: NOW });
  biz = await h.newBusiness();
  ledger = await seedLedger(h, biz);
});
afterAll(() => h.close());

const verifyBiz = () => verifyStore(h.store.db, { businessId: biz.business.id });

/** `where` narrowed to one row: PostgreSQL keeps a figure in several rows (its shards), SQLite in one. */
function oneRow(table: string, where: string) {
  return STORE === 'postgres' ? `${where} and shard = (select min(shard) from ${table} where ${where})` : where;
}

/** Runs `change` (SQL that corrupts one kept figure), verifies, then `undo`es it. */
async function corrupted(change: string, undo: string) {
  await sql.raw(change).execute(h.store.db);
  try {
    return await verifyBiz();
  } finally {
    await sql.raw(undo).execute(h.store.db);
  }
}

describe('verify', () => {
  it('finds nothing wrong in a store written through the API, every check run', async () => {
    const report = await verifyStore(h.store.db);
    expect(report.differences).toEqual([]);
    expect(report.ok).toBe(true);
    expect(report.integrity.status).toBe(STORE === 'sqlite' ? 'ok' : 'skipped');
    expect(report.businesses).toBeGreaterThanOrEqual(1);
    expect(report.checks.map((c) => c.name)).toEqual([
      'business_totals',
      'pending_by_day',
      'open_by_day',
      'paid_by_month',
      'due_payments',
      'due_counters',
      'receipts',
      'contact_balances',
      'contact_scores',
      'ledger_months',
    ]);
  });

  it('names the business, the figure, what is kept and what the rows say when a running total is off', async () => {
    const id = biz.business.id;
    const report = await corrupted(
      `update business_totals set pending_paise = pending_paise + 7 where ${oneRow('business_totals', `business_id = '${id}'`)}`,
      `update business_totals set pending_paise = pending_paise - 7 where ${oneRow('business_totals', `business_id = '${id}'`)}`,
    );
    expect(report.ok).toBe(false);
    expect(report.differences).toHaveLength(1);
    const [d] = report.differences;
    expect(d).toMatchObject({ check: 'business_totals', business_id: id, subject: 'totals', field: 'pending_paise' });
    expect(Number(d?.kept) - Number(d?.expected)).toBe(7);
    expect(report.checks.find((c) => c.name === 'business_totals')?.differences).toBe(1);
    expect((await verifyBiz()).ok).toBe(true);
  });

  it('names the day of a per-day aggregate that is off', async () => {
    const id = biz.business.id;
    for (const table of ['open_by_day', 'pending_by_day']) {
      const row = await sql<{
        due_date: string;
      }>`select due_date from ${sql.table(table)} where business_id = ${id} limit 1`
        .execute(h.store.db)
        .then((r) => r.rows[0]);
      expect(row, table).toBeDefined();
      const day = String(row?.due_date).slice(0, 10);
      const where = oneRow(table, `business_id = '${id}' and due_date = '${day}'`);
      const report = await corrupted(
        `update ${table} set due_count = due_count + 1 where ${where}`,
        `update ${table} set due_count = due_count - 1 where ${where}`,
      );
      expect(report.ok, table).toBe(false);
      expect(report.differences.map((x) => [x.check, x.subject, x.field])).toEqual([
        [table, `day ${day}`, 'due_count'],
      ]);
    }
  });

  it('names the month of money received that is off', async () => {
    const id = biz.business.id;
    const report = await corrupted(
      `update paid_by_month set due_paise = due_paise - 1 where ${oneRow('paid_by_month', `business_id = '${id}' and month = '2026-11'`)}`,
      `update paid_by_month set due_paise = due_paise + 1 where ${oneRow('paid_by_month', `business_id = '${id}' and month = '2026-11'`)}`,
    );
    expect(report.differences.map((x) => [x.check, x.subject, x.field])).toEqual([
      ['paid_by_month', 'month 2026-11', 'due_paise'],
    ]);
  });

  it('names a due whose amount paid disagrees with its payments, and one whose counters are off', async () => {
    const due = ledger.dues[0]?.id as string;
    const paid = await corrupted(
      `update transactions set amount_paid_paise = amount_paid_paise + 100 where id = '${due}'`,
      `update transactions set amount_paid_paise = amount_paid_paise - 100 where id = '${due}'`,
    );
    // The contact's kept balance follows the due through the store's trigger: it is off by as much.
    expect(new Set(paid.differences.map((d) => d.check))).toEqual(new Set(['due_payments', 'contact_balances']));
    expect(paid.differences).toContainEqual({
      check: 'due_payments',
      business_id: biz.business.id,
      subject: `due ${due}`,
      field: 'amount_paid_paise',
      kept: 4_100,
      expected: 4_000,
    });
    const claims = await corrupted(
      `update transactions set claim_count = 5 where id = '${due}'`,
      `update transactions set claim_count = 1 where id = '${due}'`,
    );
    expect(claims.differences).toMatchObject([{ check: 'due_counters', field: 'claim_count', kept: 5, expected: 1 }]);
  });

  it('names a contact whose payment-score sums are off', async () => {
    const paidContact = ledger.dues[1]?.contact_id as string;
    const report = await corrupted(
      `update contact_scores set weighted = weighted * 1.01 where contact_id = '${paidContact}'`,
      `update contact_scores set weighted = weighted / 1.01 where contact_id = '${paidContact}'`,
    );
    expect(report.differences).toMatchObject([
      { check: 'contact_scores', subject: `contact ${paidContact}`, field: 'weighted' },
    ]);
    expect((await verifyBiz()).ok).toBe(true);
  });

  it("names a contact's statement month that is off", async () => {
    const contact = ledger.dues[0]?.contact_id as string;
    const where = `contact_id = '${contact}' and month = '2026-11'`;
    const report = await corrupted(
      `update contact_ledger_months set paise = paise + 3 where ${where}`,
      `update contact_ledger_months set paise = paise - 3 where ${where}`,
    );
    expect(report.differences).toEqual([
      expect.objectContaining({
        check: 'ledger_months',
        subject: `contact ${contact} month 2026-11`,
        field: 'paise',
        kept: Number(report.differences[0]?.expected) + 3,
      }),
    ]);
    expect((await verifyBiz()).ok).toBe(true);
  });

  it("names a contact's open day and count of dues that are off, and an emptied day left behind", async () => {
    const open = await h.store.db
      .selectFrom('contact_open_days as d')
      .innerJoin('contacts as c', 'c.id', 'd.contact_id')
      .select(['d.contact_id', 'd.day'])
      .where('c.business_id', '=', biz.business.id)
      .where('d.due_count', '>', 0)
      .executeTakeFirstOrThrow();
    const due = { contact_id: open.contact_id, due_date: open.day };
    const contact = due.contact_id;
    const where = `contact_id = '${contact}' and day = '${due.due_date}'`;
    const day = await corrupted(
      `update contact_open_days set balance_paise = balance_paise + 7, scored_paise = scored_paise - 2 where ${where}`,
      `update contact_open_days set balance_paise = balance_paise - 7, scored_paise = scored_paise + 2 where ${where}`,
    );
    expect(day.differences.map((x) => [x.check, x.subject, x.field, Number(x.kept) - Number(x.expected)])).toEqual([
      ['contact_balances', `contact ${contact} day ${due.due_date}`, 'balance_paise', 7],
      ['contact_balances', `contact ${contact} day ${due.due_date}`, 'scored_paise', -2],
    ]);
    const count = await corrupted(
      `update contacts set due_count = due_count + 1 where id = '${contact}'`,
      `update contacts set due_count = due_count - 1 where id = '${contact}'`,
    );
    expect(count.differences.map((x) => [x.subject, x.field, Number(x.kept) - Number(x.expected)])).toEqual([
      [`contact ${contact}`, 'due_count', 1],
    ]);
    const emptied = await corrupted(
      `insert into contact_open_days (contact_id, day, due_count, balance_paise, scored_paise) values ('${contact}', '1999-01-01', 0, 0, 0)`,
      `delete from contact_open_days where contact_id = '${contact}' and day = '1999-01-01'`,
    );
    expect(emptied.differences.map((x) => [x.subject, x.field])).toEqual([
      [`contact ${contact} day 1999-01-01`, 'emptied_day'],
    ]);
    expect((await verifyBiz()).ok).toBe(true);
  });

  it("reads a business's open days and statement months past one page, and finds a difference on the last", async () => {
    const big = await h.newBusiness();
    const buyers = PAGE + 100;
    // A buyer each, on a day each: one open day and one statement month per buyer.
    const rows = Array.from({ length: buyers }, (_, i) => ({
      contact_name: `Page Buyer ${String(i).padStart(5, '0')}`,
      amount_paise: 100 + i,
      due_date: addDays('2030-01-01', i),
    }));
    const imported = await big.post('/v1/transactions/import', { rows });
    expect(imported.status, JSON.stringify(imported.body)).toBe(201);
    const verifyBig = () => verifyStore(h.store.db, { businessId: big.business.id });
    const clean = await verifyBig();
    expect(clean.differences).toEqual([]);

    const lastDay = await h.store.db
      .selectFrom('contact_open_days as d')
      .innerJoin('contacts as c', 'c.id', 'd.contact_id')
      .select(['d.contact_id', 'd.day'])
      .where('c.business_id', '=', big.business.id)
      .orderBy('d.contact_id', 'desc')
      .orderBy('d.day', 'desc')
      .executeTakeFirstOrThrow();
    const lastMonth = await h.store.db
      .selectFrom('contact_ledger_months')
      .select(['contact_id', 'month'])
      .where('business_id', '=', big.business.id)
      .orderBy('contact_id', 'desc')
      .orderBy('month', 'desc')
      .executeTakeFirstOrThrow();
    const counts = await h.store.db
      .selectFrom('contacts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('business_id', '=', big.business.id)
      .executeTakeFirstOrThrow();
    expect(Number(counts.n)).toBeGreaterThan(PAGE);
    const day = `contact_id = '${lastDay.contact_id}' and day = '${lastDay.day}'`;
    const month = `contact_id = '${lastMonth.contact_id}' and month = '${lastMonth.month}'`;
    await sql.raw(`update contact_open_days set balance_paise = balance_paise + 5 where ${day}`).execute(h.store.db);
    await sql.raw(`update contact_ledger_months set paise = paise + 3 where ${month}`).execute(h.store.db);
    try {
      const report = await verifyBig();
      expect(report.differences.map((x) => [x.check, x.subject, x.field, Number(x.kept) - Number(x.expected)])).toEqual(
        [
          ['contact_balances', `contact ${lastDay.contact_id} day ${lastDay.day}`, 'balance_paise', 5],
          ['ledger_months', `contact ${lastMonth.contact_id} month ${lastMonth.month}`, 'paise', 3],
        ],
      );
    } finally {
      await sql.raw(`update contact_open_days set balance_paise = balance_paise - 5 where ${day}`).execute(h.store.db);
      await sql.raw(`update contact_ledger_months set paise = paise - 3 where ${month}`).execute(h.store.db);
    }
  });

  it.skipIf(STORE !== 'postgres')(
    'checks the indexes through amcheck on PostgreSQL when the database has it',
    async () => {
      await sql`create extension if not exists amcheck`.execute(h.store.db);
      const report = await verifyBiz();
      expect(report.integrity.status).toBe('ok');
      expect(report.integrity.note).toMatch(/amcheck: \d+ B-tree indexes/);
      expect(report.ok).toBe(true);
    },
  );
});
