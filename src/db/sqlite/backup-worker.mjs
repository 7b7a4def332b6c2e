// The online backup's thread (backup.ts): a connection of its own copies the store into `tmp`
// with SQLite's backup API, then reports the pages copied (or the error) and exits.
// Plain JavaScript so that Node runs it as it is, under tsx, vitest or a compiled build alike.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const { file, tmp } = workerData;
const db = new Database(file, { fileMustExist: true, timeout: 5000 });
try {
  // The first step only opens the backup; the callback then asks for every page in the next one,
  // so the copy is made inside one read transaction: one committed state of the store, however
  // much is written meanwhile. (Small steps restart from the beginning whenever another connection
  // commits between them, and under steady writes they may never finish.)
  const result = await db.backup(tmp, { progress: () => 0x7fffffff });
  parentPort.postMessage({ pages: result.totalPages });
} catch (error) {
  parentPort.postMessage({ error: String(error?.message ?? error) });
} finally {
  db.close();
}
