import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseStatement, StatementError, statementAmount, statementDate } from './parse.js';

const fixture = (name: string) => readFileSync(new URL(`../../test/fixtures/bank/${name}`, import.meta.url), 'utf8');

function refused(text: string): StatementError {
  try {
    parseStatement(text);
  } catch (error) {
    if (error instanceof StatementError) return error;
    throw error;
  }
  throw new Error('the statement was read');
}

describe('statementDate', () => {
  it.each([
    ['05/11/2026', '2026-11-05'],
    ['5-11-2026', '2026-11-05'],
    ['05/11/26', '2026-11-05'],
    ['05-Nov-2026', '2026-11-05'],
    ['5 Nov 2026', '2026-11-05'],
    ['2026-11-05', '2026-11-05'],
    ['05/11/2026 10:15:00', '2026-11-05'],
  ])('reads %s', (text, date) => expect(statementDate(text)).toBe(date));

  it.each(['31/02/2026', '2026/11/05', '05-Nox-2026', 'yesterday', ''])('refuses %s', (text) =>
    expect(statementDate(text)).toBeUndefined(),
  );
});

describe('statementAmount', () => {
  it.each([
    ['1,23,456.50', 12_345_650],
    ['123,456.50', 12_345_650],
    ['4500.00', 450_000],
    ['12,345.00 Cr', 1_234_500],
    ['1,12,251.00(Cr)', 11_225_100],
    ['', 0],
    ['-', 0],
  ])('reads %s', (text, paise) => expect(statementAmount(text)).toBe(paise));

  it('refuses what is not an amount', () => expect(statementAmount('12.3.4')).toBeUndefined());
});

describe('parseStatement on the shapes of Indian net-banking exports', () => {
  it('reads an HDFC-like export (preamble, asterisks under the header, DD/MM/YY, Indian grouping)', () => {
    const s = parseStatement(fixture('hdfc.csv'));
    expect(s.lines).toBe(5);
    expect(s.credits).toEqual([
      {
        line: 10,
        date: '2026-11-01',
        amountPaise: 1_234_500,
        reference: '0000630512345678',
        narration: 'UPI-RAVI KUMAR-ravi.kumar@okicici-ICIC0001234-630512345678-INV-1001',
        balancePaise: 11_234_500,
      },
      expect.objectContaining({ line: 11, amountPaise: 15_000_050, reference: 'SBIN526306123456' }),
      expect.objectContaining({ line: 13, date: '2026-11-04', amountPaise: 500_000 }),
      expect.objectContaining({ line: 14, amountPaise: 99_900, balancePaise: 26_584_450 }),
    ]);
  });

  it('reads an SBI-like export (D MMM YYYY, a note line after the table)', () => {
    const s = parseStatement(fixture('sbi.csv'));
    expect(s.lines).toBe(3);
    expect(s.credits.map((c) => [c.line, c.date, c.amountPaise, c.balancePaise])).toEqual([
      [12, '2026-11-01', 340_000, 4_840_000],
      [14, '2026-11-03', 2_500_000, 7_220_000],
    ]);
    expect(s.credits[1]?.narration).toBe('BY TRANSFER-NEFT*HDFC0000123*N307261234567890*ANITA DESAI');
  });

  it('reads an ICICI-like export (Transaction Remarks, amounts of 0.00 on the other side)', () => {
    const s = parseStatement(fixture('icici.csv'));
    expect(s.lines).toBe(3);
    expect(s.credits.map((c) => [c.line, c.date, c.amountPaise, c.reference])).toEqual([
      [7, '2026-11-01', 12_345_650, null],
      [8, '2026-11-02', 800_000, null],
    ]);
  });

  it('reads an Axis-like export (Tran Date, DR/CR columns, DD-MM-YYYY, no grouping)', () => {
    const s = parseStatement(fixture('axis.csv'));
    expect(s.lines).toBe(3);
    expect(s.credits.map((c) => [c.line, c.date, c.amountPaise, c.narration])).toEqual([
      [7, '2026-11-01', 450_000, 'UPI/P2A/630512345621/SURESH PATEL/Bank of Baroda/suresh.p@ybl/INV-4001'],
      [8, '2026-11-02', 1_000_000, 'IMPS/P2A/630812345622/MEENA JAIN/HDFCBANK/Advance'],
    ]);
  });

  it('reads a Kotak-like export (DD-MMM-YYYY, Chq / Ref No., a Dr / Cr column)', () => {
    const s = parseStatement(fixture('kotak.csv'));
    expect(s.lines).toBe(3);
    expect(s.credits.map((c) => [c.line, c.date, c.amountPaise, c.reference, c.balancePaise])).toEqual([
      [8, '2026-11-01', 275_000, 'UPI-630512345631', 5_275_000],
      [9, '2026-11-02', 6_000_000, 'NEFT-AXISP00123456', 11_275_000],
    ]);
  });

  it('reads YYYY-MM-DD dates and a statement without a debit or balance column', () => {
    const s = parseStatement('Date,Description,Credit\n2026-11-05,Cash deposit,100\n');
    expect(s.credits).toEqual([
      {
        line: 2,
        date: '2026-11-05',
        amountPaise: 10_000,
        reference: null,
        narration: 'Cash deposit',
        balancePaise: null,
      },
    ]);
  });

  it('refuses a file without a recognisable header in its first 30 lines', () => {
    expect(refused('Name,Amount\nRavi,100\n').message).toMatch(/no header row in the first 30 lines/);
    const late = `${'preamble\n'.repeat(30)}Date,Narration,Deposit\n01/11/2026,x,1\n`;
    expect(refused(late).line).toBeNull();
  });

  it('refuses a bad line, naming it', () => {
    const bad = refused('Bank\nDate,Narration,Withdrawal,Deposit\n01/11/2026,a,,100\n32/11/2026,b,,100\n');
    expect(bad.line).toBe(4);
    expect(bad.message).toBe('line 4: "32/11/2026" is not a date');
    expect(refused('Date,Narration,Deposit\n01/11/2026,a,12abc\n').message).toBe('line 2: "12abc" is not an amount');
    expect(refused('Date,Narration,Debit,Credit\n01/11/2026,a,5,5\n').line).toBe(2);
  });

  it('refuses more than 20,000 lines', () => {
    const text = `Date,Narration,Deposit\n${'01/11/2026,x,1\n'.repeat(20_000)}`;
    expect(refused(text).line).toBe(20_001);
  });
});
