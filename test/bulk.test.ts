import { createHmac } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csvLine } from '../src/bulk/csv.js';
import { EXPORT_COLUMNS } from '../src/bulk/export.js';
import { usedInvoiceNumbersQuery } from '../src/db/postgres/statements.js';
import { MAX_AMOUNT_PAISE } from '../src/transactions/schema.js';
import { createdToTheMicrosecond, eventsOf, newDue, summaryOf } from './helpers/dues.js';
import { type Harness, STORE, startHarness, type TestBusiness } from './helpers/harness.js';
import { startHarnessWithReceiver } from './helpers/harness-with-receiver.js';
import type { HttpsReceiver } from './helpers/https-receiver.js';

/** Bulk import and export (PRODUCT part 12), black-box over HTTP, on the store TEST_STORE names. */

const START = '2026-11-21T06:30:00.000Z';

let receiver: HttpsReceiver;
let h: Harness;
let close: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ h, receiver, close } = await startHarnessWithReceiver({
    now: START,
  }));
});
afterAll(() => close?.());

function importCsv(biz: TestBusiness, csv: string, query = '', headers: Record<string, string> = {}) {
  return biz.post(`/v1/transactions/import${query}`, undefined, {
    payload: csv,
    headers: { 'content-type': 'text/csv', ...headers },
  });
}

async function exportCsv(biz: TestBusiness, query = '') {
  const res = await biz.get(`/v1/transactions/export${query}`);
  expect(res.status, res.text).toBe(200);
  expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
  return { text: res.text, rows: parse(res.text, { columns: true }) as Record<string, string>[] };
}

async function listTotal(biz: TestBusiness) {
  const res = await biz.get('/v1/transactions?limit=1');
  expect(res.status).toBe(200);
  return res.body.total as number;
}

const GOOD_CSV = [
  '\uFEFFcontact_name,contact_phone,amount,due_date,invoice_number,notes',
  'Sharma Stores,98765 43210,"1,23,450.50",05/12/2026,INV-1,"cement, 50 bags"',
  'Gupta & Sons,,1250,2026-12-20,INV-2,',
  'sharma stores,,"12,000",01-11-2026,INV-3,"said ""next week"""',
].join('\r\n');

