import { localParts } from '../lib/dates.js';
import type { Language } from './index.js';

/**
 * Money, dates and days as a person reads them in their language, through Intl with the
 * language's Indian locale (`en-IN`, `hi-IN`): "5 March 2026" / "5 मार्च 2026", "yesterday" /
 * "कल". Numbers keep the digits people write (0-9) in both. Pure functions (format.test.ts).
 */
const LOCALE: Record<Language, string> = { en: 'en-IN', hi: 'hi-IN' };

const cache = new Map<string, Intl.NumberFormat | Intl.DateTimeFormat | Intl.RelativeTimeFormat>();

function cached<T extends Intl.NumberFormat | Intl.DateTimeFormat | Intl.RelativeTimeFormat>(
  key: string,
  make: () => T,
): T {
  let f = cache.get(key) as T | undefined;
  if (!f) {
    f = make();
    cache.set(key, f);
  }
  return f;
}

/** An amount in minor units as an exact decimal string ("123450.00"), with no float rounding. */
export function minorToDecimal(minor: number, digits: number): string {
  const negative = minor < 0;
  const s = String(Math.abs(Math.trunc(minor))).padStart(digits + 1, '0');
  const whole = digits === 0 ? s : `${s.slice(0, -digits)}.${s.slice(-digits)}`;
  return negative ? `-${whole}` : whole;
}

/**
 * INR is shown the Indian way ("₹1,23,450.00") in both languages. Any other currency is shown
 * with its ISO code ("USD 1,234.50"): "$" alone would not say which dollar, and the buyer must
 * know exactly what to pay. Amounts are in the currency's smallest unit, whose size Intl knows
 * from ISO 4217 (2 digits for INR, 0 for JPY, 3 for KWD).
 */
export function formatMoney(lang: Language, minor: number, currency: string): string {
  let f: Intl.NumberFormat;
  try {
    f = cached(`money:${lang}:${currency}`, () =>
      currency === 'INR'
        ? new Intl.NumberFormat(LOCALE[lang], { style: 'currency', currency })
        : new Intl.NumberFormat(LOCALE[lang], { style: 'currency', currency, currencyDisplay: 'code' }),
    );
  } catch {
    // Not a currency Intl accepts: still show an exact amount rather than fail the page.
    return `${currency} ${minorToDecimal(minor, 2)}`;
  }
  const digits = f.resolvedOptions().maximumFractionDigits ?? 2;
  // A decimal string keeps every digit of large amounts (Intl.NumberFormat v3 formats strings exactly).
  return f.format(minorToDecimal(minor, digits) as unknown as number);
}

/** A count as people write it: 12,34,567. */
export function formatNumber(lang: Language, n: number): string {
  return cached(`number:${lang}`, () => new Intl.NumberFormat(LOCALE[lang])).format(n);
}

function dateFormat(lang: Language, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  return cached(
    `date:${lang}:${JSON.stringify(options)}`,
    () => new Intl.DateTimeFormat(LOCALE[lang], { ...options, timeZone: 'UTC' }),
  );
}

const calendarDay = (date: string) => new Date(`${date.slice(0, 10)}T00:00:00.000Z`);

/** '2026-03-05' -> '5 March 2026' / '5 मार्च 2026' (a calendar date: no time zone shift). */
export function formatDate(lang: Language, date: string): string {
  return dateFormat(lang, { day: 'numeric', month: 'long', year: 'numeric' }).format(calendarDay(date));
}

/** '2026-03-05' -> '5 Mar' / '5 मार्च': a date in a list, in the current year. */
export function formatShortDate(lang: Language, date: string): string {
  return dateFormat(lang, { day: 'numeric', month: 'short' }).format(calendarDay(date));
}

/** '2026-03' or '2026-03-05' -> 'March 2026' / 'मार्च 2026'. */
export function formatMonth(lang: Language, month: string): string {
  return dateFormat(lang, { month: 'long', year: 'numeric' }).format(calendarDay(`${month.slice(0, 7)}-01`));
}

/**
 * An instant as the business's wall clock shows it: '5 March 2026, 3:30 pm' /
 * '5 मार्च 2026, दोपहर 3:30'. English is written out by hand because ICU versions differ in the
 * joining word and the space before "pm"; Hindi names the part of the day (सुबह, दोपहर, शाम, रात).
 */
export function formatInstant(lang: Language, iso: string, timeZone: string): string {
  const at = new Date(iso);
  const { date, hour, minute } = localParts(timeZone, at);
  if (lang === 'hi') {
    const time = cached(
      `time:hi:${timeZone}`,
      () => new Intl.DateTimeFormat('hi-IN', { hour: 'numeric', minute: '2-digit', dayPeriod: 'short', timeZone }),
    );
    return `${formatDate(lang, date)}, ${time.format(at)}`;
  }
  const h12 = hour % 12 === 0 ? 12 : hour % 12;
  return `${formatDate(lang, date)}, ${h12}:${String(minute).padStart(2, '0')} ${hour < 12 ? 'am' : 'pm'}`;
}

/** Whole days between two calendar dates ('YYYY-MM-DD'): positive when `date` is after `today`. */
export function daysBetween(today: string, date: string): number {
  return Math.round((calendarDay(date).getTime() - calendarDay(today).getTime()) / 86_400_000);
}

/** A calendar date relative to today: 'today', 'yesterday', '3 days ago', 'in 2 days' / 'आज', 'कल', '3 दिन पहले'. */
export function formatRelativeDay(lang: Language, date: string, today: string): string {
  const f = cached(`relative:${lang}`, () => new Intl.RelativeTimeFormat(LOCALE[lang], { numeric: 'auto' }));
  return f.format(daysBetween(today, date), 'day');
}
