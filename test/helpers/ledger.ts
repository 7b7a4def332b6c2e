import { expect } from 'vitest';
import { overdueSweeper } from '../../src/workers/overdue-sweeper.js';
import { type Harness, type TestBusiness, uniquePhone } from './harness.js';

const DAY = 86_400_000;

/**
 * A business's ledger with every kind of kept figure moved: dues of three buyers (with phones)
 * over past and future dates, part payments, a due paid in full, one settled by lowering its
 * amount, one deleted, the overdue sweep, a pay-page claim, a sent reminder, a receipt leaving
 * credit that a later due uses, a reversed receipt and an adjustment. Answers the ids.
 */
export async function seedLedger(h: Harness, biz: TestBusiness, tag = 'Ledger') {
  const ok = (res: { status: number; text: string }, status = 200) => expect(res.status, res.text).toBe(status);
  const phones = [uniquePhone(), uniquePhone(), uniquePhone()];
  const dates = ['2026-10-01', '2026-11-15', '2026-12-20', '2026-11-28', '2026-09-10', '2027-01-05'];
  const dues: { id: string; contact_id: string; pay_page_url: string }[] = [];
  for (const [i, date] of dates.entries()) {
    const res = await biz.post('/v1/transactions', {
      amount_paise: 10_000 * (i + 1),
      due_date: date,
      contact_name: `${tag} Buyer ${i % 3}`,
      contact_phone: phones[i % 3],
      invoice_number: `INV-${tag}-${i}`,
    });
    ok(res, 201);
    dues.push(res.body.data);
  }
  const [a, b, c, d, e] = dues as [
    (typeof dues)[0],
    (typeof dues)[0],
    (typeof dues)[0],
    (typeof dues)[0],
    (typeof dues)[0],
  ];
  ok(await biz.post(`/v1/transactions/${a.id}/payments`, { amount_paise: 4_000, utr: 'UTR1' }), 201);
  ok(await biz.post(`/v1/transactions/${b.id}/mark-paid`, { utr: 'UTR2' }));
  ok(await biz.post(`/v1/transactions/${c.id}/payments`, { amount_paise: 5_000 }), 201);
  ok(await biz.patch(`/v1/transactions/${c.id}`, { amount_paise: 5_000 }));
  ok(await biz.delete(`/v1/transactions/${d.id}`));
  ok(await biz.post(`/v1/transactions/${e.id}/remind`, {}));
  const claim = await h.request('POST', `${new URL(a.pay_page_url).pathname}/claim`, {
    payload: new URLSearchParams({ reference: 'UPI-REF-1' }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  expect(claim.status, claim.text).toBeLessThan(400);
  // The buyer's account: a receipt that settles a due and leaves credit, a new due the credit
  // pays, a receipt reversed, an adjustment (TDS).
  const buyer1 = b.contact_id;
  const [f] = dues.slice(5);
  const receipt = await biz.post(`/v1/contacts/${e.contact_id}/payments`, { amount_paise: 60_000, utr: 'UTR-R1' });
  ok(receipt, 201);
  const later = await biz.post('/v1/transactions', {
    amount_paise: 7_000,
    due_date: '2026-12-28',
    contact_id: e.contact_id,
  });
  ok(later, 201);
  const reversed = await biz.post(`/v1/contacts/${f?.contact_id ?? buyer1}/payments`, { amount_paise: 1_500 });
  ok(reversed, 201);
  ok(await biz.post(`/v1/payments/${reversed.body.data.receipt.id}/reverse`, { reason: 'entered twice' }));
  ok(
    await biz.post(`/v1/transactions/${f?.id}/adjustments`, { kind: 'tds', amount_paise: 1_200, reason: '2% TDS' }),
    201,
  );
  h.clock.advance(DAY);
  await overdueSweeper({ db: h.store.db, clock: h.clock }).runOnce(new AbortController().signal);
  return { dues, contactIds: [...new Set(dues.map((x) => x.contact_id))] };
}
