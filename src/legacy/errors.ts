import type { FastifyReply, FastifyRequest, FastifySchemaCompiler } from 'fastify';
import { logFailure, toAppError } from '../http/error-handler.js';
import { statusOf } from '../http/error-status.js';
import { validatorCompiler } from '../http/validation.js';

/**
 * The earlier shape's errors (SPEC part 9, PRODUCT part 7): the same statuses and messages as
 * the current shape (the shared toAppError decides them, so authentication, rate limiting and
 * not-found behave identically), in the earlier body {"error": "<message>"}.
 */
export function legacyErrorHandler(error: unknown, request: FastifyRequest, reply: FastifyReply) {
  const appError = toAppError(error, request);
  logFailure(request, appError, error);
  if (appError.headers) reply.headers(appError.headers);
  return reply.code(statusOf(appError)).send({ error: appError.message });
}

export function legacyNotFoundHandler(_request: FastifyRequest, reply: FastifyReply) {
  return reply.code(404).send({ error: 'not found' });
}

const accept = () => true;

/**
 * Queries and path ids of this shape are never rejected: legacy/query.ts ignores or clamps bad
 * query values and a malformed id is a 404 from the route. Bodies (webhook create) keep the
 * strict validation of the current shape, whose failures become 400 here too.
 */
export const legacyValidatorCompiler: FastifySchemaCompiler<unknown> = (route) =>
  route.httpPart === 'body' ? validatorCompiler(route) : (accept as unknown as ReturnType<typeof validatorCompiler>);
