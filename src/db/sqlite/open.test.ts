import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CompiledQuery, Kysely, sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqlite } from './open.js';

describe('the SQLite dialect with its statement cache', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'sqlite-rows-'));
  const { dialect, raw } = openSqlite(dir);
  const db = new Kysely<never>({ dialect });
  afterAll(async () => {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('gives the rows better-sqlite3 itself gives, the same statement run again with new values', async () => {
    await sql`create table t (id integer, "name" text, n real)`.execute(db);
    await sql`insert into t values (1, 'a', 1.5), (2, null, null)`.execute(db);
    const query = 'select t.*, t.name as "id" from t where id >= ? order by t.rowid';
    expect((await db.executeQuery(CompiledQuery.raw(query, [1]))).rows).toEqual(raw.prepare(query).all(1));
    expect((await db.executeQuery(CompiledQuery.raw(query, [2]))).rows).toEqual([{ id: null, name: null, n: null }]);
  });

  it('runs writes and returns their rows', async () => {
    const { rows } = await sql`insert into t (id, name) values (3, 'c') returning id, name`.execute(db);
    expect(rows).toEqual([{ id: 3, name: 'c' }]);
    const result = await sql`update t set n = 2 where id = 3`.execute(db);
    expect(result.numAffectedRows).toBe(1n);
  });
});

describe('openSqlite', () => {
  it("opens the store in WAL mode with SQLite's commit sync left to the driver, temporary files in memory", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'sqlite-open-'));
    const { raw } = openSqlite(dir);
    try {
      expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
      // 1 = NORMAL: the driver syncs the WAL itself after each COMMIT (db/sqlite/durability.ts)
      expect(raw.pragma('synchronous', { simple: true })).toBe(1);
      expect(raw.pragma('foreign_keys', { simple: true })).toBe(1);
      // 2 = MEMORY: savepoints' statement journals stay off the disk
      expect(raw.pragma('temp_store', { simple: true })).toBe(2);
    } finally {
      raw.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
