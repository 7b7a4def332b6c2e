import { type RawBuilder, sql } from 'kysely';
import { promiseKept } from '../transactions/domain.js';
import type { ListPosition, ListSelection } from '../transactions/repository.js';
import { PAYMENT_METHODS } from '../transactions/schema.js';
import { csvCell } from './csv.js';
import type { ExportColumn } from './export.js';

/**
 * SQLite: the export's CSV lines written by the query itself, on the read thread that runs it
 * (db/sqlite/read-pool.ts), so that the main thread only joins finished lines and streams them.
 * Reading each due as a 29-column object, cloning it to the main thread and presenting it there
 * (presentTransaction, csvLine) cost ~17 us a row on the read thread alone, the export's bottleneck.
 *
 * Each line is exactly csvLine(the columns of presentTransaction(row)), as the other store's export
 * (export.ts) writes it; test/bulk.test.ts compares the two, cell by cell, for rows of every kind.
 * The rules written twice here (SQL for SQLite, JavaScript in csv.ts / presenter.ts):
 * - a text cell (csv.ts csvCell): a leading `= + - @`, tab or CR gets a `'`; then a cell with a
 *   quote, comma, CR or LF, or with white space at either end (what String.prototype.trim
 *   removes), is quoted with its quotes doubled;
 * - the presented values (presenter.ts): the status as of the business's today, the due date as a
 *   timestamp, the balance, the pay page's address, the recurrence and promise as JSON.
 * The one value SQL cannot compute is whether a paid due's promise was kept (the payment's date in
 * the business's time zone): such rows come back in two halves and the JavaScript promiseKept
 * fills in that cell (`js` below).
 */

/** What String.prototype.trim removes (WhiteSpace and LineTerminator), for SQLite's trim(x, characters). */
const TRIMMED =
  '\u0009\u000a\u000b\u000c\u000d\u0020\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff';

type Sql = RawBuilder<unknown>;

