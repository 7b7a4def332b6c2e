import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './helpers/harness.js';
import { OpenApiChecker, type OpenApiDocument } from './helpers/openapi-check.js';

/**
 * The harness checks every response of the suite against /openapi.json (helpers/openapi-check.ts).
 * These tests show that the check fails when it should, so that the suite's silence means something.
 */
let h: Harness;
let checker: OpenApiChecker;

beforeAll(async () => {
  h = await startHarness({ now: '2026-11-20T06:30:00.000Z' });
  const doc = await h.request('GET', '/openapi.json');
  expect(doc.status).toBe(200);
  checker = new OpenApiChecker(doc.body as OpenApiDocument);
});
afterAll(() => h?.close());

const jsonHeaders = {
  'content-type': 'application/json; charset=utf-8',
  'x-request-id': 'r-1',
  'ratelimit-limit': '30',
  'ratelimit-remaining': '29',
  'ratelimit-reset': '60',
};

describe('the response check', () => {
  it('passes an unpaid due (payment_method null) and fails one whose field is outside its enum', async () => {
    const biz = await h.newBusiness();
    const created = await biz.post('/v1/transactions', {
      contact_name: 'Checked Buyer',
      amount_paise: 12_300,
      due_date: '2026-12-01',
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.data.payment_method).toBeNull();
    const ok = { method: 'POST', route: '/v1/transactions', status: 201, headers: { ...created.headers } };
    expect(checker.check({ ...ok, body: created.text })).toEqual([]);

    const wrong = JSON.stringify({ data: { ...created.body.data, payment_method: 'barter' } });
    expect(checker.check({ ...ok, body: wrong })?.join('\n')).toMatch(/payment_method.*allowed values/);
    const missing = JSON.stringify({ data: { ...created.body.data, amount_paise: undefined } });
    expect(checker.check({ ...ok, body: missing })?.join('\n')).toMatch(/amount_paise/);
  });

  it('fails an undocumented status or media type, and ignores what is not in the document', () => {
    const base = { method: 'GET', route: '/v1/transactions/:id', headers: jsonHeaders };
    expect(checker.check({ ...base, status: 418, body: '{}' })).toEqual([
      'GET /v1/transactions/{id} -> 418: status not documented',
    ]);
    const html = { ...jsonHeaders, 'content-type': 'text/html' };
    expect(checker.check({ ...base, status: 200, headers: html, body: '<p>' })?.join('\n')).toMatch(
      /media type text\/html not documented/,
    );
    expect(checker.check({ ...base, route: '/dashboard', status: 200, body: '<p>' })).toBeNull();
  });

  it('fails a response without a header the document requires, or with one of the wrong type', () => {
    const base = { method: 'GET', route: '/v1/summary', status: 200, body: undefined };
    const { 'x-request-id': _id, ...noId } = jsonHeaders;
    expect(checker.check({ ...base, headers: noId })).toEqual([
      'GET /v1/summary -> 200: required header X-Request-Id missing',
    ]);
    expect(checker.check({ ...base, headers: { ...jsonHeaders, 'ratelimit-remaining': 'many' } })?.join('\n')).toMatch(
      /header RateLimit-Remaining=many: .*integer/,
    );
    const limited = { ...base, status: 429, headers: jsonHeaders };
    expect(checker.check(limited)).toEqual(['GET /v1/summary -> 429: required header Retry-After missing']);
  });

  it('accepts the export as text/csv and refuses it as JSON', () => {
    const base = { method: 'GET', route: '/v1/transactions/export', status: 200 };
    const csv = { ...jsonHeaders, 'content-type': 'text/csv; charset=utf-8' };
    expect(checker.check({ ...base, headers: csv, body: 'id\r\n' })).toEqual([]);
    expect(checker.check({ ...base, headers: jsonHeaders, body: '[]' })?.join('\n')).toMatch(
      /application\/json not documented/,
    );
  });

  it('fails the request that got a response outside the document (the harness hook)', async () => {
    const biz = await h.newBusiness();
    const created = await biz.post('/v1/transactions', {
      contact_name: 'Odd Method',
      amount_paise: 100,
      due_date: '2026-12-01',
    });
    await h.store.db
      .updateTable('transactions')
      .set({ payment_method: 'barter' })
      .where('id', '=', created.body.data.id)
      .execute();
    await expect(biz.get(`/v1/transactions/${created.body.data.id}`)).rejects.toThrow(
      /response differs from \/openapi.json:\nGET \/v1\/transactions\/\{id\} -> 200: body does not match/,
    );
    const read = await h.uncheckedResponses(() => biz.get(`/v1/transactions/${created.body.data.id}`));
    expect(read.body.data.payment_method).toBe('barter');
  });
});
