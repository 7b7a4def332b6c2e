import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BulkService } from '../src/bulk/service.js';
import type { BusinessRow } from '../src/businesses/repository.js';
import type { Executor } from '../src/db/schema.js';
import type { DeferredTotals, PreparedDues } from '../src/transactions/new-due.js';
import { TransactionService } from '../src/transactions/service.js';
import { eventsOf, summaryOf } from './helpers/dues.js';
import { type Harness, startHarness, type TestBusiness } from './helpers/harness.js';

/**
 * An import of several chunks (500 rows each, src/bulk/service.ts): all or nothing, and exactly
 * what the same rows created one by one would have written. On the store TEST_STORE names.
 */

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ now: '2026-11-21T06:30:00.000Z' });
});
afterAll(() => h.close());

/** `n` rows over 37 due dates (past and ahead), 23 contacts (some rows give a phone), one invoice each. */
function rows(n: number, tag: string) {
  return Array.from({ length: n }, (_, i) => {
    const day = new Date(Date.UTC(2026, 10, 21) + ((i % 37) - 18) * 86_400_000).toISOString().slice(0, 10);
    return {
      contact_name: `Chunk Buyer ${i % 23}`,
      ...(i % 5 === 0 && { contact_phone: `98765 ${String(10000 + (i % 23)).slice(-5)}` }),
      amount_paise: 100 + ((i * 37) % 9000),
      due_date: day,
      invoice_number: `${tag}-${i}`,
      ...(i % 7 === 0 && { notes: `row ${i}, "quoted"\nand a second line` }),
    };
  });
}

/** What a business holds, as the API and its outbox show it. */
async function holdings(biz: TestBusiness) {
  const contacts = (await biz.get('/v1/contacts?limit=100')).body.data as { name: string; phone: string | null }[];
  const events = await eventsOf(h, biz.business.id);
  const reminders = await h.store.db
    .selectFrom('reminders')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('business_id', '=', biz.business.id)
    .executeTakeFirstOrThrow();
  return {
    total: (await biz.get('/v1/transactions?limit=1')).body.total as number,
    summary: await summaryOf(biz),
    aging: (await biz.get('/v1/aging')).body,
    contacts: contacts.map((c) => [c.name, c.phone]).sort(),
    events: {
      contactCreated: events.filter((e) => e.type === 'contact.created').length,
      transactionCreated: events.filter((e) => e.type === 'transaction.created').length,
      other: events.filter((e) => e.type !== 'contact.created' && e.type !== 'transaction.created').length,
    },
    reminders: Number(reminders.n),
  };
}

describe('POST /v1/transactions/import of several chunks', () => {
  it('writes what the same rows created one by one write: totals, aging, contacts, one event per due, reminders', async () => {
    const body = rows(1_050, 'ONE');
    const alone = await h.newBusiness();
    for (const row of body) {
      const res = await alone.post('/v1/transactions', row);
      expect(res.status, res.text).toBe(201);
    }
    const bulk = await h.newBusiness();
    const res = await bulk.post('/v1/transactions/import', { rows: body });
    expect(res.status, res.text).toBe(201);
    expect(res.body.data).toMatchObject({ created: 1_050, contacts_created: 23 });
    expect(new Set(res.body.data.ids).size).toBe(1_050);

    const expected = await holdings(alone);
    expect(expected.total).toBe(1_050);
    expect(expected.events).toEqual({ contactCreated: 23, transactionCreated: 1_050, other: 0 });
    expect(expected.reminders).toBeGreaterThan(1_050);
    expect(await holdings(bulk)).toEqual(expected);
  });

  it('refused in its last chunk (row 1,150 names another business contact), leaves nothing behind', async () => {
    const other = await h.newBusiness();
    const theirs = await other.post('/v1/transactions', {
      contact_name: 'Their Buyer',
      amount_paise: 100,
      due_date: '2026-12-01',
    });
    const biz = await h.newBusiness();
    const empty = await holdings(biz);
    const body: Record<string, unknown>[] = rows(1_200, 'REF');
    body[1_149] = { contact_id: theirs.body.data.contact_id, amount_paise: 100, due_date: '2026-12-01' };
    const res = await biz.post('/v1/transactions/import', { rows: body });
    expect(res.status).toBe(400);
    expect(res.body.error.rows).toEqual([{ row: 1_150, field: 'contact_id', message: expect.any(String) }]);
    expect(await holdings(biz)).toEqual(empty);
    // The same rows without it go in afterwards: nothing of the refused import was kept.
    body[1_149] = rows(1_150, 'REF')[1_149] as Record<string, unknown>;
    const again = await biz.post('/v1/transactions/import', { rows: body });
    expect(again.status, again.text).toBe(201);
    expect(again.body.data.created).toBe(1_200);
  });
});

describe('BulkService.importDues when a chunk fails while it is written', () => {
  /** A TransactionService whose writePrepared fails on its `failOn`-th call, after writing (or before). */
  function failingOn(failOn: number, after: boolean) {
    const { services, store, clock } = h;
    let calls = 0;
    const transactions = new (class extends TransactionService {
      override async writePrepared(
        t: Executor,
        business: BusinessRow,
        prepared: PreparedDues,
        totals?: DeferredTotals,
      ) {
        calls++;
        if (calls === failOn && !after) throw new Error(`chunk ${calls} failed`);
        const written = await super.writePrepared(t, business, prepared, totals);
        if (calls === failOn) throw new Error(`chunk ${calls} failed`);
        return written;
      }
    })({ db: store.db, clock, contacts: services.contacts, idempotency: services.idempotency });
    return new BulkService({
      db: store.db,
      transactions,
      idempotency: services.idempotency,
      publicBaseUrl: h.config.publicBaseUrl,
    });
  }

  for (const [failOn, after, what] of [
    [4, true, 'in its last chunk, after that chunk was written'],
    [2, false, 'in a middle chunk, while the next one is being built'],
  ] as const) {
    it(`rolls back everything when the write fails ${what}`, async () => {
      const biz = await h.newBusiness();
      const empty = await holdings(biz);
      const progress: number[] = [];
      await expect(
        failingOn(failOn, after).importDues(
          biz.business,
          { rows: rows(1_600, 'FAIL') },
          { onProgress: (done) => progress.push(done) },
        ),
      ).rejects.toThrow(`chunk ${failOn} failed`);
      expect(progress).toEqual([500, 1000, 1500].slice(0, failOn - 1));
      expect(await holdings(biz)).toEqual(empty);
      // The store is left as it was: the same import through the real service goes in whole.
      const done = await h.services.bulk.importDues(biz.business, { rows: rows(1_600, 'FAIL') });
      expect(done.created).toBe(1_600);
      expect((await holdings(biz)).total).toBe(1_600);
    });
  }
});
