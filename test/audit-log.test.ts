import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type AuditEntry, auditPage, OPENING_ACTIONS } from './helpers/audit.js';
import { signInByLink } from './helpers/dashboard.js';
import { type Harness, startHarness, type TestBusiness } from './helpers/harness.js';
import { addStaff, cli } from './helpers/staff.js';

/** GET /v1/audit-log: who changed what, newest first, filtered by entity, from a time, page by page. */

const START = '2026-11-21T06:30:00.000Z';
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ now: START });
});
afterAll(() => h?.close());
beforeEach(() => h.clock.set(START));

async function newHook(biz: TestBusiness, url = 'https://hooks.example.test/a') {
  const res = await biz.post('/v1/webhooks', { url, events: ['transaction.created'] });
  expect(res.status, res.text).toBe(201);
  return res;
}

describe('GET /v1/audit-log', () => {
  it('begins with the owner and the first API key, by the system, when the business is made', async () => {
    const biz = await h.newBusiness();
    const key = await h.store.db
      .selectFrom('api_keys')
      .select(['id', 'key_prefix'])
      .where('business_id', '=', biz.business.id)
      .executeTakeFirstOrThrow();
    const page = await auditPage(biz);
    expect(page.data.map((e) => e.action)).toEqual([...OPENING_ACTIONS]);
    const [issued, owner] = page.data as [AuditEntry, AuditEntry];
    expect(owner).toMatchObject({
      at: START,
      actor: { type: 'system', id: null, name: null },
      entity: 'user',
      entity_id: biz.business.id,
      changes: { name: [null, biz.business.name], phone: [null, biz.business.phone], role: [null, 'owner'] },
      request_id: null,
    });
    expect(issued).toMatchObject({
      at: START,
      actor: { type: 'system', id: null, name: null },
      entity: 'api_key',
      entity_id: key.id,
      changes: { prefix: [null, key.key_prefix], source: [null, 'cli'] },
    });
    expect(JSON.stringify(page.data)).not.toContain(biz.apiKey);
  });

  it('records a webhook created, changed and deleted, by the API key, with the request id, newest first', async () => {
    const biz = await h.newBusiness();
    const created = await newHook(biz);
    const id = created.body.data.id as string;
    h.clock.advance(1000);
    const patched = await biz.patch(`/v1/webhooks/${id}`, { url: 'https://hooks.example.test/b' });
    expect(patched.status, patched.text).toBe(200);
    h.clock.advance(1000);
    expect((await biz.delete(`/v1/webhooks/${id}`)).status).toBe(200);

    const page = await auditPage(biz);
    expect(page.hasMore).toBe(false);
    expect(page.data.map((e) => e.action)).toEqual([
      'webhook.deleted',
      'webhook.updated',
      'webhook.created',
      ...OPENING_ACTIONS,
    ]);
    const [deleted, updated, first] = page.data as [AuditEntry, AuditEntry, AuditEntry];
    const key = await h.store.db
      .selectFrom('api_keys')
      .select('id')
      .where('business_id', '=', biz.business.id)
      .executeTakeFirstOrThrow();
    expect(first).toMatchObject({
      at: START,
      actor: { type: 'api_key', id: key.id, name: biz.apiKey.slice(0, 12) },
      entity: 'webhook',
      entity_id: id,
      changes: {
        url: [null, 'https://hooks.example.test/a'],
        events: [null, '["transaction.created"]'],
        active: [null, 1],
      },
      request_id: created.headers['x-request-id'],
    });
    expect(updated.changes).toEqual({ url: ['https://hooks.example.test/a', 'https://hooks.example.test/b'] });
    expect(updated.at).toBe('2026-11-21T06:30:01.000Z');
    expect(updated.request_id).toBe(patched.headers['x-request-id']);
    expect(deleted.changes).toEqual({
      url: ['https://hooks.example.test/b', null],
      events: ['["transaction.created"]', null],
      active: [1, null],
    });
  });

  it('names the dashboard user who made a change', async () => {
    const biz = await h.newBusiness();
    const id = (await newHook(biz)).body.data.id as string;
    const client = await signInByLink(h, biz.business.id);
    const removed = await client.submit('/dashboard/developers', `/dashboard/developers/webhooks/${id}/delete`);
    expect(removed.status).toBe(303);
    const [entry] = (await auditPage(biz, '?limit=1')).data;
    expect(entry).toMatchObject({
      action: 'webhook.deleted',
      actor: { type: 'user', id: biz.business.id, name: biz.business.name },
    });
    expect(entry?.request_id).toEqual(expect.any(String));
  });

  it('filters by entity and entity id, and by since', async () => {
    const biz = await h.newBusiness();
    const a = (await newHook(biz, 'https://hooks.example.test/1')).body.data.id as string;
    h.clock.advance(60_000);
    const b = (await newHook(biz, 'https://hooks.example.test/2')).body.data.id as string;

    expect((await auditPage(biz, `?entity=webhook&entity_id=${a}`)).data.map((e) => e.entity_id)).toEqual([a]);
    expect((await auditPage(biz, '?entity=webhook')).data.map((e) => e.entity_id)).toEqual([b, a]);
    expect((await auditPage(biz, '?entity=contact')).data).toEqual([]);
    expect(
      (await auditPage(biz, `?since=${encodeURIComponent('2026-11-21T06:31:00.000Z')}`)).data.map((e) => e.entity_id),
    ).toEqual([b]);
    expect((await auditPage(biz, `?since=${encodeURIComponent('2026-11-21T06:31:00.001Z')}`)).data).toEqual([]);
  });

  it('walks every entry once, page by page, with starting_after', async () => {
    const biz = await h.newBusiness();
    for (let i = 0; i < 5; i++) {
      await newHook(biz, `https://hooks.example.test/${i}`);
      h.clock.advance(1);
    }
    const all = (await auditPage(biz)).data.map((e) => e.id);
    const entries = 5 + OPENING_ACTIONS.length;
    expect(all).toHaveLength(entries);
    const seen: string[] = [];
    let page = await auditPage(biz, '?limit=2');
    seen.push(...page.data.map((e) => e.id));
    while (page.hasMore) {
      page = await auditPage(biz, `?limit=2&starting_after=${seen[seen.length - 1]}`);
      seen.push(...page.data.map((e) => e.id));
      expect(seen.length).toBeLessThanOrEqual(entries);
    }
    expect(seen).toEqual(all);
  });

  it("never shows another business's entries, nor takes its ids as a cursor", async () => {
    const a = await h.newBusiness();
    const b = await h.newBusiness();
    await newHook(a);
    const aEntry = (await auditPage(a)).data[0] as AuditEntry;
    expect((await auditPage(b)).data.map((e) => e.action)).toEqual([...OPENING_ACTIONS]);
    const res = await b.get(`/v1/audit-log?starting_after=${aEntry.id}`);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', field: 'starting_after' });
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=201', 'limit'],
    ['limit=x', 'limit'],
    ['entity=dragon', 'entity'],
    ['since=yesterday', 'since'],
    ['starting_after=nope', 'starting_after'],
    ['starting_after=0193a6f4-0000-7000-8000-000000000000', 'starting_after'],
    ['entity_id=abc', 'entity_id'],
    ['colour=blue', 'colour'],
  ])('answers 400 naming the field for %s', async (query, field) => {
    const biz = await h.newBusiness();
    const res = await biz.get(`/v1/audit-log?${query}`);
    expect(res.status, res.text).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.field ?? res.body.error.message).toContain(field);
  });

  it('needs an API key', async () => {
    const res = await h.request('GET', '/v1/audit-log');
    expect(res.status).toBe(401);
  });
});

