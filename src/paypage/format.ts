import { localParts } from '../lib/dates.js';

/**
 * Formatting for the pay page: money in the currency's minor units, dates for people, and the
 * UPI deep link. Pure functions, unit-tested in format.test.ts.
 */

const moneyFormats = new Map<string, Intl.NumberFormat>();

/**
 * INR is shown the Indian way ("₹1,23,450.00"). Any other currency is shown with its ISO code
 * ("USD 1,234.50") in the business country's English conventions: "$" alone would not say which
 * dollar, and the buyer must know exactly what to pay.
 */
function moneyFormat(currency: string, country: string): Intl.NumberFormat {
  const key = `${currency}:${country}`;
  let f = moneyFormats.get(key);
  if (!f) {
    f =
      currency === 'INR'
        ? new Intl.NumberFormat('en-IN', { style: 'currency', currency })
        : new Intl.NumberFormat(localeFor(country), { style: 'currency', currency, currencyDisplay: 'code' });
    moneyFormats.set(key, f);
  }
  return f;
}

function localeFor(country: string): string {
  try {
    return Intl.getCanonicalLocales(`en-${country}`)[0] ?? 'en';
  } catch {
    return 'en';
  }
}

/** An amount in minor units as an exact decimal string ("123450.00"), with no float rounding. */
export function minorToDecimal(minor: number, digits: number): string {
  const negative = minor < 0;
  const s = String(Math.abs(Math.trunc(minor))).padStart(digits + 1, '0');
  const whole = digits === 0 ? s : `${s.slice(0, -digits)}.${s.slice(-digits)}`;
  return negative ? `-${whole}` : whole;
}

/**
 * Amounts are stored in the currency's smallest unit ("paise"), whose size Intl knows from
 * ISO 4217 (2 digits for INR, 0 for JPY, 3 for KWD).
 */
export function formatMoney(minor: number, currency: string, country = 'IN'): string {
  let f: Intl.NumberFormat;
  try {
    f = moneyFormat(currency, country);
  } catch {
    // Not a currency Intl accepts: still show an exact amount rather than fail the page.
    return `${currency} ${minorToDecimal(minor, 2)}`;
  }
  const digits = f.resolvedOptions().maximumFractionDigits ?? 2;
  // A decimal string keeps every digit of large amounts (Intl.NumberFormat v3 formats strings exactly).
  return f.format(minorToDecimal(minor, digits) as unknown as number);
}

const dateFormat = new Intl.DateTimeFormat('en-IN', {
  day: 'numeric',
  month: 'long',
  year: 'numeric',
  timeZone: 'UTC',
});

/** '2026-03-05' -> '5 March 2026' (a calendar date: no time zone shift). */
export function formatDate(date: string): string {
  return dateFormat.format(new Date(`${date}T00:00:00.000Z`));
}

/**
 * An instant as the business's wall clock shows it: '5 March 2026, 3:30 pm'. Written out by hand
 * because ICU versions differ in the joining word and the space before "pm".
 */
export function formatInstant(iso: string, timeZone: string): string {
  const { date, hour, minute } = localParts(timeZone, new Date(iso));
  const h12 = hour % 12 === 0 ? 12 : hour % 12;
  return `${formatDate(date)}, ${h12}:${String(minute).padStart(2, '0')} ${hour < 12 ? 'am' : 'pm'}`;
}

/**
 * Percent-encodes a UPI parameter. '@' stays literal: it is legal in a query (RFC 3986 pchar) and
 * some UPI apps do not decode "%40" in the payee address.
 */
function upiParam(value: string): string {
  return encodeURIComponent(value).replace(/%40/g, '@');
}

/** UPI apps cut the transaction note; keep it short and whole (by code points). */
const UPI_NOTE_MAX = 50;

export interface UpiPayment {
  /** the payee's virtual payment address (VPA), e.g. shop@okbank */
  vpa: string;
  payeeName: string;
  /** amount in paise; UPI is INR only */
  paise: number;
  note: string;
}

/** The NPCI deep link `upi://pay?pa=…&pn=…&am=<rupees.paise>&cu=INR&tn=…` opened by any UPI app. */
export function upiLink(p: UpiPayment): string {
  const note = Array.from(p.note).slice(0, UPI_NOTE_MAX).join('');
  return (
    `upi://pay?pa=${upiParam(p.vpa)}&pn=${upiParam(p.payeeName)}` +
    `&am=${minorToDecimal(p.paise, 2)}&cu=INR&tn=${upiParam(note)}`
  );
}
