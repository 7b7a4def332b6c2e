import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness, type TestBusiness } from './helpers/harness.js';

/**
 * PRODUCT part 16, "no input reaches a 500": odd strings, numbers and dates thrown at every route
 * the router knows (read from app.printRoutes, so a new route is covered without editing this
 * file), into every path parameter, query parameter and body field its schema names. Every odd
 * value is invalid for its field, so each answer must be a 4xx that changed nothing.
 */

let h: Harness;
let biz: TestBusiness;
const ids: Record<string, string> = {};
beforeAll(async () => {
  h = await startHarness({ env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });
  biz = await h.newBusiness();
  const due = await biz.post('/v1/transactions', {
    amount_paise: 5000,
    due_date: '2026-01-15',
    contact_name: 'Odd Input',
  });
  expect(due.status).toBe(201);
  const hook = await biz.post('/v1/webhooks', { url: 'https://hooks.example.test/in', events: ['transaction.paid'] });
  expect(hook.status).toBe(201);
  ids.transactions = due.body.data?.id ?? due.body.id;
  ids.contacts = due.body.data?.contact_id ?? due.body.contact_id;
  ids.webhooks = hook.body.data?.id ?? hook.body.id;
  ids.token = String(due.body.data?.pay_page_url ?? due.body.pay_page_url).split('/pay/')[1] ?? '';
  for (const [name, id] of Object.entries(ids)) expect(id, name).toMatch(/^[\w-]{8,}$/);
});
afterAll(() => h.close());

/** Method and full path of every route, from the router's own tree. */
function routesOf(tree: string): { method: string; path: string }[] {
  const routes: { method: string; path: string }[] = [];
  const stack: string[] = [];
  for (const line of tree.split('\n')) {
    const m = /^([│ ]*)[├└]── (\S+) \(([^)]+)\)$/.exec(line);
    if (!m) continue;
    const depth = (m[1] as string).length / 4;
    stack.length = depth;
    const path = (stack[depth - 1] ?? '') + (m[2] as string);
    stack.push(path);
    for (const method of (m[3] as string).split(', ')) routes.push({ method, path });
  }
  return routes;
}

const ODD_TEXT = [
  'a\u0000b',
  'nul\u0000',
  'bell\u0007',
  'esc\u001b[31m',
  'del\u007f',
  'lone \ud800 high',
  'lone \udc00 low',
  'x\u0085y',
];
const ODD_DATES = [
  '0500-06-15',
  '0000-01-01',
  '1899-12-31',
  '0000-01-01T00:00:00Z',
  '0500-06-15T10:00:00Z',
  '1899-12-31T23:59:59Z',
  '9999-12-31T23:59:59-05:00',
];
const ODD_NUMBERS = [-1, -(2 ** 63), 1.5, 1e300, 2 ** 53 + 2, '12', true];
const ODD_QUERY_NUMBERS = ['-1', '1e300', '1.5', '9'.repeat(40), 'NaN', 'a\u0000'];

interface FieldSchema {
  type?: string | string[];
  format?: string;
  enum?: unknown[];
}

function oddValuesFor(schema: FieldSchema | undefined): unknown[] {
  const types = [schema?.type].flat();
  if (schema?.format === 'date' || schema?.format === 'date-time') return [...ODD_DATES, ...ODD_TEXT];
  if (types.includes('integer') || types.includes('number')) return ODD_NUMBERS;
  if (types.includes('boolean')) return ['yes', 2, 'a\u0000'];
  if (types.includes('array')) return [[null], ['a\u0000b'], 'a\u0000b'];
  if (types.includes('object')) return ['a\u0000b', [1]];
  return [...ODD_TEXT, 42, ['x']];
}

function queryValuesFor(schema: FieldSchema | undefined): string[] {
  const types = [schema?.type].flat();
  if (schema?.format === 'date' || schema?.format === 'date-time') return ODD_DATES.map(encodeURIComponent);
  if (types.includes('integer') || types.includes('number')) return ODD_QUERY_NUMBERS.map(encodeURIComponent);
  if (types.includes('boolean')) return ['yes', '%00'];
  return ['a%00b', '%00', 'a%07b', '%ED%A0%80', 'x%C2%85y'];
}

