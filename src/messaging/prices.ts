/** The pricing categories WhatsApp reports on a status (pricing.category). */
export const PRICING_CATEGORIES = ['utility', 'marketing', 'authentication', 'service'] as const;
export type PricingCategory = (typeof PRICING_CATEGORIES)[number];

/** Price per delivered message by category, in thousandths of a paisa (₹0.115 = 11500). */
export type PriceTable = Readonly<Record<PricingCategory, number>>;

/** India's rates per message (Meta's rate card, January 2026): utility ₹0.115, marketing ₹0.86. */
export const DEFAULT_PRICES = 'utility=0.115,marketing=0.86,authentication=0.115,service=0';

/**
 * WHATSAPP_PRICES, e.g. "utility=0.115,marketing=0.86": rupees (the number's currency) per message
 * with up to 5 decimals; categories left out keep their default. Returns an error message for bad
 * text, never throws.
 */
export function parsePriceTable(text: string): PriceTable | string {
  const table: Record<string, number> = { ...parseDefaults() };
  for (const part of text.split(',')) {
    const match = /^\s*([a-z_]+)\s*=\s*(\d{1,6})(?:\.(\d{1,5}))?\s*$/.exec(part);
    if (!match) return `"${part.trim()}" is not category=price (e.g. utility=0.115)`;
    const [, category = '', whole = '0', fraction = ''] = match;
    if (!(PRICING_CATEGORIES as readonly string[]).includes(category)) {
      return `unknown category "${category}" (${PRICING_CATEGORIES.join(', ')})`;
    }
    table[category] = Number(whole) * 100_000 + Number(fraction.padEnd(5, '0'));
  }
  return table as PriceTable;
}

function parseDefaults(): Record<string, number> {
  const table: Record<string, number> = {};
  for (const part of DEFAULT_PRICES.split(',')) {
    const [category = '', price = '0'] = part.split('=');
    const [whole = '0', fraction = ''] = price.split('.');
    table[category] = Number(whole) * 100_000 + Number(fraction.padEnd(5, '0'));
  }
  return table;
}

/** What a message costs by the category its status reported; unbillable or unknown: nothing. */
export function messageCost(prices: PriceTable, category: string | null, billable: boolean | null): number {
  if (category === null || billable === false) return 0;
  return (prices as Record<string, number>)[category] ?? 0;
}
