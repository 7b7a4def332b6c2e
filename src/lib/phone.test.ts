import { describe, expect, it } from 'vitest';
import { normalisePhone, reversedDigits } from './phone.js';

describe('normalisePhone', () => {
  it('normalises any format to digits with the country code', () => {
    expect(normalisePhone('98765 43210', 'IN')).toBe('919876543210');
    expect(normalisePhone('+91-98765-43210', 'IN')).toBe('919876543210');
    expect(normalisePhone('0098765 43210', 'IN')).toBeNull();
    expect(normalisePhone('098765 43210', 'IN')).toBe('919876543210');
    expect(normalisePhone('(415) 555-0134', 'US')).toBe('14155550134');
    expect(normalisePhone('+44 20 7946 0958', 'IN')).toBe('442079460958');
  });

  it('rejects what is not a phone number', () => {
    for (const input of ['', '123', 'call me', '+91 12345', '99999999999999999999']) {
      expect(normalisePhone(input, 'IN'), input).toBeNull();
    }
  });

  it('reverses digits for suffix search', () => {
    expect(reversedDigits('919876543210')).toBe('012345678919');
  });
});
