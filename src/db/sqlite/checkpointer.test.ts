import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { BACKSTOP_PAGES, type Checkpointer, type CheckpointResult } from './checkpointer.js';
import { openSqlite } from './open.js';

describe('background WAL checkpoints', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  /**
   * Waits for the first checkpoint that starts after this call and finds the WAL fully copied
   * (a result already on its way may predate the last commit), within `runs` checkpoints.
   */
  async function fullCheckpoint(checkpointer: Checkpointer, runs = 200): Promise<CheckpointResult> {
    await checkpointer.nextRun();
    for (let i = 0; i < runs; i++) {
      const result = await checkpointer.nextRun();
      if (!('error' in result) && result.log > 0 && result.checkpointed === result.log) return result;
    }
    throw new Error(`no complete checkpoint in ${runs} runs (last: ${JSON.stringify(checkpointer.stats.last)})`);
  }

  it('copies committed pages into the database file from another thread, the main connection only as a backstop', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'checkpointer-'));
    dirs.push(dir);
    const { dialect, raw, checkpointer } = openSqlite(dir, { backgroundCheckpoints: true });
    const db = new Kysely<any>({ dialect });
    try {
      expect(checkpointer).toBeDefined();
      expect(raw.pragma('wal_autocheckpoint', { simple: true })).toBe(BACKSTOP_PAGES);
      await sql`create table t (id integer primary key, body text)`.execute(db);
      for (let i = 0; i < 20; i++) {
        await db.transaction().execute((trx) =>
          trx
            .insertInto('t')
            .values(Array.from({ length: 50 }, (_, j) => ({ id: i * 50 + j, body: 'x'.repeat(500) })))
            .execute(),
        );
      }
      // Everything in the WAL ends up in the database file without the main connection's help.
      if (!checkpointer) throw new Error('no checkpointer');
      await fullCheckpoint(checkpointer);
      expect(checkpointer?.stats.errors).toBe(0);
      // The database file alone, without its WAL, holds every row.
      const copy = path.join(dir, 'copy.db');
      copyFileSync(path.join(dir, 'receivables.db'), copy);
      const reader = new BetterSqlite3(copy, { readonly: true });
      expect(reader.prepare('select count(*) from t').pluck().get()).toBe(1000);
      reader.close();
    } finally {
      await db.destroy();
      await checkpointer?.stop();
    }
  });

  it('is not started unless asked for, and stops with its store', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'checkpointer-'));
    dirs.push(dir);
    const plain = openSqlite(dir);
    expect(plain.checkpointer).toBeUndefined();
    expect(plain.raw.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
    plain.raw.close();

    const { raw, checkpointer } = openSqlite(dir, { backgroundCheckpoints: true });
    await checkpointer?.nextRun();
    expect(checkpointer?.stats.runs).toBeGreaterThan(0);
    await checkpointer?.stop();
    // stopping twice is harmless
    await checkpointer?.stop();
    raw.close();
  });
});
