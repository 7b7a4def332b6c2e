import { type Static, type TSchema, Type } from 'typebox';
import { TEXT_KEYWORD, type TextKind } from '../lib/text.js';

/**
 * Schema building blocks shared by every resource. Each schema is written once and used three
 * ways: request validation (ajv), response serialisation (fast-json-stringify) and the OpenAPI
 * document.
 */

/**
 * `T | null` as a JSON Schema type array: OpenAPI 3.1 style, and fast to serialise. An enum takes
 * null among its values too: `enum` is checked on its own, so without it strict validators refuse
 * every null.
 */
export function Nullable<T extends TSchema & { type: string; enum?: unknown[] }>(schema: T) {
  return Type.Unsafe<Static<T> | null>({
    ...schema,
    type: [schema.type, 'null'],
    ...(schema.enum && { enum: [...schema.enum, null] }),
  });
}

/**
 * PRODUCT part 16: text refuses NUL, other control characters and unpaired surrogates (400 naming
 * the field; PostgreSQL cannot even store a NUL). The validator (lib/validation.ts) gives every
 * request string schema `'x-text': 'line'`; a schema that takes several lines says 'multiline'
 * (tab and newline allowed).
 */
export { TEXT_KEYWORD };

/** Free text over several lines (a due's notes). */
export function MultilineText(options: { maxLength: number }) {
  return Type.String({ ...options, [TEXT_KEYWORD]: 'multiline' satisfies TextKind });
}

export const Uuid = Type.String({ format: 'uuid', 'x-lowercase': true, description: 'UUID' });
export const Timestamp = Type.String({
  format: 'date-time',
  description: 'ISO 8601 UTC timestamp with milliseconds, in the years 1900-9999',
});
export const DateString = Type.String({
  format: 'date',
  description: 'calendar date YYYY-MM-DD, in the years 1900-9999',
});

export const IdParams = Type.Object({ id: Uuid }, { additionalProperties: false });

export const ErrorBody = Type.Object(
  {
    error: Type.Object({
      code: Type.String({
        enum: [
          'invalid_request',
          'unauthorized',
          'forbidden',
          'not_found',
          'conflict',
          'unprocessable',
          'rate_limited',
          'internal',
          'unavailable',
        ],
      }),
      message: Type.String(),
      field: Type.Optional(
        Type.String({
          description: 'the one request field at fault, when there is one',
        }),
      ),
    }),
  },
  { $id: 'Error', description: 'Error envelope' },
);

const errorRef = Type.Unsafe<Static<typeof ErrorBody>>({ $ref: 'Error#' });

/** Response schemas for the errors every authenticated /v1 operation can answer. */
export function errorResponses(...statuses: number[]) {
  const all = new Set([400, 401, 403, 429, 500, 503, ...statuses]);
  return Object.fromEntries([...all].sort().map((s) => [s, errorRef])) as Record<number, typeof errorRef>;
}

export const PageQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000_000, default: 0 })),
};

export function Page<T extends TSchema>(item: T) {
  return Type.Object({
    data: Type.Array(item),
    total: Type.Integer(),
    limit: Type.Integer(),
    offset: Type.Integer(),
    hasMore: Type.Boolean(),
  });
}

export function Data<T extends TSchema>(item: T) {
  return Type.Object({ data: item });
}

/**
 * A reference to a shared schema (registered once with app.addSchema, shown once under
 * components in the OpenAPI document) that keeps the referenced schema's TypeScript type.
 */
export function ref<T extends TSchema & { $id?: string }>(schema: T) {
  if (!schema.$id) throw new Error('ref() needs a schema with an $id');
  return Type.Unsafe<Static<T>>({ $ref: `${schema.$id}#` });
}
