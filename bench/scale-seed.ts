import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { type Insertable, sql } from 'kysely';
import { loadConfig } from '../src/config.js';
import { nameTerms } from '../src/contacts/fuzzy.js';
import { isPostgres } from '../src/db/dialect.js';
import { insertRows } from '../src/db/insert-rows.js';
import { rebuildScoreSums } from '../src/db/migrations/2026-11-25T02-00_contact-scores.js';
import type { Db, PaymentTable, ReceiptTable, TransactionTable } from '../src/db/schema.js';
import { migrate, openStore } from '../src/db/store.js';
import { systemClock } from '../src/lib/clock.js';
import { localDate, localMonth } from '../src/lib/dates.js';
import { uuidv7 } from '../src/lib/ids.js';
import { createServices } from '../src/services.js';
import { BENCH_DIR } from './seed.js';

/**
 * The `scale` group's data (issue 18): a big business with `dues` dues over `dues / 10` contacts
 * and a small one with 1,000, written in bulk (multi-row INSERTs of thousands of rows, many per
 * database transaction) rather than through the services one due at a time, so that a million
 * dues take a few minutes on either store. The rows are those the services would write
 * (past-due dues already swept to stored overdue, a tenth paid, each paid one by a receipt of one
 * allocation) and the running totals, per-day aggregates, money received per month, payment
 * scores and fuzzy-search terms are written to match them; what triggers keep (the contacts'
 * balances and oldest open due, the count of contacts owing, the data versions) the triggers
 * write, as for any insert. `npm run -s cli -- verify` agrees with every figure. One buyer of
 * each business (the last contact) holds about 1% of its dues: the biggest buyer. Reused while
 * the size matches (on PostgreSQL too, while the database still holds the business).
 */

export interface ScaleData {
  dues: number;
  apiKey: string;
  smallApiKey: string;
  /** a sample of the big business's due ids, for GET one due */
  dueIds: string[];
  /** a sample of the small business's due ids (the noisy neighbour's victim) */
  smallDueIds: string[];
  contactIds: string[];
  /** the business ids (verify --business) */
  businessId: string;
  smallBusinessId: string;
  /** the buyer holding about 1% of the big business's dues, and of the small one's */
  bigBuyerId: string;
  smallBigBuyerId: string;
  /** a few ordinary buyers (about 10 dues each) of the small business */
  smallContactIds: string[];
}

const ROWS_PER_TRANSACTION = 20_000;
/**
 * PostgreSQL keeps a business's running totals in up to 16 rows that readers sum (migration
 * 2026-11-25T01-00): the seed adds its counts to one of them, the one every business starts with.
 * Added to all, a business read twice its dues (seen: offset N-1000 then no longer counted as past
 * the middle of the list, and walked a million entries).
 */
const TOTALS_SHARD = 0;

function dayOffset(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
}

