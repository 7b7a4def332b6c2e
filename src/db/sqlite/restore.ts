import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { syncFolder } from './backup.js';

export class StoreInUseError extends Error {}
export class NotABackupError extends Error {}

export interface RestoreResult {
  /** the store's file, now the backup's content */
  file: string;
  /** where the store it replaced was kept (null: there was none) */
  replaced: string | null;
  /** the backup's last migration: the server applies any newer one at its next start */
  schema: string | null;
}

/**
 * Puts a backup in place of the SQLite store in `dataDir` (the server and workers stopped).
 *
 * The backup is checked first: a SQLite file that passes quick_check and holds the migrations
 * table. Then the store must be unused: switching it out of WAL mode needs every other connection
 * closed, so it fails at once while a server, a worker or a CLI command has it open (and, once it
 * succeeds, the store's WAL has been folded into it: nothing of it is left behind). The store is
 * kept beside it (`receivables.db.replaced-<time>`), and the backup copied in through a fsynced
 * temporary file and a rename, so a crash leaves either store whole.
 */
export function restoreSqlite(dataDir: string, from: string, now: Date): RestoreResult {
  const source = path.resolve(from);
  const schema = checkBackup(source);
  const file = path.join(dataDir, 'receivables.db');
  const exists = fs.existsSync(file);
  if (exists) releaseStore(file);
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const tmp = `${file}.restoring-${process.pid}`;
  fs.copyFileSync(source, tmp);
  fs.chmodSync(tmp, 0o600);
  const fd = fs.openSync(tmp, 'r+');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  let replaced: string | null = null;
  if (exists) {
    replaced = `${file}.replaced-${now.toISOString().replace(/[:.]/g, '-')}`;
    fs.renameSync(file, replaced);
  }
  // Left by no one (the store was released above), but a stale pair must not be read with the new file.
  for (const companion of [`${file}-wal`, `${file}-shm`]) fs.rmSync(companion, { force: true });
  fs.renameSync(tmp, file);
  syncFolder(dataDir);
  return { file, replaced, schema };
}

/** The backup's last migration, once it is known to be a sound store file. */
function checkBackup(source: string): string | null {
  if (!fs.existsSync(source)) throw new NotABackupError(`${source} does not exist`);
  let db: BetterSqlite3.Database | undefined;
  try {
    db = new BetterSqlite3(source, { readonly: true, fileMustExist: true });
    const [check] = db.pragma('quick_check(1)') as { quick_check: string }[];
    if (check?.quick_check !== 'ok') throw new NotABackupError(`${source} is damaged: ${check?.quick_check}`);
    const row = db.prepare("select name from sqlite_master where type = 'table' and name = 'kysely_migration'").get() as
      | { name: string }
      | undefined;
    if (!row) throw new NotABackupError(`${source} is not a backup of this store (it has no migrations table)`);
    const last = db.prepare('select name from kysely_migration order by name desc limit 1').get() as
      | { name: string }
      | undefined;
    return last?.name ?? null;
  } catch (error) {
    if (error instanceof NotABackupError) throw error;
    throw new NotABackupError(`${source} is not a SQLite store: ${(error as Error).message}`);
  } finally {
    db?.close();
  }
}

/**
 * Takes the store out of WAL mode, which SQLite allows only to the one connection that has it
 * open: any other (a running server, worker or command) makes it fail at once (no wait).
 */
function releaseStore(file: string): void {
  const db = new BetterSqlite3(file, { fileMustExist: true, timeout: 0 });
  try {
    const [mode] = db.pragma('journal_mode = DELETE') as { journal_mode: string }[];
    if (mode?.journal_mode !== 'delete') throw new StoreInUseError(inUse(file));
  } catch (error) {
    if (error instanceof StoreInUseError) throw error;
    if ((error as { code?: string }).code?.startsWith('SQLITE_BUSY')) throw new StoreInUseError(inUse(file));
    throw error;
  } finally {
    db.close();
  }
}

const inUse = (file: string) =>
  `the store ${file} is in use (a server, worker or command has it open): stop them, then restore`;
