import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/run.js';
import { uuidv7 } from '../src/lib/ids.js';
import { verifyStore } from '../src/ops/verify/index.js';
import { type Harness, startHarness, type TestBusiness, uniquePhone } from './helpers/harness.js';
import { seedLedger } from './helpers/ledger.js';
import { storeEnv } from './helpers/processes.js';
import { sendWhatsAppMessage } from './helpers/whatsapp-inbound.js';

const NOW = '2026-11-21T06:30:00.000Z';
const APP_SECRET = 'business-data-secret-0123456789ab';

let h: Harness;
let scratch: string;
beforeAll(async () => {
  h = await startHarness({ now: NOW, env: { WHATSAPP_APP_SECRET: APP_SECRET } });
  scratch = mkdtempSync(path.join(tmpdir(), 'receivables-business-data-'));
});
afterAll(async () => {
  await h.close();
  rmSync(scratch, { recursive: true, force: true });
});

async function cli(...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, {
    env: { ...storeEnv(h), LOG_LEVEL: 'warn' },
    out: (line) => out.push(line),
    err: (line) => err.push(line),
  });
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

function oneJson(stdout: string) {
  const lines = stdout.trim().split('\n');
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0] as string);
}

function readLines(dir: string, file: string): Record<string, any>[] {
  return readFileSync(path.join(dir, file), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l));
}

