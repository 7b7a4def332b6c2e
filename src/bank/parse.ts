import { parse } from 'csv-parse/sync';
import { rupeesToPaise } from '../bulk/csv.js';
import { isCalendarDate } from '../lib/dates.js';

/**
 * Reading a bank's net-banking CSV export, free of HTTP and SQL. Banks put a preamble (account
 * holder, period, branch) above the table and name their columns differently, so the header is
 * found by its column names among the first lines, and each line is read by what its column means.
 * Anything that cannot be read for sure is refused with its line number: a statement is money, and
 * a guess would pay the wrong due.
 */

export const MAX_STATEMENT_LINES = 20_000;
const HEADER_SEARCH_LINES = 30;

/** What was wrong, for a page to say in its own language (`value`: the cell that could not be read). */
export type StatementProblem =
  | 'not_csv'
  | 'no_header'
  | 'too_many_lines'
  | 'not_a_date'
  | 'not_an_amount'
  | 'credit_and_debit';

export class StatementError extends Error {
  constructor(
    readonly line: number | null,
    readonly problem: StatementProblem,
    message: string,
    readonly value = '',
  ) {
    super(line === null ? message : `line ${line}: ${message}`);
  }
}

export interface StatementCredit {
  /** the line of the file it was read from (1-based) */
  line: number;
  /** YYYY-MM-DD */
  date: string;
  amountPaise: number;
  reference: string | null;
  narration: string;
  balancePaise: number | null;
}

export interface ParsedStatement {
  /** transaction lines read (credits and debits) */
  lines: number;
  credits: StatementCredit[];
}

type Role = 'date' | 'text' | 'reference' | 'credit' | 'debit' | 'balance';

/** Column names by meaning, compared without case, spaces or punctuation ("Chq / Ref No." is "Chq./Ref.No."). */
const NAMES: readonly [Role, readonly string[]][] = [
  ['date', ['Date', 'Txn Date', 'Transaction Date', 'Value Date']],
  ['text', ['Narration', 'Description', 'Particulars', 'Remarks']],
  ['reference', ['Ref No.', 'Chq./Ref.No.', 'UTR', 'Reference']],
  ['credit', ['Deposit', 'Deposit Amt.', 'Credit', 'Cr']],
  ['debit', ['Withdrawal', 'Debit', 'Dr']],
  ['balance', ['Balance']],
];

const squash = (text: string) => text.toLowerCase().replace(/[^a-z0-9]/g, '');
const SQUASHED = NAMES.map(([role, names]) => [role, names.map(squash)] as const);
/**
 * The meaning of a header cell: it starts with a listed name, or its last word is one ("Tran Date",
 * "Transaction Remarks", "Closing Balance").
 */
function roleOf(cell: string): Role | undefined {
  const key = squash(cell);
  if (key === '') return undefined;
  for (const [role, names] of SQUASHED) if (names.some((n) => key.startsWith(n))) return role;
  const words = cell.trim().split(/\s+/);
  if (words.length < 2) return undefined;
  const last = squash(words[words.length - 1] as string);
  for (const [role, names] of SQUASHED) if (names.includes(last)) return role;
  return undefined;
}

type Columns = Partial<Record<Role, number>>;

/** The first column of each meaning, when the row has a date, a text and a credit column. */
function headerColumns(row: readonly string[]): Columns | undefined {
  const columns: Columns = {};
  row.forEach((cell, i) => {
    const role = roleOf(cell);
    if (role !== undefined && columns[role] === undefined) columns[role] = i;
  });
  return columns.date !== undefined && columns.text !== undefined && columns.credit !== undefined ? columns : undefined;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];

/**
 * YYYY-MM-DD from DD/MM/YYYY, DD-MM-YYYY, DD/MM/YY, DD-MMM-YYYY, DD MMM YYYY or YYYY-MM-DD (a time
 * after it is left out); undefined when it is none of them or no such day exists.
 */
export function statementDate(text: string): string | undefined {
  const value = text.trim().replace(/[\sT]+\d{1,2}:\d{2}(:\d{2})?(\s?[AaPp][Mm])?$/, '');
  const parts = dateParts(value);
  if (!parts) return undefined;
  const [d, m, y] = parts;
  const date = `${y}-${m.padStart(2, '0')}-${d.padStart(2, '0')}`;
  return isCalendarDate(date) ? date : undefined;
}

/** [day, month, year] of a date in one of the statement formats. */
function dateParts(value: string): [string, string, string] | undefined {
  const numeric = /^(\d{1,2})[/-](\d{1,2})[/-](\d{4}|\d{2})$/.exec(value);
  if (numeric) {
    const [, d, m, y] = numeric as unknown as [string, string, string, string];
    return [d, m, y.length === 2 ? `20${y}` : y];
  }
  const named = /^(\d{1,2})[- ]([A-Za-z]{3})[- ](\d{4})$/.exec(value);
  if (named) {
    const month = MONTHS.indexOf((named[2] as string).toLowerCase());
    return month < 0 ? undefined : [named[1] as string, String(month + 1), named[3] as string];
  }
  const iso = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  return iso ? [iso[3] as string, iso[2] as string, iso[1] as string] : undefined;
}