describe('POST /v1/transactions/import (CSV)', () => {
  it('creates every row with BOM, quoted fields, Indian amounts and day-first dates', async () => {
    const biz = await h.newBusiness();
    const res = await importCsv(biz, GOOD_CSV);
    expect(res.status, res.text).toBe(201);
    expect(res.body.data).toEqual({ created: 3, contacts_created: 2, ids: expect.any(Array) });
    const ids = res.body.data.ids as string[];
    expect(ids).toHaveLength(3);

    const first = (await biz.get(`/v1/transactions/${ids[0]}`)).body.data;
    expect(first).toMatchObject({
      contact_name: 'Sharma Stores',
      contact_phone: '919876543210',
      amount_paise: 12_345_050,
      due_date: '2026-12-05T00:00:00.000Z',
      invoice_number: 'INV-1',
      notes: 'cement, 50 bags',
      status: 'pending',
    });
    const third = (await biz.get(`/v1/transactions/${ids[2]}`)).body.data;
    expect(third).toMatchObject({
      contact_id: first.contact_id,
      amount_paise: 1_200_000,
      due_date: '2026-11-01T00:00:00.000Z',
      notes: 'said "next week"',
      status: 'overdue',
    });

    // Totals as if each row had been created alone.
    const summary = await summaryOf(biz);
    expect(summary.pending).toMatchObject({ count: 2, paise: 12_345_050 + 125_000 });
    expect(summary.overdue).toMatchObject({ count: 1, paise: 1_200_000 });
    const created = await eventsOf(h, biz.business.id, 'transaction.created');
    expect(created.map((e) => e.data.id).sort()).toEqual([...ids].sort());
  });

  it('names every bad row by row and field, and creates nothing', async () => {
    const biz = await h.newBusiness();
    const csv = [
      'contact_name,contact_phone,amount,amount_paise,due_date,invoice_number,notes',
      'Good Buyer,,100,,2026-12-01,A-1,',
      ',,100,,2026-12-01,A-2,',
      'Bad Amount,,12.345,,2026-12-01,A-3,',
      'Zero Amount,,0,,2026-12-01,A-4,',
      'Both Amounts,,100,10000,2026-12-01,A-5,',
      'Bad Date,,100,,31/02/2026,A-6,',
      'Text Date,,100,,tomorrow,A-7,',
      'Bad Phone,12,100,,2026-12-01,A-8,',
      'X,,100,,2026-12-01,A-9,',
      `Long Notes,,100,,2026-12-01,A-10,${'n'.repeat(501)}`,
      'Repeat Invoice,,100,,2026-12-01,A-1,',
      'No Date,,100,,,A-12,',
    ].join('\n');
    const res = await importCsv(biz, csv);
    expect(res.status, res.text).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.message).toEqual(expect.any(String));
    expect(res.body.error.rows.map((r: { row: number; field: string }) => [r.row, r.field])).toEqual([
      [2, 'contact_name'],
      [3, 'amount'],
      [4, 'amount'],
      [5, 'amount'],
      [6, 'due_date'],
      [7, 'due_date'],
      [8, 'contact_phone'],
      [9, 'contact_name'],
      [10, 'notes'],
      [11, 'invoice_number'],
      [12, 'due_date'],
    ]);
    for (const r of res.body.error.rows) expect(r.message).toEqual(expect.any(String));
    expect(await listTotal(biz)).toBe(0);
    expect(await eventsOf(h, biz.business.id)).toEqual([]);
    expect((await biz.get('/v1/contacts')).body.total).toBe(0);
  });

  it('refuses a file without the needed columns, an empty file and malformed CSV', async () => {
    const biz = await h.newBusiness();
    const noAmount = await importCsv(biz, 'contact_name,due_date\nA Buyer,2026-12-01');
    expect(noAmount.status).toBe(400);
    expect(noAmount.body.error.field).toBe('amount');
    const noName = await importCsv(biz, 'amount,due_date\n100,2026-12-01');
    expect(noName.body.error.field).toBe('contact_name');
    const empty = await importCsv(biz, 'contact_name,amount,due_date\n');
    expect(empty.status).toBe(400);
    const ragged = await importCsv(biz, 'contact_name,amount,due_date\nA Buyer,100,2026-12-01\n"Broken,100');
    expect(ragged.status).toBe(400);
    expect(ragged.body.error.rows[0]).toMatchObject({ row: 2, field: 'csv' });
    expect(await listTotal(biz)).toBe(0);
  });

  it('a re-run of the same file creates nothing twice (invoice_number already used)', async () => {
    const biz = await h.newBusiness();
    expect((await importCsv(biz, GOOD_CSV)).status).toBe(201);
    const again = await importCsv(biz, GOOD_CSV);
    expect(again.status).toBe(400);
    expect(again.body.error.rows).toEqual([
      { row: 1, field: 'invoice_number', message: expect.stringContaining('INV-1') },
      { row: 2, field: 'invoice_number', message: expect.stringContaining('INV-2') },
      { row: 3, field: 'invoice_number', message: expect.stringContaining('INV-3') },
    ]);
    expect(await listTotal(biz)).toBe(3);
    // Another business's invoice numbers are no concern of this one.
    const other = await h.newBusiness();
    expect((await importCsv(other, GOOD_CSV)).status).toBe(201);
  });

  it('dry_run answers as the import would and creates nothing', async () => {
    const biz = await h.newBusiness();
    const dry = await importCsv(biz, GOOD_CSV, '?dry_run=true');
    expect(dry.status, dry.text).toBe(201);
    expect(dry.body.data).toMatchObject({ created: 3, contacts_created: 2 });
    expect(await listTotal(biz)).toBe(0);
    expect(await eventsOf(h, biz.business.id)).toEqual([]);
    const bad = await importCsv(biz, 'contact_name,amount,due_date\nA Buyer,abc,2026-12-01', '?dry_run=true');
    expect(bad.status).toBe(400);
    expect(bad.body.error.rows).toEqual([{ row: 1, field: 'amount', message: expect.any(String) }]);
    // The real import afterwards still works: the dry run kept nothing.
    expect((await importCsv(biz, GOOD_CSV)).status).toBe(201);
    expect(await listTotal(biz)).toBe(3);
  });

  it('Idempotency-Key replays the first answer and creates once', async () => {
    const biz = await h.newBusiness();
    const key = { 'idempotency-key': 'import-1' };
    const first = await importCsv(biz, GOOD_CSV, '', key);
    expect(first.status).toBe(201);
    const second = await importCsv(biz, GOOD_CSV, '', key);
    expect(second.status).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.body).toEqual(first.body);
    const changed = await importCsv(biz, GOOD_CSV.replace('INV-1', 'INV-9'), '', key);
    expect(changed.status).toBe(422);
    expect(await listTotal(biz)).toBe(3);
  });
});

