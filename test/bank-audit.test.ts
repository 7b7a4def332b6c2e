import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type AuditEntry, auditLog } from './helpers/audit.js';
import { signInByLink } from './helpers/dashboard.js';
import { newDue } from './helpers/dues.js';
import { type Harness, startHarness, type TestBusiness } from './helpers/harness.js';

/**
 * Bank credits in the audit log (PRODUCT part 23): a credit matched by an upload (the system's
 * work, in the upload's request), applied or ignored by the owner (the API key), and put back in
 * the review queue by a reversal each write an entry `bank_credit.*` with the changed fields, in
 * the change's transaction; a refused change writes none.
 */

const NOW = '2026-11-21T06:30:00.000Z';
const MISSING = '00000000-0000-4000-8000-000000000000';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ now: NOW });
});
afterAll(() => h?.close());
beforeEach(() => h.clock.set(NOW));

function upload(biz: TestBusiness, csv: string) {
  return biz.post('/v1/bank-statements', undefined, { payload: csv, headers: { 'content-type': 'text/csv' } });
}

function statement(lines: [string, string, string][]) {
  const rows = lines.map(([text, amount, ref]) => `20/11/2026,"${text}",${ref},,"${amount}",`);
  return `Statement of account\n\nDate,Narration,Ref No.,Withdrawal,Deposit,Balance\n${rows.join('\n')}\n`;
}

async function credits(biz: TestBusiness, query = '') {
  const res = await biz.get(`/v1/bank-credits${query}`);
  expect(res.status, res.text).toBe(200);
  return res.body.data as { id: string; status: string; receipt_id: string | null; contact_id: string | null }[];
}

function entriesOf(biz: TestBusiness, id: string): Promise<AuditEntry[]> {
  return auditLog(biz, `?entity=bank_credit&entity_id=${id}`);
}

async function keyActor(biz: TestBusiness) {
  const key = await h.store.db
    .selectFrom('api_keys')
    .select('id')
    .where('business_id', '=', biz.business.id)
    .executeTakeFirstOrThrow();
  return { type: 'api_key', id: key.id, name: biz.apiKey.slice(0, 12) };
}

