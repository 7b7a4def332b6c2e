import type { ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../src/http/types.js';

/**
 * Every response the black-box suite receives from a documented operation is checked against the
 * app's own /openapi.json (ajv, strict): the operation (method + path template), the status, the
 * media type, the body and the documented headers. A mismatch is a test failure, so the document
 * cannot drift from the answers. Hidden routes (pages, the pay page, health, metrics) are not in
 * the document and are not checked; neither is an URL that matches no route.
 */

// ajv-formats is CommonJS with a default export; under NodeNext its type is the module object.
const addFormats = addFormatsPlugin as unknown as (ajv: Ajv2020) => Ajv2020;

type Schema = Record<string, unknown>;
interface MediaObject {
  schema?: Schema;
}
interface HeaderObject {
  $ref?: string;
  required?: boolean;
  schema?: Schema;
}
interface ResponseObject {
  $ref?: string;
  content?: Record<string, MediaObject>;
  headers?: Record<string, HeaderObject>;
}
interface Operation {
  operationId?: string;
  responses?: Record<string, ResponseObject>;
}
export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components?: {
    schemas?: Record<string, Schema>;
    headers?: Record<string, HeaderObject>;
    responses?: Record<string, ResponseObject>;
  };
}

/** OpenAPI's own keywords (annotations to JSON Schema) and ours (x-*), known to strict ajv. */
const ANNOTATIONS = ['example', 'discriminator', 'xml', 'externalDocs'];

function vendorKeywords(value: unknown, found: Set<string>): Set<string> {
  if (Array.isArray(value)) for (const v of value) vendorKeywords(v, found);
  else if (value !== null && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) {
      if (key.startsWith('x-')) found.add(key);
      vendorKeywords(v, found);
    }
  }
  return found;
}

/** `#/components/schemas/X` -> `openapi#/$defs/X`, so that a response schema compiles on its own. */
function rebase(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rebase);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    out[key] =
      key === '$ref' && typeof v === 'string' && v.startsWith('#/components/schemas/')
        ? `openapi#/$defs/${v.slice('#/components/schemas/'.length)}`
        : rebase(v);
  }
  return out;
}

function newAjv(doc: OpenApiDocument, options: { coerceTypes?: boolean } = {}): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allErrors: true, verbose: true, allowUnionTypes: true, ...options });
  addFormats(ajv);
  for (const keyword of [...ANNOTATIONS, ...vendorKeywords(doc, new Set())]) ajv.addKeyword({ keyword });
  ajv.addSchema({ $id: 'openapi', $defs: rebase(doc.components?.schemas ?? {}) as Schema });
  return ajv;
}

