import fs from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../config.js';
import { ManualClock } from '../lib/clock.js';
import { backupName, listBackups, scheduledBackup } from './scheduled-backup.js';

const HOUR = 3_600_000;
const signal = new AbortController().signal;
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** A job over a fake backup that writes a small file (the real one is tested with the store). */
function job(opts: { everyHours?: number; keep?: number; fail?: () => boolean } = {}) {
  const root = fs.mkdtempSync(path.join(tmpdir(), 'scheduled-backup-'));
  dirs.push(root);
  const dir = path.join(root, 'backups');
  const clock = new ManualClock('2026-11-21T06:30:00.000Z');
  const taken: string[] = [];
  const backup = async (out: string) => {
    if (opts.fail?.()) throw new Error('ENOSPC: no space left on device');
    fs.writeFileSync(out, 'copy');
    taken.push(path.basename(out));
    return { file: out, bytes: 4 };
  };
  const j = scheduledBackup({ backup, clock, dir, everyHours: opts.everyHours ?? 6, keep: opts.keep ?? 3 });
  return { j, clock, dir, taken, names: () => listBackups(dir).map((b) => b.name) };
}

describe('scheduled backups', () => {
  it('takes one at once when the folder has none, then one per interval', async () => {
    const { j, clock, taken } = job({ everyHours: 6 });
    expect(await j.runOnce(signal)).toBe(1);
    expect(taken).toEqual(['receivables-20261121T063000Z.db']);
    clock.advance(6 * HOUR - 1);
    expect(await j.runOnce(signal)).toBe(0);
    clock.advance(1);
    expect(await j.runOnce(signal)).toBe(1);
    expect(taken).toEqual(['receivables-20261121T063000Z.db', 'receivables-20261121T123000Z.db']);
  });

  it('keeps the last BACKUP_KEEP, newest first, and leaves other files alone', async () => {
    const { j, clock, dir, names } = job({ everyHours: 1, keep: 2 });
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'notes.txt'), 'mine');
    for (let i = 0; i < 4; i++) {
      expect(await j.runOnce(signal)).toBe(1);
      clock.advance(HOUR);
    }
    expect(names()).toEqual(['receivables-20261121T093000Z.db', 'receivables-20261121T083000Z.db']);
    expect(fs.existsSync(path.join(dir, 'notes.txt'))).toBe(true);
  });

  it('remembers the schedule through the folder: a restart neither repeats nor skips one', async () => {
    const first = job({ everyHours: 24 });
    expect(await first.j.runOnce(signal)).toBe(1);
    const again = scheduledBackup({
      backup: async () => {
        throw new Error('must not run');
      },
      clock: first.clock,
      dir: first.dir,
      everyHours: 24,
      keep: 3,
    });
    first.clock.advance(HOUR);
    expect(await again.runOnce(signal)).toBe(0);
  });

  it('after a failure (a full disk) tries again 15 minutes later, not at every run', async () => {
    let failing = true;
    const { j, clock, taken } = job({ fail: () => failing });
    expect(await j.runOnce(signal)).toBe(0);
    clock.advance(14 * 60_000);
    failing = false;
    expect(await j.runOnce(signal)).toBe(0);
    clock.advance(60_000);
    expect(await j.runOnce(signal)).toBe(1);
    expect(taken).toHaveLength(1);
  });

  it('names backups by the time they were taken', () => {
    expect(backupName(new Date('2026-01-02T03:04:05.678Z'))).toBe('receivables-20260102T030405Z.db');
  });
});

describe('BACKUP_DIR, BACKUP_EVERY_HOURS, BACKUP_KEEP', () => {
  it('are off unless BACKUP_DIR is set, with a day and 7 kept by default', () => {
    expect(loadConfig({}).backups).toBeUndefined();
    expect(loadConfig({ BACKUP_DIR: '/var/backups/receivables' }).backups).toEqual({
      dir: '/var/backups/receivables',
      everyHours: 24,
      keep: 7,
    });
    expect(loadConfig({ BACKUP_DIR: '/b', BACKUP_EVERY_HOURS: '6', BACKUP_KEEP: '28' }).backups).toEqual({
      dir: '/b',
      everyHours: 6,
      keep: 28,
    });
  });

  it('refuse bad values, a schedule without a folder, the data folder itself and PostgreSQL', () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ BACKUP_DIR: '/b', BACKUP_EVERY_HOURS: '0' }, /BACKUP_EVERY_HOURS must be between 1 and 8760/],
      [{ BACKUP_DIR: '/b', BACKUP_EVERY_HOURS: 'daily' }, /BACKUP_EVERY_HOURS must be a whole number/],
      [{ BACKUP_DIR: '/b', BACKUP_KEEP: '0' }, /BACKUP_KEEP must be between 1 and 1000/],
      [{ BACKUP_KEEP: '3' }, /BACKUP_KEEP needs BACKUP_DIR/],
      [{ BACKUP_EVERY_HOURS: '3' }, /BACKUP_EVERY_HOURS needs BACKUP_DIR/],
      [{ BACKUP_DIR: '/srv/data', DATA_DIR: '/srv/data' }, /BACKUP_DIR must not be DATA_DIR/],
      [
        { BACKUP_DIR: '/b', DATABASE_URL: 'postgres://localhost/x', ENCRYPTION_KEY: 'a1'.repeat(32) },
        /with DATABASE_URL, back up PostgreSQL with pg_dump/,
      ],
    ];
    for (const [env, message] of cases) {
      expect(() => loadConfig(env), JSON.stringify(env)).toThrow(ConfigError);
      expect(() => loadConfig(env), JSON.stringify(env)).toThrow(message);
    }
  });
});
