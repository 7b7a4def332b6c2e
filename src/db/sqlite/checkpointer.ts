import { once } from 'node:events';
import { Worker } from 'node:worker_threads';

/**
 * WAL checkpoints on a thread of their own (checkpoint-worker.mjs). SQLite otherwise checkpoints inside the COMMIT that
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
    this.#worker = new Worker(new URL('./checkpoint-worker.mjs', import.meta.url), {
      workerData: { file, intervalMs },
    });
    this.#exited = once(this.#worker, 'exit');
    this.#worker.on('message', (message: CheckpointResult | { error: string }) => {
      if ('error' in message) this.stats.errors++;
      else {
        this.stats.runs++;
        this.stats.last = message;
      }
      for (const then of this.#onRun.splice(0)) then(message);
    });
    this.#worker.on('error', () => {
      this.stats.errors++;
    });
    // It never keeps a process alive on its own (the admin CLI exits when its work is done).
    this.#worker.unref();
  }

  readonly #onRun: ((result: CheckpointResult | { error: string }) => void)[] = [];

  /** The result of the next checkpoint the thread reports (for tests: an event, not a timer). */
  nextRun(): Promise<CheckpointResult | { error: string }> {
    return new Promise((resolve) => this.#onRun.push(resolve));
  }

  /** Stops the thread after its current checkpoint, if one is running. */
  async stop(): Promise<void> {
    // Held until it has exited: an unreferenced thread would let the process end first.
    this.#worker.ref();
    this.#worker.postMessage('stop');
    await this.#exited;
  }
}
