import type { FastifyReply, FastifyRequest } from 'fastify';
import { errors } from '../errors.js';
import type { Answer, IdempotencyKey } from '../idempotency/store.js';
import { sha256Hex } from '../lib/ids.js';

/** JSON with sorted keys, so that {"a":1,"b":2} and {"b":2,"a":1} are the same request. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * The request's Idempotency-Key for `operation` (PRODUCT part 2), or undefined without the header.
 * The services honour it inside their own transaction (idempotency/store.ts).
 */
export function idempotencyKeyOf(request: FastifyRequest, operation: string): IdempotencyKey | undefined {
  const header = request.headers['idempotency-key'];
  if (header === undefined) return undefined;
  const key = Array.isArray(header) ? header[0] : header;
  if (!key || key.length > 255 || !/^[\x21-\x7e]+$/.test(key)) {
    throw errors.invalid('Idempotency-Key', 'Idempotency-Key must be 1-255 visible ASCII characters');
  }
  return { operation, key, requestHash: sha256Hex(canonical(request.body ?? {})) };
}

/** Sends a service's answer; a replay is marked and, like the first, serialised by the route's schema. */
export function sendAnswer(reply: FastifyReply, answer: Answer): FastifyReply {
  if (answer.replayed) reply.header('idempotent-replayed', 'true');
  return reply.code(answer.status).send(answer.body);
}
