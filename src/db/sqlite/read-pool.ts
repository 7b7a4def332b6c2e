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

export class ReadPool {
  readonly #threads: Thread[] = [];
  readonly #queue: Job[] = [];
  #nextId = 1;
  #closed = false;

  constructor(
    file: string,
    threads: number,
    private readonly hold?: ReadHold,
  ) {
    for (let i = 0; i < threads; i++) {
      const worker = new Worker(new URL('./read-worker.mjs', import.meta.url), {
        workerData: { file, hold: hold?.buffer },
        // Plain JavaScript: no loader of the parent's (tsx), whose module hooks a blocked thread
        // was seen to hold up for the other threads as they started.
        execArgv: [],
      });
      const thread: Thread = { worker, busy: undefined };
      worker.on('message', (message: { id: number; started?: true; rows?: unknown[]; error?: { message: string } }) => {
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
          else job.resolve(message.rows ?? []);
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
