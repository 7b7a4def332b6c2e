import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import {
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  Kysely,
  type QueryResult,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely';
import type { Database } from '../schema.js';

/**
 * Issue 18 / PRODUCT part 17: SQLite runs a statement on the thread that calls it, so a long
 * read on the store's one connection (a deep page of a million dues, a first incremental sync)
 * held the event loop and every other business's request waited behind it (6.3 s measured).
 * The list reads run here instead: `threads` worker threads, each with a read-only connection
 * (WAL: readers see the last commit and never block the writer), one statement at a time each,
 * queued in arrival order. The event loop stays free for everything else, and the per-business
 * bound (lib/business-gate.ts) keeps one business from taking every thread.
 *
 * Nothing read here is handed out before what it could show is durable: `barrier` (a read on
 * the main connection) commits the open group and waits for every commit's fsync, before the
 * statement and again after it (a group may commit while the thread reads).
 */

interface Job {
  id: number;
  sql: string;
  parameters: readonly unknown[];
  holdIt: boolean;
  resolve: (rows: unknown[]) => void;
  reject: (error: Error) => void;
}

/** What a thread posts back: rows as arrays under `columns`, as JSON when JSON holds them exactly. */
interface ThreadAnswer {
  id: number;
  started?: true;
  columns?: string[];
  json?: string;
  rows?: unknown[][];
  error?: { message: string };
}

/** Builds one row object from its values, per list of column names (a statement's shape). */
type RowMaker = (values: unknown[]) => Record<string, unknown>;
const rowMakers = new Map<string, RowMaker>();

/**
 * A function whose object literal names every column: objects of one statement then share one
 * shape, built ~5x faster than by adding each column in a loop (measured on a page of 200 dues,
 * where the loop cost the event loop more than the JSON.parse). A later column of the same
 * name wins, as in better-sqlite3. The names go in as JSON string literals; `__proto__`, which a
 * literal would take for the prototype, is left to the loop.
 */
function rowMaker(columns: string[]): RowMaker {
  const key = columns.join('\u0000');
  let make = rowMakers.get(key);
  if (!make) {
    if (columns.includes('__proto__')) {
      make = (values) => {
        const row: Record<string, unknown> = {};
        for (let c = 0; c < columns.length; c++)
          Object.defineProperty(row, columns[c] as string, {
            value: values[c],
            enumerable: true,
            writable: true,
            configurable: true,
          });
        return row;
      };
    } else {
      // The source holds only JSON string literals and indexes.
      make = new Function(
        'v',
        `return {${columns.map((c, i) => `${JSON.stringify(c)}: v[${i}]`).join(', ')}};`,
      ) as RowMaker;
    }
    if (rowMakers.size >= 1000) rowMakers.delete(rowMakers.keys().next().value as string);
    rowMakers.set(key, make);
  }
  return make;
}

/** The rows as objects keyed by column name. */
function rowsOf(answer: ThreadAnswer): Record<string, unknown>[] {
  const arrays = answer.json === undefined ? (answer.rows ?? []) : (JSON.parse(answer.json) as unknown[][]);
  return arrays.map(rowMaker(answer.columns ?? []));
}

interface Thread {
  worker: Worker;
  busy: Job | undefined;
}

/** Test seam: reads for which `when` is true stand still in their thread until `buffer[0]` is set. */
export interface ReadHold {
  buffer: SharedArrayBuffer;
  when: (sql: string, parameters: readonly unknown[]) => boolean;
  /** told when a held read has started in its thread */
  onStarted?: () => void;
}

/**
 * How much of the database file each read thread maps (PRAGMA mmap_size; SQLite caps it at its
 * build's limit, 2 GiB by default). Address space only: the pages are the OS's page cache, shared.
 * The cost of the mapping: a disk that fails a read of a mapped page stops the process (SIGBUS)
 * where a read() would have failed the one statement; the file never shrinks under it (no
 * auto_vacuum, no VACUUM in the service), the other way a mapping fails.
 */
const READ_MMAP_BYTES = 2 ** 31;

export class ReadPool {
  readonly #threads: Thread[] = [];
  readonly #queue: Job[] = [];
  #nextId = 1;
  #closed = false;

  constructor(
    file: string,
    threads: number,
    private readonly hold?: ReadHold,
    mmapBytes = READ_MMAP_BYTES,
  ) {
    for (let i = 0; i < threads; i++) {
      const worker = new Worker(new URL('./read-worker.mjs', import.meta.url), {
        workerData: { file, hold: hold?.buffer, mmapBytes },
        // Plain JavaScript: no loader of the parent's (tsx), whose module hooks a blocked thread
        // was seen to hold up for the other threads as they started.
        execArgv: [],
      });
      const thread: Thread = { worker, busy: undefined };
      worker.on('message', (message: ThreadAnswer) => {
        if (message.started) {
          this.hold?.onStarted?.();
          return;
        }
        const job = thread.busy;
        thread.busy = undefined;
        // Idle threads do not keep the process alive; a busy one does (below).
        worker.unref();
        if (job && job.id === message.id) {
          if (message.error) job.reject(Object.assign(new Error(message.error.message), message.error));
          else job.resolve(rowsOf(message));
        }
        this.#dispatch();
      });
      worker.on('error', (error) => {
        const job = thread.busy;
        thread.busy = undefined;
        job?.reject(error);
      });
      worker.unref();
      this.#threads.push(thread);
    }
  }

  get size(): number {
    return this.#threads.length;
  }

  run(sql: string, parameters: readonly unknown[]): Promise<unknown[]> {
    if (this.#closed) return Promise.reject(new Error('the read pool is closed'));
    return new Promise((resolve, reject) => {
      const holdIt = this.hold?.when(sql, parameters) ?? false;
      this.#queue.push({ id: this.#nextId++, sql, parameters, holdIt, resolve, reject });
      this.#dispatch();
    });
  }

  #dispatch() {
    for (const thread of this.#threads) {
      if (thread.busy) continue;
      const job = this.#queue.shift();
      if (!job) return;
      thread.busy = job;
      // A read under way keeps the process alive (a short-lived process, the admin CLI's export,
      // would otherwise end with the read pending and nothing written).
      thread.worker.ref();
      thread.worker.postMessage({ id: job.id, sql: job.sql, parameters: job.parameters, holdIt: job.holdIt });
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const job of this.#queue.splice(0)) job.reject(new Error('the read pool is closed'));
    await Promise.all(
      this.#threads.map(async (t) => {
        t.worker.ref();
        const exited = once(t.worker, 'exit');
        t.worker.postMessage('stop');
        await exited;
      }),
    );
  }
}

