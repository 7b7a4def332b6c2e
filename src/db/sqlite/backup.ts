import { once } from 'node:events';
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
  fs.closeSync(fs.openSync(tmp, 'w', 0o600));
  try {
    const worker = new Worker(new URL('./backup-worker.mjs', import.meta.url), { workerData: { file, tmp } });
    // Both listened for at once: the thread may report and exit in one turn of the event loop.
    const exited = once(worker, 'exit');
    const [message] = (await once(worker, 'message')) as [{ pages: number } | { error: string }];
    await exited;
    if ('error' in message) throw new Error(`backup failed: ${message.error}`);
    const fd = fs.openSync(tmp, 'r+');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, target);
    syncFolder(dir);
    return { file: target, bytes: fs.statSync(target).size };
  } finally {
    fs.rmSync(tmp, { force: true });
  }
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