describe('POST /v1/transactions/import (JSON)', () => {
  it('creates create bodies, reusing an existing contact by id or name', async () => {
    const biz = await h.newBusiness();
    const due = await newDue(biz, { contact_name: 'Known Buyer' });
    const res = await biz.post('/v1/transactions/import', {
      rows: [
        { contact_id: due.contact_id, amount_paise: 500, due_date: '2026-12-02' },
        { contact_name: 'known buyer', amount_paise: 700, due_date: '2026-12-03', invoice_number: 'J-1' },
        { contact_name: 'New Buyer', contact_phone: '98765 00001', amount_paise: 900, due_date: '2026-12-04' },
      ],
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.data).toMatchObject({ created: 3, contacts_created: 1 });
    expect(await listTotal(biz)).toBe(4);
  });

  it('contacts named by several rows are found or created as that many single creates would', async () => {
    const known = { contact_name: 'Phoneless Buyer', amount_paise: 100, due_date: '2026-12-01' };
    const rows = [
      { contact_name: 'Fresh Buyer', amount_paise: 200, due_date: '2026-12-02' },
      { contact_name: 'fresh buyer', contact_phone: '98765 00002', amount_paise: 300, due_date: '2026-12-03' },
      { contact_name: 'Phoneless Buyer', contact_phone: '98765 00003', amount_paise: 400, due_date: '2026-12-04' },
      { contact_name: 'Fresh Buyer', contact_phone: '98765 00004', amount_paise: 500, due_date: '2026-12-05' },
      { contact_name: 'Other Buyer', amount_paise: 600, due_date: '2026-12-06' },
      { contact_name: 'Fresh Buyer', amount_paise: 700, due_date: '2026-12-07' },
    ];
    const alone = await h.newBusiness();
    await newDue(alone, known);
    for (const row of rows) expect((await alone.post('/v1/transactions', row)).status).toBe(201);
    const bulk = await h.newBusiness();
    await newDue(bulk, known);
    const res = await bulk.post('/v1/transactions/import', { rows });
    expect(res.status, res.text).toBe(201);
    expect(res.body.data).toMatchObject({ created: 6, contacts_created: 2 });

    const seen = async (biz: TestBusiness) => ({
      contacts: ((await biz.get('/v1/contacts?limit=100')).body.data as { name: string; phone: string | null }[])
        .map((c) => [c.name, c.phone])
        .sort(),
      contactEvents: (await eventsOf(h, biz.business.id, 'contact.created')).map((e) => [e.data.name, e.data.phone]),
      dueContacts: (await eventsOf(h, biz.business.id, 'transaction.created')).map((e) => [
        e.data.contactName,
        e.data.contactPhone,
      ]),
      summary: await summaryOf(biz),
    });
    const expected = await seen(alone);
    expect(expected.contacts).toEqual([
      ['Fresh Buyer', '919876500002'],
      ['Other Buyer', null],
      ['Phoneless Buyer', '919876500003'],
    ]);
    expect(await seen(bulk)).toEqual(expected);
  });

  it('a recurring row catches its series up exactly as a single create does', async () => {
    const body = {
      contact_name: 'Series Buyer',
      amount_paise: 1000,
      due_date: '2026-09-30',
      recurrence: { interval: 'monthly', until: null },
    };
    const alone = await h.newBusiness();
    expect((await alone.post('/v1/transactions', body)).status).toBe(201);
    const imported = await h.newBusiness();
    const res = await imported.post('/v1/transactions/import', { rows: [body] });
    expect(res.status, res.text).toBe(201);
    expect(res.body.data.created).toBe(1);
    const dates = async (biz: TestBusiness) =>
      (await biz.get('/v1/transactions')).body.data.map((t: { due_date: string }) => t.due_date);
    expect(await dates(imported)).toEqual(await dates(alone));
    expect((await dates(imported)).length).toBeGreaterThan(1);
    expect(await summaryOf(imported)).toEqual(await summaryOf(alone));
  });

  it('names bad JSON rows, including refusals found while writing (another business contact: row 2)', async () => {
    const biz = await h.newBusiness();
    const other = await h.newBusiness();
    const theirs = await newDue(other, { contact_name: 'Their Buyer' });
    const bad = await biz.post('/v1/transactions/import', {
      rows: [
        { contact_name: 'Fine Buyer', amount_paise: 500, due_date: '2026-12-02' },
        { contact_name: 'Fine Buyer', amount_paise: 500, due_date: '2026-12-02', colour: 'red' },
        { contact_name: 'Fine Buyer', amount_paise: '500', due_date: '2026-12-02' },
        'not an object',
      ],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.rows.map((r: { row: number; field: string }) => [r.row, r.field])).toEqual([
      [2, 'colour'],
      [3, 'amount_paise'],
      [4, 'row'],
    ]);
    const foreign = await biz.post('/v1/transactions/import', {
      rows: [
        { contact_name: 'Fine Buyer', amount_paise: 500, due_date: '2026-12-02' },
        { contact_id: theirs.contact_id, amount_paise: 500, due_date: '2026-12-02' },
      ],
    });
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.rows).toEqual([{ row: 2, field: 'contact_id', message: expect.any(String) }]);
    expect(await listTotal(biz)).toBe(0);
    expect((await biz.get('/v1/contacts')).body.total).toBe(0);

    for (const body of [{}, { rows: [] }, { rows: 'x' }, { rows: [], extra: 1 }]) {
      const res = await biz.post('/v1/transactions/import', body);
      expect(res.status).toBe(400);
      expect(res.body.error.field).toEqual(expect.any(String));
    }
    const tooMany = await biz.post('/v1/transactions/import', {
      rows: Array.from({ length: 10_001 }, () => ({ contact_name: 'AB', amount_paise: 1, due_date: '2026-12-01' })),
    });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.field).toBe('rows');
  });

  it('moves the data version: a list page cached before an import is not served after it, nor after later writes', async () => {
    const biz = await h.newBusiness();
    const other = await h.newBusiness();
    const theirs = await newDue(other, { contact_name: 'Their Buyer' });
    await newDue(biz, { contact_name: 'Cached Buyer' });
    const page = async () => {
      const res = await biz.get('/v1/transactions?limit=5');
      expect(res.status, res.text).toBe(200);
      return res.body;
    };
    // Read twice: the page is rendered and kept (http/rendered.ts) before each write below.
    await page();
    expect((await page()).total).toBe(1);
    const rows = (n: number, tag: string) =>
      Array.from({ length: n }, (_, i) => ({
        contact_name: `Chunk Buyer ${i % 7}`,
        amount_paise: 100 + i,
        due_date: '2026-12-01',
        invoice_number: `${tag}-${i}`,
      }));
    // More rows than one chunk of the import's writes.
    const imported = await biz.post('/v1/transactions/import', { rows: rows(600, 'V') });
    expect(imported.status).toBe(201);
    expect((await page()).total).toBe(601);
    expect((await page()).total).toBe(601);
    // Every other writer still moves it after an import: a single create...
    await newDue(biz, { contact_name: 'After Import' });
    expect((await page()).total).toBe(602);
    // ...and after an import that failed while writing (row 550: another business's contact).
    const failing = rows(600, 'W');
    failing[549] = { contact_id: theirs.contact_id, amount_paise: 1, due_date: '2026-12-01' } as never;
    const refused = await biz.post('/v1/transactions/import', { rows: failing });
    expect(refused.status).toBe(400);
    expect(refused.body.error.rows).toEqual([{ row: 550, field: 'contact_id', message: expect.any(String) }]);
    expect((await page()).total).toBe(602);
    await newDue(biz, { contact_name: 'After Refusal' });
    expect((await page()).total).toBe(603);
    // A dry run writes (and rolls back) the same way: nothing it did stays.
    const dry = await biz.post('/v1/transactions/import?dry_run=true', { rows: rows(600, 'X') });
    expect(dry.status).toBe(201);
    expect((await page()).total).toBe(603);
    await newDue(biz, { contact_name: 'After Dry Run' });
    expect((await page()).total).toBe(604);
  });

  it('refuses a body over 5 MB before reading it', async () => {
    const biz = await h.newBusiness();
    const big = `contact_name,amount,due_date,notes\n${`Big Buyer,1,2026-12-01,${'x'.repeat(400)}\n`.repeat(13_500)}`;
    expect(big.length).toBeGreaterThan(5 * 1024 * 1024);
    const res = await importCsv(biz, big);
    expect([400, 413]).toContain(res.status);
    expect(await listTotal(biz)).toBe(0);
  });

  it('refuses a body that is neither CSV nor JSON, and answers 401 without a key', async () => {
    const biz = await h.newBusiness();
    const xml = await biz.post('/v1/transactions/import', undefined, {
      payload: '<rows/>',
      headers: { 'content-type': 'application/xml' },
    });
    expect(xml.status).toBe(400);
    const anonymous = await h.request('POST', '/v1/transactions/import', { body: { rows: [] } });
    expect(anonymous.status).toBe(401);
  });
});

