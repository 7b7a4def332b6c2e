import { createHash } from 'node:crypto';
import { referencesIn } from '../lib/payment-reference.js';
import type { StatementCredit } from './parse.js';

/**
 * What a bank narration says, as values to look up by index: references, invoice numbers, the
 * payer's UPI id or account name, a UTR. Pure; every list is bounded by the narration's length.
 */

/** Narrations are a line of a statement; longer text is cut before looking into it. */
const NARRATION_MAX = 500;
/** Invoice numbers and names are looked for as runs of at most this many pieces. */
const RUN_MAX = 4;

const cut = (text: string) => text.slice(0, NARRATION_MAX);

/** The credit's identity within a business: the same line uploaded again has the same one. */
export function fingerprint(c: StatementCredit): string {
  return createHash('sha256')
    .update(JSON.stringify([c.date, c.amountPaise, c.reference, c.narration, c.balancePaise]))
    .digest('base64url');
}

/** Words that could be a claim's reference: the credit's reference (also without leading zeros) and the narration's words. */
export function claimReferenceCandidates(c: StatementCredit): string[] {
  const found = new Set<string>();
  if (c.reference !== null) {
    found.add(c.reference);
    found.add(c.reference.replace(/^0+/, ''));
  }
  for (const word of cut(c.narration).split(/[^A-Za-z0-9]+/)) if (word.length >= 4) found.add(word);
  found.delete('');
  return [...found];
}

/** Whether a claim's reference is the credit's, or is in its narration (case-insensitive). */
export function claimReferenceFits(c: StatementCredit, reference: string): boolean {
  const ref = reference.trim().toUpperCase();
  if (ref.length < 4) return false;
  const own = (c.reference ?? '').toUpperCase();
  return own === ref || own.replace(/^0+/, '') === ref || c.narration.toUpperCase().includes(ref);
}

export const paymentReferencesIn = (narration: string) => referencesIn(cut(narration));

/**
 * Invoice numbers the narration could name as a whole word: each run of up to four pieces between
 * separators (so "INV-1001" is found in "UPI-RAVI-630512345678-INV-1001"), as written, upper- and
 * lower-cased.
 */
export function invoiceNumberCandidates(narration: string): string[] {
  const found = new Set<string>();
  for (const chunk of cut(narration).split(/[\s/*|:,;()]+/)) {
    const pieces = chunk.split('-').filter((p) => p !== '');
    for (let i = 0; i < pieces.length; i++) {
      for (let n = 1; n <= RUN_MAX && i + n <= pieces.length; n++) {
        const run = pieces.slice(i, i + n).join('-');
        found.add(run);
        found.add(run.toUpperCase());
        found.add(run.toLowerCase());
      }
    }
    if (chunk !== '') found.add(chunk);
  }
  return [...found];
}

/** Whether `invoice` is a whole word of the narration (no letter or digit either side). */
export function hasWholeWord(narration: string, invoice: string): boolean {
  const text = narration.toUpperCase();
  const word = invoice.toUpperCase();
  for (let at = text.indexOf(word); at >= 0; at = text.indexOf(word, at + 1)) {
    const before = text[at - 1] ?? ' ';
    const after = text[at + word.length] ?? ' ';
    if (!/[A-Z0-9]/.test(before) && !/[A-Z0-9]/.test(after)) return true;
  }
  return false;
}

/** Words of transfer narrations that are never a payer's name. */
const NOT_NAMES = new Set(
  'UPI NEFT IMPS RTGS CR DR BY TO TRANSFER FROM INB MOB P2A P2M PAYMENT PAY FOR REF NA IFSC CHQ CLG ADVANCE INR'.split(
    ' ',
  ),
);

/**
 * Who paid, as remembered for a contact: the UPI id (`upi:name@bank`) and the account name
 * (`name:mehta stores`: the first run of two to five letter words that are not transfer words or a
 * bank), each when the narration has one.
 */
export function payersIn(narration: string): string[] {
  const text = cut(narration);
  const payers: string[] = [];
  // No hyphen in the name part: banks use it as the narration's separator (UPI-NAME-id@bank-...).
  const vpa = /[A-Za-z0-9._]{2,}@[A-Za-z][A-Za-z0-9]{1,}/.exec(text);
  if (vpa) payers.push(`upi:${vpa[0].toLowerCase()}`);
  for (const run of text.replace(/[A-Za-z0-9._]{2,}@[A-Za-z][A-Za-z0-9]+/g, '|').split(/[^A-Za-z ]+/)) {
    const words = run
      .trim()
      .split(/\s+/)
      .filter((w) => w !== '');
    while (words.length > 0 && NOT_NAMES.has((words[0] as string).toUpperCase())) words.shift();
    while (words.length > 0 && NOT_NAMES.has((words[words.length - 1] as string).toUpperCase())) words.pop();
    if (words.length < 2 || words.length > 5) continue;
    if (words.some((w) => /bank/i.test(w))) continue;
    payers.push(`name:${words.join(' ').toLowerCase()}`);
    break;
  }
  return payers;
}

/** The UTR a narration carries: a UPI RRN (12 digits), else a NEFT/IMPS UTR (16-22 characters, mostly digits). */
export function utrIn(narration: string): string | null {
  const rrn = /(?<![0-9])[0-9]{12}(?![0-9])/.exec(narration);
  if (rrn) return rrn[0];
  const utr = /(?<![A-Za-z0-9])(?=[A-Za-z0-9]*[0-9]{8})[A-Za-z0-9]{16,22}(?![A-Za-z0-9])/.exec(narration);
  return utr ? utr[0] : null;
}

/** Runs of one to four words of the narration, lower-cased: what a contact's name_key could equal. */
export function nameCandidates(narration: string): string[] {
  const found = new Set<string>();
  const words = cut(narration)
    .normalize('NFC')
    .toLowerCase()
    .split(/[^\p{L}\p{M}.&']+/u)
    .filter((w) => w !== '');
  for (let i = 0; i < words.length; i++) {
    for (let n = 1; n <= RUN_MAX && i + n <= words.length; n++) found.add(words.slice(i, i + n).join(' '));
  }
  return [...found];
}

export const paymentMethodOf = (narration: string) => (/\bUPI\b/i.test(narration) ? 'upi' : 'bank_transfer');
