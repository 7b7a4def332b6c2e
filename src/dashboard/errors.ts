import { AppError } from '../errors.js';
import { statusOf } from '../http/error-status.js';
import { isMessageKey, type MessageKey, type Translate } from '../i18n/index.js';

/**
 * A service's refusal in the page's language. The services speak English and name the field, so
 * the English catalogue shows their own sentence (`{message}`); other languages say what the field
 * needs (`refusal.<field>`), else what kind of refusal it is (`refusal.<code>`).
 */
export function refusalText(
  t: Translate,
  refusal: { code?: string; field?: string | undefined; message: string },
): string {
  const byField = `refusal.${refusal.field}`;
  const byCode = `refusal.${refusal.code}`;
  const key: MessageKey =
    refusal.field !== undefined && isMessageKey(byField)
      ? byField
      : refusal.code !== undefined && isMessageKey(byCode)
        ? byCode
        : 'refusal.invalid_request';
  return t(key, { message: refusal.message });
}

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
