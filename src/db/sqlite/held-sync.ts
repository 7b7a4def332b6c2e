import type { FileSync } from './durability.js';

/**
 * For tests of db/sqlite/durability.ts and the SQLite driver: a FileSync whose syncs complete only when
 * the test says so, counting the syncs started.
 */
export function heldSync(): FileSync & {
  started: number;
  letGo(): void;
  complete(error?: Error | null): void;
  readonly running: number;
} {
  const pending: ((error: Error | null) => void)[] = [];
  let held = true;
  return {
    started: 0,
    sync(done: (error: Error | null) => void) {
      this.started++;
      if (held) pending.push(done);
      else setImmediate(() => done(null));
    },
    /** From now on syncs complete by themselves (so that a failed test can still close the store). */
    letGo() {
      held = false;
      this.complete();
    },
    close() {},
    /** Completes the syncs started so far. */
    complete(error: Error | null = null) {
      for (const done of pending.splice(0)) done(error);
    },
    get running() {
      return pending.length;
    },
  };
}
