import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from 'pino';
import type { BackupResult } from '../db/store.js';
import type { Metrics } from '../http/metrics.js';
import type { Clock } from '../lib/clock.js';
import type { Job } from './runner.js';

const HOUR = 3_600_000;
/** After a failed backup (a full disk), the next try waits this long rather than the runner's seconds. */
const RETRY_AFTER_FAILURE_MS = 15 * 60_000;
/** receivables-20261121T063000Z.db: the time it was taken, sortable as text. */
const NAME = /^receivables-(\d{8}T\d{6})Z\.db$/;

export function backupName(at: Date): string {
  return `receivables-${at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}Z$/, 'Z')}.db`;
}

function takenAt(name: string): number | null {
  const m = NAME.exec(name);
  if (!m) return null;
  const t = m[1] as string;
  return Date.parse(
    `${t.slice(0, 4)}-${t.slice(4, 6)}-${t.slice(6, 8)}T${t.slice(9, 11)}:${t.slice(11, 13)}:${t.slice(13, 15)}Z`,
  );
}

/** The folder's backups, newest first (only files this job names; anything else is left alone). */
export function listBackups(dir: string): { name: string; at: number }[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .map((name) => ({ name, at: takenAt(name) }))
    .filter((b): b is { name: string; at: number } => b.at !== null)
    .sort((a, b) => b.at - a.at);
}

/**
 * Scheduled backups of the SQLite store (BACKUP_DIR, BACKUP_EVERY_HOURS, BACKUP_KEEP): when the
 * newest backup in the folder is older than the interval (or there is none, as at first start),
 * takes one (the store's online backup: the server goes on serving), then deletes the oldest
 * beyond the number kept. The folder is the schedule's memory, so a restart neither repeats nor
 * skips a backup. Checked every minute; the clock is injected.
 */
export function scheduledBackup(deps: {
  backup: (out: string) => Promise<BackupResult>;
  clock: Clock;
  dir: string;
  everyHours: number;
  keep: number;
  logger?: Logger;
  metrics?: Pick<Metrics, 'backups' | 'lastBackup'>;
}): Job {
  let failedAt: number | null = null;
  return {
    name: 'scheduled-backup',
    idleMs: 60_000,
    async runOnce() {
      const now = deps.clock.now().getTime();
      if (failedAt !== null && now - failedAt < RETRY_AFTER_FAILURE_MS) return 0;
      const newest = listBackups(deps.dir)[0];
      if (newest && now - newest.at < deps.everyHours * HOUR) return 0;
      let result: BackupResult;
      try {
        fs.mkdirSync(deps.dir, { recursive: true, mode: 0o700 });
        result = await deps.backup(path.join(deps.dir, backupName(new Date(now))));
      } catch (error) {
        failedAt = now;
        deps.metrics?.backups.inc({ outcome: 'failed' });
        deps.logger?.error({ err: error, dir: deps.dir }, 'scheduled backup failed; trying again in 15 minutes');
        return 0;
      }
      failedAt = null;
      for (const old of listBackups(deps.dir).slice(deps.keep))
        fs.rmSync(path.join(deps.dir, old.name), { force: true });
      deps.logger?.info({ file: result.file, bytes: result.bytes }, 'scheduled backup taken');
      deps.metrics?.backups.inc({ outcome: 'taken' });
      deps.metrics?.lastBackup.set(now / 1000);
      return 1;
    },
  };
}
