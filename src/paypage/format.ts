import { minorToDecimal } from '../i18n/format.js';

/**
 * The UPI deep link of the pay page (pure, unit-tested in format.test.ts). Money and dates for
 * people are formatted by src/i18n/format.ts in the page's language.
 */

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
