import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogChannel } from '../src/channels/log.js';
import { instantAt } from '../src/lib/dates.js';
import { verifyStore } from '../src/ops/verify/index.js';
import { contactOf, newDue, summaryOf } from './helpers/dues.js';
import { type Harness, STORE, startHarness } from './helpers/harness.js';

/**
 * A buyer's account under concurrency and over time: credit and open dues never side by side, one
 * lock order (no deadlock), reopened dues' reminders, the contact's updated_at, the kept credit.
 */

const TZ = 'Asia/Kolkata';
const at = (date: string, hour = 10) => instantAt(TZ, date, hour, 0).toISOString();
const NOW = at('2030-03-01', 12);
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
const signal = new AbortController().signal;

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ now: NOW });
});
afterAll(() => h.close());

async function differences(businessId: string) {
  return (await verifyStore(h.store.db, { businessId, integrity: false })).differences;
}

function freshName(prefix: string) {
  return `${prefix} ${randomBytes(3).toString('hex')}`;
}

describe('credit and new dues at once', () => {
  it('never leaves a contact with credit and an open due, whichever way the dues are created', async () => {
    h.clock.set(NOW);
    const biz = await h.newBusiness();
    const name = freshName('Advance Buyer');
    // Many small open dues: a receipt settling them all holds the contact a while.
    const rows = Array.from({ length: 150 }, () => ({ contact_name: name, amount_paise: 100, due_date: '2030-03-20' }));
    const imported = await biz.post('/v1/transactions/import', { rows });
    expect(imported.status, JSON.stringify(imported.body)).toBe(201);
    const contactId = (await biz.get(`/v1/transactions/${imported.body.data.ids[0]}`)).body.data.contact_id;
    const CREATES = 6;
    const create = (i: number) => {
      const body = { amount_paise: 300 + i, due_date: '2030-03-25' };
      switch (i % 6) {
        case 3:
          return biz.post('/v1/transactions', { ...body, contact_name: name });
        case 5:
          return biz.post('/v1/transactions/import', { rows: [{ ...body, contact_name: name }] });
        default:
          return biz.post('/v1/transactions', { ...body, contact_id: contactId });
      }
    };
    // The receipt settles the 150 dues and leaves 20,000 of credit, while dues are being created
    // (fewer requests than the pool's connections: each gets one while the receipt runs).
    const results = await Promise.all([
      biz.post(`/v1/contacts/${contactId}/payments`, { amount_paise: 35_000 }),
      ...Array.from({ length: CREATES }, (_, i) => create(i)),
      biz.post(`/v1/contacts/${contactId}/payments`, { amount_paise: 1_000 }),
    ]);
    for (const r of results) expect(r.status, JSON.stringify(r.body)).toBe(201);
    const contact = await contactOf(biz, contactId);
    expect(contact.credit_paise === 0 || contact.outstanding_paise === 0, JSON.stringify(contact)).toBe(true);
    const created = Array.from({ length: CREATES }, (_, i) => 300 + i).reduce((s, x) => s + x, 0);
    expect(contact.balance_paise).toBe(15_000 + created - 36_000);
    expect(await differences(biz.business.id)).toEqual([]);
  });

  it('settles a series due from credit the receipt left while the series was extended', async () => {
    h.clock.set(NOW);
    const biz = await h.newBusiness();
    const name = freshName('Series Buyer');
    // A monthly series whose next due is created by the recurrence worker.
    const series = await newDue(biz, {
      contact_name: name,
      amount_paise: 1_000,
      due_date: '2030-03-02',
      recurrence: { interval: 'monthly' },
    });
    await biz.post(`/v1/transactions/${series.id}/mark-paid`, {});
    h.clock.set(at('2030-04-02', 12));
    const [receipt] = await Promise.all([
      biz.post(`/v1/contacts/${series.contact_id}/payments`, { amount_paise: 5_000 }),
      h.services.transactions.repeatArrived(),
    ]);
    expect(receipt.status).toBe(201);
    const contact = await contactOf(biz, series.contact_id);
    // The series' dues of 2030-04-02 and 2030-05-02 (each written once the one before is due).
    expect(contact).toMatchObject({ outstanding_paise: 0, credit_paise: 3_000, balance_paise: -3_000 });
    expect(await differences(biz.business.id)).toEqual([]);
  });
});

