import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './helpers/harness.js';

const NOW = '2026-11-21T06:30:00.000Z';
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ now: NOW });
});
afterAll(() => h.close());

const body = { amount_paise: 2500, due_date: '2026-12-01', contact_name: 'Idem Buyer' };

describe('Idempotency-Key on POST /v1/transactions', () => {
  it('replays the original status and body with Idempotent-Replayed, creating one due', async () => {
    const biz = await h.newBusiness();
    const headers = { 'idempotency-key': 'order-1001' };
    const first = await biz.post('/v1/transactions', body, { headers });
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    h.clock.advance(60_000);
    const second = await biz.post('/v1/transactions', { ...body }, { headers });
    expect(second.status).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.text).toBe(first.text);
    expect((await biz.get('/v1/transactions')).body.total).toBe(1);
    expect((await biz.get('/v1/summary')).body.data.pending).toEqual({ count: 1, paise: 2500 });
  });

  it('serialises a replay through the route response schema, like the first response', async () => {
    const biz = await h.newBusiness();
    const headers = { 'idempotency-key': 'order-schema' };
    const first = await biz.post('/v1/transactions', body, { headers });
    expect(first.status).toBe(201);
    // A stored response carrying a field the schema does not declare (as an older version might
    // have stored): the replay goes through the schema, so the field never reaches the client.
    const stored = await h.store.db
      .selectFrom('idempotency_keys')
      .select('response_body')
      .where('business_id', '=', biz.business.id)
      .where('idempotency_key', '=', 'order-schema')
      .executeTakeFirstOrThrow();
    const widened = { ...JSON.parse(stored.response_body), internal_note: 'not in the schema' };
    await h.store.db
      .updateTable('idempotency_keys')
      .set({ response_body: JSON.stringify(widened) })
      .where('business_id', '=', biz.business.id)
      .where('idempotency_key', '=', 'order-schema')
      .execute();
    const replay = await biz.post('/v1/transactions', body, { headers });
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.headers['content-type']).toMatch(/^application\/json/);
    expect(replay.body).not.toHaveProperty('internal_note');
    expect(replay.text).toBe(first.text);
  });

  it('treats the same body with its keys in another order as the same request', async () => {
    const biz = await h.newBusiness();
    const headers = { 'idempotency-key': 'reordered' };
    await biz.post('/v1/transactions', body, { headers });
    const payload = JSON.stringify({ contact_name: 'Idem Buyer', due_date: '2026-12-01', amount_paise: 2500 });
    const again = await biz.post('/v1/transactions', undefined, {
      payload,
      headers: { ...headers, 'content-type': 'application/json' },
    });
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
  });

  it('answers 422 when the key is reused with a different body, and creates nothing more', async () => {
    const biz = await h.newBusiness();
    const headers = { 'idempotency-key': 'order-1002' };
    await biz.post('/v1/transactions', body, { headers });
    const res = await biz.post('/v1/transactions', { ...body, amount_paise: 9999 }, { headers });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'unprocessable', field: 'Idempotency-Key' });
    expect((await biz.get('/v1/transactions')).body.total).toBe(1);
  });

  it('creates exactly one due under 20 concurrent requests with the same key', async () => {
    const biz = await h.newBusiness();
    const headers = { 'idempotency-key': 'burst-1' };
    const results = await Promise.all(
      Array.from({ length: 20 }, () => biz.post('/v1/transactions', body, { headers })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(201));
    expect(new Set(results.map((r) => r.body.data.id)).size).toBe(1);
    expect(results.filter((r) => r.headers['idempotent-replayed'] === 'true')).toHaveLength(19);
    expect((await biz.get('/v1/transactions')).body.total).toBe(1);
    const events = await h.store.db
      .selectFrom('events')
      .select('type')
      .where('business_id', '=', biz.business.id)
      .where('type', '=', 'transaction.created')
      .execute();
    expect(events).toHaveLength(1);
  });

  it('scopes keys to the business and to the operation', async () => {
    const a = await h.newBusiness();
    const b = await h.newBusiness();
    const headers = { 'idempotency-key': 'shared-key' };
    const ra = await a.post('/v1/transactions', body, { headers });
    const rb = await b.post('/v1/transactions', body, { headers });
    expect(rb.headers['idempotent-replayed']).toBeUndefined();
    expect(rb.body.data.id).not.toBe(ra.body.data.id);
    const contact = await a.post('/v1/contacts', { name: 'Keyed Contact' }, { headers });
    expect(contact.status).toBe(201);
    expect(contact.headers['idempotent-replayed']).toBeUndefined();
  });

  it('does not store requests that fail validation or cannot be completed', async () => {
    const biz = await h.newBusiness();
    const headers = { 'idempotency-key': 'fix-and-retry' };
    const bad = await biz.post('/v1/transactions', { ...body, amount_paise: 0 }, { headers });
    expect(bad.status).toBe(400);
    const unknownContact = await biz.post(
      '/v1/transactions',
      { amount_paise: 100, due_date: '2026-12-01', contact_id: '00000000-0000-4000-8000-000000000000' },
      { headers },
    );
    expect(unknownContact.status).toBe(422);
    const good = await biz.post('/v1/transactions', body, { headers });
    expect(good.status).toBe(201);
    expect(good.headers['idempotent-replayed']).toBeUndefined();
  });

  it('forgets a key after 24 hours', async () => {
    const biz = await h.newBusiness();
    const headers = { 'idempotency-key': 'daily' };
    const first = await biz.post('/v1/transactions', body, { headers });
    h.clock.advance(24 * 3600_000 - 1000);
    const within = await biz.post('/v1/transactions', body, { headers });
    expect(within.body.data.id).toBe(first.body.data.id);
    h.clock.advance(2000);
    const after = await biz.post('/v1/transactions', body, { headers });
    expect(after.status).toBe(201);
    expect(after.headers['idempotent-replayed']).toBeUndefined();
    expect(after.body.data.id).not.toBe(first.body.data.id);
    h.clock.set(NOW);
  });

  it('answers 400 for a key longer than 255 characters', async () => {
    const biz = await h.newBusiness();
    const res = await biz.post('/v1/transactions', body, { headers: { 'idempotency-key': 'k'.repeat(256) } });
    expect(res.status).toBe(400);
    expect(res.body.error.field?.toLowerCase()).toBe('idempotency-key');
    expect((await biz.get('/v1/transactions')).body.total).toBe(0);
  });
});

