import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './helpers/harness.js';
import { OpenApiChecker, type OpenApiDocument } from './helpers/openapi-check.js';

/** The OpenAPI document's own promises: ids, bodies, headers, security and examples. */
let h: Harness;
let doc: FullDocument;

type Json = Record<string, any>;
interface FullDocument extends OpenApiDocument {
  components: Json;
  security: Array<Record<string, string[]>>;
}

const operations = () =>
  Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods as Record<string, Json>).map(([method, op]) => ({ path, method, op })),
  );

beforeAll(async () => {
  h = await startHarness();
  const res = await h.request('GET', '/openapi.json');
  expect(res.status).toBe(200);
  doc = res.body as FullDocument;
});
afterAll(() => h?.close());

describe('GET /openapi.json', () => {
  it('gives every operation a unique operationId', () => {
    const ids = operations().map(({ method, path, op }) => op.operationId ?? `(none: ${method} ${path})`);
    expect(ids.filter((id) => id.startsWith('(none'))).toEqual([]);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
  });

  it('lists null among the values of every nullable enum', () => {
    const wrong: string[] = [];
    const walk = (value: unknown, at: string) => {
      if (Array.isArray(value)) {
        for (const [i, v] of value.entries()) walk(v, `${at}/${i}`);
      } else if (value !== null && typeof value === 'object') {
        const s = value as Json;
        if (Array.isArray(s.type) && s.type.includes('null') && Array.isArray(s.enum) && !s.enum.includes(null)) {
          wrong.push(at);
        }
        for (const [k, v] of Object.entries(s)) walk(v, `${at}/${k}`);
      }
    };
    walk(doc, '#');
    expect(wrong).toEqual([]);
  });

  it('documents the import bodies (CSV and JSON) and the export as CSV', () => {
    const importOp = doc.paths['/v1/transactions/import']?.post as Json;
    expect(Object.keys(importOp.requestBody.content).sort()).toEqual(['application/json', 'text/csv']);
    expect(importOp.requestBody.content['application/json'].schema.required).toEqual(['rows']);
    const exportOp = doc.paths['/v1/transactions/export']?.get as Json;
    expect(Object.keys(exportOp.responses['200'].content)).toEqual(['text/csv']);
    expect(exportOp.responses['200'].headers['Content-Disposition']).toBeDefined();
  });

  it('gives every POST and PATCH a request body', () => {
    const missing = operations()
      .filter(({ method, op }) => (method === 'post' || method === 'patch') && !op.requestBody)
      .map(({ method, path }) => `${method} ${path}`);
    expect(missing).toEqual([]);
  });

  it('lets the chat and gateway webhooks declare their own authentication, not the API key', () => {
    const schemes = doc.components.securitySchemes as Json;
    const webhook = (path: string, method: string) => (doc.paths[path]?.[method] as Json | undefined)?.security;
    expect(webhook('/channels/whatsapp/webhook', 'post')).toEqual([{ whatsappSignature: [] }]);
    expect(schemes.whatsappSignature).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-Hub-Signature-256' });
    expect(webhook('/channels/whatsapp/webhook', 'get')).toEqual([{ whatsappVerifyToken: [] }]);
    expect(webhook('/channels/razorpay/webhook', 'post')).toEqual([{ razorpaySignature: [] }]);
    expect(schemes.razorpaySignature).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-Razorpay-Signature' });
    expect(doc.security).toEqual([{ apiKey: [] }]);
  });

  it('documents the headers of every response, and the error envelope of every error status', () => {
    const problems: string[] = [];
    for (const { path, method, op } of operations()) {
      const authenticated = op.security === undefined;
      const idempotent = (op.parameters ?? []).some((p: Json) => p.in === 'header' && p.name === 'idempotency-key');
      for (const [status, response] of Object.entries(op.responses as Record<string, Json>)) {
        const where = `${method} ${path} ${status}`;
        const headers = Object.keys(response.headers ?? {});
        const expected = ['X-Request-Id'];
        if (authenticated) expected.push('RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset');
        if (status === '429' || status === '503') expected.push('Retry-After');
        if (idempotent && status.startsWith('2')) expected.push('Idempotent-Replayed');
        for (const name of expected) if (!headers.includes(name)) problems.push(`${where}: no ${name}`);
        if (Number(status) >= 400 && !path.startsWith('/legacy/')) {
          const schema = response.content?.['application/json']?.schema;
          const envelope = schema?.$ref === '#/components/schemas/Error' || schema?.properties?.error;
          if (!envelope) problems.push(`${where}: not the error envelope`);
        }
      }
    }
    expect(problems).toEqual([]);
    const headers = doc.components.headers as Json;
    expect(headers['X-Request-Id'].required).toBe(true);
    expect(headers['Retry-After'].required).toBe(true);
  });

  it('has examples for the main operations, each valid against its schema', () => {
    const checker = new OpenApiChecker(doc);
    const byId = new Map(operations().map((o) => [o.op.operationId as string, o]));
    for (const id of ['createTransaction', 'listTransactions', 'getTransaction', 'createContact', 'getSummary']) {
      const found = byId.get(id);
      const media = found?.op.responses[found.method === 'post' ? '201' : '200'].content['application/json'];
      expect(media?.example, id).toBeDefined();
    }
    for (const id of ['createTransaction', 'createContact', 'createWebhook']) {
      expect(byId.get(id)?.op.requestBody.content['application/json'].example, id).toBeDefined();
    }
    let checked = 0;
    for (const { path, method, op } of operations()) {
      for (const [status, response] of Object.entries(op.responses as Record<string, Json>)) {
        for (const [type, media] of Object.entries((response.content ?? {}) as Record<string, Json>)) {
          if (media.example === undefined) continue;
          const route = path.replace(/\{([^}]+)\}/g, ':$1');
          const body = typeof media.example === 'string' ? media.example : JSON.stringify(media.example);
          const headers = {
            'content-type': type,
            'x-request-id': 'example',
            'ratelimit-limit': '30',
            'ratelimit-remaining': '29',
            'ratelimit-reset': '60',
            'retry-after': '60',
          };
          expect(checker.check({ method, route, status: Number(status), headers, body }), `${method} ${path}`).toEqual(
            [],
          );
          checked++;
        }
      }
      const body = op.requestBody?.content?.['application/json'];
      if (body?.example !== undefined) {
        expect(checker.validates(body.schema, body.example), `${method} ${path} request`).toEqual([]);
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(10);
  });
});