describe('one lock order: the contact, then its dues', () => {
  it('confirms claims and records receipts of one contact at once without deadlock, nothing applied twice', async () => {
    h.clock.set(NOW);
    const biz = await h.newBusiness();
    const name = freshName('Claim Buyer');
    const dues = [];
    for (let i = 0; i < 6; i++) {
      dues.push(await newDue(biz, { contact_name: name, amount_paise: 10_000, due_date: `2030-03-1${i}` }));
    }
    const claims: { dueId: string; claimId: string }[] = [];
    for (const due of dues) {
      const res = await h.request('POST', `${new URL(due.pay_page_url).pathname}/claim`, {
        payload: new URLSearchParams({ reference: `UTR-${due.id.slice(-6)}` }).toString(),
        headers: FORM,
      });
      expect(res.status).toBe(303);
      const listed = await biz.get(`/v1/transactions/${due.id}/claims`);
      claims.push({ dueId: due.id, claimId: listed.body.data[0].id });
    }
    const contactId = dues[0]?.contact_id as string;
    // Claims newest due first, receipts (which lock the dues oldest first) between them: every
    // claim meets a receipt, in both orders.
    const calls = claims
      .reverse()
      .flatMap((c) => [
        biz.post(`/v1/transactions/${c.dueId}/claims/${c.claimId}/confirm`, { amount_paise: 4_000 }),
        biz.post(`/v1/contacts/${contactId}/payments`, { amount_paise: 5_000 }),
      ]);
    const results = await Promise.all(calls);
    // A claim for more than receipts left on its due is refused (400, or 409 once settled); nothing fails otherwise.
    for (const r of results) expect([200, 201, 400, 409], JSON.stringify(r.body)).toContain(r.status);
    const confirmed = results.filter((r, i) => i % 2 === 0 && r.status === 200).length;
    const received = 6 * 5_000 + confirmed * 4_000;
    const contact = await contactOf(biz, contactId);
    expect(contact.balance_paise).toBe(60_000 - received);
    for (const due of dues) {
      const payments = (await biz.get(`/v1/transactions/${due.id}/payments`)).body.data as { amount_paise: number }[];
      expect(payments.reduce((s, p) => s + p.amount_paise, 0)).toBeLessThanOrEqual(10_000);
    }
    expect(await differences(biz.business.id)).toEqual([]);
  });
});

describe('a reversal reopens dues with their reminders', () => {
  it('puts the steps still ahead back, and the scheduler sends them', async () => {
    h.clock.set(NOW);
    const biz = await h.newBusiness();
    const phone = `919${String(randomBytes(4).readUInt32BE() % 1e9).padStart(9, '0')}`;
    const due = await newDue(biz, {
      contact_name: freshName('Reopened Buyer'),
      contact_phone: phone,
      amount_paise: 8_000,
      due_date: '2030-03-10',
    });
    const steps = async () =>
      ((await biz.get(`/v1/transactions/${due.id}`)).body.data.reminders as { template: string; status: string }[])
        .filter((s) => s.status === 'scheduled')
        .map((s) => s.template);
    const all = ['reminder_upcoming', 'reminder_due_today', 'reminder_overdue_week', 'reminder_final'];
    expect(await steps()).toEqual(all);
    const paid = await biz.post(`/v1/contacts/${due.contact_id}/payments`, { amount_paise: 8_000 });
    expect(paid.status).toBe(201);
    expect(await steps()).toEqual([]);
    h.clock.advance(60_000);
    const reversed = await biz.post(`/v1/payments/${paid.body.data.receipt.id}/reverse`, { reason: 'cheque bounced' });
    expect(reversed.status).toBe(200);
    expect(await steps()).toEqual(all);
    h.clock.set(at('2030-03-07'));
    for (let i = 0; i < 5; i++) {
      if ((await h.services.reminders.runDue(signal, { businessId: biz.business.id })).length === 0) break;
    }
    const sent = (h.services.channel as LogChannel).messages.filter((m) => m.to === phone);
    expect(sent.map((m) => (m.kind === 'template' ? m.template : m.kind))).toEqual(['reminder_upcoming']);
  });
});

