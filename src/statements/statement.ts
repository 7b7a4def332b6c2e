import { csvLine } from '../bulk/csv.js';
import { addDays, daysBetween } from '../lib/dates.js';

/**
 * A buyer's statement of account, as a pure function over the rows of its period: every due
 * (a debit, on the date it was created), receipt (a credit, on its received_on), adjustment (a
 * credit, on the date it was made) and reversal (a debit, on the date it was made), oldest first,
 * with a running balance exact to the paisa.
 */

/** How far back a statement goes without `from`. */
const DEFAULT_DAYS = 90;

/** Where a statement ending on `to` starts when it is not told. */
export function defaultFrom(to: string): string {
  return addDays(to, -DEFAULT_DAYS);
}

export type EntryKind = 'due' | 'payment' | 'adjustment' | 'reversal';

/**
 * What an entry's description is made of, for a page that words it in its own language (the
 * dashboard's ledger); the API's `description` is the English sentence built from the same.
 */
export interface EntryDetail {
  invoiceNumber?: string | null;
  dueDate?: string;
  method?: string;
  utr?: string | null;
  /** a reversal's reason, or an adjustment's */
  reason?: string | null;
  adjustmentKind?: string;
  /** a payment whose receipt was reversed since (its reversal is an entry of its own) */
  reversed?: boolean;
}

export interface StatementItem {
  /** business-local date, YYYY-MM-DD */
  date: string;
  /** orders entries of one date: when it was recorded (ISO instant) */
  at: string;
  id: string;
  kind: EntryKind;
  transactionId: string | null;
  receiptId: string | null;
  description: string;
  debitPaise: number;
  creditPaise: number;
  detail: EntryDetail;
}

export interface StatementEntry {
  date: string;
  kind: EntryKind;
  transaction_id: string | null;
  receipt_id: string | null;
  description: string;
  debit_paise: number;
  credit_paise: number;
  balance_paise: number;
  detail: EntryDetail;
}

export interface Statement {
  opening: number;
  closing: number;
  entries: StatementEntry[];
}

const ORDER: Record<EntryKind, number> = { due: 0, adjustment: 1, payment: 2, reversal: 3 };

