import { sql } from 'kysely';
import { isPostgres } from './dialect.js';
import type { Executor } from './schema.js';

export interface IntegrityReport {
  /** ok: the store found nothing wrong; failed: see problems; skipped: it could not look (see note) */
  status: 'ok' | 'failed' | 'skipped';
  /** what was checked, or why nothing was */
  note: string;
  problems: string[];
}

/** Problems listed at most: a damaged file can report one per page. */
const MAX_PROBLEMS = 100;

/**
 * The store's own consistency check. SQLite: `PRAGMA integrity_check` (every page, index and
 * constraint) and `PRAGMA foreign_key_check`. PostgreSQL: every B-tree index of the schema through
 * the amcheck extension when the database has it (`CREATE EXTENSION amcheck`, by a superuser);
 * otherwise nothing, said so: PostgreSQL has no check of its own that a client can run.
 */
export async function checkIntegrity(db: Executor): Promise<IntegrityReport> {
  if (isPostgres(db)) return checkPostgres(db);
  const problems: string[] = [];
  try {
    const integrity = await sql<{ integrity_check: string }>`pragma integrity_check(${sql.lit(MAX_PROBLEMS)})`.execute(
      db,
    );
    problems.push(...integrity.rows.map((r) => r.integrity_check).filter((line) => line !== 'ok'));
    const keys = await sql<{ table: string; rowid: number; parent: string }>`pragma foreign_key_check`.execute(db);
    for (const k of keys.rows.slice(0, MAX_PROBLEMS)) {
      problems.push(`${k.table} row ${k.rowid} refers to a missing ${k.parent} row`);
    }
  } catch (error) {
    // A file damaged past reading ("database disk image is malformed") fails the pragma itself.
    problems.push((error as Error).message);
  }
  return {
    status: problems.length === 0 ? 'ok' : 'failed',
    note: 'SQLite integrity_check and foreign_key_check',
    problems: problems.slice(0, MAX_PROBLEMS),
  };
}

async function checkPostgres(db: Executor): Promise<IntegrityReport> {
  const installed = await sql<{
    n: number;
  }>`select count(*)::int as n from pg_extension where extname = 'amcheck'`.execute(db);
  if (Number(installed.rows[0]?.n ?? 0) === 0) {
    return {
      status: 'skipped',
      note: 'PostgreSQL: amcheck is not installed in this database (CREATE EXTENSION amcheck to check the indexes)',
      problems: [],
    };
  }
  const indexes = await sql<{ name: string; oid: string }>`
    select c.relname as name, c.oid::text as oid from pg_index i
    join pg_class c on c.oid = i.indexrelid
    join pg_am am on am.oid = c.relam
    where am.amname = 'btree' and c.relnamespace = current_schema()::regnamespace and c.relpersistence <> 't'
    order by c.relname`.execute(db);
  const problems: string[] = [];
  for (const { name, oid } of indexes.rows) {
    try {
      await sql`select bt_index_check(${oid}::oid::regclass)`.execute(db);
    } catch (error) {
      problems.push(`index ${name}: ${(error as Error).message}`);
      if (problems.length >= MAX_PROBLEMS) break;
    }
  }
  return {
    status: problems.length === 0 ? 'ok' : 'failed',
    note: `PostgreSQL amcheck: ${indexes.rows.length} B-tree indexes`,
    problems,
  };
}
