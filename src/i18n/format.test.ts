import { describe, expect, it } from 'vitest';
import {
  daysBetween,
  formatDate,
  formatInstant,
  formatMoney,
  formatMonth,
  formatNumber,
  formatRelativeDay,
  formatShortDate,
  minorToDecimal,
} from './format.js';

const NBSP = '\u00a0';

describe('formatMoney', () => {
  it('groups rupees the Indian way with two decimals, in both languages', () => {
    for (const lang of ['en', 'hi'] as const) {
      expect(formatMoney(lang, 12_345_000, 'INR')).toBe('₹1,23,450.00');
      expect(formatMoney(lang, 123_450, 'INR')).toBe('₹1,234.50');
      expect(formatMoney(lang, 5, 'INR')).toBe('₹0.05');
      expect(formatMoney(lang, 1_000_000_000, 'INR')).toBe('₹1,00,00,000.00');
    }
  });

  it('keeps every digit of amounts beyond float precision', () => {
    expect(formatMoney('hi', 9_007_199_254_740_991, 'INR')).toBe('₹9,00,71,99,25,47,409.91');
  });

  it('shows other currencies with their code and their own minor units', () => {
    expect(formatMoney('en', 123_450, 'USD')).toBe(`USD${NBSP}1,234.50`);
    expect(formatMoney('hi', 123_450, 'USD')).toBe(`USD${NBSP}1,234.50`);
    expect(formatMoney('en', 1_235, 'JPY')).toBe(`JPY${NBSP}1,235`);
    expect(formatMoney('en', 1_234, 'KWD')).toBe(`KWD${NBSP}1.234`);
  });

  it('falls back to the code and a plain decimal for a code Intl refuses', () => {
    expect(formatMoney('en', 150, '$$$')).toBe('$$$ 1.50');
  });

  it('places the decimal point by the number of minor digits', () => {
    expect(minorToDecimal(5, 2)).toBe('0.05');
    expect(minorToDecimal(123_450, 2)).toBe('1234.50');
    expect(minorToDecimal(7, 0)).toBe('7');
    expect(minorToDecimal(1, 3)).toBe('0.001');
    expect(minorToDecimal(-150, 2)).toBe('-1.50');
  });

  it('writes counts the Indian way', () => {
    expect(formatNumber('en', 1_234_567)).toBe('12,34,567');
    expect(formatNumber('hi', 1_234_567)).toBe('12,34,567');
  });
});

describe('dates', () => {
  it('writes a calendar date with the month named in the language, without shifting the day', () => {
    expect(formatDate('en', '2026-03-05')).toBe('5 March 2026');
    expect(formatDate('en', '2026-12-31')).toBe('31 December 2026');
    expect(formatDate('hi', '2026-03-05')).toBe('5 मार्च 2026');
    expect(formatDate('hi', '9999-12-31')).toBe('31 दिसंबर 9999');
    expect(formatDate('hi', '2026-03-05T23:59:59.000Z')).toBe('5 मार्च 2026');
    expect(formatShortDate('en', '2026-03-05')).toBe('5 Mar');
    expect(formatShortDate('hi', '2026-08-05')).toBe('5 अग॰');
    expect(formatMonth('en', '2026-03')).toBe('March 2026');
    expect(formatMonth('hi', '2026-11-20')).toBe('नवंबर 2026');
  });

  it('writes an instant in the business time zone', () => {
    expect(formatInstant('en', '2026-03-05T10:00:00.000Z', 'Asia/Kolkata')).toBe('5 March 2026, 3:30 pm');
    expect(formatInstant('en', '2026-03-05T23:00:00.000Z', 'Asia/Kolkata')).toBe('6 March 2026, 4:30 am');
    expect(formatInstant('en', '2026-03-05T18:35:00.000Z', 'Asia/Kolkata')).toBe('6 March 2026, 12:05 am');
    expect(formatInstant('en', '2026-03-05T06:30:00.000Z', 'Asia/Kolkata')).toBe('5 March 2026, 12:00 pm');
    expect(formatInstant('hi', '2026-03-05T10:00:00.000Z', 'Asia/Kolkata')).toBe('5 मार्च 2026, दोपहर 3:30');
    expect(formatInstant('hi', '2026-03-05T23:00:00.000Z', 'Asia/Kolkata')).toBe('6 मार्च 2026, सुबह 4:30');
    expect(formatInstant('hi', '2026-03-05T14:00:00.000Z', 'Asia/Kolkata')).toBe('5 मार्च 2026, शाम 7:30');
  });

  it('names days relative to today', () => {
    expect(daysBetween('2026-03-10', '2026-03-07')).toBe(-3);
    expect(daysBetween('2026-03-29', '2026-03-30')).toBe(1);
    expect(formatRelativeDay('en', '2026-03-10', '2026-03-10')).toBe('today');
    expect(formatRelativeDay('en', '2026-03-09', '2026-03-10')).toBe('yesterday');
    expect(formatRelativeDay('en', '2026-03-07', '2026-03-10')).toBe('3 days ago');
    expect(formatRelativeDay('en', '2026-03-12', '2026-03-10')).toBe('in 2 days');
    expect(formatRelativeDay('hi', '2026-03-10', '2026-03-10')).toBe('आज');
    expect(formatRelativeDay('hi', '2026-03-07', '2026-03-10')).toBe('3 दिन पहले');
    expect(formatRelativeDay('hi', '2026-03-15', '2026-03-10')).toBe('5 दिन में');
  });
});