describe('Idempotency-Key on POST /v1/contacts', () => {
  it('replays 201 for the creating request and keeps 200 for a plain duplicate name', async () => {
    const biz = await h.newBusiness();
    const headers = { 'idempotency-key': 'contact-1' };
    const first = await biz.post('/v1/contacts', { name: 'Replay Me' }, { headers });
    const replay = await biz.post('/v1/contacts', { name: 'Replay Me' }, { headers });
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(first.body);
    const plain = await biz.post('/v1/contacts', { name: 'Replay Me' });
    expect(plain.status).toBe(200);
    expect(plain.body.created).toBe(false);
  });

  it('answers 422 for the same key with another body', async () => {
    const biz = await h.newBusiness();
    const headers = { 'idempotency-key': 'contact-2' };
    await biz.post('/v1/contacts', { name: 'First Body' }, { headers });
    const res = await biz.post('/v1/contacts', { name: 'Second Body' }, { headers });
    expect(res.status).toBe(422);
    expect((await biz.get('/v1/contacts')).body.total).toBe(1);
  });
});

describe('purging expired keys', () => {
  it('deletes keys older than the window and keeps fresh ones', async () => {
    const biz = await h.newBusiness();
    // Far in the past, so that the (global) purge cannot touch keys of tests running alongside.
    h.clock.set('2001-01-01T00:00:00.000Z');
    await biz.post('/v1/contacts', { name: 'Old Key' }, { headers: { 'idempotency-key': 'old' } });
    h.clock.advance(25 * 3600_000);
    await biz.post('/v1/contacts', { name: 'New Key' }, { headers: { 'idempotency-key': 'new' } });
    while ((await h.services.idempotency.purgeExpired(1)) > 0) {}
    const keys = await h.store.db
      .selectFrom('idempotency_keys')
      .select('idempotency_key')
      .where('business_id', '=', biz.business.id)
      .execute();
    expect(keys.map((k) => k.idempotency_key)).toEqual(['new']);
    h.clock.set(NOW);
  });
});
