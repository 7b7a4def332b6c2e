import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReadPool } from './read-pool.js';

/**
 * A read thread sends rows as arrays (JSON when JSON holds every value exactly); the pool hands
 * back the objects the main connection's better-sqlite3 would have built for the same statement.
 */
describe('ReadPool rows', () => {
  let dir: string;
  let main: Database.Database;
  let pool: ReadPool;

  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'read-pool-'));
    const file = path.join(dir, 'db.sqlite');
    main = new Database(file);
    main.pragma('journal_mode = WAL');
    main.exec(`create table t (id integer primary key, name text, amount integer, ratio real, note text, data blob)`);
    const insert = main.prepare('insert into t (id, name, amount, ratio, note, data) values (?, ?, ?, ?, ?, ?)');
    insert.run(1, 'Asha "quoted" \\ \u0000 नमस्ते', 2 ** 53 - 1, 0.1, null, null);
    insert.run(2, '', -42, -0.0, 'x', null);
    insert.run(3, 'blob row', 0, 1e300, null, Buffer.from([0, 1, 255]));
    pool = new ReadPool(file, 1);
  });
  afterAll(async () => {
    await pool.close();
    main.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const same = async (sql: string, parameters: unknown[] = []) =>
    expect(await pool.run(sql, parameters)).toEqual(main.prepare(sql).all(...parameters));

  it('gives text, integers, reals and nulls as the main connection does (the JSON path: 8+ columns)', async () => {
    await same('select id, name, amount, ratio, note, id as i2, name as n2, amount as a2 from t where id = ?', [1]);
    await same('select id, name, amount, ratio, note, id as i2, name as n2, amount as a2 from t order by id desc', []);
  });

  it('gives narrow rows the same way (the structured-clone path: fewer than 8 columns)', async () => {
    await same('select id, name, amount, ratio, note from t where id = ?', [1]);
    expect(await pool.run('select name from t where id = 1', [])).toEqual([{ name: 'Asha "quoted" \\ \u0000 नमस्ते' }]);
  });

  it('keeps -0 and blobs, which JSON would not carry (the structured-clone path)', async () => {
    const [row] = (await pool.run('select -0.0 as z, id from t where id = 2', [])) as { z: number }[];
    expect(Object.is(row?.z, -0)).toBe(Object.is((main.prepare('select -0.0 as z').get() as { z: number }).z, -0));
    const [blob] = (await pool.run('select data from t where id = 3', [])) as { data: Uint8Array }[];
    expect([...(blob?.data ?? [])]).toEqual([0, 1, 255]);
    await same('select id, ratio from t order by id');
  });

  it('names each column as better-sqlite3 does, a later one of the same name winning', async () => {
    await same('select id, name as v, amount as v from t order by id');
    await same('select * from t where id = ?', [99]);
    await same('select id as "a""b", name as "c\\d" from t order by id');
    // A column named __proto__ is a key of the row's own (the prototype stays Object's).
    const [odd] = (await pool.run('select 7 as "__proto__"', [])) as Record<string, unknown>[];
    expect(Object.getPrototypeOf(odd)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(odd, '__proto__')?.value).toBe(7);
  });

  it('refuses a statement that returns no rows', async () => {
    await expect(pool.run('delete from t', [])).rejects.toThrow(/only statements that return rows/);
  });
});
