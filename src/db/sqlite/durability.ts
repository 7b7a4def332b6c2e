import { closeSync, fdatasync, openSync } from 'node:fs';

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
 * A failed sync is final: after a failed fsync the kernel may already have dropped the pages it
 * could not write, so a later sync that succeeds proves nothing (PostgreSQL stops in this case
 * too). Everything waiting, and everything later, fails with the error until the process is
 * restarted; SQLite then recovers from what the WAL really holds.
 */
export class Durability {
  #committed = 0;
  #durable = 0;
  #running = false;
  #waiters: Waiter[] = [];
  #failure: Error | null = null;
  #idle: (() => void)[] = [];
  /** fdatasync calls made (tests read it). */
  syncs = 0;

  constructor(private readonly file: FileSync) {}

  /** The error of a failed sync; the connection must not be used once there is one. */
  get failure(): Error | null {
    return this.#failure;
  }

  /** Counts a commit that has just been made; returns its number. */
  committed(): number {
    return ++this.#committed;
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

  /** A promise for `notify`, or null when those commits are durable already (the usual case for reads). */
  whenDurable(upTo = this.#committed): Promise<void> | null {
    if (this.#failure === null && this.#durable >= upTo) return null;
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
        this.#failure = new Error(
          `the store could not make its writes durable (${error.message}); restart the process`,
        );
        this.#waiters = [];
        for (const w of waiters) w.reject(this.#failure);
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