describe('audit entries of dues', () => {
  it('records a new due with its fields, by the API key', async () => {
    const biz = await h.newBusiness();
    const res = await biz.post('/v1/transactions', {
      amount_paise: 12345,
      due_date: '2026-12-01',
      contact_name: 'Audit Stores',
      invoice_number: 'INV-9',
    });
    expect(res.status, res.text).toBe(201);
    const due = res.body.data as { id: string; contact_id: string };
    const entries = (await auditPage(biz, `?entity=transaction&entity_id=${due.id}`)).data;
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      action: 'transaction.created',
      actor: { type: 'api_key' },
      request_id: res.headers['x-request-id'],
      changes: {
        contact_id: [null, due.contact_id],
        amount_paise: [null, 12345],
        due_date: [null, '2026-12-01'],
        invoice_number: [null, 'INV-9'],
        status: [null, 'pending'],
      },
    });
  });
});

describe('audit entries of contacts', () => {
  it('records a contact created and changed (name, phone, assigned_to), each with before and after', async () => {
    const biz = await h.newBusiness();
    const created = await biz.post('/v1/contacts', { name: 'Meera Textiles' });
    expect(created.status, created.text).toBe(201);
    const id = created.body.data.id as string;
    const staff = await addStaff(h, biz, 'collector', 'Ravi');
    const patched = await biz.patch(`/v1/contacts/${id}`, {
      name: 'Meera Fabrics',
      phone: '9876543210',
      assigned_to: staff.id,
    });
    expect(patched.status, patched.text).toBe(200);

    const entries = (await auditPage(biz, `?entity=contact&entity_id=${id}`)).data;
    expect(entries.map((e) => e.action)).toEqual(['contact.updated', 'contact.created']);
    expect(entries[1]?.changes).toMatchObject({ name: [null, 'Meera Textiles'] });
    expect(entries[0]?.changes).toEqual({
      name: ['Meera Textiles', 'Meera Fabrics'],
      phone: [null, '919876543210'],
      assigned_to: [null, staff.id],
    });
  });

  it('an erase redacts the name and phone in the contact’s entries (their one change) and records the erase by the system', async () => {
    const biz = await h.newBusiness();
    const id = (await biz.post('/v1/contacts', { name: 'Kavita Sharma', phone: '9876501234' })).body.data.id as string;
    await biz.patch(`/v1/contacts/${id}`, { name: 'Kavita S', reminders_paused: true });
    const before = (await auditPage(biz)).data;
    const erased = await cli(h, 'contact', 'erase', '--business', biz.business.id, '--contact', id, '--json');
    expect(erased.code, erased.stderr).toBe(0);

    const after = (await auditPage(biz)).data;
    expect(after[0]).toMatchObject({
      action: 'contact.erased',
      entity_id: id,
      actor: { type: 'system', id: null, name: null },
      request_id: null,
    });
    const kept = after.slice(1);
    expect(kept.map((e) => e.id)).toEqual(before.map((e) => e.id));
    expect(JSON.stringify(kept)).not.toMatch(/Kavita|9876501234/);
    expect(kept[0]?.changes).toEqual({ name: ['Erased buyer', 'Erased buyer'], reminders_paused: [0, 1] });
    // everything else about the entries is as it was
    expect(kept.map(({ changes: _, ...rest }) => rest)).toEqual(before.map(({ changes: _, ...rest }) => rest));
  });

  it('earlier entries stay exactly as written while later changes are made', async () => {
    const biz = await h.newBusiness();
    const id = (await biz.post('/v1/contacts', { name: 'Stable Stores' })).body.data.id as string;
    const first = (await auditPage(biz)).data;
    await biz.patch(`/v1/contacts/${id}`, { name: 'Stable Stores 2' });
    await biz.post('/v1/transactions', { amount_paise: 500, due_date: '2026-12-01', contact_id: id });
    const later = (await auditPage(biz)).data;
    expect(later.length).toBe(first.length + 2);
    expect(later.slice(2)).toEqual(first);
  });
});

describe('business export', () => {
  it('writes the audit entries as audit.jsonl', async () => {
    const biz = await h.newBusiness();
    await biz.post('/v1/contacts', { name: 'Export Stores' });
    const out = await mkdtemp(path.join(tmpdir(), 'audit-export-'));
    try {
      const res = await cli(h, 'business', 'export', '--business', biz.business.id, '--out', out, '--json');
      expect(res.code, res.stderr).toBe(0);
      const lines = (await readFile(path.join(out, 'audit.jsonl'), 'utf8'))
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      expect(lines.map((l) => l.action)).toEqual([...[...OPENING_ACTIONS].reverse(), 'contact.created']);
      expect(lines[2]).toMatchObject({
        action: 'contact.created',
        entity: 'contact',
        changes: { name: [null, 'Export Stores'] },
      });
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });
});