/** `/v1/transactions/:id` (Fastify) -> `/v1/transactions/{id}` (OpenAPI). */
export function openApiPath(fastifyUrl: string): string {
  return fastifyUrl.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

function deref<T extends { $ref?: string }>(doc: OpenApiDocument, value: T): T {
  if (!value.$ref) return value;
  const [, , kind, name] = value.$ref.split('/');
  const target = (doc.components as Record<string, Record<string, T>> | undefined)?.[kind as string]?.[name as string];
  if (!target) throw new Error(`unresolved reference ${value.$ref}`);
  return target;
}

export interface ResponseCheck {
  method: string;
  /** the Fastify route template, e.g. /v1/transactions/:id */
  route: string;
  status: number;
  headers: Record<string, unknown>;
  /** the body as sent, or undefined for a stream (its media type and headers are still checked) */
  body: string | undefined;
}

export class OpenApiChecker {
  private readonly bodies: Ajv2020;
  private readonly headers: Ajv2020;
  private readonly compiled = new Map<Schema, ValidateFunction>();
  private readonly compiledHeaders = new Map<Schema, ValidateFunction>();

  constructor(readonly doc: OpenApiDocument) {
    this.bodies = newAjv(doc);
    this.headers = newAjv(doc, { coerceTypes: true });
  }

  private validator(schema: Schema): ValidateFunction {
    let fn = this.compiled.get(schema);
    if (!fn) {
      fn = this.bodies.compile(rebase(schema) as Schema);
      this.compiled.set(schema, fn);
    }
    return fn;
  }

  /** Header values are text: "60" is the integer 60 (coerced inside a holder object). */
  private headerValidator(schema: Schema): ValidateFunction {
    let fn = this.compiledHeaders.get(schema);
    if (!fn) {
      fn = this.headers.compile({ type: 'object', properties: { value: rebase(schema) as Schema } });
      this.compiledHeaders.set(schema, fn);
    }
    return fn;
  }

  /** What is wrong with `value` against `schema` (a schema of the document): empty when it is valid. */
  validates(schema: Schema, value: unknown): string[] {
    const validate = this.validator(schema);
    if (validate(value)) return [];
    return (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message} (got ${JSON.stringify(e.data)})`);
  }

  /** Problems with one response (empty when it matches the document); null when it is not checked. */
  check(r: ResponseCheck): string[] | null {
    const method = r.method.toLowerCase();
    if (method === 'head' || method === 'options') return null;
    const path = openApiPath(r.route);
    const where = `${r.method} ${path} -> ${r.status}`;
    const operation = this.doc.paths[path]?.[method];
    if (!operation) return null;
    const documented = operation.responses?.[String(r.status)] ?? operation.responses?.default;
    if (!documented) return [`${where}: status not documented`];
    const response = deref(this.doc, documented);
    const problems: string[] = [];

    for (const [name, raw] of Object.entries(response.headers ?? {})) {
      const header = deref(this.doc, raw);
      const value = r.headers[name.toLowerCase()];
      if (value === undefined) {
        if (header.required) problems.push(`${where}: required header ${name} missing`);
        continue;
      }
      if (!header.schema) continue;
      // Coercion rewrites its input in place: validate a holder, not the response's own headers.
      const validate = this.headerValidator(header.schema);
      const holder = { value: Array.isArray(value) ? value[0] : value };
      if (!validate(holder))
        problems.push(`${where}: header ${name}=${String(value)}: ${this.headers.errorsText(validate.errors)}`);
    }

    const contentType = String(r.headers['content-type'] ?? '');
    const mediaType = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
    const content = response.content ?? {};
    if (r.body === undefined || r.body === '') {
      if (Object.keys(content).length > 0 && r.body === '' && r.status !== 204) {
        problems.push(`${where}: empty body, documented ${Object.keys(content).join(', ')}`);
      }
      if (r.body === undefined && mediaType && !content[mediaType]) {
        problems.push(`${where}: media type ${mediaType} not documented`);
      }
      return problems;
    }
    const media = content[mediaType];
    if (!media) {
      problems.push(
        `${where}: media type ${mediaType || '(none)'} not documented (${Object.keys(content).join(', ') || 'no content'})`,
      );
      return problems;
    }
    if (!media.schema) return problems;
    let value: unknown = r.body;
    if (mediaType === 'application/json' || mediaType.endsWith('+json')) {
      try {
        value = JSON.parse(r.body);
      } catch {
        problems.push(`${where}: body is not JSON`);
        return problems;
      }
    }
    const found = this.validates(media.schema, value);
    if (found.length > 0) problems.push(`${where}: body does not match: ${found.map((f) => `body${f}`).join('; ')}`);
    return problems;
  }
}

/**
 * Checks every response the app sends (whoever sent the request: inject or a real socket). The
 * problems found are kept per request id; `take` hands a response's problems to the caller that
 * made it, `remaining` what nobody took (checked when the harness closes).
 */
export function watchResponses(app: App) {
  let checker: OpenApiChecker | undefined;
  const problems = new Map<string, string[]>();
  let paused = 0;
  const onSend = (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const route = request.routeOptions.url;
    if (paused > 0 || !route || request.routeOptions.schema?.hide) return;
    checker ??= new OpenApiChecker(app.swagger() as unknown as OpenApiDocument);
    const body =
      typeof payload === 'string'
        ? payload
        : Buffer.isBuffer(payload)
          ? payload.toString('utf8')
          : payload == null
            ? ''
            : undefined;
    const found = checker.check({
      method: request.method,
      route,
      status: reply.statusCode,
      headers: { ...reply.getHeaders(), 'x-request-id': request.id },
      body,
    });
    if (found && found.length > 0) problems.set(request.id, [...(problems.get(request.id) ?? []), ...found]);
  };
  app.addHook('onSend', async (request, reply, payload) => {
    onSend(request, reply, payload);
    return payload;
  });
  return {
    /**
     * Runs `fn` with no response checked: only for a test that writes into the store what the API
     * itself never writes (values outside the documented enums), to see how it is read back.
     */
    async unchecked<T>(fn: () => Promise<T>): Promise<T> {
      paused++;
      try {
        return await fn();
      } finally {
        paused--;
      }
    },
    take(requestId: unknown): string[] {
      if (typeof requestId !== 'string') return [];
      const found = problems.get(requestId) ?? [];
      problems.delete(requestId);
      return found;
    },
    remaining(): string[] {
      return [...problems.values()].flat();
    },
  };
}
