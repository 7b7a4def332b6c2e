import { describe, expect, it } from 'vitest';
import {
  hasWholeWord,
  invoiceNumberCandidates,
  nameCandidates,
  payersIn,
  paymentReferencesIn,
  utrIn,
} from './narration.js';

describe('what a narration names', () => {
  it('finds payment references as words', () => {
    expect(paymentReferencesIn('UPI-ANIL-anil@okaxis-630512340001-R7K2M9QAX Due')).toEqual(['R7K2M9QAX']);
    // Only the shape: a word such as RECEIVED is looked up too, and finds nothing.
    expect(paymentReferencesIn('RAZORPAYMENTS RECEIVED R12')).toEqual(['RECEIVED']);
  });

  it('finds invoice numbers between separators, as whole words only', () => {
    expect(invoiceNumberCandidates('UPI-RAVI-630512345678-INV-1001')).toContain('INV-1001');
    expect(invoiceNumberCandidates('NEFT*HDFC*INV/77')).toContain('INV/77'.split('/')[1]);
    expect(hasWholeWord('PAID INV-1001 THANKS', 'inv-1001')).toBe(true);
    expect(hasWholeWord('PAID INV-10012', 'INV-1001')).toBe(false);
    expect(hasWholeWord('PAIDINV-1001', 'INV-1001')).toBe(false);
  });

  it('finds the payer: the UPI id, and else the account name', () => {
    expect(payersIn('UPI-RAVI KUMAR-ravi.kumar@okicici-ICIC0001234-630512345678')).toEqual([
      'upi:ravi.kumar@okicici',
      'name:ravi kumar',
    ]);
    expect(payersIn('NEFT CR-SBIN0001234-MEHTA STORES-INV-1002 PAYMENT')).toEqual(['name:mehta stores']);
    expect(payersIn('IMPS/P2A/630812345622/MEENA JAIN/HDFCBANK/Advance')).toEqual(['name:meena jain']);
    expect(payersIn('CASH')).toEqual([]);
  });

  it('finds a UTR: a 12-digit UPI RRN first, else a NEFT UTR', () => {
    expect(utrIn('UPI/CR/630512345601/RAVI')).toBe('630512345601');
    expect(utrIn('NEFT*HDFC0000123*N307261234567890*ANITA')).toBe('N307261234567890');
    expect(utrIn('CASH DEPOSIT')).toBeNull();
  });

  it('offers runs of words as contact names', () => {
    expect(nameCandidates('IMPS-GUPTA AND SONS-HDFC')).toContain('gupta and sons');
  });
});