describe('import: invoice numbers checked against a business grown by imports', () => {
  it.skipIf(STORE !== 'postgres')(
    'looks each number up in the invoice index, whatever the statistics say of the business (PostgreSQL)',
    async () => {
      const biz = await h.newBusiness();
      // Statistics taken while the business had no dues, as autovacuum leaves them while imports
      // grow it: an IN list then read every due of the business through business_id.
      await sql`analyze transactions`.execute(h.store.db);
      const rows = Array.from({ length: 3_000 }, (_, i) => ({
        contact_name: `Grown Buyer ${i % 50}`,
        amount_paise: 100 + i,
        due_date: '2026-12-01',
        invoice_number: `GROWN-${i}`,
      }));
      expect((await biz.post('/v1/transactions/import', { rows })).status).toBe(201);
      const numbers = rows.slice(0, 500).map((r) => r.invoice_number);
      const query = usedInvoiceNumbersQuery(biz.business.id, numbers).compile(h.store.db);
      const explained = await h.store.db.executeQuery(
        CompiledQuery.raw(`explain (format json) ${query.sql}`, [...query.parameters]),
      );
      const plan = JSON.stringify(explained.rows);
      expect(plan).toContain('"Index Name":"transactions_business_invoice"');
      expect(plan).not.toMatch(/Bitmap Heap Scan|Seq Scan/);
      // And it answers: a re-run of the same numbers is refused, row by row.
      const again = await biz.post('/v1/transactions/import', { rows: rows.slice(0, 3) });
      expect(again.status).toBe(400);
      expect(again.body.error.rows.map((r: { field: string }) => r.field)).toEqual([
        'invoice_number',
        'invoice_number',
        'invoice_number',
      ]);
    },
  );
});

