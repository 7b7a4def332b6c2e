import { isMessageKey, type MessageKey, type Translate } from './index.js';

/**
 * A service's refusal in a person's language. The services speak English and name the field, so
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
