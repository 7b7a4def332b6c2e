import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness, type TestBusiness } from './helpers/harness.js';

let h: Harness;
let biz: TestBusiness;
beforeAll(async () => {
  h = await startHarness();
  biz = await h.newBusiness();
});
afterAll(() => h.close());

describe('request bodies', () => {
  it('answers 400 for malformed JSON and changes nothing', async () => {
    const res = await biz.post('/v1/contacts', undefined, {
      payload: '{"name": "Broken',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: { code: 'invalid_request', message: 'request body is not valid JSON' } });
    expect((await biz.get('/v1/contacts')).body.total).toBe(0);
  });

  it('answers 400 for a body that is not JSON', async () => {
    const res = await biz.post('/v1/contacts', undefined, {
      payload: 'name=Someone',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.message).toMatch(/Content-Type/);
  });

  it('answers 400 for a body over 64 KB', async () => {
    const res = await biz.post('/v1/contacts', { name: 'Big', phone: 'x'.repeat(70_000) });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/64 KB/);
  });

  it('answers 400 naming an unknown field', async () => {
    const res = await biz.post('/v1/contacts', { name: 'Asha', nickname: 'A' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: { code: 'invalid_request', message: 'nickname is not a known field', field: 'nickname' },
    });
  });

  it('answers 400 when a JSON body is an array or a scalar', async () => {
    for (const payload of ['[]', '"text"', '42', 'null']) {
      const res = await biz.post('/v1/contacts', undefined, {
        payload,
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status, payload).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
    }
  });

  it('rejects prototype-poisoning payloads', async () => {
    const res = await biz.post('/v1/contacts', undefined, {
      payload: '{"name": "Evil", "__proto__": {"admin": true}}',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.status).toBe(400);
  });

  it('answers 400 naming an unknown query parameter', async () => {
    const res = await biz.get('/v1/transactions?colour=red');
    expect(res.status).toBe(400);
    expect(res.body.error.field).toBe('colour');
  });
});

describe('ids and routes', () => {
  it('answers 404 for a path id that is not a uuid', async () => {
    for (const path of ['/v1/transactions/123', '/v1/contacts/not-a-uuid', '/v1/transactions/abc/mark-paid']) {
      const res = path.endsWith('mark-paid') ? await biz.post(path, {}) : await biz.get(path);
      expect(res.status, path).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
  });

  it('answers 404 with the envelope for an unknown route', async () => {
    const res = await biz.get('/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });
});

describe('request ids', () => {
  it('puts an X-Request-Id on every response, errors included', async () => {
    const ok = await biz.get('/v1/me');
    const unauthorized = await h.request('GET', '/v1/me');
    const notFound = await h.request('GET', '/nope');
    for (const res of [ok, unauthorized, notFound]) expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(ok.headers['x-request-id']).not.toBe(unauthorized.headers['x-request-id']);
  });

  it('echoes a well-formed incoming X-Request-Id and replaces a malformed one', async () => {
    const echoed = await biz.get('/v1/me', { headers: { 'x-request-id': 'erp-sync-42' } });
    expect(echoed.headers['x-request-id']).toBe('erp-sync-42');
    const replaced = await biz.get('/v1/me', { headers: { 'x-request-id': 'bad id with spaces\n' } });
    expect(replaced.headers['x-request-id']).not.toContain(' ');
  });
});

describe('operations endpoints', () => {
  it('GET /healthz and /readyz answer without a key', async () => {
    expect((await h.request('GET', '/healthz')).body).toEqual({ status: 'ok' });
    expect((await h.request('GET', '/readyz')).body).toMatchObject({ status: 'ready', store: 'reachable' });
  });

  it('GET /metrics exposes request counts and latency by route and status', async () => {
    await biz.get('/v1/summary');
    const res = await h.request('GET', '/metrics');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/plain/);
    expect(res.text).toMatch(
      /http_request_duration_seconds_count\{[^}]*route="\/v1\/summary"[^}]*status="200"[^}]*\} \d+/,
    );
    expect(res.text).toContain('webhook_deliveries_total');
    expect(res.text).toContain('reminders_total');
  });

  it('GET /openapi.json is an OpenAPI 3.1 document of every /v1 operation with named schemas', async () => {
    const res = await h.request('GET', '/openapi.json');
    expect(res.status).toBe(200);
    const doc = res.body;
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.components.securitySchemes.apiKey).toEqual({ type: 'apiKey', in: 'header', name: 'x-api-key' });
    const ops = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([p, methods]) =>
      Object.keys(methods).map((m) => `${m.toUpperCase()} ${p}`),
    );
    expect(ops).toEqual(
      expect.arrayContaining([
        'GET /v1/me',
        'GET /v1/summary',
        'GET /v1/contacts',
        'POST /v1/contacts',
        'GET /v1/contacts/{id}',
        'PATCH /v1/contacts/{id}',
        'GET /v1/transactions',
        'POST /v1/transactions',
        'GET /v1/transactions/{id}',
        'POST /v1/transactions/{id}/mark-paid',
      ]),
    );
    for (const name of ['Transaction', 'Contact', 'ContactWithBalances', 'Summary', 'Business', 'Error']) {
      expect(doc.components.schemas[name], name).toBeDefined();
    }
    expect(doc.paths['/v1/transactions/{id}/mark-paid'].post.requestBody.required).toBe(false);
    const create = doc.paths['/v1/transactions'].post;
    expect(create.requestBody.required).toBe(true);
    expect(create.requestBody.content['application/json'].schema.required).toEqual(['amount_paise', 'due_date']);
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(['201', '400', '401', '403', '422', '429']));
    // every operation may meet a database outage (issue 25)
    expect(Object.keys(create.responses)).toContain('503');
    expect(doc.components.schemas.Error.properties.error.properties.code.enum).toContain('unavailable');
  });

  it('GET /docs renders the reference', async () => {
    const res = await h.request('GET', '/docs/');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.text).toContain('swagger');
  });
});

describe('error responses', () => {
  it('never include a stack trace or SQL', async () => {
    const res = await biz.post('/v1/transactions', {
      amount_paise: 'lots',
      due_date: '2030-01-01',
      contact_name: 'X Y',
    });
    expect(res.status).toBe(400);
    expect(res.text).not.toMatch(/at .*\.ts:\d+|select |insert |SQLITE|postgres/i);
  });
});
