import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { migrate, openStore } from '../src/db/store.js';
import { systemClock } from '../src/lib/clock.js';
import { localDate } from '../src/lib/dates.js';
import { createServices } from '../src/services.js';
import type { BenchData } from './seed.js';

/**
 * Bench data on PostgreSQL (`npm run bench -- --store postgres`), in a fresh database made for the
 * run (dropped when it ends). The businesses, their keys and the contacts go through the service's
 * own code; the dues, the bulk of the data, are written by one INSERT ... SELECT over
 * generate_series per business (a million rows in well under a minute instead of the service's
 * five statements a due), with the running totals and the per-day pending counts then computed
 * from those rows by two statements, so the summary is exactly what the service would have kept.
 * Past-due dues are stored overdue, as the sweeper leaves them. Not written for seeded dues: their
 * automatic reminders and transaction.created events (the bench runs with the workers off and no
 * read touches them). A share of the dues is then paid through mark-paid itself.
 */

export interface PgBenchData extends BenchData {
  url: string;
  /** the business with the many dues */
  businessId: string;
  /** ten more businesses with one contact each: the create scenario across businesses */
  spread: { apiKey: string; contactId: string }[];
}

const CONTACT_BATCH = 500;

export async function seedPostgres(opts: {
  baseUrl: string;
  dues: number;
  contacts: number;
  smallDues: number;
  /** the run's ENCRYPTION_KEY (required with DATABASE_URL): the same for the seed and the servers */
  encryptionKey: string;
}): Promise<{ data: PgBenchData; drop: () => Promise<void> }> {
  const name = `bench_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: opts.baseUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(opts.baseUrl);
  url.pathname = `/${name}`;
  const drop = async () => {
    const c = new pg.Client({ connectionString: opts.baseUrl });
    await c.connect();
    try {
      await c.query(`drop database if exists ${name} with (force)`);
    } finally {
      await c.end();
    }
  };

  // No statement timeout for the seed: its INSERT ... SELECT of a million dues outlasts the API's 30 s.
  const config = loadConfig({
    DATABASE_URL: url.toString(),
    ENCRYPTION_KEY: opts.encryptionKey,
    PG_STATEMENT_TIMEOUT_MS: '0',
  });
  const store = openStore(config);
  const started = Date.now();
  let closed = false;
  try {
    await migrate(store.db);
    const services = createServices({ store, clock: systemClock, config });
    const big = await services.businesses.create({ name: 'Bench Traders', phone: '+91 90000 00001' });
    const small = await services.businesses.create({ name: 'Small Bench Traders', phone: '+91 90000 00002' });
    const spread: PgBenchData['spread'] = [];
    for (let i = 0; i < 10; i++) {
      const b = await services.businesses.create({ name: `Spread Traders ${i}`, phone: `+91 90000 1000${i}` });
      const { contact } = await services.contacts.create(b.business, { name: 'Spread Buyer' });
      spread.push({ apiKey: b.apiKey, contactId: contact.id });
    }

    const contactIds: string[] = [];
    for (let from = 0; from < opts.contacts; from += CONTACT_BATCH) {
      await store.db.transaction().execute(async (trx) => {
        for (let i = from; i < Math.min(from + CONTACT_BATCH, opts.contacts); i++) {
          const phone = `+91 9${String(100_000_000 + i).slice(1)}1`;
          const { contact } = await services.contacts.createIn(trx, big.business, { name: `Buyer ${i} Stores`, phone });
          contactIds.push(contact.id);
        }
      });
      process.stderr.write(`\r  contacts: ${contactIds.length}/${opts.contacts}   `);
    }
    const { contact: smallBuyer } = await services.contacts.create(small.business, { name: 'Small Buyer' });
    process.stderr.write('\n');

    const pool = store.pgPool as pg.Pool;
    const today = localDate(big.business.timezone, new Date());
    // The same amounts, dates and contacts as bench/seed.ts gives the SQLite store.
    const insertDues = async (businessId: string, count: number, contacts: string[]) => {
      await pool.query(
        `insert into transactions (id, business_id, contact_id, amount_paise, currency, status, open, direction,
           due_date, invoice_number, reminder_count, claim_count, pay_token, created_at, updated_at)
         select gen_random_uuid(), $1::uuid, ($2::uuid[])[1 + (i::bigint * 104729) % $3], 10000 + (i::bigint * 7919) % 5000000,
           'INR', case when d < $4::date then 'overdue' else 'pending' end, 1, 'receivable',
           d, 'INV-' || i, 0, 0, md5(i::text || $1::uuid::text), now(), now()
         from generate_series(0, $5::int - 1) as i,
           lateral (select (current_date - 365 + (i * 31) % 425) as d) as day`,
        [businessId, contacts, contacts.length, today, count],
      );
    };
    await insertDues(big.business.id, opts.dues, contactIds);
    await insertDues(small.business.id, opts.smallDues, [smallBuyer.id]);
    // The running totals and the per-day pending counts, from the rows.
    await pool.query(
      `update business_totals t set
         pending_count = a.pending_count, pending_paise = a.pending_paise,
         overdue_count = a.overdue_count, overdue_paise = a.overdue_paise
       from (select business_id,
               count(*) filter (where status = 'pending') as pending_count,
               coalesce(sum(amount_paise) filter (where status = 'pending'), 0) as pending_paise,
               count(*) filter (where status = 'overdue') as overdue_count,
               coalesce(sum(amount_paise) filter (where status = 'overdue'), 0) as overdue_paise
             from transactions group by business_id) a
       where a.business_id = t.business_id and t.shard = 0`,
    );
    await pool.query(
      `insert into pending_by_day (business_id, due_date, due_count, due_paise)
       select business_id, due_date, count(*), sum(amount_paise) from transactions where status = 'pending'
       group by business_id, due_date`,
    );
    await pool.query('analyze');
    process.stderr.write(`  dues: ${opts.dues + opts.smallDues} in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);

    const { rows } = await pool.query<{ id: string }>(
      `select id from transactions where business_id = $1 order by invoice_number limit 12000`,
      [big.business.id],
    );
    const picked = rows.map((r) => r.id);
    const paid = Math.min(200, Math.floor(picked.length / 5));
    for (const id of picked.slice(0, paid)) {
      await services.transactions.markPaid(big.business, id, { utr: `UTR${id.slice(-8)}`, payment_method: 'upi' });
    }
    await services.webhookSender.close();
    await store.close();
    closed = true;
    process.stderr.write(`seeded in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
    return {
      data: {
        url: url.toString(),
        businessId: big.business.id,
        dues: opts.dues,
        contacts: opts.contacts,
        apiKey: big.apiKey,
        smallApiKey: small.apiKey,
        smallDues: opts.smallDues,
        dueIds: picked.slice(paid, paid + 1000),
        contactIds: contactIds.slice(0, 1000),
        spread,
      },
      drop,
    };
  } catch (error) {
    if (!closed) await store.close().catch(() => {});
    closed = true;
    await drop();
    throw error;
  } finally {
    if (!closed) await store.close();
  }
}
