// The checkpointer's thread (checkpointer.ts): a connection of its own that runs a PASSIVE WAL
// checkpoint every `intervalMs` and reports each result; it stops on any message from its parent.
// Plain JavaScript so that Node runs it as it is, under tsx, vitest or a compiled build alike.
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

const { file, intervalMs } = workerData;
// timeout 0: a checkpoint that finds the write lock taken reports busy rather than waiting.
const db = new Database(file, { timeout: 0 });
// FULL: a checkpoint fsyncs the database file before the WAL may be reused.
db.pragma('synchronous = FULL');
const checkpoint = db.prepare('pragma wal_checkpoint(PASSIVE)');

const timer = setInterval(() => {
  try {
    const [result] = checkpoint.all();
    parentPort.postMessage(result);
  } catch (error) {
    parentPort.postMessage({ error: String(error?.message ?? error) });
  }
}, intervalMs);

parentPort.on('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
