import { randomInt } from 'node:crypto';

/**
 * The short reference a buyer's UPI app carries in the transaction note (`tn`) and the bank prints
 * in the statement's narration, so a bank credit can be matched to the due or account it paid.
 * `R` + 8 characters for a due, `R` + 7 for a contact's account: the lengths never overlap, so one
 * reference names one thing. 36^8 (2.8e12) and 36^7 (7.8e10) values: a business with 100,000 dues
 * draws a taken one with odds ~1e-7 per due, and the unique index per business refuses it.
 */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

function draw(length: number): string {
  let s = 'R';
  for (let i = 0; i < length; i++) s += ALPHABET[randomInt(ALPHABET.length)];
  return s;
}

export const duePaymentReference = (): string => draw(8);
export const contactPaymentReference = (): string => draw(7);

/** A narration's words that have the shape of a payment reference (upper-cased, deduplicated). */
export function referencesIn(text: string): string[] {
  const found = new Set<string>();
  for (const word of text.toUpperCase().split(/[^A-Z0-9]+/)) {
    if (/^R[A-Z0-9]{6,8}$/.test(word)) found.add(word);
  }
  return [...found];
}
