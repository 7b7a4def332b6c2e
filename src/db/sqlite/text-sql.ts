import { sql } from 'kysely';
import { TRIMMED } from '../../lib/text.js';
import type { TextSql } from '../text-sql.js';

/** SQLite's TextSql (db/text-sql.ts). */
export const textSql: TextSql = {
  char: (code) => sql`char(${sql.lit(code)})`,
  crlf: sql`char(13, 10)`,
  needsQuotes: (x) =>
    sql`instr(${x}, '"') > 0 or instr(${x}, ',') > 0 or instr(${x}, char(10)) > 0 or instr(${x}, char(13)) > 0 or ${x} <> trim(${x}, ${TRIMMED})`,
  startsWithQuote: (x) => sql`unicode(${x}) = 34`,
  // SQLite holds times, dates, ids and integers as the text (or number) the API shows.
  timestamp: (x) => x,
  exactTimestamp: (x) => x,
  date: (x) => x,
  text: (x) => x,
  textArg: (x) => x,
  // SQLite computes an expression of constants and bound values once per run.
  once: (x) => x,
  recurrence: (x) =>
    sql`json_object('interval', json_extract(${x}, '$.interval'), 'until', json_extract(${x}, '$.until'))`,
  // Each part in parentheses: `||` binds tighter than `-` (the balance).
  concat: (parts) =>
    parts.length === 0
      ? sql`''`
      : sql.join(
          parts.map((p) => sql`(${p})`),
          sql` || `,
        ),
  jsonArray: (items) => sql`json_array(${sql.join(items)})`,
};
