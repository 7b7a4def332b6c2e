import type { AppError, ErrorCode } from '../errors.js';

/** The HTTP status of each domain error code (PRODUCT part 2). */
export const ERROR_STATUS: Record<ErrorCode, number> = {
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  unprocessable: 422,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
};

export function statusOf(error: AppError): number {
  return ERROR_STATUS[error.code];
}
