// A read thread of the SQLite store (read-pool.ts): a read-only connection of its own (WAL lets it
// read while the main connection writes) that runs one SELECT at a time and posts back its rows,
// so a long read (a deep page, a first sync) blocks this thread, never the event loop.
// Plain JavaScript so that Node runs it as it is, under tsx, vitest or a compiled build alike.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const { file, hold } = workerData;
const db = new Database(file, { readonly: true, timeout: 5000 });
db.pragma('query_only = ON');
db.pragma('cache_size = -32768');
db.pragma('temp_store = memory');
const held = hold ? new Int32Array(hold) : undefined;
const cache = new Map();

function prepare(sql) {
  let stmt = cache.get(sql);
  if (!stmt) {
    stmt = db.prepare(sql);
    if (cache.size >= 200) cache.delete(cache.keys().next().value);
    cache.set(sql, stmt);
  }
  return stmt;
}

parentPort.on('message', (message) => {
  if (message === 'stop') {
    db.close();
    parentPort.close();
    return;
  }
  const { id, sql, parameters, holdIt } = message;
  try {
    // Tests only: stand still inside the read, as a long statement would, until released.
    if (holdIt && held) {
      parentPort.postMessage({ id, started: true });
      while (Atomics.load(held, 0) === 0) Atomics.wait(held, 0, 0);
    }
    const stmt = prepare(sql);
    if (!stmt.reader) throw new Error('a read thread runs only statements that return rows');
    parentPort.postMessage({ id, rows: stmt.all(parameters) });
  } catch (error) {
    parentPort.postMessage({ id, error: { message: String(error?.message ?? error), code: error?.code } });
  }
});
