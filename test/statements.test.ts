import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { signInByLink } from './helpers/dashboard.js';
import { newDue } from './helpers/dues.js';
import { type Harness, STORE, startHarness } from './helpers/harness.js';

// 2026-11-21 12:00 in Kolkata.
const NOW = '2026-11-21T06:30:00.000Z';
const DAY = 86_400_000;

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ now: NOW });
});
afterAll(() => h.close());
beforeEach(() => h.clock.set(NOW));

describe('GET /v1/contacts/{id}/statement', () => {
  it('lists dues, payments, adjustments and reversals with an exact running balance, JSON and CSV', async () => {
    const biz = await h.newBusiness();
    // 10 Nov: an old due (before the period asked below).
    h.clock.set(new Date(Date.parse(NOW) - 11 * DAY).toISOString());
    const old = await newDue(biz, { contact_name: 'Ledger Buyer', amount_paise: 5_000, invoice_number: 'INV-1' });
    h.clock.set(new Date(Date.parse(NOW) - 5 * DAY).toISOString()); // 16 Nov
    const due = await newDue(biz, { contact_name: 'Ledger Buyer', amount_paise: 10_000 });
    const paid = await biz.post(`/v1/contacts/${due.contact_id}/payments`, {
      amount_paise: 7_000,
      utr: 'UTR-7',
      received_on: '2026-11-15',
    });
    h.clock.set(new Date(Date.parse(NOW) - 2 * DAY).toISOString()); // 19 Nov
    await biz.post(`/v1/transactions/${due.id}/adjustments`, { kind: 'tds', amount_paise: 200, reason: 'TDS' });
    h.clock.set(NOW);
    await biz.post(`/v1/payments/${paid.body.data.receipt.id}/reverse`, { reason: 'bounced' });

    const res = await biz.get(`/v1/contacts/${due.contact_id}/statement?from=2026-11-12&to=2026-11-21`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const s = res.body.data;
    expect(s).toMatchObject({ from: '2026-11-12', to: '2026-11-21', opening_balance_paise: 5_000 });
    expect(
      s.entries.map((e: Record<string, unknown>) => [e.date, e.kind, e.debit_paise, e.credit_paise, e.balance_paise]),
    ).toEqual([
      ['2026-11-15', 'payment', 0, 7_000, -2_000],
      ['2026-11-16', 'due', 10_000, 0, 8_000],
      ['2026-11-19', 'adjustment', 0, 200, 7_800],
      ['2026-11-21', 'reversal', 7_000, 0, 14_800],
    ]);
    expect(s.closing_balance_paise).toBe(14_800);
    expect((await biz.get(`/v1/contacts/${due.contact_id}`)).body.data.balance_paise).toBe(14_800);
    expect(s.entries[1]).toMatchObject({ transaction_id: due.id, receipt_id: null });
    expect(s.entries[0]).toMatchObject({
      receipt_id: paid.body.data.receipt.id,
      description: expect.stringContaining('UTR-7'),
    });
    expect(s.aging).toMatchObject({ current: { count: 2, paise: 14_800 }, d1_30: { count: 0, paise: 0 } });

    // The whole history from the first due: opening 0.
    const all = (await biz.get(`/v1/contacts/${due.contact_id}/statement?from=2026-11-01`)).body.data;
    expect(all.opening_balance_paise).toBe(0);
    expect(all.entries[0]).toMatchObject({
      kind: 'due',
      transaction_id: old.id,
      debit_paise: 5_000,
      balance_paise: 5_000,
    });
    expect(all.closing_balance_paise).toBe(14_800);
    // A period in the past: its closing balance is the balance then.
    const past = (await biz.get(`/v1/contacts/${due.contact_id}/statement?from=2026-11-01&to=2026-11-15`)).body.data;
    expect(past.closing_balance_paise).toBe(-2_000);

    const csv = await biz.get(`/v1/contacts/${due.contact_id}/statement?from=2026-11-12`, {
      headers: { accept: 'text/csv' },
    });
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    const lines = csv.text.trim().split('\r\n');
    expect(lines[0]).toBe('date,kind,transaction_id,receipt_id,description,debit_paise,credit_paise,balance_paise');
    expect(lines).toHaveLength(5);
    expect(lines[4]).toMatch(/^2026-11-21,reversal,,[0-9a-f-]{36},Payment reversed: bounced,7000,0,14800$/);
  });

  it('defaults to the last 90 days; answers 400 for bad dates and 404 for foreign contacts', async () => {
    const biz = await h.newBusiness();
    const other = await h.newBusiness();
    const due = await newDue(biz, { contact_name: 'Range Buyer', amount_paise: 1_000 });
    const res = await biz.get(`/v1/contacts/${due.contact_id}/statement`);
    expect(res.body.data).toMatchObject({ from: '2026-08-23', to: '2026-11-21', closing_balance_paise: 1_000 });
    for (const [query, field] of [
      ['from=2026-02-30', 'from'],
      ['to=tomorrow', 'to'],
      ['from=2026-11-21&to=2026-11-20', 'from'],
      ['since=2026-11-01', 'since'],
    ]) {
      const bad = await biz.get(`/v1/contacts/${due.contact_id}/statement?${query}`);
      expect(bad.status, query).toBe(400);
      expect(bad.body.error.message, query).toContain(field);
    }
    expect((await other.get(`/v1/contacts/${due.contact_id}/statement`)).status).toBe(404);
  });
});

describe.skipIf(STORE !== 'postgres')('reading an account while a write holds the buyer (PostgreSQL)', () => {
  /**
   * Runs the read while `holder` keeps the buyer's row locked, as a receipt does until it commits:
   * the read must answer without ever waiting on it. Each round asks PostgreSQL whether any backend
   * is blocked by the holder (bounded: 1,000 rounds).
   */
  async function answersBesideTheLock(holder: pg.Client, read: () => Promise<{ status: number; text: string }>) {
    let answer: { status: number; text: string } | undefined;
    const reading = read().then((r) => {
      answer = r;
    });
    for (let round = 0; answer === undefined; round++) {
      const { rows } = await holder.query<{ n: number }>(
        'select count(*)::int as n from pg_stat_activity where pg_backend_pid() = any(pg_blocking_pids(pid))',
      );
      if ((rows[0]?.n ?? 0) > 0) {
        await holder.query('rollback');
        await reading;
        throw new Error('the read waited for the lock of the write on the buyer');
      }
      if (round >= 1_000) throw new Error('the read neither answered nor waited in 1,000 rounds');
    }
    await reading;
    return answer as { status: number; text: string };
  }

  it("answers the statement, the buyer's pages, payments and claims without waiting for it", async () => {
    const biz = await h.newBusiness();
    const due = await newDue(biz, { contact_name: 'Busy Buyer', amount_paise: 9_000 });
    const paid = await biz.post(`/v1/contacts/${due.contact_id}/payments`, { amount_paise: 2_000 });
    expect(paid.status, paid.text).toBe(201);
    const contact = (await biz.get(`/v1/contacts/${due.contact_id}`)).body.data;
    const owner = await signInByLink(h, biz.business.id);
    const holder = new pg.Client({ connectionString: h.databaseUrl });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query('select 1 from contacts where id = $1 for update', [due.contact_id]);
      const statement = await answersBesideTheLock(holder, () => biz.get(`/v1/contacts/${due.contact_id}/statement`));
      expect(statement.status, statement.text).toBe(200);
      expect(JSON.parse(statement.text).data.closing_balance_paise).toBe(7_000);
      const payments = await answersBesideTheLock(holder, () => biz.get(`/v1/contacts/${due.contact_id}/payments`));
      expect(payments.status, payments.text).toBe(200);
      expect(JSON.parse(payments.text).data).toHaveLength(1);
      for (const path of [`/v1/transactions/${due.id}/claims`, `/v1/contacts/${due.contact_id}/claims`]) {
        const claims = await answersBesideTheLock(holder, () => biz.get(path));
        expect(claims.status, claims.text).toBe(200);
        expect(JSON.parse(claims.text).data).toEqual([]);
      }
      const ledger = await answersBesideTheLock(holder, () => owner.get(`/dashboard/contacts/${due.contact_id}`));
      expect(ledger.status).toBe(200);
      expect(ledger.text).toContain('Busy Buyer');
      const account = await answersBesideTheLock(holder, () => h.request('GET', new URL(contact.account_url).pathname));
      expect(account.status).toBe(200);
      expect(account.text).toContain('₹70.00');
    } finally {
      await holder.query('rollback');
      await holder.end();
    }
  });
});
