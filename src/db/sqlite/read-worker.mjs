// A read thread of the SQLite store (read-pool.ts): a read-only connection of its own (WAL lets it
// read while the main connection writes) that runs one SELECT at a time and posts back its rows,
// so a long read (a deep page, a first sync) blocks this thread, never the event loop.
// Plain JavaScript so that Node runs it as it is, under tsx, vitest or a compiled build alike.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const { file, hold, mmapBytes } = workerData;
const db = new Database(file, { readonly: true, timeout: 5000 });
db.pragma('query_only = ON');
// 4 MB: the file is mapped (below) up to SQLite's 2 GiB limit, and mapped pages do not go through
// this cache; it holds only pages past that limit, which the OS caches anyway. At 32 MB, a first
// export of a million dues from a 2.7 GB file filled it on each thread (bench/README.md, issue 21).
db.pragma('cache_size = -4096');
db.pragma('temp_store = memory');
// A page of dues reads ~200 rows scattered over the table: through the page cache each costs a
// read() of its page into this connection's cache; mapped, it is a memory read (issue 18's
// cursor pages, ~20% of the statement at 1M dues). Reads only: a write through a mapping (the
// risky part of mmap in SQLite) never happens on this connection.
if (mmapBytes > 0) db.pragma(`mmap_size = ${mmapBytes}`);
/** Rows at least this wide go as JSON (below). */
const JSON_MIN_COLUMNS = 8;
const held = hold ? new Int32Array(hold) : undefined;
const cache = new Map();

function prepare(sql) {
  let stmt = cache.get(sql);
  if (!stmt) {
    stmt = db.prepare(sql);
    if (!stmt.reader) throw new Error('a read thread runs only statements that return rows');
    // Rows as arrays: better-sqlite3 builds them for a fraction of what named objects cost.
    stmt.raw(true);
    if (cache.size >= 200) cache.delete(cache.keys().next().value);
    cache.set(sql, stmt);
  }
  return stmt;
}

/** Whether JSON carries every value as it is (text, finite numbers, null): no blobs, no -0. */
function jsonSafe(rows) {
  for (const row of rows) {
    for (const v of row) {
      if (v === null || typeof v === 'string') continue;
      if (typeof v !== 'number' || !Number.isFinite(v) || (v === 0 && 1 / v < 0)) return false;
    }
  }
  return true;
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
    const rows = stmt.all(parameters);
    // Asked after the run: a statement SQLite re-prepared (the schema changed) has its new columns.
    const columns = stmt.columns().map((c) => c.name);
    // Wide rows (a list page: 200 dues of ~30 values) go as one JSON string of arrays when JSON
    // holds them exactly: their structured clone cost the event loop ~3x what JSON.parse of the
    // same values does. Narrow rows of long texts (the export's CSV lines) go by structured clone:
    // JSON would make one string of the whole batch, which V8 keeps as a large object until a
    // full collection, on this thread and again on the event loop's (measured: a first export of
    // a million dues grew RSS by ~30 MB more that way, and ran no faster).
    if (columns.length >= JSON_MIN_COLUMNS && jsonSafe(rows))
      parentPort.postMessage({ id, columns, json: JSON.stringify(rows) });
    else parentPort.postMessage({ id, columns, rows });
  } catch (error) {
    parentPort.postMessage({ id, error: { message: String(error?.message ?? error), code: error?.code } });
  }
});
