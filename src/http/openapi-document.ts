/**
 * What the OpenAPI document says about every operation at once, because the code that does it runs
 * for every request (app.ts, http/auth.ts, errors.ts, http/idempotency.ts) rather than in one
 * route: the response headers, the error statuses' meaning, and who may call. Route schemas say
 * what is particular to each route.
 */

import { OPERATION_EXAMPLES } from './openapi-examples.js';

type Schema = Record<string, unknown>;
interface Header {
  description: string;
  required?: boolean;
  schema: Schema;
}
interface Media {
  schema?: Schema & { required?: string[] };
  example?: unknown;
}
interface Response {
  description?: string;
  headers?: Record<string, Header | { $ref: string }>;
  content?: Record<string, Media>;
}
interface Operation {
  operationId?: string;
  summary?: string;
  security?: Array<Record<string, string[]>>;
  parameters?: Array<{ in: string; name: string }>;
  requestBody?: { required?: boolean; content?: Record<string, Media> };
  responses?: Record<string, Response>;
}
export interface OpenApiObject {
  paths?: Record<string, Record<string, Operation>>;
  components?: { headers?: Record<string, Header>; [key: string]: unknown };
}

const rateLimitHeaders = (required: boolean): Record<string, Header> => ({
  'RateLimit-Limit': {
    description: 'requests allowed per API key in the 60-second window (RATE_LIMIT_PER_MINUTE)',
    required,
    schema: { type: 'integer', minimum: 1 },
  },
  'RateLimit-Remaining': {
    description: 'requests left in the current window',
    required,
    schema: { type: 'integer', minimum: 0 },
  },
  'RateLimit-Reset': {
    description: 'seconds until the window resets',
    required,
    schema: { type: 'integer', minimum: 1 },
  },
});

/** Shared header definitions, referenced from each response. */
export const RESPONSE_HEADERS: Record<string, Header> = {
  'X-Request-Id': {
    description: "the request's id: the caller's X-Request-Id when it is 1-128 of A-Z a-z 0-9 . _ : -, else a new UUID",
    required: true,
    schema: { type: 'string', minLength: 1, maxLength: 128 },
  },
  ...rateLimitHeaders(true),
  ...Object.fromEntries(
    Object.entries(rateLimitHeaders(false)).map(([name, header]) => [
      `${name}-IfAuthenticated`,
      { ...header, description: `${header.description}; present once the API key is recognised` },
    ]),
  ),
  'Retry-After': {
    description: 'seconds to wait before trying again',
    required: true,
    schema: { type: 'integer', minimum: 0 },
  },
  'Idempotent-Replayed': {
    description: 'true when this is the stored answer to an earlier request with the same Idempotency-Key',
    schema: { type: 'string', enum: ['true'] },
  },
};

const ERROR_MEANING: Record<string, string> = {
  '400':
    'Invalid request (invalid_request): the message names the field, and `field` is set when one field is at fault',
  '401': 'Missing or invalid credentials (unauthorized)',
  '403': "Not allowed (forbidden): for the API, the business's plan has no API access or has expired",
  '404': 'Not found (not_found): no such resource in this business, or an id that is not a UUID',
  '409': 'Conflict (conflict) with the current state of the resource',
  '422': 'Unprocessable (unprocessable): well-formed but refers to something that cannot be used',
  '429': 'Rate limited (rate_limited): retry after Retry-After seconds',
  '500': 'Internal error (internal); no detail is exposed',
  '503': 'Unavailable (unavailable): the store cannot be reached; retry after Retry-After seconds',
};

const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });

/** Sets an operation's examples (openapi-examples.ts) on its JSON request body and answers. */
function addExamples(op: Operation) {
  const examples = op.operationId ? OPERATION_EXAMPLES[op.operationId] : undefined;
  if (!examples) return;
  const body = op.requestBody?.content?.['application/json'];
  if (body && examples.request !== undefined) body.example = examples.request;
  for (const [status, example] of Object.entries(examples.responses ?? {})) {
    const media = op.responses?.[status]?.content?.['application/json'];
    if (media) media.example = example;
  }
}

/** Adds the headers every response carries, and the error statuses' meaning, to each operation. */
export function describeCommonResponses(doc: OpenApiObject): OpenApiObject {
  doc.components = { ...doc.components, headers: { ...doc.components?.headers, ...RESPONSE_HEADERS } };
  for (const methods of Object.values(doc.paths ?? {})) {
    for (const op of Object.values(methods)) {
      // Operations that declare no security of their own take the API key: the rate limit applies.
      const limited = op.security === undefined;
      const idempotent = (op.parameters ?? []).some(
        (p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key',
      );
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        const success = status.startsWith('2');
        if (
          response.description === 'Default Response' ||
          (response.description === 'Error envelope' && ERROR_MEANING[status])
        ) {
          response.description = success ? (op.summary ?? 'Success') : (ERROR_MEANING[status] as string);
        }
        const headers: Response['headers'] = { 'X-Request-Id': ref('X-Request-Id') };
        if (limited) {
          for (const name of ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']) {
            headers[name] = ref(success ? name : `${name}-IfAuthenticated`);
          }
        }
        if (status === '429' || status === '503') headers['Retry-After'] = ref('Retry-After');
        if (idempotent && success) headers['Idempotent-Replayed'] = ref('Idempotent-Replayed');
        response.headers = { ...headers, ...response.headers };
      }
      addExamples(op);
      // A body whose fields are all optional may be left out entirely (PRODUCT part 2); say so.
      const body = op.requestBody?.content?.['application/json']?.schema;
      const types = Object.keys(op.requestBody?.content ?? {});
      if (op.requestBody && types.length === 1 && body && !(body.required?.length ?? 0))
        op.requestBody.required = false;
    }
  }
  return doc;
}