class PoolConnection implements DatabaseConnection {
  constructor(
    private readonly pool: ReadPool,
    private readonly barrier: () => Promise<void>,
  ) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    await this.barrier();
    const rows = (await this.pool.run(query.sql, query.parameters)) as R[];
    // A group may have committed while the thread read (visible to it, its fsync still running):
    // the rows are handed out once every commit they could show is durable.
    await this.barrier();
    return { rows };
  }

  // biome-ignore lint/correctness/useYield: reads are answered whole, never streamed
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('the read pool does not stream');
  }
}

class PoolDriver implements Driver {
  constructor(
    private readonly pool: ReadPool,
    private readonly barrier: () => Promise<void>,
  ) {}
  async init() {}
  async acquireConnection() {
    return new PoolConnection(this.pool, this.barrier);
  }
  async beginTransaction(): Promise<void> {
    throw new Error('the read pool runs no transactions');
  }
  async commitTransaction(): Promise<void> {}
  async rollbackTransaction(): Promise<void> {}
  async releaseConnection() {}
  async destroy() {
    await this.pool.close();
  }
}

/** A Kysely instance whose statements run on the pool's threads (reads only). */
export function poolDatabase(pool: ReadPool, barrier: () => Promise<void>): Kysely<Database> {
  const dialect: Dialect = {
    createAdapter: () => new SqliteAdapter(),
    createDriver: () => new PoolDriver(pool, barrier),
    createIntrospector: (db) => new SqliteIntrospector(db),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  };
  return new Kysely<Database>({ dialect });
}