describe('bank credits in the audit log', () => {
  it('records a credit matched by an upload as the system, in the upload request; an unmatched one writes nothing', async () => {
    const biz = await h.newBusiness();
    const d = await newDue(biz, { contact_name: 'Ravi Kumar', amount_paise: 50_000, invoice_number: 'INV-501' });
    const res = await upload(
      biz,
      statement([
        ['NEFT CR-HDFC0001234-RAVI KUMAR-INV-501', '200.00', 'M1'],
        ['CASH DEPOSIT BRANCH', '7.00', 'M2'],
      ]),
    );
    expect(res.status, res.text).toBe(201);
    expect(res.body.data).toMatchObject({ matched: 1, unmatched: 1 });
    const [matched] = await credits(biz, '?status=matched');
    const [unmatched] = await credits(biz, '?status=unmatched');

    const entries = await entriesOf(biz, matched?.id as string);
    expect(entries).toEqual([
      {
        id: expect.any(String),
        at: NOW,
        actor: { type: 'system', id: null, name: null },
        action: 'bank_credit.matched',
        entity: 'bank_credit',
        entity_id: matched?.id,
        changes: {
          status: ['unmatched', 'matched'],
          matched_by: [null, 'invoice_number'],
          transaction_id: [null, d.id],
          contact_id: [null, d.contact_id],
          receipt_id: [null, matched?.receipt_id],
          decided_at: [null, NOW],
        },
        request_id: res.headers['x-request-id'],
      },
    ]);
    expect(await entriesOf(biz, unmatched?.id as string)).toEqual([]);

    // The receipt the match recorded has its own entries, then the due it paid: as any receipt's.
    const receipt = await biz.get(`/v1/audit-log?entity=receipt&entity_id=${matched?.receipt_id}`);
    expect(receipt.body.data).toEqual([
      expect.objectContaining({
        actor: { type: 'system', id: null, name: null },
        action: 'receipt.recorded',
        changes: expect.objectContaining({
          contact_id: [null, d.contact_id],
          amount_paise: [null, 20_000],
          applied_paise: [null, 20_000],
          source: [null, 'bank'],
          utr: [null, 'M1'],
        }),
        request_id: res.headers['x-request-id'],
      }),
    ]);
    const dueEntries = await biz.get(`/v1/audit-log?entity=transaction&entity_id=${d.id}`);
    expect(dueEntries.body.data[0]).toMatchObject({
      actor: { type: 'system', id: null, name: null },
      action: 'transaction.part_paid',
      changes: { amount_paid_paise: [0, 20_000] },
      request_id: res.headers['x-request-id'],
    });
  });

  it('records matches of many lines of one statement, each once', async () => {
    const biz = await h.newBusiness();
    const d = await newDue(biz, { contact_name: 'Many Lines', amount_paise: 10_000_000, invoice_number: 'INV-900' });
    const lines: [string, string, string][] = Array.from({ length: 30 }, (_, i) => [
      `NEFT CR-SBIN-MANY LINES-INV-900 PART ${i}`,
      '10.00',
      `P${i}`,
    ]);
    const res = await upload(biz, statement(lines));
    expect(res.body.data).toMatchObject({ matched: 30 });
    const all = await biz.get('/v1/audit-log?entity=bank_credit&limit=100');
    expect(all.status).toBe(200);
    const matched = await credits(biz, '?status=matched&limit=100');
    expect(matched).toHaveLength(30);
    expect((all.body.data as AuditEntry[]).map((e) => e.entity_id).sort()).toEqual(matched.map((c) => c.id).sort());
    expect(new Set((all.body.data as AuditEntry[]).map((e) => e.changes.transaction_id?.[1]))).toEqual(new Set([d.id]));
    // Each line's receipt once, and the due's balance going down line after line.
    const receipts = await biz.get('/v1/audit-log?entity=receipt&limit=100');
    expect((receipts.body.data as AuditEntry[]).map((e) => e.entity_id).sort()).toEqual(
      matched.map((c) => c.receipt_id).sort(),
    );
    const paid = await biz.get(`/v1/audit-log?entity=transaction&entity_id=${d.id}&limit=100`);
    const steps = (paid.body.data as AuditEntry[]).filter((e) => e.action === 'transaction.part_paid').reverse();
    expect(steps.map((e) => e.changes.amount_paid_paise)).toEqual(
      Array.from({ length: 30 }, (_, i) => [i * 1_000, (i + 1) * 1_000]),
    );
  });

  it('records the owner applying and ignoring credits as the API key; a refused apply writes nothing', async () => {
    const biz = await h.newBusiness();
    const other = await h.newBusiness();
    const d = await newDue(biz, { contact_name: 'Kiran Rao', amount_paise: 40_000 });
    await upload(
      biz,
      statement([
        ['UPI-K RAO-kiran.rao@okhdfcbank-630500000001', '400.00', 'A1'],
        ['CASH DEPOSIT BRANCH', '7.00', 'A2'],
      ]),
    );
    const [suggested] = await credits(biz, '?status=suggested');
    const [unmatched] = await credits(biz, '?status=unmatched');
    const id = suggested?.id as string;

    // Refused: another business's credit, a missing due, bad input; nothing recorded.
    expect((await other.post(`/v1/bank-credits/${id}/apply`, { transaction_id: d.id })).status).toBe(404);
    expect((await biz.post(`/v1/bank-credits/${id}/apply`, { transaction_id: MISSING })).status).toBe(404);
    expect((await biz.post(`/v1/bank-credits/${id}/apply`, { transaction_id: 'nope' })).status).toBe(400);
    expect((await other.post(`/v1/bank-credits/${unmatched?.id}/ignore`)).status).toBe(404);
    expect(await entriesOf(biz, id)).toEqual([]);

    h.clock.advance(1000);
    const applied = await biz.post(`/v1/bank-credits/${id}/apply`, { transaction_id: d.id });
    expect(applied.status, applied.text).toBe(200);
    const at = '2026-11-21T06:30:01.000Z';
    expect(await entriesOf(biz, id)).toEqual([
      {
        id: expect.any(String),
        at,
        actor: await keyActor(biz),
        action: 'bank_credit.applied',
        entity: 'bank_credit',
        entity_id: id,
        changes: {
          status: ['suggested', 'matched'],
          matched_by: [null, 'owner'],
          transaction_id: [null, d.id],
          contact_id: [null, d.contact_id],
          receipt_id: [null, applied.body.data.receipt_id],
          decided_at: [null, at],
        },
        request_id: applied.headers['x-request-id'],
      },
    ]);
    // Decided already: 409, no second entry.
    expect((await biz.post(`/v1/bank-credits/${id}/ignore`)).status).toBe(409);
    expect(await entriesOf(biz, id)).toHaveLength(1);

    const ignored = await biz.post(`/v1/bank-credits/${unmatched?.id}/ignore`);
    expect(ignored.status, ignored.text).toBe(200);
    const [entry] = await entriesOf(biz, unmatched?.id as string);
    expect(entry).toMatchObject({
      actor: await keyActor(biz),
      action: 'bank_credit.ignored',
      changes: { status: ['unmatched', 'ignored'], decided_at: [null, at] },
      request_id: ignored.headers['x-request-id'],
    });
    expect(Object.keys(entry?.changes ?? {})).toEqual(['status', 'decided_at']);
    // Another business does not see them.
    const theirs = await other.get(`/v1/audit-log?entity=bank_credit&entity_id=${id}`);
    expect(theirs.status).toBe(200);
    expect(theirs.body.data).toEqual([]);
  });

  it('records a credit put back in the review queue when its receipt is reversed', async () => {
    const biz = await h.newBusiness();
    const d = await newDue(biz, { contact_name: 'Wrong Buyer', amount_paise: 30_000, invoice_number: 'INV-77' });
    await upload(biz, statement([['NEFT-SOMEONE-INV-77', '300.00', 'U77']]));
    const [matched] = await credits(biz, '?status=matched');
    h.clock.advance(1000);
    const reversed = await biz.post(`/v1/payments/${matched?.receipt_id}/reverse`, { reason: 'not this buyer' });
    expect(reversed.status, reversed.text).toBe(200);
    const [requeued, first] = await entriesOf(biz, matched?.id as string);
    expect(first?.action).toBe('bank_credit.matched');
    expect(requeued).toMatchObject({
      at: '2026-11-21T06:30:01.000Z',
      actor: await keyActor(biz),
      action: 'bank_credit.requeued',
      changes: {
        status: ['matched', 'suggested'],
        matched_by: ['invoice_number', null],
        transaction_id: [d.id, null],
        contact_id: [d.contact_id, null],
        receipt_id: [matched?.receipt_id, null],
        decided_at: [NOW, null],
      },
      request_id: reversed.headers['x-request-id'],
    });
  });

  it('records the owner applying and ignoring on the dashboard as the signed-in user', async () => {
    const biz = await h.newBusiness();
    const d = await newDue(biz, { contact_name: 'Kiran Rao', amount_paise: 40_000 });
    await upload(
      biz,
      statement([
        ['UPI-K RAO-kiran.rao@okhdfcbank-630500000001', '400.00', 'D1'],
        ['CASH DEPOSIT BRANCH', '7.00', 'D2'],
      ]),
    );
    const [suggested] = await credits(biz, '?status=suggested');
    const [unmatched] = await credits(biz, '?status=unmatched');
    const client = await signInByLink(h, biz.business.id);
    const tap = await client.submit('/dashboard/bank', `/dashboard/bank/credits/${suggested?.id}/apply`, {
      transaction_id: d.id,
    });
    expect(tap.status, tap.text).toBe(303);
    const ignored = await client.submit('/dashboard/bank', `/dashboard/bank/credits/${unmatched?.id}/ignore`);
    expect(ignored.status, ignored.text).toBe(303);
    const owner = { type: 'user', id: biz.business.id, name: biz.business.name };
    expect(await entriesOf(biz, suggested?.id as string)).toMatchObject([
      { actor: owner, action: 'bank_credit.applied', changes: { status: ['suggested', 'matched'] } },
    ]);
    expect(await entriesOf(biz, unmatched?.id as string)).toMatchObject([
      { actor: owner, action: 'bank_credit.ignored', changes: { status: ['unmatched', 'ignored'] } },
    ]);
  });
});
