/**
 * The one error model (PRODUCT part 2), free of HTTP: a code per situation and a factory per
 * situation, thrown by the domain modules, the CLI and the workers alike. The HTTP layer maps a
 * code to its status (http/error-status.ts) and one handler (http/error-handler.ts) turns anything
 * thrown into the envelope {"error": {"code", "message", "field"?}}.
 */
export type ErrorCode =
  | 'invalid_request'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'unprocessable'
  | 'rate_limited'
  | 'internal'
  | 'unavailable';

/** Codes that are the caller's doing (4xx over HTTP, exit code 2 in the CLI). */
export function isClientError(code: ErrorCode): boolean {
  return code !== 'internal' && code !== 'unavailable';
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly field: string | undefined;
  readonly headers: Record<string, string> | undefined;

  constructor(code: ErrorCode, message: string, options: { field?: string; headers?: Record<string, string> } = {}) {
    super(message);
    this.name = 'AppError';
    this.code = code;
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
  unavailable: (message: string, retryAfterSeconds = 1) =>
    new AppError('unavailable', message, { headers: { 'retry-after': String(retryAfterSeconds) } }),
};

/** One bad row of a bulk import (PRODUCT part 12): rows count from 1, the header excluded. */
export interface RowError {
  row: number;
  field: string;
  message: string;
}

/** A bulk import refused as a whole: 400 invalid_request with every bad row named. */
export class RowsError extends AppError {
  constructor(readonly rows: RowError[]) {
    const first = rows[0];
    super(
      'invalid_request',
      rows.length === 1 && first
        ? `row ${first.row}: ${first.message}`
        : `${rows.length} rows are invalid; nothing was imported`,
    );
  }

  override toBody() {
    return { error: { code: this.code, message: this.message, rows: this.rows } } as ReturnType<AppError['toBody']>;
  }
}
