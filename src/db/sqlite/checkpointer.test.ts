import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { BACKSTOP_PAGES } from './checkpointer.js';
import { openSqlite } from './open.js';

describe('background WAL checkpoints', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  async function until(check: () => boolean, ms = 5000) {
    const deadline = Date.now() + ms;
    while (!check()) {
      if (Date.now() > deadline) throw new Error('timed out');
      await new Promise((r) => setTimeout(r, 20));
    }
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
      await until(() => {
        const last = checkpointer?.stats.last;
        return last !== null && last !== undefined && last.log > 0 && last.checkpointed === last.log;
      });
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
    await until(() => (checkpointer?.stats.runs ?? 0) > 0);
    await checkpointer?.stop();
    // stopping twice is harmless
    await checkpointer?.stop();
    raw.close();
  });
});
