import { once } from 'node:events';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * WAL checkpoints on a thread of their own. SQLite otherwise checkpoints inside the COMMIT that
 * takes the WAL past 1,000 pages: it copies those pages into the database file and fsyncs it,
 * blocking the event loop for milliseconds every few dozen commits (a quarter of the commit time
 * under the create load). A PASSIVE checkpoint from another connection copies what no reader
 * still needs without taking the write lock, so writers and readers go on meanwhile, and the WAL
 * is reused from its start once everything in it is copied.
 *
 * The main connection keeps a far larger automatic threshold as a backstop, in case this thread
 * falls behind or stops.
 */
export const BACKSTOP_PAGES = 16_000;

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file, { timeout: 0 });
db.pragma('synchronous = FULL');
const checkpoint = db.prepare('pragma wal_checkpoint(PASSIVE)');
const timer = setInterval(() => {
  try {
    const [result] = checkpoint.all();
    parentPort.postMessage(result);
  } catch (error) {
    parentPort.postMessage({ error: String(error && error.message || error) });
  }
}, workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

export interface CheckpointResult {
  /** 1 when a writer or another checkpointer kept it from running */
  busy: number;
  /** frames in the WAL */
  log: number;
  /** frames copied into the database file so far */
  checkpointed: number;
}

export class Checkpointer {
  readonly #worker: Worker;
  readonly #exited: Promise<unknown>;
  /** Checkpoints run, and errors seen (a failed checkpoint is retried at the next interval). */
  readonly stats = { runs: 0, errors: 0, last: null as CheckpointResult | null };

  constructor(file: string, intervalMs = 50) {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    this.#worker = new Worker(WORKER, { eval: true, workerData: { file, driver, intervalMs } });
    this.#exited = once(this.#worker, 'exit');
    this.#worker.on('message', (message: CheckpointResult | { error: string }) => {
      if ('error' in message) this.stats.errors++;
      else {
        this.stats.runs++;
        this.stats.last = message;
      }
    });
    this.#worker.on('error', () => {
      this.stats.errors++;
    });
    // It never keeps a process alive on its own (the admin CLI exits when its work is done).
    this.#worker.unref();
  }

  /** Stops the thread after its current checkpoint, if one is running. */
  async stop(): Promise<void> {
    // Held until it has exited: an unreferenced thread would let the process end first.
    this.#worker.ref();
    this.#worker.postMessage('stop');
    await this.#exited;
  }
}
