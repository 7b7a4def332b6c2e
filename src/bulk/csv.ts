/**
 * The text rules of bulk import and export (PRODUCT part 12), free of HTTP and SQL: how a cell is
 * written so a spreadsheet opens it as text, and how the amounts and dates people type in a
 * spreadsheet (Indian digit grouping, day-first dates) are read back.
 */

/** Characters that make a spreadsheet run a cell as a formula (tab and CR too: OWASP's list). */
const FORMULA_START = /^[=+\-@\t\r]/;
/** Quotes, commas and line breaks need quotes; so does white space at either end (checked apart: cheaper). */
const NEEDS_QUOTES = /[",\r\n]/;

/** One CSV cell: formula-like text gets a leading `'`, and text with quotes, commas or line breaks is quoted. */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  let text = typeof value === 'string' ? value : JSON.stringify(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  // String.prototype.trim removes exactly what `\s` matches.
  return NEEDS_QUOTES.test(text) || text.trim().length !== text.length ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvLine(values: readonly unknown[]): string {
  let line = '';
  for (let i = 0; i < values.length; i++) line += i === 0 ? csvCell(values[i]) : `,${csvCell(values[i])}`;
  return `${line}\r\n`;
}

/** Undoes csvCell's formula guard, so that an exported file imports back as it is. */
export function unguardCell(text: string): string {
  return text.length > 1 && text[0] === "'" && FORMULA_START.test(text.slice(1)) ? text.slice(1) : text;
}

/**
 * Rupees as people write them: `1234.5`, `1,234.50` or Indian grouping `1,23,450.50`, optionally
 * with a leading `₹` or `Rs`; at most two decimals. Returns paise, or undefined when it is not such a number.
 */
export function rupeesToPaise(text: string): number | undefined {
  const cleaned = text
    .trim()
    .replace(/^(₹|rs\.?|inr)\s*/i, '')
    .trim();
  const match = /^(\d{1,3}(?:,\d{2})*,\d{3}|\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d{1,2}))?$/.exec(cleaned);
  if (!match) return undefined;
  const whole = Number((match[1] as string).replaceAll(',', ''));
  const fraction = Number((match[2] ?? '').padEnd(2, '0'));
  const paise = whole * 100 + fraction;
  return Number.isSafeInteger(paise) ? paise : undefined;
}

/**
 * A due date as YYYY-MM-DD from YYYY-MM-DD, DD/MM/YYYY, DD-MM-YYYY or the export's timestamp
 * (`YYYY-MM-DDT00:00:00.000Z`). Whether the date exists is left to the create rules (a 400 on due_date).
 */
export function normaliseDueDate(text: string): string {
  const value = text.trim();
  const dayFirst = /^(\d{1,2})[/-](\d{1,2})[/-](\d{4})$/.exec(value);
  if (dayFirst) {
    const [, d, m, y] = dayFirst as unknown as [string, string, string, string];
    return `${y}-${m.padStart(2, '0')}-${d.padStart(2, '0')}`;
  }
  const exported = /^(\d{4}-\d{2}-\d{2})T00:00:00(?:\.0+)?Z$/.exec(value);
  return exported ? (exported[1] as string) : value;
}
