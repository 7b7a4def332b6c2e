import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { verifyStore } from '../src/ops/verify/index.js';
import { type DashboardClient, signInByLink } from './helpers/dashboard.js';
import { eventsOf } from './helpers/dues.js';
import { type Harness, startHarness, type TestBusiness, uniquePhone } from './helpers/harness.js';
import { addStaff, cli, signInAsUser } from './helpers/staff.js';
import { sendWhatsAppMessage } from './helpers/whatsapp-inbound.js';

/**
 * Merging two buyers that are one person, over HTTP as the dashboard's forms are sent without
 * JavaScript: everything of the merged buyer moves to the kept one in one transaction, every kept
 * figure equals its recomputation from the rows (`verify`), refusals change nothing.
 */
const APP_SECRET = 'merge-app-secret-0123456789';
// 11:30 in Kolkata.
const NOW = '2026-03-10T06:00:00.000Z';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ now: NOW, env: { WHATSAPP_APP_SECRET: APP_SECRET } });
});
afterAll(() => h?.close());
beforeEach(() => h.clock.set(NOW));

async function due(biz: TestBusiness, body: Record<string, unknown>) {
  const res = await biz.post('/v1/transactions', { due_date: '2026-03-20', ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.data as { id: string; contact_id: string };
}

async function contact(biz: TestBusiness, id: string) {
  const res = await biz.get(`/v1/contacts/${id}`);
  expect(res.status, res.text).toBe(200);
  return res.body.data;
}

const upload = (biz: TestBusiness, csv: string) =>
  biz.post('/v1/bank-statements', undefined, { payload: csv, headers: { 'content-type': 'text/csv' } });

function statement(lines: [string, string][]) {
  const rows = lines.map(([text, amount]) => `09/03/2026,"${text}",,,"${amount}",`);
  return `Statement of account\n\nDate,Narration,Ref No.,Withdrawal,Deposit,Balance\n${rows.join('\n')}\n`;
}

async function expectVerified(businessId: string) {
  const report = await verifyStore(h.store.db, { businessId, integrity: false });
  expect(report.differences, JSON.stringify(report.differences)).toEqual([]);
  expect(report.ok).toBe(true);
}

/** Everything a refused merge could have changed, read through the API. */
async function snapshot(biz: TestBusiness) {
  const read = async (url: string) => (await biz.get(url)).body;
  return {
    contacts: await read('/v1/contacts?limit=100'),
    dues: await read('/v1/transactions?limit=100'),
    summary: await read('/v1/summary'),
    bank: await read('/v1/bank-credits'),
  };
}

/** Posts the merge form as the confirmation page sends it (its CSRF token). */
async function merge(client: DashboardClient, keptId: string, mergedId: string) {
  return client.submit(`/dashboard/contacts/${keptId}`, `/dashboard/contacts/${keptId}/merge`, { merge_id: mergedId });
}

/** Two buyers that are one person: the kept one with a phone, the typo with dues, money, a claim, a reply and bank credits. */
async function twoBuyers(biz: TestBusiness) {
  const phone = uniquePhone();
  const k1 = await due(biz, { amount_paise: 500_000, contact_name: 'Ravi Kumar', contact_phone: uniquePhone() });
  const k2 = await due(biz, { amount_paise: 100_000, contact_id: k1.contact_id, due_date: '2026-03-01' });
  // A paid due: the kept buyer has a payment score already.
  expect((await biz.post(`/v1/transactions/${k2.id}/payments`, { amount_paise: 100_000 })).status).toBe(201);
  const m1 = await due(biz, {
    amount_paise: 200_000,
    contact_name: 'Ravi Kumaar',
    contact_phone: phone,
    due_date: '2026-02-01',
  });
  const m2 = await due(biz, { amount_paise: 30_000, contact_id: m1.contact_id, due_date: '2026-02-10' });
  const receipt = await biz.post(`/v1/contacts/${m1.contact_id}/payments`, { amount_paise: 50_000 });
  expect(receipt.status, receipt.text).toBe(201);
  expect((await biz.post(`/v1/transactions/${m1.id}/adjustments`, { kind: 'tds', amount_paise: 10_000 })).status).toBe(
    201,
  );
  // m2 settled: the merged buyer has a score too.
  expect((await biz.post(`/v1/transactions/${m2.id}/payments`, { amount_paise: 30_000 })).status).toBe(201);
  const merged = await contact(biz, m1.contact_id);
  const claim = await h.request('POST', `${new URL(merged.account_url).pathname}/claim`, {
    payload: new URLSearchParams({ amount: '75', reference: 'UTR-MERGE-1' }).toString(),
    headers: FORM,
  });
  expect(claim.status, claim.text).toBe(303);
  await sendWhatsAppMessage(h, APP_SECRET, phone.replace(/\D/g, ''), 'will pay on 15 Mar');
  // One credit matched to the merged buyer by its reference, one suggesting it by name.
  const bank = await upload(
    biz,
    statement([
      [`UPI/CR/111122223333/${merged.payment_reference}/PAYER`, '300.00'],
      ['NEFT FROM RAVI KUMAAR', '123.45'],
    ]),
  );
  expect(bank.status, bank.text).toBe(201);
  return { kept: k1.contact_id, merged: m1.contact_id, k1, m1, m2, mergedAccountUrl: merged.account_url as string };
}

describe('merging two buyers on the dashboard', () => {
  it('moves dues, receipts, adjustments, claims, replies and bank credits to the kept buyer; totals, balances, aging, scores and statement stay exact', async () => {
    const biz = await h.newBusiness();
    const b = await twoBuyers(biz);
    const client = await signInByLink(h, biz.business.id);
    const keptBefore = await contact(biz, b.kept);
    const mergedBefore = await contact(biz, b.merged);
    const summaryBefore = (await biz.get('/v1/summary')).body.data;
    const mergedReceipts = (await biz.get(`/v1/contacts/${b.merged}/payments`)).body.data.map(
      (r: { id: string }) => r.id,
    );
    expect(mergedReceipts.length).toBe(3);
    const suggested = (await biz.get('/v1/bank-credits?status=suggested')).body.data;
    expect(
      suggested.flatMap((c: { suggestions: { contact_id: string }[] }) => c.suggestions.map((s) => s.contact_id)),
    ).toContain(b.merged);

    // First step: the buyer's page has the form; the search lists the other buyer.
    const ledger = await client.get(`/dashboard/contacts/${b.kept}`);
    expect(ledger.text).toContain('Merge with another buyer');
    const search = await client.get(`/dashboard/contacts/${b.kept}/merge?q=kumaar`);
    expect(search.status).toBe(200);
    expect(search.text).toContain(`href="/dashboard/contacts/${b.kept}/merge?with=${b.merged}"`);
    expect(search.text).not.toContain(`with=${b.kept}"`);
    // Second step: what moves, and the balance after; nothing has changed yet.
    const confirm = await client.get(`/dashboard/contacts/${b.kept}/merge?with=${b.merged}`);
    expect(confirm.status).toBe(200);
    const expectedBalance = keptBefore.balance_paise + mergedBefore.balance_paise;
    expect(confirm.text).toContain(
      'Ravi Kumaar will be merged into Ravi Kumar. Moving to Ravi Kumar: dues 2, payments 3, claims 1, messages 1, bank entries 2.',
    );
    // 5,000 of the kept buyer's; 2,000 - 500 received - 100 TDS - 300 from the bank of the other's.
    expect(expectedBalance).toBe(610_000);
    expect(confirm.text).toContain(
      'balance after the merge</span><br><strong class="balance owed">To collect: ₹6,100.00</strong>',
    );
    expect((await biz.get(`/v1/contacts/${b.merged}`)).status).toBe(200);

    const res = await client.submit(
      `/dashboard/contacts/${b.kept}/merge?with=${b.merged}`,
      `/dashboard/contacts/${b.kept}/merge`,
      { merge_id: b.merged },
    );
    expect(res.status, res.text).toBe(303);
    expect(res.location).toBe(`/dashboard/contacts/${b.kept}?ok=merged`);
    expect((await client.get(res.location as string)).text).toContain('The two buyers are now one.');

    // The merged buyer is gone from the API and the dashboard; its account link leads to the kept buyer's.
    expect((await biz.get(`/v1/contacts/${b.merged}`)).status).toBe(404);
    expect((await client.get(`/dashboard/contacts/${b.merged}`)).status).toBe(404);
    const forwarded = await h.request('GET', new URL(b.mergedAccountUrl).pathname);
    expect(forwarded.status).toBe(301);
    expect(forwarded.headers.location).toBe(new URL(keptBefore.account_url).pathname);
    const list = (await biz.get('/v1/contacts?limit=100')).body.data.map((c: { id: string }) => c.id);
    expect(list).toEqual([b.kept]);

    // Everything moved.
    for (const id of [b.m1.id, b.m2.id])
      expect((await biz.get(`/v1/transactions/${id}`)).body.data.contact_id).toBe(b.kept);
    const receipts = (await biz.get(`/v1/contacts/${b.kept}/payments`)).body.data.map((r: { id: string }) => r.id);
    for (const id of mergedReceipts) expect(receipts).toContain(id);
    const adjustments = (await biz.get(`/v1/transactions/${b.m1.id}/adjustments`)).body.data;
    expect(adjustments).toHaveLength(1);
    const claims = (await biz.get(`/v1/contacts/${b.kept}/claims`)).body.data;
    expect(claims.map((c: { reference: string }) => c.reference)).toEqual(['UTR-MERGE-1']);
    const replies = (await biz.get(`/v1/contacts/${b.kept}/replies`)).body.data;
    expect(replies.map((r: { text: string }) => r.text)).toEqual(['will pay on 15 Mar']);
    const credits = (await biz.get('/v1/bank-credits')).body.data as {
      contact_id: string | null;
      suggestions: { contact_id: string | null }[];
    }[];
    expect(credits.some((c) => c.contact_id === b.kept)).toBe(true);
    const named = JSON.stringify(credits);
    expect(named).not.toContain(b.merged);
    expect(credits.flatMap((c) => c.suggestions.map((s) => s.contact_id))).toContain(b.kept);

    // Figures: the kept buyer's balance is the sum, the business's totals are those of before but
    // one contact fewer, and every kept figure equals its recomputation.
    const kept = await contact(biz, b.kept);
    expect(kept.balance_paise).toBe(expectedBalance);
    expect(kept.outstanding_paise).toBe(keptBefore.outstanding_paise + mergedBefore.outstanding_paise);
    expect(kept.credit_paise).toBe(0);
    expect(kept.phone).toBe(keptBefore.phone);
    const summary = (await biz.get('/v1/summary')).body.data;
    expect(summary).toEqual({ ...summaryBefore, contact_count: summaryBefore.contact_count - 1 });
    const st = (await biz.get(`/v1/contacts/${b.kept}/statement?from=2026-01-01&to=2026-03-10`)).body.data;
    expect(st.closing_balance_paise).toBe(kept.balance_paise);
    expect(st.entries.some((e: { transaction_id: string }) => e.transaction_id === b.m1.id)).toBe(true);
    await expectVerified(biz.business.id);

    // The audit log has the merge, by the owner signed in, in the same transaction as the change.
    const audit = async (q: string) => (await biz.get(`/v1/audit-log?${q}`)).body.data as Record<string, any>[];
    const [keptEntry] = await audit(`entity=contact&entity_id=${b.kept}`);
    expect(keptEntry).toMatchObject({
      action: 'contact.merged',
      actor: { type: 'user', id: biz.business.id },
      changes: { merged_contact_id: [null, b.merged], balance_paise: [keptBefore.balance_paise, expectedBalance] },
    });
    expect((await audit(`entity=contact&entity_id=${b.merged}`))[0]).toMatchObject({
      action: 'contact.merged_away',
      changes: { name: ['Ravi Kumaar', null], merged_into: [null, b.kept] },
    });
    expect((await audit(`entity=transaction&entity_id=${b.m1.id}`))[0]).toMatchObject({
      action: 'transaction.updated',
      changes: { contact_id: [b.merged, b.kept] },
    });
    for (const id of mergedReceipts) {
      expect((await audit(`entity=receipt&entity_id=${id}`))[0]?.changes).toEqual({ contact_id: [b.merged, b.kept] });
    }

    // Each moved due tells webhooks its new contact.
    const updated = (await eventsOf(h, biz.business.id, 'transaction.updated')).map((e) => e.data);
    for (const id of [b.m1.id, b.m2.id]) {
      expect(updated.filter((d) => d.id === id).at(-1)).toMatchObject({ contactId: b.kept, contactName: 'Ravi Kumar' });
    }
  });

  it("uses the merged buyer's credit on the kept buyer's open dues oldest first: never credit and a balance at once", async () => {
    const biz = await h.newBusiness();
    const older = await due(biz, { amount_paise: 40_000, contact_name: 'Meena Stores', due_date: '2026-03-05' });
    const newer = await due(biz, { amount_paise: 90_000, contact_id: older.contact_id, due_date: '2026-03-25' });
    // The typo buyer paid in advance: all of it is credit.
    const typo = (await biz.post('/v1/contacts', { name: 'Meena Store' })).body.data;
    const advance = await biz.post(`/v1/contacts/${typo.id}/payments`, { amount_paise: 60_000 });
    expect(advance.status, advance.text).toBe(201);
    expect((await contact(biz, typo.id)).credit_paise).toBe(60_000);
    const client = await signInByLink(h, biz.business.id);
    const res = await merge(client, older.contact_id, typo.id);
    expect(res.status, res.text).toBe(303);
    const kept = await contact(biz, older.contact_id);
    expect(kept).toMatchObject({ credit_paise: 0, balance_paise: 70_000, outstanding_paise: 70_000 });
    expect((await biz.get(`/v1/transactions/${older.id}`)).body.data).toMatchObject({
      status: 'paid',
      balance_paise: 0,
    });
    expect((await biz.get(`/v1/transactions/${newer.id}`)).body.data).toMatchObject({ balance_paise: 70_000 });
    const receipt = (await biz.get(`/v1/payments/${advance.body.data.receipt.id}`)).body.data;
    expect(receipt).toMatchObject({ contact_id: older.contact_id, credit_paise: 0, applied_paise: 60_000 });
    expect((await biz.get('/v1/summary')).body.data.credit_paise).toBe(0);
    await expectVerified(biz.business.id);
  });

  it('refuses merging a buyer into itself (400 naming merge_id) and a bad id (400), changing nothing', async () => {
    const biz = await h.newBusiness();
    const a = await due(biz, { amount_paise: 10_000, contact_name: 'Asha' });
    await due(biz, { amount_paise: 20_000, contact_name: 'Asha Ji' });
    const client = await signInByLink(h, biz.business.id);
    const before = await snapshot(biz);
    const self = await merge(client, a.contact_id, a.contact_id);
    expect(self.status).toBe(400);
    expect(self.text).toContain('a buyer cannot be merged with itself');
    for (const bad of ['', 'nope', `${a.contact_id}x`]) {
      const res = await merge(client, a.contact_id, bad);
      expect(res.status, bad).toBe(400);
      expect(res.text).toContain('merge_id must be the id of one of your buyers');
    }
    expect((await client.get(`/dashboard/contacts/${a.contact_id}/merge?with=nope`)).status).toBe(400);
    expect(await snapshot(biz)).toEqual(before);
  });

  it("answers 404 for another business's buyer on either side, changing nothing", async () => {
    const biz = await h.newBusiness();
    const other = await h.newBusiness();
    const mine = await due(biz, { amount_paise: 10_000, contact_name: 'Kiran' });
    const theirs = await due(other, { amount_paise: 20_000, contact_name: 'Kiran' });
    const client = await signInByLink(h, biz.business.id);
    const before = [await snapshot(biz), await snapshot(other)];
    expect((await merge(client, mine.contact_id, theirs.contact_id)).status).toBe(404);
    expect((await client.get(`/dashboard/contacts/${mine.contact_id}/merge?with=${theirs.contact_id}`)).status).toBe(
      404,
    );
    const csrfPage = `/dashboard/contacts/${mine.contact_id}`;
    expect(
      (await client.submit(csrfPage, `/dashboard/contacts/${theirs.contact_id}/merge`, { merge_id: mine.contact_id }))
        .status,
    ).toBe(404);
    expect((await client.get(`/dashboard/contacts/${theirs.contact_id}/merge`)).status).toBe(404);
    expect([await snapshot(biz), await snapshot(other)]).toEqual(before);
  });

  it('is refused to a viewer and a collector (403, no form on the page), changing nothing', async () => {
    const biz = await h.newBusiness();
    const a = await due(biz, { amount_paise: 10_000, contact_name: 'Nisha' });
    const b = await due(biz, { amount_paise: 20_000, contact_name: 'Nisha B' });
    for (const role of ['viewer', 'collector'] as const) {
      const staff = await addStaff(h, biz, role);
      await biz.patch(`/v1/contacts/${a.contact_id}`, { assigned_to: staff.id });
      const client = await signInAsUser(h, biz.business.id, staff.id);
      const page = await client.get(`/dashboard/contacts/${a.contact_id}`);
      expect(page.status).toBe(200);
      expect(page.text).not.toContain('Merge with another buyer');
      const before = await snapshot(biz);
      const res = await merge(client, a.contact_id, b.contact_id);
      expect(res.status, role).toBe(403);
      expect(await snapshot(biz)).toEqual(before);
      await biz.patch(`/v1/contacts/${a.contact_id}`, { assigned_to: null });
    }
  });

  it('runs beside receipts on both buyers at once: every receipt counted once, on the kept buyer', async () => {
    const biz = await h.newBusiness();
    const kept = await due(biz, { amount_paise: 100_000, contact_name: 'Sunil' });
    const gone = await due(biz, { amount_paise: 100_000, contact_name: 'Sunil Bhai' });
    const client = await signInByLink(h, biz.business.id);
    const page = await client.get(`/dashboard/contacts/${kept.contact_id}`);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1] as string;
    const pay = (id: string, paise: number) => biz.post(`/v1/contacts/${id}/payments`, { amount_paise: paise });
    const [r1, m, r2, r3] = await Promise.all([
      pay(gone.contact_id, 30_000),
      client.request('POST', `/dashboard/contacts/${kept.contact_id}/merge`, {
        _csrf: csrf,
        merge_id: gone.contact_id,
      }),
      pay(gone.contact_id, 20_000),
      pay(kept.contact_id, 10_000),
    ]);
    expect(m.status, m.text).toBe(303);
    // A receipt that came after the merge found no such buyer: 404, nothing recorded.
    const recorded = [
      [r1, 30_000],
      [r2, 20_000],
    ] as const;
    for (const [r] of recorded) expect([201, 404]).toContain(r.status);
    expect(r3.status).toBe(201);
    const received = 10_000 + recorded.reduce((s, [r, paise]) => s + (r.status === 201 ? paise : 0), 0);
    const receipts = (await biz.get(`/v1/contacts/${kept.contact_id}/payments`)).body.data as {
      amount_paise: number;
    }[];
    expect(receipts.reduce((s, r) => s + r.amount_paise, 0)).toBe(received);
    expect((await contact(biz, kept.contact_id)).balance_paise).toBe(200_000 - received);
    await expectVerified(biz.business.id);
  });

  it('runs beside new dues for the merged buyer: each is on the kept buyer, or refused (never a 500)', async () => {
    const biz = await h.newBusiness();
    for (let round = 0; round < 5; round++) {
      const kept = await due(biz, { amount_paise: 10_000, contact_name: `Lata ${round}` });
      const gone = await due(biz, { amount_paise: 10_000, contact_name: `Lata Devi ${round}` });
      const results = await Promise.all([
        biz.post('/v1/transactions', { amount_paise: 1_000, due_date: '2026-03-20', contact_id: gone.contact_id }),
        h.services.contactMerge.merge(biz.business, kept.contact_id, gone.contact_id).then(() => ({ status: 200 })),
        biz.post('/v1/transactions', { amount_paise: 2_000, due_date: '2026-03-20', contact_id: gone.contact_id }),
        biz.post('/v1/transactions', {
          amount_paise: 4_000,
          due_date: '2026-03-20',
          contact_name: `Lata Devi ${round}`,
        }),
      ]);
      for (const r of results) {
        expect([200, 201, 404, 409, 422], JSON.stringify(r)).toContain(r.status);
        if (r.status !== 201) continue;
        const id = (r as { body: { data: { id: string } } }).body.data.id;
        const contactId = (await biz.get(`/v1/transactions/${id}`)).body.data.contact_id;
        // A due written before the merge moved with it; one written after by name made a new buyer.
        expect(contactId).not.toBe(gone.contact_id);
        expect((await biz.get(`/v1/contacts/${contactId}`)).status).toBe(200);
      }
      expect((await biz.get(`/v1/contacts/${gone.contact_id}`)).status).toBe(404);
    }
    await expectVerified(biz.business.id);
  });

  it("keeps the merged buyer's account link and payment reference working: both lead to the kept buyer, after a second merge too", async () => {
    const biz = await h.newBusiness();
    const other = await h.newBusiness();
    const a = await due(biz, { amount_paise: 10_000, contact_name: 'Mohan Lal' });
    const b = await due(biz, { amount_paise: 20_000, contact_name: 'Mohan Laal' });
    const c = await due(biz, { amount_paise: 40_000, contact_name: 'Mohan Lal Stores' });
    const [ca, cb, cc] = [
      await contact(biz, a.contact_id),
      await contact(biz, b.contact_id),
      await contact(biz, c.contact_id),
    ];
    const path = (url: string) => new URL(url).pathname;
    const client = await signInByLink(h, biz.business.id);
    expect((await merge(client, a.contact_id, b.contact_id)).status).toBe(303);
    // B went to A; then A to C: B's link and reference follow to C.
    expect((await merge(client, c.contact_id, a.contact_id)).status).toBe(303);
    for (const gone of [ca, cb]) {
      const res = await h.request('GET', path(gone.account_url));
      expect(res.status, gone.name).toBe(301);
      expect(res.headers.location).toBe(path(cc.account_url));
    }
    const page = await h.request('GET', path(cc.account_url));
    expect(page.status).toBe(200);
    expect(page.text).toContain('₹700.00');
    // An unknown token is still the one not-found page.
    expect((await h.request('GET', `${path(cb.account_url).slice(0, -3)}xyz`)).status).toBe(404);

    // A bank line naming the reference of the first buyer merged away is the kept buyer's money.
    const bank = await upload(biz, statement([[`UPI/CR/555566667777/${cb.payment_reference}/MOHAN`, '150.00']]));
    expect(bank.status, bank.text).toBe(201);
    const credits = (await biz.get('/v1/bank-credits')).body.data as { contact_id: string | null; status: string }[];
    expect(credits).toMatchObject([{ status: 'matched', contact_id: c.contact_id }]);
    expect((await contact(biz, c.contact_id)).balance_paise).toBe(70_000 - 15_000);
    // Another business's line naming the same reference matches nothing of this business.
    const theirs = await upload(other, statement([[`UPI/CR/888899990000/${cb.payment_reference}/MOHAN`, '150.00']]));
    expect(theirs.status, theirs.text).toBe(201);
    expect((await other.get('/v1/bank-credits')).body.data).toMatchObject([{ status: 'unmatched', contact_id: null }]);
    await expectVerified(biz.business.id);
  });

  it('is a CLI command too: contact merge --business ID --keep ID --merge ID; refusals exit 1 and change nothing', async () => {
    const biz = await h.newBusiness();
    const a = await due(biz, { amount_paise: 10_000, contact_name: 'Gopal' });
    const b = await due(biz, { amount_paise: 25_000, contact_name: 'Gopal Ji' });
    const other = await h.newBusiness();
    const theirs = await due(other, { amount_paise: 1_000, contact_name: 'Gopal' });
    const args = (keep: string, merge: string) =>
      cli(h, 'contact', 'merge', '--business', biz.business.id, '--keep', keep, '--merge', merge, '--json');
    const before = await snapshot(biz);
    for (const [keep, merge] of [
      [a.contact_id, a.contact_id],
      [a.contact_id, theirs.contact_id],
      [a.contact_id, 'nope'],
    ] as const) {
      const refused = await args(keep, merge);
      expect(refused.code, `${keep} ${merge}`).not.toBe(0);
      expect(refused.stderr).not.toBe('');
    }
    expect(await snapshot(biz)).toEqual(before);
    const run = await args(a.contact_id, b.contact_id);
    expect(run.code, run.stderr).toBe(0);
    expect(run.json.merged).toMatchObject({
      contact_id: a.contact_id,
      merged_contact_id: b.contact_id,
      balance_paise: 35_000,
      moved: { dues: 1 },
    });
    expect((await biz.get(`/v1/contacts/${b.contact_id}`)).status).toBe(404);
    await expectVerified(biz.business.id);
  });

  it('an erase of the kept buyer also forgets the merged buyer: its name and phone leave the audit log and the events', async () => {
    const biz = await h.newBusiness();
    const kept = (await biz.post('/v1/contacts', { name: 'Kavita Sharma', phone: '9876501234' })).body.data;
    const gone = (await biz.post('/v1/contacts', { name: 'Kavita Traders', phone: '9876505678' })).body.data;
    await due(biz, { amount_paise: 5_000, contact_id: gone.id });
    const merged = await cli(
      h,
      'contact',
      'merge',
      '--business',
      biz.business.id,
      '--keep',
      kept.id,
      '--merge',
      gone.id,
    );
    expect(merged.code, merged.stderr).toBe(0);
    const personal = /Kavita|9876501234|9876505678/;
    expect(JSON.stringify((await biz.get('/v1/audit-log?limit=200')).body.data)).toMatch(/Kavita Traders/);

    const erased = await cli(h, 'contact', 'erase', '--business', biz.business.id, '--contact', kept.id, '--json');
    expect(erased.code, erased.stderr).toBe(0);
    const log = (await biz.get('/v1/audit-log?limit=200')).body.data;
    expect(log.map((e: { action: string }) => e.action)).toContain('contact.merged_away');
    expect(JSON.stringify(log)).not.toMatch(personal);
    expect(JSON.stringify(await eventsOf(h, biz.business.id))).not.toMatch(personal);
  });
});
