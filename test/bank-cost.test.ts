import { type CompiledQuery, DefaultQueryExecutor } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyStore } from '../src/ops/verify/index.js';
import { eventsOf } from './helpers/dues.js';
import { type Harness, startHarness } from './helpers/harness.js';

/**
 * What a bank statement's matched lines cost: their receipts are recorded a chunk at a time
 * (transactions/receipt-batch.ts), so the statements an upload sends stay well under one a line
 * (one receipt recorded alone takes about fourteen: locks, receipt, payment, due, totals, events, audit),
 * and the result is the same money as paying each line alone.
 */

const NOW = '2026-11-21T06:30:00.000Z';
const DUES = 120;

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ now: NOW });
});
afterAll(() => h?.close());

/** Counts the statements Kysely sends (any executor) while `work` runs. */
async function countStatements<T>(work: () => Promise<T>): Promise<{ statements: number; result: T }> {
  const base = Object.getPrototypeOf(DefaultQueryExecutor.prototype) as {
    executeQuery(this: unknown, query: CompiledQuery, ...rest: unknown[]): Promise<unknown>;
  };
  const original = base.executeQuery;
  let n = 0;
  base.executeQuery = function (query, ...rest) {
    n++;
    return original.call(this, query, ...rest);
  };
  try {
    const result = await work();
    return { statements: n, result };
  } finally {
    base.executeQuery = original;
  }
}

describe('a long statement of matched lines', () => {
  it('sends well under one statement a line, and pays each due as the lines say', async () => {
    const biz = await h.newBusiness();
    const rows = Array.from({ length: DUES }, (_, i) => ({
      contact_name: `Cost Buyer ${Math.floor(i / 3)}`,
      amount_paise: 100_000,
      due_date: '2026-12-01',
      invoice_number: `CST-${i}`,
    }));
    const imported = await biz.post('/v1/transactions/import', { rows });
    expect(imported.status, imported.text).toBe(201);
    // Two lines per due: 300 rupees, then 700 (settles it), then a third line for every 4th due,
    // whose invoice is paid by then: its payer (the account name the earlier lines taught) takes
    // it, as credit of the buyer, whose dues are all paid by then.
    const lines: string[] = [];
    for (let i = 0; i < DUES; i++) lines.push(`NEFT CR-SBIN-COST BUYER-CST-${i} FIRST,A${i},300.00`);
    for (let i = 0; i < DUES; i++) lines.push(`NEFT CR-SBIN-COST BUYER-CST-${i} REST,B${i},700.00`);
    for (let i = 0; i < DUES; i += 4) lines.push(`NEFT CR-SBIN-COST BUYER-CST-${i} AGAIN,C${i},1.00`);
    const csv = `Date,Narration,Ref No.,Withdrawal,Deposit,Balance\n${lines
      .map((l) => {
        const [text, ref, amount] = l.split(',');
        return `20/11/2026,"${text}",${ref},,"${amount}",`;
      })
      .join('\n')}\n`;

    const { statements, result: res } = await countStatements(() =>
      biz.post('/v1/bank-statements', undefined, { payload: csv, headers: { 'content-type': 'text/csv' } }),
    );
    expect(res.status, res.text).toBe(201);
    expect(res.body.data).toMatchObject({ credits: lines.length, matched: lines.length });
    // Recorded one receipt at a time (with their audit entries), these 270 lines took 3,851 statements.
    expect(statements).toBeLessThan(lines.length / 2);

    const list = await biz.get('/v1/transactions?status=paid&limit=1');
    expect(list.body.total).toBe(DUES);
    expect((await verifyStore(h.store.db, { businessId: biz.business.id, integrity: false })).differences).toEqual([]);
    expect(await eventsOf(h, biz.business.id, 'transaction.paid')).toHaveLength(DUES);
    expect(await eventsOf(h, biz.business.id, 'payment.received')).toHaveLength(2 * DUES);
    // The third lines' 30 rupees are the buyers' credit; every rupee is this month's money.
    expect((await biz.get('/v1/summary')).body.data).toMatchObject({
      credit_paise: (DUES / 4) * 100,
      paid_this_month_paise: DUES * 100_000 + (DUES / 4) * 100,
    });
  });
});
