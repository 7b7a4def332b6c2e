import { csvLine } from '../bulk/csv.js';

/**
 * A buyer's statement of account, as a pure function over the rows of its period: every due
 * (a debit, on the date it was created), receipt (a credit, on its received_on), adjustment (a
 * credit, on the date it was made) and reversal (a debit, on the date it was made), oldest first,
 * with a running balance exact to the paisa.
 */

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

/**
 * The kept month a statement's reads start from: every month before it lies wholly before the
 * period, for the entries dated by their received_on (`from`) and for those dated by an instant
 * (`fromInstant`, `from`'s first instant in the business's time zone, whose UTC month may be the
 * one before). The reads start at its first day (and its first instant, UTC).
 */
export function firstReadMonth(from: string, fromInstant: string): { month: string; date: string; instant: string } {
  const a = ledgerMonth(from);
  const b = ledgerMonth(fromInstant);
  const month = a < b ? a : b;
  return { month, date: `${month}-01`, instant: `${month}-01T00:00:00.000Z` };
}

/**
 * The statement of [from, to] given the sum of the kept months before the first month read
 * (`before`) and every item dated from that month on: the items before `from` complete the
 * opening balance, those of [from, to] are its entries, later ones are left out.
 */
export function buildStatement(before: number, items: readonly StatementItem[], from: string, to: string): Statement {
  const opening = items.filter((i) => i.date < from).reduce((s, i) => s + i.debitPaise - i.creditPaise, before);
  let balance = opening;
  const entries: StatementEntry[] = [];
  for (const item of items.filter((i) => i.date >= from && i.date <= to).sort(compare)) {
    balance += item.debitPaise - item.creditPaise;
    entries.push({
      date: item.date,
      kind: item.kind,
      transaction_id: item.transactionId,
      receipt_id: item.receiptId,
      description: item.description,
      debit_paise: item.debitPaise,
      credit_paise: item.creditPaise,
      balance_paise: balance,
      detail: item.detail,
    });
  }
  return { opening, closing: balance, entries };
}

/** Open balances by days past due on `today` (as GET /v1/aging, for one contact's open dues). */
export function agingOf(open: readonly { dueDate: string; balancePaise: number }[], today: string) {
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
    b.count += 1;
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
