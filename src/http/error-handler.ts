import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { isForeignKeyViolation, isWriteCollision } from '../db/errors.js';
import { isStoreUnavailable } from '../db/unavailable.js';
import { AppError, type ErrorCode, errors } from '../errors.js';
import { statusOf } from './error-status.js';
import { validationToAppError } from './validation.js';

const CODE_FOR_STATUS: Record<number, ErrorCode> = {
  400: 'invalid_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  422: 'unprocessable',
  429: 'rate_limited',
};

/** The limit a too-large body met: the route's own (the pay page's form is smaller than the API's). */
function bodyLimitMessage(request: FastifyRequest | undefined): string {
  const limit = request?.routeOptions.bodyLimit;
  if (!limit) return 'request body is too large';
  const kb = limit % 1024 === 0 ? `${limit / 1024} KB (${limit} bytes)` : `${limit} bytes`;
  return `request body is larger than ${kb}`;
}

/**
 * Turns whatever was thrown into an AppError; unknown errors become a generic 500. Framework
 * errors get a message of our own: Fastify's echo the path (PRODUCT part 16).
 */
export function toAppError(error: unknown, request?: FastifyRequest): AppError {
  if (error instanceof AppError) return error;
  // A restart, failover or dropped connection: the store's health logs the outage once.
  if (isStoreUnavailable(error))
    return errors.unavailable('temporarily unavailable (the database cannot be reached); retry shortly', 2);
  const e = error as Partial<FastifyError> & { validationContext?: string };
  // PostgreSQL cancelled a statement past PG_STATEMENT_TIMEOUT_MS (57014): the store is fine,
  // this read was too long for now; no outage is counted.
  if (e.code === '57014') return errors.unavailable('the request took too long and was cancelled; retry shortly', 2);
  if (e.validation) return validationToAppError(e.validation, e.validationContext);
  // The write named a row removed meanwhile (a buyer merged into another): its transaction rolled back.
  if (isForeignKeyViolation(error))
    return errors.conflict(
      'something this request refers to was removed meanwhile (a buyer merged into another?): nothing was changed; retry',
    );
  if (isWriteCollision(error))
    return errors.conflict('this request ran into another change of the same rows: nothing was changed; retry');
  switch (e.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return errors.badRequest('request body is not valid JSON');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return errors.badRequest('request body is empty');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_TYPE':
      return errors.badRequest('Content-Type must be application/json');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return errors.badRequest(bodyLimitMessage(request));
    case 'FST_ERR_BAD_URL':
      return errors.badRequest('the URL is not valid percent-encoding');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      // An id longer than any we issue names nothing: the same 404 as a path id that is not a uuid.
      return errors.notFound('resource');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return errors.badRequest('Content-Length does not match the body');
  }
  if (error instanceof SyntaxError && e.statusCode === 400) return errors.badRequest('request body is not valid JSON');
  const status = e.statusCode ?? 500;
  const code = CODE_FOR_STATUS[status];
  if (code && status < 500) return new AppError(code, status === 404 ? 'not found' : 'invalid request');
  return new AppError('internal', 'internal error');
}

/**
 * The one error handler (PRODUCT part 2): every failure leaves as
 * {"error": {"code", "message", "field"?}}. Unknown errors are logged with the request id and
 * answered with a generic message: no stack trace or SQL reaches a response.
 */
export function errorHandler(error: unknown, request: FastifyRequest, reply: FastifyReply) {
  const appError = toAppError(error, request);
  const status = statusOf(appError);
  logFailure(request, appError, error);
  if (appError.headers) reply.headers(appError.headers);
  return reply.code(status).send(appError.toBody());
}

/**
 * 500s are logged with the request id. A 503 is not: an outage (db/health.ts) or a full disk is
 * logged once by whoever noticed it, not once per request that met it.
 */
export function logFailure(request: FastifyRequest, appError: AppError, error: unknown): void {
  const status = statusOf(appError);
  if (status === 503) request.log.debug({ err: error }, 'request answered 503');
  else if (status >= 500) request.log.error({ err: error }, 'request failed');
}

export function notFoundHandler(_request: FastifyRequest, reply: FastifyReply) {
  return reply.code(404).send(errors.notFound('route').toBody());
}
