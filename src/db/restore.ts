/**
 * SQLite: puts a backup in place of the store in `dataDir` (db/sqlite/restore.ts), loaded only
 * when asked for (the admin CLI's restore).
 */
export async function restoreSqliteStore(dataDir: string, from: string, now: Date) {
  const { restoreSqlite } = await import('./sqlite/restore.js');
  return restoreSqlite(dataDir, from, now);
}
