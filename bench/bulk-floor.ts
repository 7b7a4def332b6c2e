import { closeSync, fsyncSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { loadConfig } from '../src/config.js';
import { migrate, openStore } from '../src/db/store.js';
import { systemClock } from '../src/lib/clock.js';
import { timeOrderedToken, uuidv7 } from '../src/lib/ids.js';
import { remindersForNewDues } from '../src/reminder-schedule/schedule.js';
import { createServices } from '../src/services.js';

/**
 * The floor of a SQLite import (issue 21): how fast SQLite itself writes exactly the rows that
 * imported dues need (each due's row, its reminder rows, its transaction.created event, the
 * totals and per-day upserts, and all their index entries), with one prepared statement per
 * table reused per row, in one transaction, no HTTP, no Kysely, no checks. The rows are built
 * before the clock starts (the JS of an import is not in this figure), then written; the COMMIT
 * and the WAL's fsync are timed apart.
 *
 * `npx tsx bench/bulk-floor.ts [--rows 10000] [--runs 5] [--preload 0] [--multi-row] [--savepoint]`:
 * `--preload N` first writes N dues into another business (the bench's 1M export business makes
 * every index larger); `--multi-row` inserts as many rows per statement as 8,000 values allow (as
 * insertRows does) instead of one prepared single-row INSERT per row; `--savepoint` runs the
 * writes inside a SAVEPOINT within the BEGIN, as the app's group-commit driver does. Each run
 * alternates the per-row data-version trigger with the import's one bump per chunk.
 */
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const ROWS = arg('--rows', 10_000);
const RUNS = arg('--runs', 5);
const PRELOAD = arg('--preload', 0);
const CHUNK = 500;

const dueDate = (i: number) => new Date(Date.now() + ((i % 120) - 60) * 86_400_000).toISOString().slice(0, 10);

async function main() {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-floor-'));
  const config = loadConfig({ DATA_DIR: dataDir });
  const store = openStore(config);
  await migrate(store.db);
  const services = createServices({ store, clock: systemClock, config });
  const businesses: Awaited<ReturnType<typeof services.businesses.create>>['business'][] = [];
  for (let r = 0; r < RUNS * 2 + 1; r++) {
    const { business } = await services.businesses.create({ name: `Floor ${r}`, phone: '+91 90000 00021' });
    // 500 contacts, as the bench's rows name: made by a small import.
    await services.bulk.importDues(business, {
      rows: Array.from({ length: 500 }, (_, i) => ({
        contact_name: `Bulk Buyer ${i}`,
        amount_paise: 1000,
        due_date: dueDate(i),
      })),
    });
    businesses.push(business);
  }
  if (PRELOAD > 0) {
    const big = businesses.pop() as (typeof businesses)[number];
    for (let done = 0; done < PRELOAD; done += 10_000) {
      await services.bulk.importDues(big, {
        rows: Array.from({ length: Math.min(10_000, PRELOAD - done) }, (_, i) => ({
          contact_name: `Bulk Buyer ${i % 500}`,
          amount_paise: 1000 + i,
          due_date: dueDate(i),
        })),
      });
    }
  }
  await store.close();

  const file = path.join(dataDir, 'receivables.db');
  const db = new BetterSqlite3(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('cache_size = -65536');
  db.pragma('temp_store = memory');
  const contactIds = new Map<string, string[]>();
  for (const b of businesses) {
    contactIds.set(
      b.id,
      (db.prepare('select id from contacts where business_id = ? order by name').pluck().all(b.id) as string[]).slice(
        0,
        500,
      ),
    );
  }

  const cols = (table: string) =>
    (db.prepare(`select name from pragma_table_info(?)`).pluck().all(table) as string[]).filter(Boolean);
  const insertOf = (table: string) => {
    const c = cols(table);
    return {
      columns: c,
      stmt: db.prepare(`insert into ${table} (${c.join(',')}) values (${c.map(() => '?').join(',')})`),
    };
  };
  const tx = insertOf('transactions');
  const rem = insertOf('reminders');
  const ev = insertOf('events');
  const totals = db.prepare(
    'update business_totals set pending_count = pending_count + ?, pending_paise = pending_paise + ? where business_id = ?',
  );
  const bump = db.prepare('update business_totals set data_version = data_version + 1 where business_id = ?');
  const day = (table: string) =>
    db.prepare(
      `insert into ${table} (business_id, due_date, due_count, due_paise) values (?, ?, ?, ?)
       on conflict (business_id, due_date) do update set due_count = due_count + excluded.due_count, due_paise = due_paise + excluded.due_paise`,
    );
  const pendingDay = day('pending_by_day');
  const openDay = day('open_by_day');
  const trigger = db
    .prepare(`select sql from sqlite_master where type = 'trigger' and name = 'transactions_data_version_insert'`)
    .pluck()
    .get() as string;

  /** The rows of ROWS dues of one business, as arrays in column order, built before timing. */
  const build = (business: (typeof businesses)[number]) => {
    const now = new Date();
    const at = now.toISOString();
    const ids = contactIds.get(business.id) as string[];
    const dues = Array.from({ length: ROWS }, (_, i) => {
      const id = uuidv7(now.getTime());
      return {
        id,
        business_id: business.id,
        contact_id: ids[i % 500] as string,
        amount_paise: 1000 + (i % 9000),
        currency: business.currency,
        status: 'pending',
        open: 1,
        direction: 'receivable',
        due_date: dueDate(i),
        paid_at: null,
        utr: null,
        payment_method: null,
        invoice_number: `IMP-${i}`,
        notes: null,
        reminder_count: 0,
        claim_count: 0,
        pay_token: timeOrderedToken(now.getTime()),
        created_at: at,
        updated_at: at,
        amount_paid_paise: 0,
        deleted_at: null,
        series_id: null,
        recurrence: null,
        recurs_next: 0,
        reminders_paused: 0,
        promise_date: null,
        promise_made_at: null,
      } as Record<string, unknown>;
    });
    const reminders = remindersForNewDues(business, dues as never, now) as unknown as Record<string, unknown>[];
    const events = dues.map((d) => ({
      id: uuidv7(now.getTime()),
      business_id: business.id,
      type: 'transaction.created',
      payload: JSON.stringify({ id: d.id, contactId: d.contact_id, amountPaise: d.amount_paise, dueDate: d.due_date }),
      created_at: at,
      dispatched_at: null,
    })) as Record<string, unknown>[];
    const arrays = (rows: Record<string, unknown>[], columns: string[]) =>
      rows.map((r) => columns.map((c) => (r[c] === undefined ? null : r[c])));
    return {
      dues: arrays(dues, tx.columns),
      duesRaw: dues,
      reminders: arrays(reminders, rem.columns),
      remindersPerDue: reminders.length / ROWS,
      events: arrays(events, ev.columns),
    };
  };

  const MULTI = process.argv.includes('--multi-row');
  const SAVEPOINT = process.argv.includes('--savepoint');
  const multiOf = (table: string, columns: string[], n: number) =>
    db.prepare(
      `insert into ${table} (${columns.join(',')}) values ${Array.from({ length: n }, () => `(${columns.map(() => '?').join(',')})`).join(',')}`,
    );
  const multi = new Map<string, ReturnType<typeof db.prepare>>();
  /** Rows inserted as the app's insertRows does: as many rows per statement as 8,000 values allow. */
  const insertMulti = (table: string, columns: string[], rows: unknown[][]) => {
    const per = Math.floor(8000 / columns.length);
    for (let i = 0; i < rows.length; i += per) {
      const part = rows.slice(i, i + per);
      const key = `${table}:${part.length}`;
      let stmt = multi.get(key);
      if (!stmt) {
        stmt = multiOf(table, columns, part.length);
        multi.set(key, stmt);
      }
      stmt.run(part.flat());
    }
  };
  const run = (business: (typeof businesses)[number], perChunkBump: boolean) => {
    const rows = build(business);
    const t0 = performance.now();
    db.exec('begin immediate');
    if (SAVEPOINT) db.exec('savepoint s');
    if (perChunkBump) db.exec('drop trigger transactions_data_version_insert');
    let dueMs = 0;
    let remMs = 0;
    let evMs = 0;
    let totMs = 0;
    let r = 0;
    for (let start = 0; start < ROWS; start += CHUNK) {
      const end = Math.min(start + CHUNK, ROWS);
      let t = performance.now();
      if (MULTI) insertMulti('transactions', tx.columns, rows.dues.slice(start, end));
      else for (let i = start; i < end; i++) tx.stmt.run(rows.dues[i] as unknown[]);
      dueMs += performance.now() - t;
      t = performance.now();
      const dueIds = new Set(rows.duesRaw.slice(start, end).map((d) => d.id));
      const txCol = rem.columns.indexOf('transaction_id');
      const from = r;
      while (r < rows.reminders.length && dueIds.has((rows.reminders[r] as unknown[])[txCol])) r++;
      if (MULTI) insertMulti('reminders', rem.columns, rows.reminders.slice(from, r));
      else for (let k = from; k < r; k++) rem.stmt.run(rows.reminders[k] as unknown[]);
      remMs += performance.now() - t;
      t = performance.now();
      if (MULTI) insertMulti('events', ev.columns, rows.events.slice(start, end));
      else for (let i = start; i < end; i++) ev.stmt.run(rows.events[i] as unknown[]);
      evMs += performance.now() - t;
      t = performance.now();
      const days = new Map<string, [number, number]>();
      let paise = 0;
      for (let i = start; i < end; i++) {
        const d = rows.duesRaw[i] as { due_date: string; amount_paise: number };
        const v = days.get(d.due_date) ?? [0, 0];
        v[0]++;
        v[1] += d.amount_paise;
        paise += d.amount_paise;
        days.set(d.due_date, v);
      }
      totals.run(end - start, paise, business.id);
      for (const [date, [count, sum]] of days) {
        pendingDay.run(business.id, date, count, sum);
        openDay.run(business.id, date, count, sum);
      }
      if (perChunkBump) bump.run(business.id);
      totMs += performance.now() - t;
    }
    if (perChunkBump) db.exec(trigger);
    if (SAVEPOINT) db.exec('release s');
    const tCommit = performance.now();
    db.exec('commit');
    const commitMs = performance.now() - tCommit;
    const tSync = performance.now();
    const fd = openSync(`${file}-wal`, 'r+');
    fsyncSync(fd);
    closeSync(fd);
    const syncMs = performance.now() - tSync;
    const totalMs = performance.now() - t0;
    db.pragma('wal_checkpoint(TRUNCATE)');
    return {
      variant: `${perChunkBump ? 'bump per chunk' : 'trigger per row'}${MULTI ? ', multi-row' : ''}${SAVEPOINT ? ', savepoint' : ''}`,
      dues_per_s: Math.round(ROWS / (totalMs / 1000)),
      dues_per_s_without_fsync: Math.round(ROWS / ((totalMs - syncMs) / 1000)),
      reminders_per_due: Number(rows.remindersPerDue.toFixed(2)),
      ms: {
        dues: Math.round(dueMs),
        reminders: Math.round(remMs),
        events: Math.round(evMs),
        totals: Math.round(totMs),
        commit: Math.round(commitMs),
        fsync: Math.round(syncMs),
        total: Math.round(totalMs),
      },
    };
  };

  process.stdout.write(
    `loadavg ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}\n`,
  );
  for (let i = 0; i < RUNS; i++) {
    for (const perChunk of i % 2 === 0 ? [false, true] : [true, false]) {
      process.stdout.write(`${JSON.stringify(run(businesses[i * 2 + (perChunk ? 1 : 0)] as never, perChunk))}\n`);
    }
  }
  process.stdout.write(
    `loadavg ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}\n`,
  );
  db.close();
  rmSync(dataDir, { recursive: true, force: true });
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
