import { Ajv, type ErrorObject } from 'ajv';
import ajvFormats from 'ajv-formats';
import type { FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify';
import { type AppError, errors } from '../errors.js';

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
  ajvFormats.default(ajv, ['uuid', 'date', 'date-time', 'uri', 'email']);
  return ajv;
}

const strictAjv = makeAjv(false);
const coercingAjv = makeAjv(true);

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'body' ? strictAjv : coercingAjv;
  return ajv.compile(schema as object) as ReturnType<FastifySchemaCompiler<unknown>>;
};

const FORMAT_TEXT: Record<string, string> = {
  uuid: 'a UUID',
  date: 'a calendar date YYYY-MM-DD',
  'date-time': 'an ISO 8601 timestamp',
  uri: 'a URL',
};

function fieldOf(error: ErrorObject | FastifySchemaValidationError): string | undefined {
  const path = (error as ErrorObject).instancePath ?? '';
  const params = error.params as Record<string, unknown>;
  const parts = path.split('/').filter(Boolean);
  if (error.keyword === 'required' && typeof params.missingProperty === 'string') parts.push(params.missingProperty);
  if (error.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
    parts.push(params.additionalProperty);
  }
  if (parts.length === 0) return undefined;
  return parts.map((p, i) => (/^\d+$/.test(p) ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}

function describe(error: ErrorObject | FastifySchemaValidationError, field: string): string {
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
    default:
      return `${field} is invalid`;
  }
}

/** Turns Fastify's validation failure into the one error envelope; a bad path id is a 404. */
export function validationToAppError(
  validation: FastifySchemaValidationError[],
  context: string | undefined,
): AppError {
  if (context === 'params') return errors.notFound('resource');
  const first = validation[0];
  if (!first) return errors.badRequest('invalid request');
  const field = fieldOf(first);
  if (field === undefined) {
    return errors.badRequest(context === 'body' ? 'request body must be a JSON object' : 'invalid request');
  }
  return errors.invalid(field, describe(first, field));
}