function compare(a: StatementItem, b: StatementItem): number {
  if (a.date !== b.date) return a.date < b.date ? -1 : 1;
  if (a.at !== b.at) return a.at < b.at ? -1 : 1;
  if (a.kind !== b.kind) return ORDER[a.kind] - ORDER[b.kind];
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * The month an entry is kept in (contact_ledger_months): `YYYY-MM` of an instant (ISO, UTC) or of
 * a date.
 */
export function ledgerMonth(dateOrInstant: string): string {
  return dateOrInstant.slice(0, 7);
}

/** Where the opening balance starts: the kept months before `month`, or through it. */
export type KeptMonths = { side: 'before' | 'through'; month: string };

/** What a statement reads: the kept months, then the entries from `since` to `until`. */
export interface StatementReads {
  months: KeptMonths;
  /** the first date (received_on) and instant (ISO) read */
  since: { date: string; instant: string };
  /** the last date read, and the instant before which entries are read */
  until: { date: string; instant: string };
}

const monthStart = (month: string) => `${month}-01`;
const nextMonth = (month: string) => {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return m === 12 ? `${String(y + 1).padStart(4, '0')}-01` : `${month.slice(0, 4)}-${String(m + 1).padStart(2, '0')}`;
};

/**
 * How a statement of [from, to] reads (`fromInstant`, `untilInstant`: the first instant of `from`
 * and of the day after `to` in the business's time zone). The months kept lie wholly on one side of
 * `from`, for the entries dated by their received_on and for those dated by an instant (whose UTC
 * month may be the one before or after the business's); the entries of `from`'s month are read
 * from the nearer end of that month: from its start up to `from` (with the months before it), or
 * from the end of the period up to its end (with the months through it, less what was read). So
 * a statement reads the period's entries and at most half a month more.
 */
export function statementReads(from: string, to: string, fromInstant: string, untilInstant: string): StatementReads {
  const a = ledgerMonth(from);
  const b = ledgerMonth(fromInstant);
  const first = a < b ? a : b;
  const last = a < b ? b : a;
  const after = nextMonth(last);
  const ahead = daysBetween(to, monthStart(after)) - 1;
  if (ahead < daysBetween(monthStart(first), from)) {
    const lastDay = addDays(monthStart(after), -1);
    const end = `${monthStart(after)}T00:00:00.000Z`;
    return {
      months: { side: 'through', month: last },
      since: { date: from, instant: fromInstant },
      until: { date: to > lastDay ? to : lastDay, instant: untilInstant > end ? untilInstant : end },
    };
  }
  return {
    months: { side: 'before', month: first },
    since: { date: monthStart(first), instant: `${monthStart(first)}T00:00:00.000Z` },
    until: { date: to, instant: untilInstant },
  };
}

/** The month an item is kept in: a payment's received_on, the others' time. */
const keptMonthOf = (item: StatementItem) => ledgerMonth(item.kind === 'payment' ? item.date : item.at);

/** What an item moves the balance by: a debit raises it, a credit lowers it. */
const movement = (item: StatementItem) => item.debitPaise - item.creditPaise;

function entryOf(item: StatementItem, balanceAfter: number): StatementEntry {
  return {
    date: item.date,
    kind: item.kind,
    transaction_id: item.transactionId,
    receipt_id: item.receiptId,
    description: item.description,
    debit_paise: item.debitPaise,
    credit_paise: item.creditPaise,
    balance_paise: balanceAfter,
    detail: item.detail,
  };
}

/**
 * The statement of [from, to] given the sum of the kept months (`kept`, as `months` says) and
 * every item read (statementReads): the opening balance is the months before plus the items
 * before `from`, or the months through less the items of those months (all from `from` on); the
 * items of [from, to] are its entries, later ones are left out.
 */
export function buildStatement(
  kept: number,
  months: KeptMonths,
  items: readonly StatementItem[],
  from: string,
  to: string,
): Statement {
  const opening =
    months.side === 'before'
      ? items.filter((i) => i.date < from).reduce((s, i) => s + movement(i), kept)
      : items.filter((i) => keptMonthOf(i) <= months.month).reduce((s, i) => s - movement(i), kept);
  let balance = opening;
  const entries: StatementEntry[] = [];
  for (const item of items.filter((i) => i.date >= from && i.date <= to).sort(compare)) {
    balance += movement(item);
    entries.push(entryOf(item, balance));
  }
  return { opening, closing: balance, entries };
}

/** Every kept month: their sum is the account's balance after its newest entry. */
export const EVERY_MONTH: KeptMonths = { side: 'through', month: '9999-12' };

/** The newest entries of an account, newest first, and what came before them. */
export interface LatestEntries {
  entries: StatementEntry[];
  /** the balance before the oldest of them */
  opening: number;
  /** whether the account has entries older than these */
  older: boolean;
}

/**
 * The account's newest `count` entries, newest first, each with the balance after it, given the
 * balance after the newest (the sum of every kept month) and the items read: for each kind, that
 * kind's newest `count + 1` in the statement's order, or all it has. The newest `count` of these
 * are the account's; one more than `count` read says older entries exist. The balances are walked
 * backwards from the newest, so they agree with buildStatement's running balance.
 */
export function latestEntries(balance: number, items: readonly StatementItem[], count: number): LatestEntries {
  const newest = [...items].sort((a, b) => compare(b, a));
  const entries: StatementEntry[] = [];
  let after = balance;
  for (const item of newest.slice(0, count)) {
    entries.push(entryOf(item, after));
    after -= movement(item);
  }
  return { entries, opening: after, older: newest.length > count };
}

/**
 * Open balances by days past due on `today` (as GET /v1/aging), for one contact's open dues given
 * by due date: how many fall due that day and their balances.
 */
export function agingOf(open: readonly { dueDate: string; count: number; balancePaise: number }[], today: string) {
  const bucket = () => ({ count: 0, paise: 0 });
  const aging = { current: bucket(), d1_30: bucket(), d31_60: bucket(), d61_90: bucket(), d90_plus: bucket() };
  const day = (d: string) => Date.parse(`${d}T00:00:00Z`) / 86_400_000;
  for (const due of open) {
    const late = day(today) - day(due.dueDate);
    const b =
      late <= 0
        ? aging.current
        : late <= 30
          ? aging.d1_30
          : late <= 60
            ? aging.d31_60
            : late <= 90
              ? aging.d61_90
              : aging.d90_plus;
    b.count += due.count;
    b.paise += due.balancePaise;
  }
  return aging;
}

/** The entries as CSV: a header row, then one row per entry (amounts in paise). */
export function statementCsv(entries: readonly StatementEntry[]): string {
  return [csvLine(STATEMENT_COLUMNS), ...entries.map((e) => csvLine(STATEMENT_COLUMNS.map((c) => e[c])))].join('');
}

export const STATEMENT_COLUMNS = [
  'date',
  'kind',
  'transaction_id',
  'receipt_id',
  'description',
  'debit_paise',
  'credit_paise',
  'balance_paise',
] as const;