/** A buyer with a phone, a due with a claim carrying a reference, a reply, and a create replayable by its key. */
async function buyerWithHistory(biz: TestBusiness, name: string) {
  const phone = uniquePhone();
  const created = await biz.post(
    '/v1/transactions',
    { amount_paise: 45_000, due_date: '2026-11-10', contact_name: name, contact_phone: phone },
    { headers: { 'idempotency-key': `erase-${name.replace(/ /g, '-')}` } },
  );
  expect(created.status, created.text).toBe(201);
  const due = created.body.data;
  const pay = await biz.post(`/v1/transactions/${due.id}/payments`, { amount_paise: 5_000 });
  expect(pay.status, pay.text).toBe(201);
  const claim = await h.request('POST', `${new URL(due.pay_page_url).pathname}/claim`, {
    payload: new URLSearchParams({ reference: `paid by ${name}` }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  expect(claim.status, claim.text).toBeLessThan(400);
  await sendWhatsAppMessage(h, APP_SECRET, due.contact_phone, 'I will pay in 3 days');
  return { due, contactId: due.contact_id as string, phone: due.contact_phone as string, typedPhone: phone };
}

describe('business export', () => {
  it('writes everything the business holds as JSON lines, one file per kind, and nothing of another', async () => {
    const biz = await h.newBusiness();
    const ledger = await seedLedger(h, biz, 'Export');
    await buyerWithHistory(biz, 'Export Replier');
    const other = await h.newBusiness();
    const otherDue = (
      await other.post('/v1/transactions', { amount_paise: 100, due_date: '2026-12-01', contact_name: 'Not Mine' })
    ).body.data;
    // More events than one page, so the export reads several.
    const extra = Array.from({ length: 1005 }, (_, i) => ({
      id: uuidv7(),
      business_id: biz.business.id,
      type: 'transaction.updated',
      payload: JSON.stringify({ n: i }),
      created_at: NOW,
      dispatched_at: NOW,
    }));
    for (let i = 0; i < extra.length; i += 200)
      await h.store.db
        .insertInto('events')
        .values(extra.slice(i, i + 200))
        .execute();

    const dir = path.join(scratch, 'export');
    const res = await cli('business', 'export', '--business', biz.business.id, '--out', dir, '--json');
    expect(res.code, res.stderr).toBe(0);
    const { files } = oneJson(res.stdout).export;
    for (const file of [
      'business',
      'contacts',
      'dues',
      'payments',
      'claims',
      'reminders',
      'replies',
      'events',
      'api_keys',
    ]) {
      expect(files[`${file}.jsonl`], file).toBeGreaterThan(0);
      expect(readLines(dir, `${file}.jsonl`)).toHaveLength(files[`${file}.jsonl`]);
    }
    expect(readLines(dir, 'business.jsonl')).toEqual([expect.objectContaining({ id: biz.business.id })]);
    const dues = readLines(dir, 'dues.jsonl');
    // The ledger's six dues (one deleted), the one its credit paid, and the replier's one.
    expect(dues).toHaveLength(ledger.dues.length + 2);
    expect(dues.map((d) => d.id)).toEqual(expect.arrayContaining(ledger.dues.map((d) => d.id)));
    expect(dues.some((d) => d.deleted_at !== null)).toBe(true);
    expect(dues.every((d) => !('pay_token' in d))).toBe(true);
    expect(readLines(dir, 'contacts.jsonl').every((c) => !('account_token' in c))).toBe(true);
    expect(readLines(dir, 'events.jsonl').length).toBeGreaterThan(1005);
    expect(readLines(dir, 'events.jsonl').find((e) => e.type === 'transaction.created')?.payload).toMatchObject({
      amountPaise: expect.any(Number),
    });
    expect(readLines(dir, 'claims.jsonl').map((c) => c.reference)).toContain('paid by Export Replier');
    expect(readLines(dir, 'replies.jsonl').map((r) => r.text)).toContain('I will pay in 3 days');
    expect(readLines(dir, 'api_keys.jsonl').every((k) => !('key_hash' in k))).toBe(true);
    const all = readdirSync(dir)
      .map((f) => readFileSync(path.join(dir, f), 'utf8'))
      .join('\n');
    expect(all).not.toContain(other.business.id);
    expect(all).not.toContain(otherDue.id);
    expect(all).not.toContain(biz.apiKey);
    expect(JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8'))).toMatchObject({
      business_id: biz.business.id,
      files,
    });
    expect(statSync(path.join(dir, 'dues.jsonl')).mode & 0o777).toBe(0o600);
  });

  it('refuses a folder that is not empty, an unknown business and missing options (exit 2)', async () => {
    const biz = await h.newBusiness();
    const used = path.join(scratch, 'used');
    mkdirSync(used);
    writeFileSync(path.join(used, 'keep.txt'), 'mine');
    const full = await cli('business', 'export', '--business', biz.business.id, '--out', used, '--json');
    expect(full.code).toBe(2);
    expect(oneJson(full.stdout).error.message).toMatch(/is not empty/);
    expect(readdirSync(used)).toEqual(['keep.txt']);
    const unknown = await cli(
      'business',
      'export',
      '--business',
      '01959c4e-0000-7000-8000-000000000000',
      '--out',
      path.join(scratch, 'u'),
    );
    expect(unknown.code).toBe(2);
    expect(existsSync(path.join(scratch, 'u'))).toBe(false);
    expect((await cli('business', 'export', '--business', biz.business.id)).code).toBe(2);
    expect((await cli('business', 'export', '--business', 'nope', '--out', path.join(scratch, 'n'))).code).toBe(2);
  });
});

describe('contact erase', () => {
  it("removes the buyer's personal data everywhere it is kept, and keeps the money exact", async () => {
    const biz = await h.newBusiness();
    await seedLedger(h, biz, 'Erase');
    const name = 'Kavita Sharma';
    const { due, contactId, phone, typedPhone } = await buyerWithHistory(biz, name);
    const endpoint = await biz.post('/v1/webhooks', {
      url: 'https://hooks.example.test/in',
      events: ['transaction.created'],
    });
    expect(endpoint.status, endpoint.text).toBe(201);
    const created = await h.store.db
      .selectFrom('events')
      .select(['id', 'payload', 'created_at'])
      .where('business_id', '=', biz.business.id)
      .where('type', '=', 'transaction.created')
      .where('payload', 'like', `%${due.id}%`)
      .executeTakeFirstOrThrow();
    await h.store.db
      .insertInto('webhook_deliveries')
      .values({
        id: uuidv7(),
        business_id: biz.business.id,
        endpoint_id: endpoint.body.data.id,
        event_id: created.id,
        event: 'transaction.created',
        body: `{"event":"transaction.created","timestamp":"${created.created_at}","data":${created.payload}}`,
        status: 'delivered',
        attempts: 1,
        response_status: 200,
        error: null,
        next_attempt_at: null,
        delivered_at: NOW,
        requeue: 0,
        lease_id: null,
        locked_until: null,
        created_at: NOW,
        updated_at: NOW,
      })
      .execute();
    const summaryBefore = (await biz.get('/v1/summary')).body.data;
    const dueBefore = (await biz.get(`/v1/transactions/${due.id}`)).body.data;

    const res = await cli('contact', 'erase', '--business', biz.business.id, '--contact', contactId, '--json');
    expect(res.code, res.stderr).toBe(0);
    expect(oneJson(res.stdout).erased).toMatchObject({
      contact_id: contactId,
      replies: 1,
      claims: 1,
      replays: 1,
      deliveries: 1,
    });
    expect(oneJson(res.stdout).erased.events).toBeGreaterThanOrEqual(2);

    const contact = (await biz.get(`/v1/contacts/${contactId}`)).body.data;
    expect(contact).toMatchObject({ name: 'Erased buyer', phone: null, outstanding_paise: 40_000 });
    // Never found by name: neither the old name, nor "Erased buyer", in any search.
    for (const q of ['kavita', 'erased', 'Erased buyer']) {
      const found = (await biz.get(`/v1/contacts?search=${encodeURIComponent(q)}`)).body.data as { id: string }[];
      expect(
        found.map((c) => c.id),
        q,
      ).not.toContain(contactId);
    }
    const legacy = (await biz.get('/legacy/v1/contacts?search=kavita')).body;
    expect(JSON.stringify(legacy)).not.toContain(contactId);
    // Stored events, webhook deliveries and request replays hold neither the name nor the phone.
    const events = await h.store.db
      .selectFrom('events')
      .select('payload')
      .where('business_id', '=', biz.business.id)
      .execute();
    const mentions = events.filter((e) => e.payload.includes(contactId) || e.payload.includes(due.id));
    expect(mentions.length).toBeGreaterThan(0);
    for (const e of mentions) {
      expect(e.payload).not.toContain('Kavita');
      expect(e.payload).not.toContain(phone);
    }
    const deliveries = await h.store.db
      .selectFrom('webhook_deliveries')
      .select('body')
      .where('business_id', '=', biz.business.id)
      .execute();
    expect(deliveries.map((d) => d.body).join()).not.toContain('Kavita');
    expect(JSON.parse(deliveries[0]?.body as string).data).toMatchObject({
      contactName: 'Erased buyer',
      contactPhone: null,
      amountPaise: 45_000,
    });
    const replay = await biz.post(
      '/v1/transactions',
      { amount_paise: 45_000, due_date: '2026-11-10', contact_name: name, contact_phone: typedPhone },
      { headers: { 'idempotency-key': `erase-${name.replace(/ /g, '-')}` } },
    );
    expect(
      replay.headers['idempotent-replayed'],
      `${replay.status} ${JSON.stringify(replay.headers)} ${replay.text}`,
    ).toBe('true');
    expect(replay.text).not.toContain('Kavita');
    expect(replay.text).not.toContain(phone);
    const apiEvents = (await biz.get('/v1/events?limit=100')).text;
    expect(apiEvents).not.toContain('Kavita');

    // Replies gone, claim references cleared; the money records and totals exactly as they were.
    const replies = await h.store.db
      .selectFrom('buyer_replies')
      .select('id')
      .where('contact_id', '=', contactId)
      .execute();
    expect(replies).toEqual([]);
    const claims = await h.store.db
      .selectFrom('payment_claims')
      .select('reference')
      .where('transaction_id', '=', due.id)
      .execute();
    expect(claims).toEqual([{ reference: null }]);
    const dueAfter = (await biz.get(`/v1/transactions/${due.id}`)).body.data;
    expect({ ...dueAfter, contact_name: undefined, contact_phone: undefined, updated_at: undefined }).toEqual({
      ...dueBefore,
      contact_name: undefined,
      contact_phone: undefined,
      updated_at: undefined,
    });
    expect(dueAfter.contact_name).toBe('Erased buyer');
    const summaryAfter = (await biz.get('/v1/summary')).body.data;
    expect(summaryAfter).toEqual(summaryBefore);
    const report = await verifyStore(h.store.db, { businessId: biz.business.id });
    expect(report.differences).toEqual([]);
    expect(report.ok).toBe(true);
    // Outside the name uniqueness: both names are free for new contacts.
    for (const newName of [name, 'Erased buyer']) {
      const again = await biz.post('/v1/transactions', {
        amount_paise: 100,
        due_date: '2026-12-01',
        contact_name: newName,
      });
      expect(again.status, again.text).toBe(201);
      expect(again.body.data.contact_id).not.toBe(contactId);
    }
  });

  it("answers not found for another business's contact or an unknown one, changing nothing (exit 2)", async () => {
    const mine = await h.newBusiness();
    const theirs = await h.newBusiness();
    const due = (
      await theirs.post('/v1/transactions', { amount_paise: 100, due_date: '2026-12-01', contact_name: 'Their Buyer' })
    ).body.data;
    const res = await cli('contact', 'erase', '--business', mine.business.id, '--contact', due.contact_id, '--json');
    expect(res.code).toBe(2);
    expect(oneJson(res.stdout).error.message).toMatch(/contact not found/);
    expect((await theirs.get(`/v1/contacts/${due.contact_id}`)).body.data.name).toBe('Their Buyer');
    expect((await cli('contact', 'erase', '--business', mine.business.id, '--contact', 'x')).code).toBe(2);
    expect((await cli('contact', 'erase', '--business', mine.business.id)).code).toBe(2);
  });
});