describe('import events at a real HTTPS receiver', () => {
  it('delivers one signed transaction.created per imported row', async () => {
    receiver.respond(() => 200);
    const biz = await h.newBusiness();
    const hook = await biz.post('/v1/webhooks', { url: receiver.url, events: ['transaction.created'] });
    expect(hook.status).toBe(201);
    const secret = hook.body.data.secret as string;
    const res = await importCsv(biz, GOOD_CSV);
    expect(res.status).toBe(201);
    // Every event not yet fanned out, other tests' imports included (200 per call, a bounded loop).
    for (let i = 0; i < 50 && (await h.services.webhookDispatcher.fanOut()) > 0; i++);
    await h.services.webhookDispatcher.deliverDue();
    const ids = res.body.data.ids as string[];
    const mine = receiver.requests.filter((r) => ids.includes(JSON.parse(r.body).data.id));
    expect(mine).toHaveLength(3);
    for (const r of mine) {
      expect(JSON.parse(r.body).event).toBe('transaction.created');
      expect(r.headers['x-service-signature']).toBe(createHmac('sha256', secret).update(r.body).digest('hex'));
    }
  });
});

/** The list API's items (up to 100) as the export writes them: the reference the export is held to. */
async function listAsCsv(biz: TestBusiness, query: string): Promise<string> {
  const res = await biz.get(`/v1/transactions?limit=100${query}`);
  expect(res.status, res.text).toBe(200);
  const items = res.body.data as Record<string, unknown>[];
  return csvLine(EXPORT_COLUMNS) + items.map((item) => csvLine(EXPORT_COLUMNS.map((c) => item[c]))).join('');
}