export async function seedScale(opts: { dues: number; databaseUrl?: string | undefined; fresh?: boolean }) {
  const store = opts.databaseUrl ? 'postgres' : 'sqlite';
  const dataDir = path.join(BENCH_DIR, `scale-${store}-${opts.dues}`);
  const meta = path.join(dataDir, 'scale.json');
  if (!opts.fresh && existsSync(meta)) {
    const data = JSON.parse(readFileSync(meta, 'utf8')) as ScaleData;
    if (
      data.dues === opts.dues &&
      data.bigBuyerId &&
      (!opts.databaseUrl || (await stillThere(opts.databaseUrl, data)))
    ) {
      return { dataDir, data };
    }
  }
  rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(dataDir, { recursive: true });
  // The same throw-away key as the server the bench starts (bench/scale.ts): PostgreSQL requires one.
  const config = loadConfig({
    DATA_DIR: dataDir,
    ...(opts.databaseUrl && { DATABASE_URL: opts.databaseUrl, ENCRYPTION_KEY: '0'.repeat(64) }),
  });
  const opened = openStore(config);
  const db = opened.db;
  if (opts.databaseUrl) await resetPostgres(db);
  await migrate(db);
  const services = createServices({ store: opened, clock: systemClock, config });
  const started = Date.now();
  try {
    const big = await services.businesses.create({ name: 'Scale Traders', phone: '+91 90000 00011' });
    const small = await services.businesses.create({ name: 'Small Scale Traders', phone: '+91 90000 00012' });
    const bigContacts = await bulkContacts(db, big.business.id, Math.max(10, Math.floor(opts.dues / 10)));
    const smallContacts = await bulkContacts(db, small.business.id, 50);
    const dueIds = await bulkDues(db, big.business, opts.dues, bigContacts, started);
    const smallDueIds = await bulkDues(db, small.business, 1000, smallContacts, started);
    // The paid rows were written directly: their contacts' payment score sums from them (issue 18).
    await rebuildScoreSums(db, big.business.id);
    await rebuildScoreSums(db, small.business.id);
    // What autovacuum does after a bulk load (PostgreSQL 13+ vacuums after inserts too): the
    // visibility map set, so an index-only scan (a deep offset, a count) skips the heap; without
    // it, offset 0.8N read the heap for each of 200,000 index entries (1.4 s at 1M dues).
    if (opts.databaseUrl) {
      await db.connection().execute(async (conn) => {
        await sql`set statement_timeout = 0`.execute(conn);
        await sql`vacuum analyze`.execute(conn);
      });
    }
    const data: ScaleData = {
      dues: opts.dues,
      apiKey: big.apiKey,
      smallApiKey: small.apiKey,
      dueIds,
      smallDueIds,
      contactIds: bigContacts.slice(0, 1000),
      businessId: big.business.id,
      smallBusinessId: small.business.id,
      bigBuyerId: bigContacts.at(-1) as string,
      smallBigBuyerId: smallContacts.at(-1) as string,
      smallContactIds: smallContacts.slice(0, 10),
    };
    writeFileSync(meta, JSON.stringify(data));
    process.stderr.write(`scale data seeded in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
    return { dataDir, data };
  } finally {
    await services.webhookSender.close();
    await opened.close();
  }
}

/** Whether a PostgreSQL database seeded before still holds the business (another run may have reset it). */
async function stillThere(databaseUrl: string, data: ScaleData): Promise<boolean> {
  const config = loadConfig({ DATA_DIR: BENCH_DIR, DATABASE_URL: databaseUrl, ENCRYPTION_KEY: '0'.repeat(64) });
  const opened = openStore(config);
  try {
    const found = await opened.db
      .selectFrom('transactions')
      .select('id')
      .where('business_id', '=', data.businessId)
      .where('id', '=', data.dueIds[0] ?? '')
      .executeTakeFirst();
    return found !== undefined;
  } catch {
    return false;
  } finally {
    await opened.close();
  }
}

/** A bench database on PostgreSQL starts empty when seeded. */
async function resetPostgres(db: Db) {
  await sql`drop schema public cascade`.execute(db);
  await sql`create schema public`.execute(db);
}

async function bulkContacts(db: Db, businessId: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  const base = Date.now() - 400 * 86_400_000;
  for (let from = 0; from < count; from += ROWS_PER_TRANSACTION) {
    await db.transaction().execute(async (trx) => {
      const rows = [];
      const terms = [];
      for (let i = from; i < Math.min(from + ROWS_PER_TRANSACTION, count); i++) {
        const at = new Date(base + i * 1000);
        const id = uuidv7(at.getTime());
        const name = `Buyer ${i} ${['Stores', 'Traders', 'Textiles', 'Mills'][i % 4]}`;
        const phone = `919${String(100_000_000 + i).slice(1)}${i % 10}`;
        rows.push({
          id,
          business_id: businessId,
          name,
          name_key: name.toLowerCase(),
          phone,
          phone_rev: phone.split('').reverse().join(''),
          created_at: at.toISOString(),
          updated_at: at.toISOString(),
        });
        for (const t of nameTerms(name)) terms.push({ business_id: businessId, contact_id: id, ...t });
        ids.push(id);
      }
      await insertRows(trx, 'contacts', rows);
      await insertRows(trx, 'contact_name_terms', terms);
      await trx
        .updateTable('business_totals')
        .set((eb) => ({ contact_count: eb('contact_count', '+', rows.length) }))
        .where('business_id', '=', businessId)
        .$if(isPostgres(trx), (q) => q.where('shard', '=', TOTALS_SHARD))
        .execute();
    });
  }
  return ids;
}

/** About 1% of a business's dues (i % 97 === 5, a tenth of them paid) go to its last contact: the biggest buyer. */
const toBiggestBuyer = (i: number) => i % 97 === 5;

async function bulkDues(
  db: Db,
  business: { id: string; timezone: string; currency: string },
  count: number,
  contacts: string[],
  started: number,
): Promise<string[]> {
  const today = localDate(business.timezone, new Date());
  const sample: string[] = [];
  const totals = {
    pending_count: 0,
    pending_paise: 0,
    overdue_count: 0,
    overdue_paise: 0,
    paid_count: 0,
    paid_paise: 0,
  };
  const add = (days: Map<string, { count: number; paise: number }>, key: string, paise: number) => {
    const day = days.get(key) ?? { count: 0, paise: 0 };
    day.count++;
    day.paise += paise;
    days.set(key, day);
  };
  const pendingByDay = new Map<string, { count: number; paise: number }>();
  const openByDay = new Map<string, { count: number; paise: number }>();
  const paidByMonth = new Map<string, { count: number; paise: number }>();
  const base = Date.now() - 400 * 86_400_000;
  const biggest = contacts.length - 1;
  for (let from = 0; from < count; from += ROWS_PER_TRANSACTION) {
    const rows: Insertable<TransactionTable>[] = [];
    const receipts: Insertable<ReceiptTable>[] = [];
    const payments: Insertable<PaymentTable>[] = [];
    for (let i = from; i < Math.min(from + ROWS_PER_TRANSACTION, count); i++) {
      const at = new Date(base + Math.floor((i * 400 * 86_400_000) / count)).toISOString();
      const amount = 10_000 + ((i * 7919) % 5_000_000);
      const dueDate = dayOffset(-365 + ((i * 31) % 425));
      const paid = i % 10 === 3;
      const status = paid ? 'paid' : dueDate < today ? 'overdue' : 'pending';
      const id = uuidv7(Date.parse(at));
      const contactId = contacts[toBiggestBuyer(i) ? biggest : (i * 104_729) % biggest] as string;
      if (status === 'paid') {
        totals.paid_count++;
        totals.paid_paise += amount;
        // Paid by one receipt of one allocation, recorded when the due was written.
        const receiptId = uuidv7(Date.parse(at));
        receipts.push({
          id: receiptId,
          business_id: business.id,
          contact_id: contactId,
          amount_paise: amount,
          applied_paise: amount,
          credit_paise: 0,
          utr: `UTR${i}`,
          payment_method: 'upi',
          source: 'api',
          received_on: localDate(business.timezone, new Date(at)),
          created_at: at,
          reversed_at: null,
          reversal_reason: null,
        });
        payments.push({
          id: receiptId,
          business_id: business.id,
          transaction_id: id,
          amount_paise: amount,
          utr: `UTR${i}`,
          payment_method: 'upi',
          source: 'api',
          created_at: at,
          receipt_id: receiptId,
          reversed_at: null,
        });
        add(paidByMonth, localMonth(business.timezone, new Date(at)), amount);
      } else {
        if (status === 'overdue') {
          totals.overdue_count++;
          totals.overdue_paise += amount;
        } else {
          totals.pending_count++;
          totals.pending_paise += amount;
          add(pendingByDay, dueDate, amount);
        }
        add(openByDay, dueDate, amount);
      }
      if (!paid && i % 97 === 0 && sample.length < 1000) sample.push(id);
      rows.push({
        id,
        business_id: business.id,
        contact_id: contactId,
        amount_paise: amount,
        amount_paid_paise: paid ? amount : 0,
        currency: business.currency,
        status,
        open: paid ? 0 : 1,
        direction: 'receivable',
        due_date: dueDate,
        paid_at: paid ? at : null,
        utr: paid ? `UTR${i}` : null,
        payment_method: paid ? 'upi' : null,
        invoice_number: `INV-${i}`,
        notes: null,
        reminder_count: 0,
        claim_count: 0,
        pay_token: randomBytes(18).toString('base64url'),
        created_at: at,
        updated_at: at,
      });
    }
    // One transaction a chunk: the dues (their triggers move the contacts' kept figures), then
    // the receipts and their allocations.
    await db.transaction().execute(async (trx) => {
      await insertRows(trx, 'transactions', rows);
      await insertRows(trx, 'receipts', receipts);
      await insertRows(trx, 'payments', payments);
    });
    const done = Math.min(from + ROWS_PER_TRANSACTION, count);
    const rate = done / ((Date.now() - started) / 1000);
    if (count >= 100_000) process.stderr.write(`\r  dues: ${done}/${count} (${rate.toFixed(0)}/s)   `);
  }
  if (count >= 100_000) process.stderr.write('\n');
  const byKey = (days: Map<string, { count: number; paise: number }>, key: 'due_date' | 'month') =>
    [...days].map(([k, d]) => ({ business_id: business.id, [key]: k, due_count: d.count, due_paise: d.paise }));
  await db.transaction().execute(async (trx) => {
    await trx
      .updateTable('business_totals')
      .set((eb) => ({
        pending_count: eb('pending_count', '+', totals.pending_count),
        pending_paise: eb('pending_paise', '+', totals.pending_paise),
        overdue_count: eb('overdue_count', '+', totals.overdue_count),
        overdue_paise: eb('overdue_paise', '+', totals.overdue_paise),
        paid_count: eb('paid_count', '+', totals.paid_count),
        paid_paise: eb('paid_paise', '+', totals.paid_paise),
      }))
      .where('business_id', '=', business.id)
      .$if(isPostgres(trx), (q) => q.where('shard', '=', TOTALS_SHARD))
      .execute();
    await insertRows(
      trx,
      'pending_by_day',
      byKey(pendingByDay, 'due_date') as {
        business_id: string;
        due_date: string;
        due_count: number;
        due_paise: number;
      }[],
    );
    await insertRows(
      trx,
      'open_by_day',
      byKey(openByDay, 'due_date') as { business_id: string; due_date: string; due_count: number; due_paise: number }[],
    );
    await insertRows(
      trx,
      'paid_by_month',
      byKey(paidByMonth, 'month') as { business_id: string; month: string; due_count: number; due_paise: number }[],
    );
  });
  return sample;
}
