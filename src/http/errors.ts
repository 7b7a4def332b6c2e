/**
 * The one error model (PRODUCT part 2): a code per status, a factory per situation, and one
 * handler (http/error-handler.ts) that turns anything thrown into the envelope
 * {"error": {"code", "message", "field"?}}.
 */
export const ERROR_STATUS = {
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  unprocessable: 422,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly field: string | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(code: ErrorCode, message: string, options: { field?: string; headers?: Record<string, string> } = {}) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.field = options.field;
    this.headers = options.headers;
  }

  toBody(): { error: { code: ErrorCode; message: string; field?: string } } {
    return {
      error:
        this.field === undefined
          ? { code: this.code, message: this.message }
          : { code: this.code, message: this.message, field: this.field },
    };
  }
}

export const errors = {
  invalid: (field: string, message: string) => new AppError('invalid_request', message, { field }),
  badRequest: (message: string) => new AppError('invalid_request', message),
  unauthorized: (message = 'missing or invalid API key') => new AppError('unauthorized', message),
  forbidden: (message: string) => new AppError('forbidden', message),
  notFound: (resource: string) => new AppError('not_found', `${resource} not found`),
  conflict: (message: string, field?: string) =>
    new AppError('conflict', message, field === undefined ? {} : { field }),
  unprocessable: (message: string, field?: string) =>
    new AppError('unprocessable', message, field === undefined ? {} : { field }),
  rateLimited: (message: string) => new AppError('rate_limited', message, { headers: { 'retry-after': '60' } }),
  unavailable: (message: string) => new AppError('unavailable', message),
};
