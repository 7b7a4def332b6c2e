import type { RawBuilder } from 'kysely';

type Sql = RawBuilder<unknown>;

/**
 * What the two stores spell differently in expressions over text (the export's CSV lines,
 * bulk/export-lines.ts). Each returns NULL for NULL, as the column does.
 */
export interface TextSql {
  char(code: number): Sql;
  /** the line's end, CR LF */
  crlf: Sql;
  /** whether csvCell quotes text `x`: a quote, comma, CR or LF in it, or TRIMMED at either end */
  needsQuotes(x: Sql): Sql;
  /** whether text `x` starts with a double quote */
  startsWithQuote(x: Sql): Sql;
  /** a timestamp column as the list API shows it (Date.prototype.toISOString) */
  timestamp(x: Sql): Sql;
  /** a timestamp column to the store's full precision, for the list position */
  exactTimestamp(x: Sql): Sql;
  /** a date column as YYYY-MM-DD */
  date(x: Sql): Sql;
  /** a number or uuid column as text */
  text(x: Sql): Sql;
  /** a bound text value used in an expression */
  textArg(x: Sql): Sql;
  /** a value computed once per statement, not per row */
  once(x: Sql): Sql;
  /** JSON.stringify({ interval, until }) of the stored recurrence (JSON text) */
  recurrence(x: Sql): Sql;
  /** the texts one after the other (none is NULL) */
  concat(parts: Sql[]): Sql;
  /** a JSON array of texts, as text (not PostgreSQL's json, which node-postgres would parse) */
  jsonArray(items: Sql[]): Sql;
}
