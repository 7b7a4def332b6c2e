import { AppError } from '../errors.js';
import { statusOf } from '../http/error-status.js';

/**
 * A service's refusal of a form (bad input 400, conflict 409, unprocessable 422) is shown on the
 * form that caused it, with its status; anything else goes on to the error page.
 */
export function formError(error: unknown): { status: number; flash: { kind: 'error'; text: string } } {
  if (error instanceof AppError && statusOf(error) < 500) {
    return { status: statusOf(error), flash: { kind: 'error', text: error.message } };
  }
  throw error;
}