/** csvCell of a text (or NULL) in SQL; `x` is evaluated a few times, so it is a column. */
function textCell(x: Sql): Sql {
  const quoted = (g: Sql) =>
    sql`case when instr(${g}, '"') > 0 or instr(${g}, ',') > 0 or instr(${g}, char(10)) > 0 or instr(${g}, char(13)) > 0 or ${g} <> trim(${g}, ${TRIMMED}) then '"' || replace(${g}, '"', '""') || '"' else ${g} end`;
  return sql`case when ${x} is null then '' when substr(${x}, 1, 1) in ('=', '+', '-', '@', char(9), char(13)) then ${quoted(sql`('''' || ${x})`)} else ${quoted(x)} end`;
}

/**
 * csvCell of the pay page's address, `{publicBaseUrl}/pay/{pay_token}`: a pay token is hex and
 * base64url characters (lib/ids.ts timeOrderedToken), none of which csvCell treats, and never
 * first or last in the address, so the cell is csvCell of `{publicBaseUrl}/pay/` (a constant of the
 * statement: SQLite computes it once per run) with the token put in before its closing quote, if
 * it has one. One concatenation a row instead of the full rules on a new string some ten times.
 */
function payUrlCell(publicBaseUrl: Sql): Sql {
  const prefix = textCell(sql`(${publicBaseUrl} || '/pay/')`);
  return sql`case when unicode(${prefix}) = 34 then substr(${prefix}, 1, length(${prefix}) - 1) || "transactions"."pay_token" || '"' else ${prefix} || "transactions"."pay_token" end`;
}

/**
 * csvCell of a text that is nearly always one of `words` (which csvCell leaves as they are, a test
 * checks): those as they are, anything else through the full rules.
 */
function wordCell(x: Sql, words: readonly string[]): Sql {
  return sql`case when ${x} in (${sql.join(words.map((w) => sql.lit(w)))}) then ${x} else ${textCell(x)} end`;
}

/**
 * The words the currency, direction and payment method nearly always hold (the business's
 * currency; the API's payment methods, and `api` for a due marked paid through it).
 */
export const KNOWN_WORDS = {
  currency: ['INR'],
  direction: ['receivable'],
  payment_method: [...PAYMENT_METHODS, 'api'],
} as const;

/** A value that never needs quoting (ids, ISO dates and times, integers, fixed words), NULL as ''. */
const plain = (x: Sql): Sql => sql`coalesce(${x}, '')`;
const col = (name: string) => sql.ref(name) as Sql;

function cells(today: Sql, publicBaseUrl: Sql): Record<ExportColumn, Sql> {
  const promiseDate = col('transactions.promise_date');
  const madeAt = sql`coalesce("transactions"."promise_made_at", "transactions"."updated_at")`;
  return {
    id: col('transactions.id'),
    contact_id: col('transactions.contact_id'),
    contact_name: textCell(col('contacts.name')),
    contact_phone: textCell(col('contacts.phone')),
    amount_paise: col('transactions.amount_paise'),
    currency: wordCell(col('transactions.currency'), KNOWN_WORDS.currency),
    status: sql`case when "transactions"."status" = 'pending' and "transactions"."due_date" < ${today} then 'overdue' else "transactions"."status" end`,
    direction: wordCell(col('transactions.direction'), KNOWN_WORDS.direction),
    due_date: sql`"transactions"."due_date" || 'T00:00:00.000Z'`,
    paid_at: plain(col('transactions.paid_at')),
    utr: textCell(col('transactions.utr')),
    payment_method: wordCell(col('transactions.payment_method'), KNOWN_WORDS.payment_method),
    invoice_number: textCell(col('transactions.invoice_number')),
    notes: textCell(col('transactions.notes')),
    // JSON.stringify({ interval, until }) of the stored recurrence: always quoted (it has quotes).
    recurrence: sql`case when "transactions"."recurrence" is null then '' else '"' || replace(json_object('interval', json_extract("transactions"."recurrence", '$.interval'), 'until', json_extract("transactions"."recurrence", '$.until')), '"', '""') || '"' end`,
    series_id: plain(col('transactions.series_id')),
    reminders_paused: sql`case when "transactions"."reminders_paused" = 1 then 'true' else 'false' end`,
    // { date, made_at, kept } as JSON, quoted; kept for an unpaid due: false once the date has passed.
    promise: sql`case when ${promiseDate} is null then '' else '"{""date"":""' || ${promiseDate} || '"",""made_at"":""' || ${madeAt} || '"",""kept"":' || case when ${today} > ${promiseDate} then 'false' else 'null' end || '}"' end`,
    amount_paid_paise: col('transactions.amount_paid_paise'),
    balance_paise: sql`"transactions"."amount_paise" - "transactions"."amount_paid_paise"`,
    deleted_at: plain(col('transactions.deleted_at')),
    reminder_count: col('transactions.reminder_count'),
    pay_page_url: payUrlCell(publicBaseUrl),
    created_at: col('transactions.created_at'),
    updated_at: col('transactions.updated_at'),
  };
}

/** One row of the query: the line, or (`js`) its two halves around the promise cell; the row's list position (`k`). */
export interface LineRow {
  line: string | null;
  /** JSON [head, tail, paid_at, promise_date, made_at] when the promise cell needs promiseKept */
  js: string | null;
  /** due_date|created_at|id (none of them holds a `|`) */
  k: string;
}

export function lineSelection(columns: readonly ExportColumn[]): ListSelection {
  const at = columns.indexOf('promise');
  if (at < 0) throw new Error('export-lines: the export has no promise column');
  return {
    name: 'csv-lines',
    select: (joined, _db, arg) => {
      const all = cells(arg('today'), arg('publicBaseUrl'));
      const join = (names: readonly ExportColumn[]) =>
        sql.join(
          // Each cell in parentheses: `||` binds tighter than `-` (the balance).
          names.map((name) => sql`(${all[name]})`),
          sql` || ',' || `,
        );
      const head = at === 0 ? sql`''` : sql`${join(columns.slice(0, at))} || ','`;
      const tail =
        at === columns.length - 1 ? sql`char(13, 10)` : sql`',' || ${join(columns.slice(at + 1))} || char(13, 10)`;
      // A paid due with a promise: whether it was kept is the payment's date in the business's time zone.
      const needsJs = sql.raw(
        `("transactions"."promise_date" is not null and "transactions"."status" = 'paid' and "transactions"."paid_at" is not null)`,
      );
      return joined.select([
        sql<string | null>`case when ${needsJs} then null else ${head} || ${all.promise} || ${tail} end`.as('line'),
        sql<
          string | null
        >`case when ${needsJs} then json_array(${head}, ${tail}, "transactions"."paid_at", "transactions"."promise_date", coalesce("transactions"."promise_made_at", "transactions"."updated_at")) end`.as(
          'js',
        ),
        sql<string>`"transactions"."due_date" || '|' || "transactions"."created_at" || '|' || "transactions"."id"`.as(
          'k',
        ),
      ]);
    },
  };
}

/** The row's line, the promise cell of a paid due filled in by promiseKept (in the business's time zone). */
export function lineOf(row: LineRow, timezone: string, today: string): string {
  if (row.line !== null) return row.line;
  const [head, tail, paidAt, date, madeAt] = JSON.parse(row.js as string) as [string, string, string, string, string];
  const kept = promiseKept({ status: 'paid', paid_at: paidAt, promise_date: date }, timezone, today);
  return `${head}${csvCell({ date, made_at: madeAt, kept })}${tail}`;
}

export function positionOf(row: LineRow): ListPosition {
  const [due_date, created_at, id] = row.k.split('|') as [string, string, string];
  return { due_date, created_at, id };
}
