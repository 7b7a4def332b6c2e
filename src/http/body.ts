import type { FastifyRequest } from 'fastify';
import { errors } from '../errors.js';
import { jsonTooDeep, MAX_JSON_DEPTH } from '../lib/json-text.js';

/** PRODUCT part 2: an action whose body is optional takes an absent body as {}. */
export async function absentBodyIsEmptyObject(request: FastifyRequest) {
  if (request.body === undefined || request.body === null) request.body = {};
}

/**
 * A webhook's raw body (its signature already checked) as JSON: 400 when it is not JSON or nests
 * deeper than MAX_JSON_DEPTH, as every other JSON body is.
 */
export function parseRawJson(raw: Buffer): unknown {
  const text = raw.toString('utf8');
  if (jsonTooDeep(text)) throw errors.badRequest(`the body nests deeper than ${MAX_JSON_DEPTH} levels`);
  try {
    return JSON.parse(text);
  } catch {
    throw errors.badRequest('request body is not valid JSON');
  }
}
