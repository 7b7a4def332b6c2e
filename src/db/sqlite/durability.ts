import { closeSync, fdatasync, openSync } from 'node:fs';
import { type AppError, errors } from '../../errors.js';

/** Makes everything written to a file so far durable, and calls back once it is. */
export interface FileSync {
  sync(done: (error: Error | null) => void): void;
  close(): void;
}

/**
 * fdatasync(2) of one file, on libuv's thread pool: the event loop goes on while the disk works.
 * The file is opened at the first sync (SQLite creates its WAL lazily) and kept open: an fsync
 * through any descriptor of a file flushes all of that file's written data.
 */
export function fileSync(path: string): FileSync {
  let fd: number | undefined;
  return {
    sync(done) {
      try {
        fd ??= openSync(path, 'r');
      } catch (error) {
        done(error as Error);
        return;
      }
      fdatasync(fd, (error) => done(error));
    },
    close() {
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
    },
  };
}

/** The 503 every write gets while the store cannot make writes durable. */
export function storeUnavailable(cause: unknown): AppError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  const error = errors.unavailable(`the store cannot accept writes right now (${reason}); retry shortly`, 5);
  error.cause = cause;
  return error;
}

interface Waiter {
  upTo: number;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Which commits of a SQLite connection are on disk. The connection runs with
 * `synchronous=NORMAL`: a COMMIT writes its WAL frames (safe from a process kill at once) but
 * does not wait for the disk. Commits are numbered as they happen; one fdatasync of the WAL at a
 * time then makes every commit made before it started durable, and whoever waits for those
 * commits is released. Commits made while a sync runs are covered by the next one, so a busy
 * connection needs about one sync per disk round trip, whatever its commit rate.
 *
 * This is `synchronous=FULL`'s guarantee (nothing is acknowledged before the WAL holding it is
 * on disk; SQLite's unix VFS assumes powersafe overwrite, so FULL adds no padding either) with
 * the fsync moved off the event loop: SQLite's own would block it for the whole disk round trip.
 *
 * A failed sync (or a storage fault the driver reports through `fail`) stops the commits: whoever
 * waits is told `unavailable` (503) and nothing is acknowledged until the driver has re-verified
 * the store and calls `recovered` (sqlite/faults.ts says why that is safe). Reads go on meanwhile.
 */
export class Durability {
  #committed = 0;
  #durable = 0;
  #running = false;
  #waiters: Waiter[] = [];
  #failure: AppError | null = null;
  #idle: (() => void)[] = [];
  /** fdatasync calls made (tests read it). */
  syncs = 0;

  /** `onChange`: told when writes stop (with the cause) and when they go on again (null): to log it once. */
  constructor(
    private readonly file: FileSync,
    private readonly onChange: (failure: AppError | null) => void = () => {},
  ) {}

  /** Set while the store cannot make writes durable: no write may be acknowledged. */
  get failure(): AppError | null {
    return this.#failure;
  }

  /**
   * Stops acknowledging commits: every waiter and every later one is told `unavailable`, until
   * `recovered`. Called on a failed sync, and by the driver on a storage fault (disk full, I/O).
   */
  fail(cause: unknown): AppError {
    if (this.#failure === null) {
      this.#failure = storeUnavailable(cause);
      this.onChange(this.#failure);
    }
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w.reject(this.#failure);
    return this.#failure;
  }

  /** The driver has re-verified the store (sqlite/faults.ts): everything committed is durable. */
  recovered(): void {
    const was = this.#failure;
    this.#failure = null;
    this.#durable = this.#committed;
    if (was) this.onChange(null);
  }

  /** Counts a commit that has just been made; returns its number. */
  committed(): number {
    return ++this.#committed;
  }

  /** Commits made on this connection so far (each group COMMIT, each write outside a transaction). */
  get commits(): number {
    return this.#committed;
  }

  /** A sync is running. */
  get syncing(): boolean {
    return this.#running;
  }

  /** Calls `then` once no sync is running (at once if none is), or when syncing has failed. */
  onceIdle(then: () => void): void {
    if (!this.#running) then();
    else this.#idle.push(then);
  }

  /** Calls `resolve` once commit `upTo` (and every earlier one) is durable, `reject` if that fails. */
  notify(upTo: number, resolve: () => void, reject: (error: unknown) => void): void {
    if (this.#failure) {
      reject(this.#failure);
      return;
    }
    if (this.#durable >= upTo) {
      resolve();
      return;
    }
    this.#waiters.push({ upTo, resolve, reject });
    this.#start();
  }

  /**
   * A promise for `notify`, or null when those commits are durable already (the usual case for
   * reads) or when the store is failing (nothing will become durable until it recovers: reads and
   * errors are answered meanwhile, writes are refused).
   */
  whenDurable(upTo = this.#committed): Promise<void> | null {
    if (this.#failure !== null || this.#durable >= upTo) return null;
    return new Promise((resolve, reject) => this.notify(upTo, resolve, reject));
  }

  #start(): void {
    if (this.#running || this.#failure || this.#waiters.length === 0) return;
    this.#running = true;
    const upTo = this.#committed;
    this.syncs++;
    this.file.sync((error) => {
      this.#running = false;
      const waiters = this.#waiters;
      if (error) {
        this.fail(error);
      } else {
        this.#durable = upTo;
        this.#waiters = waiters.filter((w) => w.upTo > upTo);
        for (const w of waiters) if (w.upTo <= upTo) w.resolve();
        this.#start();
      }
      if (this.#running) return;
      const idle = this.#idle;
      this.#idle = [];
      for (const then of idle) then();
    });
  }
}
