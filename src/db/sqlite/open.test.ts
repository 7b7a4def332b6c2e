import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Kysely, sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqlite } from './open.js';

describe('SQLite rows read as arrays and built per statement', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'sqlite-rows-'));
  const { dialect, raw } = openSqlite(dir);
  const db = new Kysely<never>({ dialect });
  afterAll(async () => {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('gives the same objects as better-sqlite3 itself, duplicate names and odd names included', async () => {
    await sql`create table t (id integer, "name" text, "odd ""quoted"" name" text, n real)`.execute(db);
    await sql`insert into t values (1, 'a', 'x', 1.5), (2, null, 'y', null)`.execute(db);
    const query = `select t.*, t.name as "id", 'z' as "constructor" from t order by t.rowid`;
    const { rows } = await sql.raw(query).execute(db);
    expect(rows).toEqual(raw.prepare(query).all());
    expect(rows).toEqual([
      { id: 'a', name: 'a', 'odd "quoted" name': 'x', n: 1.5, constructor: 'z' },
      { id: null, name: null, 'odd "quoted" name': 'y', n: null, constructor: 'z' },
    ]);
    expect(Object.keys(rows[0] as object)).toEqual(Object.keys(raw.prepare(query).get() as object));
  });

  it('keeps a column named __proto__ as a plain property (better-sqlite3 would set the prototype)', async () => {
    const { rows } = await sql.raw(`select 'p' as "__proto__", 1 as x`).execute(db);
    expect(Object.getPrototypeOf(rows[0])).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(rows[0], '__proto__')?.value).toBe('p');
  });

  it('still runs writes and returns their rows', async () => {
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
