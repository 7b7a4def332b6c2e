import { AppError } from '../errors.js';
import { statusOf } from '../http/error-status.js';
import type { Translate } from '../i18n/index.js';
import { refusalText } from '../i18n/refusal.js';

/**
 * A service's refusal of a form (bad input 400, conflict 409, unprocessable 422) is shown on the
 * form that caused it, with its status, in the page's language (`t`); anything else goes on to
 * the error page.
 */
export function formError(error: unknown, t?: Translate): { status: number; flash: { kind: 'error'; text: string } } {
  if (error instanceof AppError && statusOf(error) < 500) {
    return { status: statusOf(error), flash: { kind: 'error', text: t ? refusalText(t, error) : error.message } };
  }
  throw error;
}