/** Ids that name the business's own rows, so an odd body meets a real row. */
function realPath(path: string): string {
  return path
    .replace('/v1/transactions/:id', `/v1/transactions/${ids.transactions}`)
    .replace('/v1/contacts/:id', `/v1/contacts/${ids.contacts}`)
    .replace('/v1/webhooks/:id', `/v1/webhooks/${ids.webhooks}`)
    .replace(':deliveryId', '00000000-0000-4000-8000-000000000000')
    .replace(':token', ids.token as string);
}

const ODD_PATH_PARAMS = ['a%00b', '%00', 'x'.repeat(300), '%ED%A0%80', '%E0%A4%A', '..%2F..%2Fetc', '0500-06-15'];

async function snapshot() {
  const parts = await Promise.all(
    [
      '/v1/me',
      '/v1/summary',
      '/v1/contacts?limit=200',
      '/v1/transactions?limit=200',
      `/v1/transactions/${ids.transactions}/payments`,
      '/v1/webhooks',
      `/v1/webhooks/${ids.webhooks}/deliveries`,
    ].map(async (url) => {
      const res = await biz.get(url);
      expect(res.status, url).toBe(200);
      return res.body;
    }),
  );
  return JSON.stringify(parts);
}

type Operation = {
  parameters?: { in: string; name: string; schema?: FieldSchema }[];
  requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, FieldSchema> } }> };
};

describe('odd input at every endpoint', () => {
  it('answers no 5xx and changes nothing', async () => {
    const routes = routesOf(h.app.printRoutes({ commonPrefix: false })).filter(
      (r) => r.method !== 'HEAD' && !r.path.startsWith('/docs'),
    );
    expect(routes.length).toBeGreaterThan(25);
    const doc = (await h.request('GET', '/openapi.json')).body as { paths: Record<string, Record<string, Operation>> };
    const before = await snapshot();
    const failures: string[] = [];
    let calls = 0;

    async function call(method: string, url: string, payload?: unknown) {
      calls++;
      const form = url.startsWith('/pay/');
      const headers: Record<string, string> = { 'x-api-key': biz.apiKey };
      let raw: string | undefined;
      if (payload !== undefined) {
        headers['content-type'] = form ? 'application/x-www-form-urlencoded' : 'application/json';
        raw = form ? new URLSearchParams(payload as Record<string, string>).toString() : JSON.stringify(payload);
      }
      const res = await h.request(method as never, url, { headers, ...(raw !== undefined && { payload: raw }) });
      const mutating = method !== 'GET';
      // The dashboard has no session here: it sends the request to sign in before reading its body.
      const toSignIn =
        url.startsWith('/dashboard/') && res.status === 303 && res.headers.location === '/dashboard/login';
      if (res.status >= 500 || (mutating && res.status < 400 && !toSignIn)) {
        failures.push(
          `${method} ${url.slice(0, 120)} ${JSON.stringify(payload)?.slice(0, 120)} -> ${res.status} ${res.text.slice(0, 160)}`,
        );
      }
    }

    for (const { method, path } of routes) {
      const openApiPath = path.replace(/:(\w+)/g, '{$1}');
      const op = doc.paths[openApiPath]?.[method.toLowerCase()];
      const params = path.match(/:\w+/g) ?? [];
      // Odd path parameters, one at a time.
      for (const param of params) {
        for (const odd of ODD_PATH_PARAMS)
          await call(method, realPath(path.replace(param, odd)), method === 'GET' ? undefined : {});
      }
      const url = realPath(path);
      if (method === 'DELETE') continue;
      if (url.startsWith('/pay/')) {
        // A browser's form: text only, and UTF-8 cannot carry an unpaired surrogate.
        for (const odd of ODD_TEXT.filter((t) => !/\p{Cs}/u.test(t))) await call(method, url, { reference: odd });
        continue;
      }
      if (method !== 'GET') {
        // Odd bodies: whole, then one field at a time.
        for (const body of [[], 'a\u0000b', { 'a\u0000b': 1 }, { '\ud800': 1 }]) await call(method, url, body);
        const properties = op?.requestBody?.content?.['application/json']?.schema?.properties ?? {};
        for (const [field, schema] of Object.entries(properties)) {
          for (const odd of oddValuesFor(schema)) await call(method, url, { ...VALID_BODIES[path], [field]: odd });
        }
        continue;
      }
      // Odd query values, one parameter at a time.
      const queryParams = (op?.parameters ?? []).filter((p) => p.in === 'query');
      const names = queryParams.length > 0 ? queryParams : [{ name: 'search' }, { name: 'since' }, { name: 'limit' }];
      for (const p of names as { name: string; schema?: FieldSchema }[]) {
        for (const value of queryValuesFor(p.schema)) await call(method, `${url}?${p.name}=${value}`);
      }
    }

    expect(failures).toEqual([]);
    expect(calls).toBeGreaterThan(500);
    expect(await snapshot()).toBe(before);
  });
});