describe('GET /v1/transactions/export', () => {
  it('streams a header and every column, neutralising formulas and quoting what needs it', async () => {
    const biz = await h.newBusiness();
    const a = await newDue(biz, {
      contact_name: 'Formula Buyer',
      contact_phone: '98765 11111',
      notes: '=HYPERLINK("http://x","y")',
      invoice_number: '@SUM(1)',
      amount_paise: 4200,
    });
    await newDue(biz, { contact_name: '-Minus Buyer', notes: 'line one\nline two', due_date: '2026-11-01' });
    const other = await h.newBusiness();
    await newDue(other, { contact_name: 'Not Mine' });

    const { text, rows } = await exportCsv(biz);
    expect(text.split('\r\n')[0]).toBe(
      'id,contact_id,contact_name,contact_phone,amount_paise,currency,status,direction,due_date,paid_at,utr,payment_method,invoice_number,notes,recurrence,series_id,reminders_paused,promise,amount_paid_paise,amount_adjusted_paise,balance_paise,deleted_at,reminder_count,pay_page_url,payment_reference,created_at,updated_at',
    );
    expect(rows).toHaveLength(2);
    const [first, second] = rows as [Record<string, string>, Record<string, string>];
    expect(first).toMatchObject({
      id: a.id,
      contact_name: 'Formula Buyer',
      contact_phone: '919876511111',
      amount_paise: '4200',
      notes: `'=HYPERLINK("http://x","y")`,
      invoice_number: "'@SUM(1)",
      status: 'pending',
      due_date: '2026-12-01T00:00:00.000Z',
      payment_reference: expect.stringMatching(/^R[A-Z0-9]{8}$/),
    });
    expect(second).toMatchObject({ contact_name: "'-Minus Buyer", notes: 'line one\nline two', status: 'overdue' });
    expect(text).not.toContain('Not Mine');

    const overdue = await exportCsv(biz, '?status=overdue');
    expect(overdue.rows.map((r) => r.contact_name)).toEqual(["'-Minus Buyer"]);
    const byContact = await exportCsv(biz, `?contact_id=${a.contact_id}`);
    expect(byContact.rows.map((r) => r.id)).toEqual([a.id]);
    const bad = await biz.get('/v1/transactions/export?status=nope');
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toBe('status');
  });

  it('writes each due exactly as the list API presents it, cell for cell, for dues of every kind', async () => {
    const biz = await h.newBusiness();
    const patch = async (id: string, body: Record<string, unknown>) => {
      const res = await biz.patch(`/v1/transactions/${id}`, body);
      expect(res.status, res.text).toBe(200);
    };
    const post = async (path: string, body: Record<string, unknown> = {}) => {
      const res = await biz.post(path, body);
      expect(res.status, res.text).toBeLessThan(300);
    };
    const quoted = await newDue(biz, {
      contact_name: 'Sharma, "Sons"',
      contact_phone: '98765 22222',
      notes: 'said "next week", maybe\r\nor later',
      invoice_number: '+91-INV',
    });
    await newDue(biz, { contact_name: '@Formula', notes: '-5 bags', due_date: '2026-10-01' });
    const monthly = await newDue(biz, { contact_name: 'Series Buyer', due_date: '2026-12-05' });
    await patch(monthly.id, { recurrence: { interval: 'monthly', until: '2027-03-31' } });
    const weekly = await newDue(biz, { contact_name: 'Weekly Buyer', due_date: '2026-12-07' });
    await patch(weekly.id, { recurrence: { interval: 'weekly' }, reminders_paused: true });
    const part = await newDue(biz, { contact_name: 'Part Payer', amount_paise: 90_000 });
    await post(`/v1/transactions/${part.id}/payments`, { amount_paise: 12_345, utr: 'UTR 1', payment_method: 'upi' });
    // Promises come from a buyer's chat reply (reminder-sequences.test.ts); here they are set in
    // the store, with text no API input takes (white space at either end, a tab, a CR), as an
    // older row could hold it.
    const promised = async (id: string, promiseDate: string) =>
      h.store.db
        .updateTable('transactions')
        .set({ promise_date: promiseDate, promise_made_at: '2026-11-20T10:00:00.000Z' })
        .where('id', '=', id)
        .execute();
    const future = await newDue(biz, { contact_name: 'Future Promise' });
    await promised(future.id, '2026-12-10');
    const broken = await newDue(biz, { contact_name: 'Broken Promise', due_date: '2026-11-10' });
    await promised(broken.id, '2026-11-15');
    const keptPaid = await newDue(biz, { contact_name: 'Kept Promise' });
    await promised(keptPaid.id, '2026-11-21');
    await post(`/v1/transactions/${keptPaid.id}/mark-paid`, { utr: 'UTR,2', payment_method: 'cash' });
    // Paid at 20:00 UTC on the 21st: already the 22nd in Asia/Kolkata, after the promised 21st
    // (a UTC date would call it kept).
    const latePaid = await newDue(biz, { contact_name: 'Late Payer' });
    await promised(latePaid.id, '2026-11-21');
    h.clock.set(new Date('2026-11-21T20:00:00.000Z'));
    try {
      await post(`/v1/transactions/${latePaid.id}/mark-paid`);
    } finally {
      h.clock.set(new Date(START));
    }
    const odd = await newDue(biz, { contact_name: 'Odd Text' });
    await h.store.db
      .updateTable('transactions')
      // The currency and payment method are nearly always a known word (export-lines.ts wordCell):
      // other text takes the full rules.
      .set({
        notes: ' leading space',
        utr: 'trailing nbsp\u00a0',
        invoice_number: '\tTAB',
        currency: ' INR',
        payment_method: '@upi,x',
      })
      .where('id', '=', odd.id)
      .execute();
    await h.store.db.updateTable('contacts').set({ name: '=cmd|x' }).where('id', '=', odd.contact_id).execute();
    const gone = await newDue(biz, { contact_name: 'Deleted Buyer' });
    expect((await biz.delete(`/v1/transactions/${gone.id}`)).status).toBe(200);

    // The list answers the odd payment method the store was given, outside its documented enum.
    const expected = (query: string) => h.uncheckedResponses(() => listAsCsv(biz, query));
    const all = await exportCsv(biz);
    expect(all.rows).toHaveLength(10);
    expect(all.text).toBe(await expected(''));
    const byId = Object.fromEntries(all.rows.map((r) => [r.id, r]));
    expect(byId[quoted.id]).toMatchObject({ contact_name: 'Sharma, "Sons"', invoice_number: "'+91-INV" });
    expect(JSON.parse(byId[keptPaid.id]?.promise as string)).toMatchObject({ kept: true });
    expect(JSON.parse(byId[latePaid.id]?.promise as string)).toMatchObject({ kept: false });
    expect(JSON.parse(byId[broken.id]?.promise as string)).toMatchObject({ kept: false });
    expect(JSON.parse(byId[future.id]?.promise as string)).toMatchObject({ kept: null });
    for (const status of ['overdue', 'paid', 'pending']) {
      expect((await exportCsv(biz, `?status=${status}`)).text).toBe(await expected(`&status=${status}`));
    }
    const since = `?since=2026-01-01T00:00:00.000Z&include_deleted=true`;
    const synced = await exportCsv(biz, since);
    expect(synced.rows).toHaveLength(11);
    expect(synced.text).toBe(await expected(`&${since.slice(1)}`));
  });

  it('writes what the store may hold beyond what the API writes as the list API does: times to the microsecond or the second, the largest amount, Unicode white space', async () => {
    const biz = await h.newBusiness();
    const post = async (path: string, body: Record<string, unknown> = {}) => {
      const res = await biz.post(path, body);
      expect(res.status, res.text).toBeLessThan(300);
    };
    const set = (id: string, values: Record<string, unknown>) =>
      h.store.db.updateTable('transactions').set(values).where('id', '=', id).execute();
    // PostgreSQL keeps microseconds (its now() has them), which the list API's times drop: it
    // writes milliseconds, truncated (db/postgres/pool.ts parses a timestamptz through Date). SQLite
    // keeps whatever text was written.
    const now = STORE === 'postgres' ? sql<string>`now()` : sql<string>`'2026-11-21T06:30:00.123456Z'`;

    const big = await newDue(biz, { contact_name: 'O"Brien, Ltd', amount_paise: MAX_AMOUNT_PAISE });
    await post(`/v1/transactions/${big.id}/payments`, { amount_paise: 1, payment_method: 'upi' });
    // Paid, with a promise: its line comes in two halves around the promise (export-lines.ts lineOf).
    const times = await newDue(biz, { contact_name: 'Clock Buyer' });
    await set(times.id, { promise_date: '2026-11-21', promise_made_at: '2026-11-20T10:00:00.000500Z' });
    await post(`/v1/transactions/${times.id}/mark-paid`);
    await set(times.id, {
      paid_at: '2026-11-21T06:31:00Z',
      created_at: '2026-11-21T06:29:59.999999Z',
      updated_at: now,
    });
    // Open, with a promise made when it was last changed (no promise_made_at): made_at is updated_at.
    const spaces = await newDue(biz, { contact_name: 'Space Buyer' });
    await set(spaces.id, {
      notes: '\u3000ideographic space first',
      utr: 'a line separator last\u2028',
      invoice_number: '\ufeffBOM-1',
      promise_date: '2026-12-10',
      updated_at: now,
    });
    await h.store.db
      .updateTable('contacts')
      .set({ name: 'Thin\u2009Space\u202f', phone: '\u200a+91 98765 33333' })
      .where('id', '=', spaces.contact_id)
      .execute();
    // Characters String.prototype.trim keeps (no longer or never white space): no quotes for them.
    const notSpace = await newDue(biz, { contact_name: 'Not Space Buyer' });
    await set(notSpace.id, { notes: '\u200bzero width\u200b', utr: '\u180eMVS', invoice_number: 'NEL\u0085' });
    const gone = await newDue(biz, { contact_name: 'Gone Buyer' });
    expect((await biz.delete(`/v1/transactions/${gone.id}`)).status).toBe(200);
    await set(gone.id, { deleted_at: '2026-11-21T06:30:00.000001Z', updated_at: now });

    const expected = (query: string) => listAsCsv(biz, query);
    const all = await exportCsv(biz);
    expect(all.rows).toHaveLength(4);
    expect(all.text).toBe(await expected(''));
    const byId = Object.fromEntries(all.rows.map((r) => [r.id, r]));
    expect(byId[big.id]).toMatchObject({
      contact_name: 'O"Brien, Ltd',
      amount_paise: '1000000000000',
      amount_paid_paise: '1',
      balance_paise: '999999999999',
    });
    expect(byId[spaces.id]).toMatchObject({ notes: '\u3000ideographic space first', invoice_number: '\ufeffBOM-1' });
    expect(all.text).toContain(',\u180eMVS,,NEL\u0085,\u200bzero width\u200b,');
    if (STORE === 'postgres') {
      expect(byId[times.id]).toMatchObject({
        paid_at: '2026-11-21T06:31:00.000Z',
        created_at: '2026-11-21T06:29:59.999Z',
      });
      expect(JSON.parse(byId[times.id]?.promise as string)).toEqual({
        date: '2026-11-21',
        made_at: '2026-11-20T10:00:00.000Z',
        kept: true,
      });
      expect(byId[spaces.id]?.updated_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    }
    const since = 'since=2026-01-01T00:00:00.000Z&include_deleted=true';
    const synced = await exportCsv(biz, `?${since}`);
    expect(synced.rows).toHaveLength(5);
    expect(synced.text).toBe(await expected(`&${since}`));
    if (STORE === 'postgres') {
      expect(synced.rows.find((r) => r.id === gone.id)?.deleted_at).toBe('2026-11-21T06:30:00.000Z');
    }
  });

  it('writes the pay page address as the list API does when PUBLIC_BASE_URL itself needs quoting', async () => {
    const other = await startHarness({ now: START, env: { PUBLIC_BASE_URL: 'https://pay.example.test/a,"b"' } });
    try {
      // A base with a double quote makes pay_page_url no URI (RFC 3986): outside the document by intent.
      await other.uncheckedResponses(async () => {
        const biz = await other.newBusiness();
        const due = await newDue(biz, { contact_name: 'Quoted Base' });
        const res = await biz.get('/v1/transactions/export');
        expect(res.status, res.text).toBe(200);
        const [row] = parse(res.text, { columns: true }) as Record<string, string>[];
        expect(row?.pay_page_url).toBe(due.pay_page_url);
        expect(String(due.pay_page_url)).toMatch(/^https:\/\/pay\.example\.test\/a,"b"\/pay\/[0-9A-Za-z_-]+$/);
        const list = await biz.get('/v1/transactions');
        const item = list.body.data[0] as Record<string, unknown>;
        expect(res.text).toBe(csvLine(EXPORT_COLUMNS) + csvLine(EXPORT_COLUMNS.map((c) => item[c])));
      });
    } finally {
      await other.close();
    }
  });

  it('lists deleted dues only for an incremental sync that asks, and never the dues of another business', async () => {
    const biz = await h.newBusiness();
    const kept = await newDue(biz, { contact_name: 'Kept Buyer' });
    const gone = await newDue(biz, { contact_name: 'Gone Buyer' });
    expect((await biz.delete(`/v1/transactions/${gone.id}`)).status).toBe(200);
    expect((await exportCsv(biz)).rows.map((r) => r.id)).toEqual([kept.id]);
    const since = encodeURIComponent('2026-01-01T00:00:00Z');
    const sync = await exportCsv(biz, `?since=${since}&include_deleted=true`);
    const deleted = sync.rows.find((r) => r.id === gone.id);
    expect(deleted?.deleted_at).toBe(START);
    expect(sync.rows).toHaveLength(2);

    const other = await h.newBusiness();
    const theirs = await newDue(other, { contact_name: 'Their Buyer' });
    const foreign = await exportCsv(biz, `?contact_id=${theirs.contact_id}`);
    expect(foreign.rows).toEqual([]);
    expect(foreign.text.split('\r\n')[0]).toMatch(/^id,contact_id,/);
    expect((await h.request('GET', '/v1/transactions/export')).status).toBe(401);
  });

  it('walks more rows than one batch in the list order, each once', async () => {
    const biz = await h.newBusiness();
    const rows = Array.from({ length: 1_100 }, (_, i) => ({
      contact_name: `Buyer ${i % 7}`,
      amount_paise: 100 + i,
      // few dates, so that the keyset walks ties of due_date and created_at
      due_date: `2026-12-0${(i % 3) + 1}`,
    }));
    expect((await biz.post('/v1/transactions/import', { rows })).status).toBe(201);
    const exported = await exportCsv(biz);
    expect(exported.rows).toHaveLength(1_100);
    expect(new Set(exported.rows.map((r) => r.id)).size).toBe(1_100);
    const firstPage = (await biz.get('/v1/transactions?limit=200')).body.data.map((t: { id: string }) => t.id);
    expect(exported.rows.slice(0, 200).map((r) => r.id)).toEqual(firstPage);
  });

  it('walks ties of due date and of a creation time written to the microsecond (SQL now()) across batches, each once', async () => {
    const biz = await h.newBusiness();
    const rows = Array.from({ length: 1_100 }, (_, i) => ({
      contact_name: `Tied Buyer ${i % 5}`,
      amount_paise: 100 + i,
      due_date: `2026-12-0${(i % 2) + 1}`,
    }));
    expect((await biz.post('/v1/transactions/import', { rows })).status).toBe(201);
    // One creation time for all (a statement's now()): the next batch starts after the last row's
    // exact keys; a key cut to milliseconds would skip the rest of its due date.
    await createdToTheMicrosecond(h, 'transactions', biz);
    const exported = await exportCsv(biz);
    expect(exported.rows).toHaveLength(1_100);
    expect(new Set(exported.rows.map((r) => r.id)).size).toBe(1_100);
    const firstPage = (await biz.get('/v1/transactions?limit=200')).body.data.map((t: { id: string }) => t.id);
    expect(exported.rows.slice(0, 200).map((r) => r.id)).toEqual(firstPage);
  });

  it('round-trips: an export imports into a fresh business with the same summary', async () => {
    const biz = await h.newBusiness();
    expect((await importCsv(biz, GOOD_CSV)).status).toBe(201);
    await newDue(biz, { contact_name: '+Plus Buyer', notes: '@note', amount_paise: 777, due_date: '2026-10-10' });
    const { text } = await exportCsv(biz);
    const fresh = await h.newBusiness();
    const res = await importCsv(fresh, text);
    expect(res.status, res.text).toBe(201);
    expect(res.body.data.created).toBe(4);
    expect(await summaryOf(fresh)).toEqual(await summaryOf(biz));
    // The open balances per due date (aging's running aggregate) arrive with the batch too.
    const aging = async (b: TestBusiness) => (await b.get('/v1/aging')).body;
    expect((await aging(fresh)).data).toBeDefined();
    expect(await aging(fresh)).toEqual(await aging(biz));
    const again = await exportCsv(fresh);
    const pick = (r: Record<string, string>) => [r.contact_name, r.contact_phone, r.amount_paise, r.due_date, r.notes];
    expect(again.rows.map(pick)).toEqual((await exportCsv(biz)).rows.map(pick));
  });
});
