import { describe, expect, it } from 'vitest';
import { formatDate, formatInstant, formatMoney, minorToDecimal, upiLink } from './format.js';
import { escapeHtml, html, trusted } from './html.js';

const NBSP = '\u00a0';

describe('formatMoney', () => {
  it('groups rupees the Indian way with two decimals', () => {
    expect(formatMoney(12_345_000, 'INR')).toBe('₹1,23,450.00');
    expect(formatMoney(123_450, 'INR')).toBe('₹1,234.50');
    expect(formatMoney(5, 'INR')).toBe('₹0.05');
    expect(formatMoney(1_000_000_000, 'INR')).toBe('₹1,00,00,000.00');
  });

  it('keeps every digit of amounts beyond float precision', () => {
    expect(formatMoney(9_007_199_254_740_991, 'INR')).toBe('₹9,00,71,99,25,47,409.91');
  });

  it('shows other currencies with their code and their own minor units', () => {
    expect(formatMoney(123_450, 'USD', 'US')).toBe(`USD${NBSP}1,234.50`);
    expect(formatMoney(123_450, 'USD', 'IN')).toBe(`USD${NBSP}1,234.50`);
    expect(formatMoney(1_235, 'JPY', 'JP')).toBe(`JPY${NBSP}1,235`);
    expect(formatMoney(1_234, 'KWD', 'KW')).toBe(`KWD${NBSP}1.234`);
  });

  it('falls back to the code and a plain decimal for a code Intl refuses', () => {
    expect(formatMoney(150, '$$$')).toBe('$$$ 1.50');
  });
});

describe('minorToDecimal', () => {
  it('places the decimal point by the number of minor digits', () => {
    expect(minorToDecimal(5, 2)).toBe('0.05');
    expect(minorToDecimal(123_450, 2)).toBe('1234.50');
    expect(minorToDecimal(7, 0)).toBe('7');
    expect(minorToDecimal(1, 3)).toBe('0.001');
  });
});

describe('dates', () => {
  it('writes a calendar date for people without shifting the day', () => {
    expect(formatDate('2026-03-05')).toBe('5 March 2026');
    expect(formatDate('2026-12-31')).toBe('31 December 2026');
  });

  it('writes an instant in the business time zone', () => {
    expect(formatInstant('2026-03-05T10:00:00.000Z', 'Asia/Kolkata')).toBe('5 March 2026, 3:30 pm');
    expect(formatInstant('2026-03-05T23:00:00.000Z', 'Asia/Kolkata')).toBe('6 March 2026, 4:30 am');
    expect(formatInstant('2026-03-05T18:35:00.000Z', 'Asia/Kolkata')).toBe('6 March 2026, 12:05 am');
    expect(formatInstant('2026-03-05T06:30:00.000Z', 'Asia/Kolkata')).toBe('5 March 2026, 12:00 pm');
  });
});

describe('upiLink', () => {
  it('builds the NPCI deep link with percent-encoded values', () => {
    expect(
      upiLink({ vpa: 'shop.one@okhdfc', payeeName: 'Sharma & Sons', paise: 123_450, note: 'Invoice INV/7#1' }),
    ).toBe('upi://pay?pa=shop.one@okhdfc&pn=Sharma%20%26%20Sons&am=1234.50&cu=INR&tn=Invoice%20INV%2F7%231');
  });

  it('encodes non-ASCII names as UTF-8 and cuts long notes to 50 characters', () => {
    const link = upiLink({ vpa: 'a@b', payeeName: 'शर्मा', paise: 100, note: 'x'.repeat(80) });
    expect(link).toBe(`upi://pay?pa=a@b&pn=${encodeURIComponent('शर्मा')}&am=1.00&cu=INR&tn=${'x'.repeat(50)}`);
  });
});

describe('html', () => {
  it('escapes the five characters that matter in content and attributes', () => {
    expect(escapeHtml(`<a href="x">Tom & Jerry's</a>`)).toBe(
      '&lt;a href=&quot;x&quot;&gt;Tom &amp; Jerry&#39;s&lt;/a&gt;',
    );
  });

  it('escapes interpolations unless they are markup', () => {
    const name = '<script>alert(1)</script>';
    expect(html`<p title="${name}">${name}${trusted('<br>')}${[html`<i>${'&'}</i>`, false, null]}</p>`.value).toBe(
      '<p title="&lt;script&gt;alert(1)&lt;/script&gt;">&lt;script&gt;alert(1)&lt;/script&gt;<br><i>&amp;</i></p>',
    );
  });
});
