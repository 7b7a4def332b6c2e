import type { BusinessRow } from '../businesses/repository.js';
import type { TemplateMessage } from '../channels/channel.js';
import { daysBetween } from '../lib/dates.js';
import { balanceOf, payPageUrl } from '../transactions/domain.js';
import type { TransactionView } from '../transactions/repository.js';

/** The four WhatsApp templates (README lists their bodies; each takes the same five parameters). */
export const REMINDER_TEMPLATES = [
  'reminder_upcoming',
  'reminder_due_today',
  'reminder_overdue_week',
  'reminder_final',
] as const;
export type ReminderTemplate = (typeof REMINDER_TEMPLATES)[number];

/** How many days overdue a due must be for the final notice. */
const FINAL_AFTER_DAYS = 30;

/** PRODUCT part 6: the template when the caller names none, from the due date and today (business-local). */
export function chooseTemplate(dueDate: string, today: string): ReminderTemplate {
  const overdueDays = daysBetween(dueDate, today);
  if (overdueDays < 0) return 'reminder_upcoming';
  if (overdueDays === 0) return 'reminder_due_today';
  if (overdueDays < FINAL_AFTER_DAYS) return 'reminder_overdue_week';
  return 'reminder_final';
}

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
        balanceOf({ amount_paise: due.amount_paise, amount_paid_paise: due.amount_paid_paise ?? 0 }),
        due.currency,
        locale,
      ),
      formatDueDate(due.due_date, locale),
      payPageUrl(publicBaseUrl, due.pay_token),
    ],
  };
}
