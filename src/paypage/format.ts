import * as i18n from '../i18n/format.js';
import { minorToDecimal } from '../i18n/format.js';

export { minorToDecimal };

/**
 * The UPI deep link of the pay page (pure, unit-tested in format.test.ts). Money and dates for
 * people are formatted by src/i18n/format.ts in the page's language.
 */

/** @deprecated English only: use formatMoney(lang, ...) of src/i18n/format.ts. */
export function formatMoney(minor: number, currency: string, _country = 'IN'): string {
  return i18n.formatMoney('en', minor, currency);
}

/** @deprecated English only: use formatDate(lang, ...) of src/i18n/format.ts. */
export function formatDate(date: string): string {
  return i18n.formatDate('en', date);
}

/** @deprecated English only: use formatInstant(lang, ...) of src/i18n/format.ts. */
export function formatInstant(iso: string, timeZone: string): string {
  return i18n.formatInstant('en', iso, timeZone);
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