/** An amount cell: paise, 0 when empty (or a dash), undefined when it is not an amount. */
export function statementAmount(text: string): number | undefined {
  const value = text
    .trim()
    .replace(/\s*\(?(cr|dr)\)?\.?$/i, '')
    .trim();
  if (value === '' || value === '-') return 0;
  return rupeesToPaise(value);
}

/** A line that is not a transaction: empty, or a row of asterisks or dashes under the header. */
const isFiller = (row: readonly string[]) => row.every((cell) => /^[\s*\-_=.]*$/.test(cell));

function cleanReference(text: string | undefined): string | null {
  const value = (text ?? '').trim();
  if (value === '' || value === '-' || /^0+$/.test(value)) return null;
  return value;
}

/** A transaction line that cannot be read for sure: refused, naming the line and the cell. */
function badLine(line: number, problem: 'not_a_date' | 'not_an_amount' | 'credit_and_debit', value: string): never {
  const text =
    problem === 'credit_and_debit'
      ? 'a line is either a credit or a debit'
      : `"${value}" is ${problem === 'not_a_date' ? 'not a date' : 'not an amount'}`;
  throw new StatementError(line, problem, text, value);
}

/** Reads a statement; throws StatementError naming the line it could not read. */
export function parseStatement(text: string): ParsedStatement {
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parse(text, {
      bom: true,
      relax_column_count: true,
      relax_quotes: true,
      skip_empty_lines: true,
      info: true,
      trim: true,
      to_line: MAX_STATEMENT_LINES + 1,
    }) as unknown as typeof records;
  } catch (error) {
    const line = (error as { lines?: number }).lines ?? null;
    throw new StatementError(line, 'not_csv', `the file is not CSV (${(error as Error).message})`);
  }
  let columns: Columns | undefined;
  let start = 0;
  for (let i = 0; i < records.length; i++) {
    const { record, info } = records[i] as (typeof records)[number];
    if (info.lines > HEADER_SEARCH_LINES) break;
    columns = headerColumns(record);
    if (columns) {
      start = i + 1;
      break;
    }
  }
  if (!columns) {
    throw new StatementError(
      null,
      'no_header',
      `no header row in the first ${HEADER_SEARCH_LINES} lines: expected a date, a narration and a credit column`,
    );
  }
  const last = records.at(-1);
  if (last && last.info.lines > MAX_STATEMENT_LINES) {
    throw new StatementError(
      MAX_STATEMENT_LINES + 1,
      'too_many_lines',
      `a statement has at most ${MAX_STATEMENT_LINES} lines`,
    );
  }
  const cols = columns as Required<Pick<Columns, 'date' | 'text' | 'credit'>> & Columns;
  const credits: StatementCredit[] = [];
  let lines = 0;
  for (let i = start; i < records.length; i++) {
    const { record, info } = records[i] as (typeof records)[number];
    const line = info.lines;
    if (isFiller(record)) continue;
    const cell = (c: number | undefined) => (c === undefined ? '' : (record[c] ?? ''));
    const credit = statementAmount(cell(cols.credit));
    const debit = cols.debit === undefined ? 0 : statementAmount(cell(cols.debit));
    const date = statementDate(cell(cols.date));
    // A note under the table ("computer generated statement") has neither a date nor an amount.
    if (date === undefined && credit === 0 && debit === 0) continue;
    if (date === undefined) badLine(line, 'not_a_date', cell(cols.date));
    if (credit === undefined) badLine(line, 'not_an_amount', cell(cols.credit));
    if (debit === undefined) badLine(line, 'not_an_amount', cell(cols.debit));
    if (credit > 0 && debit > 0) badLine(line, 'credit_and_debit', '');
    if (credit === 0 && debit === 0) continue;
    lines++;
    if (credit === 0) continue;
    let balancePaise: number | null = null;
    if (cols.balance !== undefined && cell(cols.balance).trim() !== '') {
      const balance = statementAmount(cell(cols.balance));
      if (balance === undefined) badLine(line, 'not_an_amount', cell(cols.balance));
      balancePaise = balance;
    }
    credits.push({
      line,
      date,
      amountPaise: credit,
      reference: cleanReference(cols.reference === undefined ? undefined : cell(cols.reference)),
      narration: cell(cols.text).replace(/\s+/g, ' ').trim(),
      balancePaise,
    });
  }
  return { lines, credits };
}
