import { describe, expect, it } from 'vitest';
import { DEFAULT_PRICES, messageCost, parsePriceTable } from './prices.js';

describe('parsePriceTable', () => {
  it("reads India's rates by default, in thousandths of a paisa", () => {
    expect(parsePriceTable(DEFAULT_PRICES)).toEqual({
      utility: 11500,
      marketing: 86000,
      authentication: 11500,
      service: 0,
    });
  });

  it('overrides only the categories named', () => {
    expect(parsePriceTable('utility=0.2, service=0.01')).toEqual({
      utility: 20000,
      marketing: 86000,
      authentication: 11500,
      service: 1000,
    });
  });

  it.each(['utility', 'utility=-1', 'utility=0.1234567', 'sms=0.1', 'utility=abc', ''])('refuses %j', (text) => {
    expect(typeof parsePriceTable(text)).toBe('string');
  });
});

describe('messageCost', () => {
  const prices = parsePriceTable(DEFAULT_PRICES) as Exclude<ReturnType<typeof parsePriceTable>, string>;
  it('prices a billable message by its category, and nothing otherwise', () => {
    expect(messageCost(prices, 'utility', true)).toBe(11500);
    expect(messageCost(prices, 'marketing', null)).toBe(86000);
    expect(messageCost(prices, 'utility', false)).toBe(0);
    expect(messageCost(prices, null, true)).toBe(0);
    expect(messageCost(prices, 'referral_conversion', true)).toBe(0);
  });
});