describe("a contact's updated_at", () => {
  it('moves with every change of its balance or credit', async () => {
    h.clock.set(NOW);
    const biz = await h.newBusiness();
    const first = await newDue(biz, { contact_name: freshName('Stamped Buyer'), amount_paise: 5_000 });
    const contactId = first.contact_id;
    let last = (await contactOf(biz, contactId)).updated_at as string;
    const moved = async (what: string, change: () => Promise<{ status: number; body: unknown }>) => {
      h.clock.advance(1_000);
      const res = await change();
      expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
      const now = (await contactOf(biz, contactId)).updated_at as string;
      // Now, or a few ms past it when one change moved the balance in several steps (each stamp
      // 1 ms past the one before).
      expect(Date.parse(now) - h.clock.now().getTime(), what).toBeGreaterThanOrEqual(0);
      expect(Date.parse(now) - h.clock.now().getTime(), what).toBeLessThan(10);
      expect(now > last, what).toBe(true);
      last = now;
      return res.body as { data: Record<string, any> };
    };
    const second = await moved('a new due', () =>
      biz.post('/v1/transactions', { contact_id: contactId, amount_paise: 3_000, due_date: '2030-04-01' }),
    );
    await moved('a payment of a due', () => biz.post(`/v1/transactions/${first.id}/payments`, { amount_paise: 1_000 }));
    await moved('an adjustment', () =>
      biz.post(`/v1/transactions/${second.data.id}/adjustments`, { kind: 'tds', amount_paise: 500 }),
    );
    const receipt = await moved('a receipt leaving credit', () =>
      biz.post(`/v1/contacts/${contactId}/payments`, { amount_paise: 20_000 }),
    );
    await moved('a reversal', () => biz.post(`/v1/payments/${receipt.data.receipt.id}/reverse`, { reason: 'mistake' }));
    await moved('credit received alone', () =>
      biz.post(`/v1/contacts/${contactId}/payments`, { amount_paise: 90_000 }),
    );
    await moved('credit used by a new due', () =>
      biz.post('/v1/transactions', { contact_id: contactId, amount_paise: 2_000, due_date: '2030-04-05' }),
    );
    expect(await differences(biz.business.id)).toEqual([]);
  });
});

describe("the summary's credit", () => {
  it('is a kept figure, checked by verify', async () => {
    h.clock.set(NOW);
    const biz = await h.newBusiness();
    const due = await newDue(biz, { contact_name: freshName('Credit Buyer'), amount_paise: 1_000 });
    await biz.post(`/v1/contacts/${due.contact_id}/payments`, { amount_paise: 3_500 });
    expect((await summaryOf(biz)).credit_paise).toBe(2_500);
    // Read from the totals: a kept figure set wrong shows in the summary, and verify names it.
    await sql`update business_totals set credit_paise = credit_paise + 7 where business_id = ${biz.business.id}
      ${STORE === 'postgres' ? sql`and shard = (select min(shard) from business_totals where business_id = ${biz.business.id})` : sql``}`.execute(
      h.store.db,
    );
    expect((await summaryOf(biz)).credit_paise).toBe(2_507);
    expect(await differences(biz.business.id)).toEqual([
      expect.objectContaining({ check: 'business_totals', field: 'credit_paise', kept: 2_507, expected: 2_500 }),
    ]);
  });
});
