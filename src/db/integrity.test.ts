import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { checkIntegrity } from './integrity.js';
import type { Database } from './schema.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A small SQLite file: a parent table, a child table with an index; `damage` runs on it before it is reopened. */
function sqliteFile(damage: (raw: BetterSqlite3.Database) => void = () => {}) {
  const dir = mkdtempSync(path.join(tmpdir(), 'integrity-'));
  dirs.push(dir);
  const file = path.join(dir, 'store.db');
  const raw = new BetterSqlite3(file);
  raw.exec(`create table parent (id integer primary key);
    create table child (id integer primary key, parent_id integer references parent(id), a int, b int);
    create index child_a on child(a);`);
  raw.prepare('insert into parent values (1)').run();
  const insert = raw.prepare('insert into child (parent_id, a, b) values (1, ?, ?)');
  for (let i = 0; i < 50; i++) insert.run(i, i + 1000);
  damage(raw);
  raw.close();
  return new Kysely<Database>({ dialect: new SqliteDialect({ database: new BetterSqlite3(file) }) });
}

describe('checkIntegrity on SQLite', () => {
  it('answers ok for a sound file', async () => {
    const db = sqliteFile();
    expect(await checkIntegrity(db)).toEqual({ status: 'ok', note: expect.any(String), problems: [] });
    await db.destroy();
  });

  it('names the rows an index has lost', async () => {
    // The index's definition changed under it: its entries no longer match the rows.
    const db = sqliteFile((raw) => {
      raw.unsafeMode(true);
      raw.pragma('writable_schema = ON');
      raw.prepare("update sqlite_master set sql = 'CREATE INDEX child_a ON child(b)' where name = 'child_a'").run();
    });
    const report = await checkIntegrity(db);
    expect(report.status).toBe('failed');
    expect(report.problems[0]).toMatch(/missing from index child_a/);
    await db.destroy();
  });

  it('names a row whose parent is missing', async () => {
    const db = sqliteFile((raw) => {
      raw.pragma('foreign_keys = OFF');
      raw.prepare('insert into child (parent_id, a, b) values (99, 1, 1)').run();
    });
    const report = await checkIntegrity(db);
    expect(report).toMatchObject({ status: 'failed', problems: ['child row 51 refers to a missing parent row'] });
    await db.destroy();
  });
});
