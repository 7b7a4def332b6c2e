import { describe, expect, it } from 'vitest';
import { csvCell, csvLine, normaliseDueDate, rupeesToPaise, unguardCell } from './csv.js';
import { KNOWN_WORDS } from './export-lines.js';

describe('csvCell', () => {
  it('leaves the words the export passes through as they are (export-lines.ts wordCell) unchanged', () => {
    for (const word of Object.values(KNOWN_WORDS).flat()) expect(csvCell(word)).toBe(word);
  });

  it('neutralises what a spreadsheet would run as a formula, and undoes it on import', () => {
    for (const text of ['=1+1', '+91 98765', '-5', '@SUM(A1)', '\tx', '\rx']) {
      const cell = csvCell(text);
      expect(cell.replace(/^"|"$/g, '').startsWith("'")).toBe(true);
      expect(unguardCell(cell.replace(/^"|"$/g, ''))).toBe(text);
    }
    expect(unguardCell("'plain")).toBe("'plain");
  });

  it('quotes commas, quotes and line breaks, and writes numbers, booleans and null plainly', () => {
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell(42)).toBe('42');
    expect(csvCell(false)).toBe('false');
    expect(csvCell(null)).toBe('');
    expect(csvCell({ interval: 'weekly', until: null })).toBe('"{""interval"":""weekly"",""until"":null}"');
    expect(csvLine(['a', 1, null])).toBe('a,1,\r\n');
    // White space at either end is kept by quoting (a reader trims unquoted cells), and only there.
    expect(csvLine([' lead', 'trail\u00a0', 'in side'])).toBe('" lead","trail\u00a0",in side\r\n');
  });
});

describe('rupeesToPaise', () => {
  it.each([
    ['1,23,450.50', 12_345_050],
    ['1,234.5', 123_450],
    ['12,34,56,789', 123_456_789_00],
    ['1,234,567.89', 123_456_789],
    ['₹ 99', 9900],
    ['Rs. 10.05', 1005],
    ['0', 0],
  ])('%s is %d paise', (text, paise) => {
    expect(rupeesToPaise(text)).toBe(paise);
  });

  it.each(['12.345', '1,2,3', 'abc', '-5', '1.2.3', '', '12,34'])('%s is not an amount', (text) => {
    expect(rupeesToPaise(text)).toBeUndefined();
  });
});

describe('normaliseDueDate', () => {
  it.each([
    ['2026-12-05', '2026-12-05'],
    ['05/12/2026', '2026-12-05'],
    ['5-1-2026', '2026-01-05'],
    ['2026-12-05T00:00:00.000Z', '2026-12-05'],
    ['tomorrow', 'tomorrow'],
  ])('%s reads as %s', (text, date) => {
    expect(normaliseDueDate(text)).toBe(date);
  });
});