/** A valid body per route, so that one odd field is the only thing wrong. */
const VALID_BODIES: Record<string, Record<string, unknown>> = {
  '/v1/contacts': { name: 'Valid Name', phone: '+91 98765 43210' },
  '/v1/contacts/:id': { name: 'Valid Name' },
  '/v1/transactions': { amount_paise: 100, due_date: '2026-02-01', contact_name: 'Valid Name', notes: 'n' },
  '/v1/transactions/:id': { amount_paise: 100, notes: 'n' },
  '/v1/transactions/:id/mark-paid': { utr: 'UTR1' },
  '/v1/transactions/:id/payments': { amount_paise: 100, utr: 'UTR1' },
  '/v1/webhooks': { url: 'https://hooks.example.test/other', events: ['transaction.paid'] },
  '/legacy/v1/webhooks': { url: 'https://hooks.example.test/other', events: ['transaction.paid'] },
  '/pay/:token/claim': { reference: 'ref' },
};

describe('text and dates in the shared schemas', () => {
  it('answers 400 naming due_date for a year outside 1900-9999, on create and on change', async () => {
    for (const due_date of ['0500-06-15', '1899-12-31']) {
      const res = await biz.post('/v1/transactions', { amount_paise: 100, due_date, contact_name: 'Year Test' });
      expect(res.status, due_date).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_request', field: 'due_date' });
      expect(res.body.error.message).toMatch(/1900-9999/);
      const patch = await biz.patch(`/v1/transactions/${ids.transactions}`, { due_date });
      expect(patch.status, due_date).toBe(400);
      expect(patch.body.error.field).toBe('due_date');
    }
  });

  it('answers 400 naming since for an instant outside 1900-9999', async () => {
    for (const since of ['0000-01-01T00:00:00Z', '1899-12-31T23:59:59Z', '9999-12-31T23:59:59-05:00']) {
      const res = await biz.get(`/v1/transactions?since=${encodeURIComponent(since)}`);
      expect(res.status, since).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_request', field: 'since' });
    }
    expect((await biz.get(`/v1/transactions?since=${encodeURIComponent('1900-01-01T00:00:00Z')}`)).status).toBe(200);
  });

  it('answers 400 naming the field for a NUL, a control character or an unpaired surrogate', async () => {
    const cases: [string, Record<string, unknown>, string][] = [
      ['/v1/contacts', { name: 'a\u0000b' }, 'name'],
      [
        '/v1/transactions',
        { amount_paise: 1, due_date: '2026-01-01', contact_name: 'Ok Name', notes: 'x\u0000' },
        'notes',
      ],
      ['/v1/transactions', { amount_paise: 1, due_date: '2026-01-01', contact_name: 'bad\ud800' }, 'contact_name'],
      [`/v1/transactions/${ids.transactions}/mark-paid`, { utr: 'UTR\u001b' }, 'utr'],
    ];
    for (const [url, body, field] of cases) {
      const res = await biz.post(url, body);
      expect(res.status, field).toBe(400);
      expect(res.body.error).toEqual({
        code: 'invalid_request',
        field,
        message: `${field} must not contain control characters or unpaired surrogates`,
      });
    }
    const search = await biz.get('/v1/contacts?search=a%00b');
    expect(search.status).toBe(400);
    expect(search.body.error.field).toBe('search');
  });

  it('keeps tab and newline in notes', async () => {
    const res = await biz.post('/v1/transactions', {
      amount_paise: 100,
      due_date: '2026-03-01',
      contact_name: 'Notes Keeper',
      notes: 'line one\n\tline two\r\n',
    });
    expect(res.status).toBe(201);
    expect(res.body.data.notes).toBe('line one\n\tline two\r\n');
    await biz.delete(`/v1/transactions/${res.body.data.id}`);
  });

  it('ignores an odd search on the earlier shape, as it ignores any bad query value', async () => {
    const res = await biz.get('/legacy/v1/contacts?search=a%00b');
    expect(res.status).toBe(200);
  });
});
