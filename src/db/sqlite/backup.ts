import fs from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';

export interface BackupResult {
  file: string;
  bytes: number;
}

/**
 * A consistent copy of the SQLite store at `file` into `out`, taken while it serves and writes
 * (SQLite's online backup, on a thread of its own so that the event loop of a server taking a
 * scheduled backup goes on answering; backup-worker.mjs). The copy holds every transaction
 * committed before it started, and none half-made. It is written beside `out`, fsynced, then
 * renamed onto it: `out` is never a partial file, even after a crash. Owner-only (0600), like the
 * store: it holds the same data.
 */
export async function backupSqlite(file: string, out: string): Promise<BackupResult> {
  const target = path.resolve(out);
  const dir = path.dirname(target);
  if (!fs.existsSync(dir)) throw new Error(`the folder ${dir} does not exist`);
  if (path.resolve(file) === target) throw new Error('the backup cannot be written over the store itself');
  const tmp = `${target}.partial-${process.pid}-${Date.now()}`;
  try {
    fs.closeSync(fs.openSync(tmp, 'w', 0o600));
    await copyOnThread(file, tmp);
    const fd = fs.openSync(tmp, 'r+');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, target);
    syncFolder(dir);
    return { file: target, bytes: fs.statSync(target).size };
  } catch (error) {
    // A full disk (or any failed write) part-way: the temporary file goes, `out` is not written (a
    // file already there stays as it was), and the store was only read.
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(
      `backup failed while writing into ${dir}: ${reason}. Nothing was written to ${target} (no partial file is left); the store is unchanged`,
    );
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

/** SQLite's online backup of `file` into `tmp`, on its own thread (backup-worker.mjs). */
function copyOnThread(file: string, tmp: string): Promise<void> {
  const worker = new Worker(new URL('./backup-worker.mjs', import.meta.url), { workerData: { file, tmp } });
  return new Promise((resolve, reject) => {
    let reported: { pages: number } | { error: string } | undefined;
    worker.once('message', (message: { pages: number } | { error: string }) => {
      reported = message;
    });
    worker.once('error', reject);
    // The thread reports, then exits: its answer is read once it is gone (both may come in one turn).
    worker.once('exit', (code) => {
      if (reported === undefined) reject(new Error(`the backup thread stopped (exit code ${code})`));
      else if ('error' in reported) reject(new Error(reported.error));
      else resolve();
    });
  });
}

/** A rename is durable once its folder is fsynced. */
export function syncFolder(dir: string): void {
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
