import { Ajv, type ErrorObject } from 'ajv';
import ajvFormats from 'ajv-formats';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import { type AppError, errors } from '../errors.js';
import { isCalendarDate, isInstantInRange } from './dates.js';
import { isCleanText, TEXT_KEYWORD, type TextKind } from './text.js';

/**
 * Two validators: bodies are strict JSON (a string "100" is not an integer), while query strings
 * and path parameters arrive as text and are coerced. Unknown fields are rejected, not silently
 * dropped, so a typo in a field name is a 400 that names it.
 */
function makeAjv(coerce: boolean) {
  const ajv = new Ajv({
    coerceTypes: coerce ? 'array' : false,
    useDefaults: true,
    removeAdditional: false,
    allErrors: false,
    strict: false,
  });
  // ajv-formats is CommonJS; its plugin is on .default under both loaders.
  // UUIDs are case-insensitive on input but stored lower-case; folding them here makes an
  // upper-case id find its row on SQLite as it does on PostgreSQL's uuid type.
  ajv.addKeyword({
    keyword: 'x-lowercase',
    modifying: true,
    schemaType: 'boolean',
    validate: (
      enabled: boolean,
      data: unknown,
      _schema: unknown,
      ctx?: { parentData: any; parentDataProperty: string | number },
    ) => {
      if (enabled && typeof data === 'string' && ctx?.parentData !== undefined) {
        ctx.parentData[ctx.parentDataProperty] = data.toLowerCase();
      }
      return true;
    },
  });
  ajv.addKeyword({
    keyword: TEXT_KEYWORD,
    schemaType: 'string',
    errors: true,
    validate: (kind: TextKind, data: unknown) => typeof data !== 'string' || isCleanText(data, kind),
  });
  ajvFormats.default(ajv, ['uuid', 'uri', 'email']);
  // Dates and instants outside the years 1900-9999 are refused here, before any arithmetic.
  const dateTime = (fullFormats['date-time'] as { validate: (value: string) => boolean }).validate;
  ajv.addFormat('date', isCalendarDate);
  ajv.addFormat('date-time', (value: string) => dateTime(value) && isInstantInRange(value));
  return ajv;
}

/**
 * Every string a request carries is text unless its schema says otherwise: the rule is added to
 * each string schema once, at compile time, so no field (body, query or path) can forget it.
 */
function withTextRule(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(withTextRule);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) out[key] = withTextRule(value);
  const type = out.type;
  const isString = type === 'string' || (Array.isArray(type) && type.includes('string'));
  if (isString && out[TEXT_KEYWORD] === undefined) out[TEXT_KEYWORD] = 'line';
  return out;
}

const strictAjv = makeAjv(false);
const coercingAjv = makeAjv(true);

/**
 * A validator of `schema`: strict for a JSON body, coercing for text (query strings, path
 * parameters). Its `errors` are what validationError reads.
 */
export function compileSchema(schema: unknown, body: boolean) {
  return (body ? strictAjv : coercingAjv).compile(withTextRule(schema) as object);
}

/** What validationError reads of a failure (ajv's ErrorObject; Fastify's validation errors are the same). */
export type ValidationFailure = Pick<ErrorObject, 'keyword' | 'params'> & { instancePath?: string };

const FORMAT_TEXT: Record<string, string> = {
  uuid: 'a UUID',
  date: 'a calendar date YYYY-MM-DD in the years 1900-9999',
  'date-time': 'an ISO 8601 timestamp in the years 1900-9999',
  uri: 'a URL',
};

function fieldOf(error: ValidationFailure): string | undefined {
  const path = error.instancePath ?? '';
  const params = error.params as Record<string, unknown>;
  const parts = path.split('/').filter(Boolean);
  if (error.keyword === 'required' && typeof params.missingProperty === 'string') parts.push(params.missingProperty);
  if (error.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
    parts.push(params.additionalProperty);
  }
  if (parts.length === 0) return undefined;
  return parts.map((p, i) => (/^\d+$/.test(p) ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}

function describe(error: ValidationFailure, field: string): string {
  const p = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return `${field} is required`;
    case 'additionalProperties':
      return `${field} is not a known field`;
    case 'type':
      return `${field} must be ${p.type === 'integer' ? 'an integer' : `of type ${String(p.type)}`}`;
    case 'minLength':
      return `${field} must be at least ${String(p.limit)} characters`;
    case 'maxLength':
      return `${field} must be at most ${String(p.limit)} characters`;
    case 'minimum':
    case 'exclusiveMinimum':
      return `${field} must be ${error.keyword === 'minimum' ? '>=' : '>'} ${String(p.limit)}`;
    case 'maximum':
    case 'exclusiveMaximum':
      return `${field} must be ${error.keyword === 'maximum' ? '<=' : '<'} ${String(p.limit)}`;
    case 'enum':
      return `${field} must be one of: ${(p.allowedValues as unknown[]).join(', ')}`;
    case 'format':
      return `${field} must be ${FORMAT_TEXT[String(p.format)] ?? `a valid ${String(p.format)}`}`;
    case 'minItems':
      return `${field} must have at least ${String(p.limit)} item(s)`;
    case 'maxItems':
      return `${field} must have at most ${String(p.limit)} items`;
    case 'uniqueItems':
      return `${field} must not repeat items`;
    case 'pattern':
      return `${field} has an invalid format`;
    case TEXT_KEYWORD:
      return `${field} must not contain control characters or unpaired surrogates`;
    default:
      return `${field} is invalid`;
  }
}

/** A validation failure as the one error envelope; in a path (`params`) it is a 404. */
export function validationError(validation: readonly ValidationFailure[], context: string | undefined): AppError {
  if (context === 'params') return errors.notFound('resource');
  const first = validation[0];
  if (!first) return errors.badRequest('invalid request');
  const field = fieldOf(first);
  if (field === undefined) {
    return errors.badRequest(context === 'body' ? 'request body must be a JSON object' : 'invalid request');
  }
  return errors.invalid(field, describe(first, field));
}
