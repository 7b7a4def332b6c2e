import { type RawBuilder, sql } from 'kysely';
import { textSql } from '../db/port.js';
import type { TextSql } from '../db/text-sql.js';
import { promiseKept } from '../transactions/domain.js';
import type { ListPosition, ListSelection } from '../transactions/repository.js';
import { PAYMENT_METHODS } from '../transactions/schema.js';
import { csvCell } from './csv.js';
import type { ExportColumn } from './export.js';

/**
 * The export's CSV lines written by the query itself, on both stores, so that the event loop
 * receives one text per due (and its list position) and only joins finished lines and streams
 * them. On SQLite the query runs on a read thread (db/sqlite/read-pool.ts): reading each due as a
 * 29-column object, cloning it to the main thread and presenting it there cost ~17 us a row on
 * the read thread alone. On PostgreSQL the 29 values of each row, parsed into strings and Dates
 * and then presented, were the garbage that grew the server's memory by ~90-110 MB over an export
 * of a million dues (bench/README.md, 2026-11-25 and 2026-11-26).
 *
 * Each line is exactly csvLine(the columns of presentTransaction(row)), which the list API's items
 * are; test/bulk.test.ts compares the two, cell for cell, for rows of every kind, on both stores.
 * The rules written twice here (SQL, and JavaScript in csv.ts / presenter.ts):
 * - a text cell (csv.ts csvCell): a leading `= + - @`, tab or CR gets a `'`; then a cell with a
 *   quote, comma, CR or LF, or with white space at either end (what String.prototype.trim
 *   removes), is quoted with its quotes doubled;
 * - the presented values (presenter.ts): the status as of the business's today, the due date as a
 *   timestamp, the balance, the pay page's address, the recurrence and promise as JSON; on
 *   PostgreSQL also every value as text the way db/postgres/pool.ts's parsers and Date make it (db/postgres/text-sql.ts).
 * The one value SQL cannot compute is whether a paid due's promise was kept (the payment's date in
 * the business's time zone): such rows come back in two halves and the JavaScript promiseKept
 * fills in that cell (`js` below).
 */

export { TRIMMED } from '../lib/text.js';

type Sql = RawBuilder<unknown>;

