import { type RawBuilder, sql } from 'kysely';
import { TRIMMED } from '../../lib/text.js';
import type { TextSql } from '../text-sql.js';

/**
 * PostgreSQL's types (db/column-types.ts) made into the text that db/postgres/pool.ts's parsers give
 * JavaScript and the presenter writes:
 * - timestamptz: parsed through Date, so milliseconds, cut (not rounded) from the stored
 *   microseconds, always three digits, in UTC with a `Z`. to_char's MS cuts too, and at time zone
 *   'UTC' makes it independent of the session's TimeZone;
 * - date: kept as PostgreSQL's text, which is YYYY-MM-DD under the default DateStyle; to_char
 *   writes that whatever the DateStyle;
 * - bigint (amounts): Number(text), which prints the same digits for every amount the API takes
 *   (at most 10^12 paise); uuid: its lower-case text;
 * - the list position keeps the microseconds: the next batch starts after the last row's exact
 *   keys (a time cut to milliseconds would skip the rest of its due date, a test checks).
 */
/** csvCell's quoting test as a PostgreSQL regular expression (not newline-sensitive: ^ and $ are the text's ends). */
const QUOTED = `[",\r\n]|^[${TRIMMED}]|[${TRIMMED}]$`;
const ISO_MS = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;
export const textSql: TextSql = {
  char: (code) => sql`chr(${sql.lit(code)})`,
  crlf: sql`chr(13) || chr(10)`,
  // One regular expression (compiled once and kept by PostgreSQL): four strpos and a btrim with
  // TRIMMED (whose characters btrim measures again on every call in a UTF-8 database) were ~40%
  // of the line query's time.
  needsQuotes: (x) => sql`${x} ~ ${QUOTED}`,
  startsWithQuote: (x) => sql`left(${x}, 1) = '"'`,
  timestamp: (x) => sql`to_char(${x} at time zone 'UTC', ${sql.raw(ISO_MS)})`,
  exactTimestamp: (x) => pgExactTime(x),
  date: (x) => sql`to_char(${x}, 'YYYY-MM-DD')`,
  text: (x) => sql`${x}::text`,
  // A bound value's type is inferred from where it stands; in `$1 || '/pay/'` it cannot be.
  textArg: (x) => sql`cast(${x} as text)`,
  // A prepared statement's generic plan evaluates an expression of bound values on every row; a
  // scalar subquery that refers to no row is an InitPlan, run once per execution.
  once: (x) => sql`(select ${x})`,
  // The stored text is JSON.stringify's (domain.ts storeRecurrence); the presenter parses it and
  // writes { interval, until } again: in that order, without spaces, a missing key left out
  // (concat_ws skips NULLs). jsonb's text of each value is JSON.stringify's for the strings and
  // null it holds (json_build_object would put spaces around each colon).
  recurrence: (x) =>
    sql`'{' || concat_ws(',', '"interval":' || (${x}::jsonb -> 'interval')::text, '"until":' || (${x}::jsonb -> 'until')::text) || '}'`,
  // One pass and one result: `a || ',' || b || ...` makes a new, longer text at each of the line's
  // ~50 operators.
  concat: (parts) => (parts.length === 0 ? sql`''` : sql`concat(${sql.join(parts)})`),
  jsonArray: (items) => sql`json_build_array(${sql.join(items)})::text`,
};

/** A timestamptz as ISO 8601 text in UTC, to the microsecond (the list position; port.ts exactTime). */
export function pgExactTime(x: RawBuilder<unknown> | ReturnType<typeof sql.ref>): RawBuilder<string> {
  return sql<string>`to_char(${x} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
}
