import type { BusinessRow } from '../businesses/repository.js';
import type { TemplateMessage } from '../channels/channel.js';
import type { ReminderTemplate } from '../reminder-schedule/sequence.js';
import { balanceOf, payPageUrl } from '../transactions/domain.js';
import type { TransactionView } from '../transactions/repository.js';

/** The templates and the rule that picks one live beside the schedule, which fixes each step's template. */
export { chooseTemplate, REMINDER_TEMPLATES, type ReminderTemplate } from '../reminder-schedule/sequence.js';

/** A locale for the business: its language, in its country when the language names no region. */
export function businessLocale(business: Pick<BusinessRow, 'language' | 'country'>): string {
  const tag = business.language.includes('-') ? business.language : `${business.language}-${business.country}`;
  try {
    return Intl.getCanonicalLocales(tag)[0] ?? 'en-IN';
  } catch {
    return 'en-IN';
  }
}

/** Money in the smallest unit, written the local way: 12345000 paise in en-IN is ₹1,23,450.00. */
export function formatAmount(minorUnits: number, currency: string, locale: string): string {
  const format = new Intl.NumberFormat(locale, { style: 'currency', currency });
  const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
  return format.format(minorUnits / 10 ** digits);
}

/** A calendar date written the local way: 2026-03-05 in en-IN is "5 Mar 2026". */
export function formatDueDate(date: string, locale: string): string {
  return new Intl.DateTimeFormat(locale, { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' }).format(
    new Date(`${date}T00:00:00Z`),
  );
}

/**
 * The reminder as a template message. Body parameters, in order: {{1}} contact name, {{2}} business
 * name, {{3}} amount still owed (the balance, PRODUCT part 10) with currency, {{4}} due date,
 * {{5}} pay page link.
 */
export function reminderMessage(
  business: Pick<BusinessRow, 'name' | 'language' | 'country'>,
  due: Pick<
    TransactionView,
    'contact_name' | 'contact_phone' | 'amount_paise' | 'currency' | 'due_date' | 'pay_token'
  > & {
    amount_paid_paise?: number;
    amount_adjusted_paise?: number;
  },
  template: ReminderTemplate,
  publicBaseUrl: string,
): TemplateMessage {
  const locale = businessLocale(business);
  return {
    kind: 'template',
    to: due.contact_phone ?? '',
    template,
    language: business.language,
    parameters: [
      due.contact_name,
      business.name,
      formatAmount(
        balanceOf({
          amount_paise: due.amount_paise,
          amount_paid_paise: due.amount_paid_paise ?? 0,
          amount_adjusted_paise: due.amount_adjusted_paise ?? 0,
        }),
        due.currency,
        locale,
      ),
      formatDueDate(due.due_date, locale),
      payPageUrl(publicBaseUrl, due.pay_token),
    ],
  };
}
