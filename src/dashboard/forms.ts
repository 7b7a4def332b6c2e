import type { FastifySchemaValidationError } from 'fastify';
import type { TSchema } from 'typebox';
import { errors } from '../errors.js';
import { validationToAppError, validatorCompiler } from '../http/validation.js';
import type { IdempotencyKey } from '../idempotency/store.js';
import { sha256Hex } from '../lib/ids.js';
import { isCleanText } from '../lib/text.js';

/** A form body as the browser sends it; repeated fields keep their first value. */
export function parseForm(body: string): Record<string, string> {
  const form: Record<string, string> = {};
  for (const [key, value] of new URLSearchParams(body)) if (!(key in form)) form[key] = value;
  return form;
}

const validators = new WeakMap<TSchema, (value: unknown) => boolean>();

/**
 * Checks a body built from a form against the same schema that validates the /v1 body, so a
 * field's limits are written once; the error names the field as the API's would.
 */
export function checkBody<T>(schema: TSchema, body: Record<string, unknown>): T {
  let validate = validators.get(schema);
  if (!validate) {
    validate = validatorCompiler({ schema, httpPart: 'body', method: 'POST', url: '/dashboard' }) as (
      value: unknown,
    ) => boolean;
    validators.set(schema, validate);
  }
  if (!validate(body)) {
    const failures = (validate as unknown as { errors?: FastifySchemaValidationError[] }).errors ?? [];
    throw validationToAppError(failures, 'body');
  }
  return body as T;
}

/** Rupees as people type them ("1,23,450.50", "₹ 500") to paise, exactly (no float arithmetic). */
export function rupeesToPaise(input: string | undefined, field: string): number {
  const text = (input ?? '').replace(/[\s,₹]/g, '').replace(/^Rs\.?/i, '');
  const match = /^(\d{1,13})(?:\.(\d{1,2}))?$/.exec(text);
  if (!match) throw errors.invalid(field, `${field} must be an amount in rupees such as 1,234.50`);
  const paise = Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
  if (paise <= 0) throw errors.invalid(field, `${field} must be more than zero`);
  return paise;
}

/** An optional text field: empty means absent. */
export function optional(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

/**
 * A form's one-time key (hidden field `once`, made when the form was rendered) as the services'
 * Idempotency-Key: the same form sent twice (a double tap, a resend) does its work once.
 */
export function formOnce(
  form: Record<string, string | undefined>,
  operation: string,
  input: unknown,
): IdempotencyKey | undefined {
  const once = form.once;
  if (once === undefined || !/^[A-Za-z0-9_-]{16,64}$/.test(once)) return undefined;
  return { operation, key: once, requestHash: sha256Hex(JSON.stringify(input)) };
}

/** A list's search box: trimmed, at most 120 characters, and (PRODUCT part 16) no control characters. */
export function searchText(value: string | undefined, field = 'q'): string {
  const text = (value ?? '').trim().slice(0, 120);
  if (!isCleanText(text))
    throw errors.invalid(field, `${field} must not contain control characters or unpaired surrogates`);
  return text;
}
