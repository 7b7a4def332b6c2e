import { type Kysely, type Migration, Migrator, SqliteAdapter, sql } from 'kysely';
import { migrations } from './migrations/index.js';
import type { Db } from './schema.js';

export class MigrationError extends Error {}

/**
 * How many of this code's migrations the store has not applied (all of them on a new store): one
 * small read, no lock, nothing written. For the admin CLI's commands that only read.
 */
export async function pendingMigrations(db: Db): Promise<number> {
  let applied: Set<string>;
  try {
    const rows = await sql<{ name: string }>`select name from kysely_migration`.execute(db);
    applied = new Set(rows.rows.map((r) => r.name));
  } catch {
    return Object.keys(migrations).length;
  }
  return Object.keys(migrations).filter((name) => !applied.has(name)).length;
}

/**
 * Applies pending migrations and fails loudly: a half-migrated store must never serve.
 *
 * Several processes may start at once (a server and a worker after an upgrade). On PostgreSQL
 * Kysely's migrator takes an advisory lock in its transaction. On SQLite it takes no lock at all
 * (it assumes one connection), so two processes ran the same migration side by side (seen: the
 * second failed on the migration table's unique name); here the whole run happens inside one
 * BEGIN IMMEDIATE, which holds SQLite's write lock across processes, so the others wait and then
 * find nothing left to do. It also makes a run all or nothing.
 */
export async function migrate(db: Db): Promise<string[]> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) return runMigrations(db);
  // An index build over a million rows may take longer than PG_STATEMENT_TIMEOUT_MS: lifted
  // for this one connection while it migrates.
  return db.connection().execute(async (conn) => {
    await sql`set statement_timeout = 0`.execute(conn);
    try {
      return await runMigrations(conn);
    } finally {
      await sql`reset statement_timeout`.execute(conn);
    }
  });
}

/**
 * PostgreSQL runs every pending migration in one transaction. A migration that writes rows of a
 * table with deferred triggers (the data version's, fired at commit) leaves trigger events
 * pending, and PostgreSQL then refuses any later ALTER TABLE or CREATE INDEX on that table in the
 * same transaction ("cannot ALTER TABLE ... because it has pending trigger events"): a store
 * holding data could not be upgraded across two such migrations. Before each migration the
 * pending events are fired (SET CONSTRAINTS ALL IMMEDIATE, for the rest of the run).
 */
function firingDeferredTriggers(all: Record<string, Migration>): Record<string, Migration> {
  return Object.fromEntries(
    Object.entries(all).map(([name, m]) => [
      name,
      {
        ...m,
        up: async (db: Kysely<any>) => {
          await sql`set constraints all immediate`.execute(db);
          await m.up(db);
        },
      },
    ]),
  );
}

async function runMigrations(db: Db): Promise<string[]> {
  const onSqlite = db.getExecutor().adapter instanceof SqliteAdapter;
  const all = onSqlite ? migrations : firingDeferredTriggers(migrations);
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => all },
    // Migrations are written side by side and named by when their work began, so one may be
    // released after another whose name sorts later (a store that ran 2026-11-27T05-00 may then
    // receive 2026-11-27T02-00). Each is independent of those beside it; without this, Kysely
    // refuses such a store ("corrupted migrations") and it could never be upgraded.
    allowUnorderedMigrations: true,
  });
  if (onSqlite) await beginImmediate(db);
  let result: Awaited<ReturnType<Migrator['migrateToLatest']>>;
  try {
    result = await migrator.migrateToLatest();
  } catch (error) {
    if (onSqlite) await sql`rollback`.execute(db);
    throw error;
  }
  const { error, results } = result;
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    if (onSqlite) await sql`rollback`.execute(db);
    const reason = error instanceof Error ? error.message : String(error ?? 'unknown error');
    throw new MigrationError(`migration ${failed?.migrationName ?? ''} failed: ${reason}`);
  }
  if (onSqlite) await sql`commit`.execute(db);
  return (results ?? []).map((r) => r.migrationName);
}

/** SQLite's write lock, waited for as long as another process's migrations may take. */
async function beginImmediate(db: Db, waitMs = 15 * 60_000): Promise<void> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      await sql`begin immediate`.execute(db);
      return;
    } catch (error) {
      // SQLITE_BUSY once busy_timeout (5 s) has passed: another process still holds the lock.
      if ((error as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() > deadline) throw error;
    }
  }
}
