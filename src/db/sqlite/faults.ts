/**
 * Storage faults of the SQLite store: the disk is full (SQLITE_FULL, ENOSPC), the file or its
 * file system became read-only (SQLITE_READONLY*), or the disk failed a read, a write or an fsync
 * (SQLITE_IOERR*, or our own fdatasync of the WAL failing: durability.ts).
 *
 * What the store does (the driver, driver.ts):
 * - The write that met the fault, and every write after it, answers 503 `unavailable` with
 *   Retry-After; none is acknowledged. Reads go on from what is committed.
 * - Before it accepts a write again, the driver re-verifies the store with the write lock held:
 *   it reopens the WAL, runs a TRUNCATE checkpoint (every committed page is written again, into
 *   the database file, which SQLite fsyncs, and the WAL is emptied), then fsyncs the new WAL
 *   through a fresh descriptor. Only when all of that succeeds are writes taken again; otherwise
 *   the write that asked answers 503 and the next one tries again. No restart is needed.
 *
 * Why that is safe after a failed fsync (which PostgreSQL, for one, treats as fatal): Linux may
 * mark pages it failed to write back as clean, so a later fsync of the same file can succeed
 * without them ever reaching the disk; a WAL whose early frames are missing on disk would then
 * lose every later commit at recovery. Here nothing relies on those frames: the checkpoint
 * rewrites every committed page into the database file through new writes and fsyncs it, and the
 * WAL starts over empty, so what is on disk afterwards was written and synced after the fault.
 * The pages are read back from the kernel's page cache, which keeps them after a failed
 * writeback; the one case not covered is the kernel evicting such a page before the recovery
 * (under memory pressure, within the seconds of an outage), as for any database without its own
 * checksummed copy. Commits whose sync failed were never acknowledged (503): a client that
 * retries with its Idempotency-Key gets the first outcome, never a second due.
 */
const FAULT_CODES = /^SQLITE_(FULL|READONLY|IOERR|CANTOPEN)/;

/** Whether a database error means the storage failed (as opposed to the statement, a constraint, a lock). */
export function isStorageFault(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && FAULT_CODES.test(code);
}