/** The CSV rules of csv.ts and the presenter's values in one store's SQL. */
function rules(d: TextSql) {
  const CR = d.char(13);
  const TAB = d.char(9);

  /** csvCell of a text (or NULL) in SQL; `x` is evaluated a few times, so it is a column. */
  function textCell(x: Sql): Sql {
    const quoted = (g: Sql) =>
      sql`case when ${d.needsQuotes(g)} then '"' || replace(${g}, '"', '""') || '"' else ${g} end`;
    return sql`case when ${x} is null then '' when substr(${x}, 1, 1) in ('=', '+', '-', '@', ${TAB}, ${CR}) then ${quoted(sql`('''' || ${x})`)} else ${quoted(x)} end`;
  }

  /**
   * csvCell of the pay page's address, `{publicBaseUrl}/pay/{pay_token}`: a pay token is hex and
   * base64url characters (lib/ids.ts timeOrderedToken), none of which csvCell treats, and never
   * first or last in the address, so the cell is csvCell of `{publicBaseUrl}/pay/` (a constant of
   * the statement, computed once per run: `once`) with the token put in before its closing
   * quote, if it has one. One concatenation a row instead of the full rules on a new string some
   * ten times.
   */
  function payUrlCell(publicBaseUrl: Sql): Sql {
    const prefix = d.once(textCell(sql`(${d.textArg(publicBaseUrl)} || '/pay/')`));
    return sql`case when ${d.startsWithQuote(prefix)} then substr(${prefix}, 1, length(${prefix}) - 1) || "transactions"."pay_token" || '"' else ${prefix} || "transactions"."pay_token" end`;
  }

  /**
   * csvCell of a text that is nearly always one of `words` (which csvCell leaves as they are, a
   * test checks): those as they are, anything else through the full rules.
   */
  function wordCell(x: Sql, words: readonly string[]): Sql {
    return sql`case when ${x} in (${sql.join(words.map((w) => sql.lit(w)))}) then ${x} else ${textCell(x)} end`;
  }

  /** A value that never needs quoting (ids, ISO dates and times, integers, fixed words), NULL as ''. */
  const plain = (x: Sql): Sql => sql`coalesce(${x}, '')`;
  const col = (name: string) => sql.ref(name) as Sql;
  const madeAt = sql`coalesce("transactions"."promise_made_at", "transactions"."updated_at")`;

  function cells(today: Sql, publicBaseUrl: Sql): Record<ExportColumn, Sql> {
    const promiseDate = col('transactions.promise_date');
    const recurrence = col('transactions.recurrence');
    return {
      id: d.text(col('transactions.id')),
      contact_id: d.text(col('transactions.contact_id')),
      contact_name: textCell(col('contacts.name')),
      contact_phone: textCell(col('contacts.phone')),
      amount_paise: d.text(col('transactions.amount_paise')),
      currency: wordCell(col('transactions.currency'), KNOWN_WORDS.currency),
      status: sql`case when "transactions"."status" = 'pending' and "transactions"."due_date" < ${today} then 'overdue' else "transactions"."status" end`,
      direction: wordCell(col('transactions.direction'), KNOWN_WORDS.direction),
      due_date: sql`${d.date(col('transactions.due_date'))} || 'T00:00:00.000Z'`,
      paid_at: plain(d.timestamp(col('transactions.paid_at'))),
      utr: textCell(col('transactions.utr')),
      payment_method: wordCell(col('transactions.payment_method'), KNOWN_WORDS.payment_method),
      invoice_number: textCell(col('transactions.invoice_number')),
      notes: textCell(col('transactions.notes')),
      // JSON of the stored recurrence: always quoted (it has quotes).
      recurrence: sql`case when ${recurrence} is null then '' else '"' || replace(${d.recurrence(recurrence)}, '"', '""') || '"' end`,
      series_id: plain(d.text(col('transactions.series_id'))),
      reminders_paused: sql`case when "transactions"."reminders_paused" = 1 then 'true' else 'false' end`,
      // { date, made_at, kept } as JSON, quoted; kept for an unpaid due: false once the date has passed.
      promise: sql`case when ${promiseDate} is null then '' else '"{""date"":""' || ${d.date(promiseDate)} || '"",""made_at"":""' || ${d.timestamp(madeAt)} || '"",""kept"":' || case when ${today} > ${promiseDate} then 'false' else 'null' end || '}"' end`,
      amount_paid_paise: d.text(col('transactions.amount_paid_paise')),
      amount_adjusted_paise: d.text(col('transactions.amount_adjusted_paise')),
      balance_paise: d.text(
        sql`("transactions"."amount_paise" - "transactions"."amount_paid_paise" - "transactions"."amount_adjusted_paise")`,
      ),
      deleted_at: plain(d.timestamp(col('transactions.deleted_at'))),
      reminder_count: d.text(col('transactions.reminder_count')),
      pay_page_url: payUrlCell(publicBaseUrl),
      payment_reference: plain(col('transactions.payment_reference')),
      created_at: d.timestamp(col('transactions.created_at')),
      updated_at: d.timestamp(col('transactions.updated_at')),
    };
  }

  return {
    cells,
    /** paid_at, promise_date and made_at, for lineOf's promiseKept */
    promiseInputs: [
      d.timestamp(col('transactions.paid_at')),
      d.date(col('transactions.promise_date')),
      d.timestamp(madeAt),
    ],
    position: sql<string>`${d.date(col('transactions.due_date'))} || '|' || ${d.exactTimestamp(col('transactions.created_at'))} || '|' || ${d.text(col('transactions.id'))}`,
  };
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
    select: (joined, db, arg) => {
      const d = textSql(db);
      const r = rules(d);
      const all = r.cells(arg('today'), arg('publicBaseUrl'));
      const COMMA = sql`','`;
      // The cells of `names` with a comma between each.
      const cellsOf = (names: readonly ExportColumn[]) =>
        names.flatMap((name, i) => (i === 0 ? [all[name]] : [COMMA, all[name]]));
      const before = columns.slice(0, at);
      const after = columns.slice(at + 1);
      const head = before.length === 0 ? [] : [...cellsOf(before), COMMA];
      const tail = [...(after.length === 0 ? [] : [COMMA, ...cellsOf(after)]), d.crlf];
      // A paid due with a promise: whether it was kept is the payment's date in the business's time zone.
      const needsJs = sql.raw(
        `("transactions"."promise_date" is not null and "transactions"."status" = 'paid' and "transactions"."paid_at" is not null)`,
      );
      return joined.select([
        sql<string | null>`case when ${needsJs} then null else ${d.concat([...head, all.promise, ...tail])} end`.as(
          'line',
        ),
        sql<
          string | null
        >`case when ${needsJs} then ${d.jsonArray([d.concat(head), d.concat(tail), ...r.promiseInputs])} end`.as('js'),
        r.position.as('k'),
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
