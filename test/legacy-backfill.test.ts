import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Migrator } from 'kysely';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { migrations } from '../src/db/migrations/index.js';
import { migrate, openStore, type Store } from '../src/db/store.js';
import { ManualClock } from '../src/lib/clock.js';
import { localDate } from '../src/lib/dates.js';
import { uuidv7 } from '../src/lib/ids.js';
import { paymentScore } from '../src/lib/payment-score.js';
import { createServices } from '../src/services.js';
import { STORE } from './helpers/harness.js';

/**
 * The fuzzy-search migration indexes the contacts that existed before it. Test stores are copies
 * of a migrated template, so this test migrates an empty store of its own step by step.
 */

async function emptyStore(): Promise<{ store: Store; drop: () => Promise<void> }> {
  if (STORE === 'sqlite') {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'receivables-backfill-'));
    const store = openStore({ dataDir, databaseUrl: undefined, pgPoolMax: 1 });
    return {
      store,
      drop: async () => {
        await store.close();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  const adminUrl = inject('pgAdminUrl');
  // The run's prefix, so that the run's teardown drops it even if this test dies half-way.
  const name = `${inject('pgTemplate').replace(/_template$/, '')}_backfill_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const store = openStore({ dataDir: '', databaseUrl: url.toString(), pgPoolMax: 2 });
  return {
    store,
    drop: async () => {
      await store.close();
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

/** A business row as the migrations of its time would find it (Kolkata, INR, English). */
function insertBusiness(db: Store['db'], id: string, name: string, phone: string, at: string) {
  return db
    .insertInto('businesses')
    .values({
      id,
      name,
      phone,
      plan: 'business',
      plan_expires_at: '2031-01-01T00:00:00.000Z',
      currency: 'INR',
      language: 'en',
      timezone: 'Asia/Kolkata',
      country: 'IN',
      upi_id: null,
      reminders_paused: 0,
      created_at: at,
      updated_at: at,
    })
    .execute();
}

describe('migration 2026-11-21T05-00_contact-name-terms', () => {
  // Creating a database of its own can take seconds on a busy PostgreSQL server.
  it('backfills the name terms of existing contacts, across several pages', { timeout: 30_000 }, async () => {
    const { store, drop } = await emptyStore();
    try {
      const { db } = store;
      const before = new Migrator({ db, provider: { getMigrations: async () => migrations } });
      const first = await before.migrateTo('2026-11-21T00-00_core');
      expect(first.error).toBeUndefined();

      const now = new Date('2030-03-10T06:00:00.000Z');
      const at = now.toISOString();
      const businessId = uuidv7(now.getTime());
      await insertBusiness(db, businessId, 'Backfill Traders', '919800000001', at);
      await db
        .insertInto('business_totals')
        .values({
          business_id: businessId,
          pending_count: 0,
          pending_paise: 0,
          overdue_count: 0,
          overdue_paise: 0,
          paid_count: 0,
          paid_paise: 0,
          contact_count: 0,
        })
        .execute();
      const names = ['Ravi Kumar', 'Sunita Rao', ...Array.from({ length: 1100 }, (_, i) => `Buyer Number ${i}`)];
      const rows = names.map((name, i) => ({
        id: uuidv7(now.getTime() + i),
        business_id: businessId,
        name,
        name_key: name.toLowerCase(),
        phone: null,
        phone_rev: null,
        created_at: at,
        updated_at: at,
      }));
      for (let i = 0; i < rows.length; i += 200) {
        await db
          .insertInto('contacts')
          .values(rows.slice(i, i + 200))
          .execute();
      }
      await db
        .updateTable('business_totals')
        .set({ contact_count: rows.length })
        .where('business_id', '=', businessId)
        .execute();

      expect(await migrate(db)).toContain('2026-11-21T05-00_contact-name-terms');

      const indexed = await db
        .selectFrom('contact_name_terms')
        .select((eb) => eb.fn.count<number>('contact_id').distinct().as('n'))
        .executeTakeFirstOrThrow();
      expect(Number(indexed.n)).toBe(rows.length);

      const services = createServices({
        store,
        clock: new ManualClock(now),
        config: loadConfig({}, { dataDir: '', databaseUrl: undefined }),
      });
      const business = await services.businesses.get(businessId);
      const search = async (text: string) => {
        const page = await services.contacts.list(business, { limit: 5 }, { fuzzySearch: text });
        return { total: page.total, names: page.items.map((i) => i.contact.name).sort() };
      };
      expect(await search('rabi kumr')).toEqual({ total: 1, names: ['Ravi Kumar'] });
      expect(await search('sunitha')).toEqual({ total: 1, names: ['Sunita Rao'] });
      expect((await search('buyr numbr')).total).toBe(1100);
      expect(await search('kumar sunita')).toEqual({ total: 0, names: [] });
    } finally {
      await drop();
    }
  });
});

describe('migration 2026-11-24T07-00_sequences', () => {
  it('backfills open balances per due date, so aging counts the dues that existed before', {
    timeout: 30_000,
  }, async () => {
    const { store, drop } = await emptyStore();
    try {
      const { db } = store;
      const before = new Migrator({ db, provider: { getMigrations: async () => migrations } });
      expect((await before.migrateTo('2026-11-24T05-00_money-in')).error).toBeUndefined();

      const now = new Date('2030-03-10T06:00:00.000Z');
      const at = now.toISOString();
      const businessId = uuidv7(now.getTime());
      const contactId = uuidv7(now.getTime() + 1);
      await insertBusiness(db, businessId, 'Aging Traders', '919800000002', at);
      await db
        .insertInto('contacts')
        .values({
          id: contactId,
          business_id: businessId,
          name: 'Old Buyer',
          name_key: 'old buyer',
          phone: null,
          phone_rev: null,
          created_at: at,
          updated_at: at,
        })
        .execute();
      const dues: [string, string, number, number, number][] = [
        // status, due date, amount, paid, open
        ['pending', '2030-03-15', 1000, 0, 1],
        ['pending', '2030-03-01', 2000, 500, 1],
        ['overdue', '2030-01-01', 3000, 0, 1],
        ['overdue', '2029-06-01', 4000, 0, 1],
        ['paid', '2030-02-01', 5000, 5000, 0],
        ['pending', '2030-03-01', 6000, 0, -1],
      ];
      await db
        .insertInto('transactions')
        .values(
          dues.map(([status, dueDate, amount, paid, open], i) => ({
            id: uuidv7(now.getTime() + 10 + i),
            business_id: businessId,
            contact_id: contactId,
            amount_paise: amount,
            amount_paid_paise: paid,
            currency: 'INR',
            status,
            open,
            direction: 'receivable',
            due_date: dueDate,
            paid_at: status === 'paid' ? at : null,
            utr: null,
            payment_method: null,
            invoice_number: null,
            notes: null,
            reminder_count: 0,
            claim_count: 0,
            pay_token: `token-${i}-${randomBytes(8).toString('hex')}`,
            created_at: at,
            updated_at: at,
            deleted_at: open === -1 ? at : null,
          })),
        )
        .execute();
      await db
        .insertInto('business_totals')
        .values({
          business_id: businessId,
          pending_count: 2,
          pending_paise: 2500,
          overdue_count: 2,
          overdue_paise: 7000,
          paid_count: 1,
          paid_paise: 5000,
          contact_count: 1,
        })
        .execute();

      expect(await migrate(db)).toContain('2026-11-24T07-00_sequences');

      const services = createServices({
        store,
        clock: new ManualClock(now),
        config: loadConfig({}, { dataDir: '', databaseUrl: undefined }),
      });
      const business = await services.businesses.get(businessId);
      expect(business.reminder_steps).toBe('-3,0,7,30');
      expect(await services.summary.aging(business)).toEqual({
        current: { count: 1, paise: 1000 },
        d1_30: { count: 1, paise: 1500 },
        d31_60: { count: 0, paise: 0 },
        d61_90: { count: 1, paise: 3000 },
        d90_plus: { count: 1, paise: 4000 },
      });
      expect((await services.contacts.get(business, contactId)).contact.reminders_paused).toBe(0);
    } finally {
      await drop();
    }
  });
});

describe('migration 2026-11-25T02-00_contact-scores', () => {
  it('backfills each contact’s payment score sums from the paid dues already stored', { timeout: 30_000 }, async () => {
    const { store, drop } = await emptyStore();
    try {
      const { db } = store;
      const before = new Migrator({ db, provider: { getMigrations: async () => migrations } });
      expect((await before.migrateTo('2026-11-24T12-00_contact-name-fts')).error).toBeUndefined();

      const now = new Date('2030-03-10T06:00:00.000Z');
      const at = now.toISOString();
      const businessId = uuidv7(now.getTime());
      const contactIds = [uuidv7(now.getTime() + 1), uuidv7(now.getTime() + 2)];
      await insertBusiness(db, businessId, 'Score Traders', '919800000003', at);
      await db
        .insertInto('contacts')
        .values(
          contactIds.map((id, i) => ({
            id,
            business_id: businessId,
            name: `Scored Buyer ${i}`,
            name_key: `scored buyer ${i}`,
            phone: null,
            phone_rev: null,
            created_at: at,
            updated_at: at,
          })),
        )
        .execute();
      // contact, due date, amount, paid at (null: open), promised date
      const dues: [number, string, number, string | null, string | null][] = [
        [0, '2030-01-01', 3000, '2030-02-20T05:00:00.000Z', '2030-01-15'], // 50 days late, promise broken
        [0, '2029-06-01', 4000, '2029-06-01T20:00:00.000Z', null], // paid the next day, Kolkata time
        [0, '2030-02-01', 2000, null, null], // open and overdue
        [0, '2030-04-01', 1000, '2030-03-01T05:00:00.000Z', null], // paid before its date
        [1, '2030-03-20', 5000, null, null], // open, not yet due: no history
      ];
      await db
        .insertInto('transactions')
        .values(
          dues.map(([contact, dueDate, amount, paidAt, promised], i) => ({
            id: uuidv7(now.getTime() + 10 + i),
            business_id: businessId,
            contact_id: contactIds[contact] as string,
            amount_paise: amount,
            amount_paid_paise: paidAt === null ? 0 : amount,
            currency: 'INR',
            status: paidAt === null ? (dueDate < '2030-03-10' ? 'overdue' : 'pending') : 'paid',
            open: paidAt === null ? 1 : 0,
            direction: 'receivable',
            due_date: dueDate,
            paid_at: paidAt,
            utr: null,
            payment_method: null,
            invoice_number: null,
            notes: null,
            reminder_count: 0,
            claim_count: 0,
            pay_token: `token-${i}-${randomBytes(8).toString('hex')}`,
            created_at: at,
            updated_at: at,
            promise_date: promised,
          })),
        )
        .execute();

      expect(await migrate(db)).toContain('2026-11-25T02-00_contact-scores');

      const sums = await db.selectFrom('contact_scores').selectAll().execute();
      expect(sums.map((r) => [r.contact_id, r.terms])).toEqual([[contactIds[0], 4]]);
      const services = createServices({
        store,
        clock: new ManualClock(now),
        config: loadConfig({}, { dataDir: '', databaseUrl: undefined }),
      });
      const business = await services.businesses.get(businessId);
      const today = '2030-03-10';
      const expected = paymentScore(
        dues
          .filter(([contact]) => contact === 0)
          .map(([, dueDate, amount, paidAt, promised]) => ({
            amountPaise: amount,
            dueDate,
            paidDate: paidAt === null ? null : localDate('Asia/Kolkata', new Date(paidAt)),
            promiseDate: promised,
          })),
        today,
      );
      expect(expected).toBeLessThan(80);
      expect((await services.contacts.get(business, contactIds[0] as string)).standing.paymentScore).toBe(expected);
      expect((await services.contacts.get(business, contactIds[1] as string)).standing.paymentScore).toBe(100);
    } finally {
      await drop();
    }
  });
});

describe('migration 2026-11-27T02-00_khata', () => {
  it('makes every payment a receipt of one allocation, and keeps each contact’s balance', {
    timeout: 30_000,
  }, async () => {
    const { store, drop } = await emptyStore();
    try {
      const { db } = store;
      const before = new Migrator({ db, provider: { getMigrations: async () => migrations } });
      expect((await before.migrateTo('2026-11-25T12-00_lean-create-checks')).error).toBeUndefined();
      const now = new Date('2030-03-10T20:00:00.000Z');
      const at = now.toISOString();
      const businessId = uuidv7(now.getTime());
      const contactId = uuidv7(now.getTime() + 1);
      await insertBusiness(db, businessId, 'Khata Traders', '919800000004', at);
      await db
        .insertInto('contacts')
        .values({
          id: contactId,
          business_id: businessId,
          name: 'Khata Buyer',
          name_key: 'khata buyer',
          phone: null,
          phone_rev: null,
          created_at: at,
          updated_at: at,
        })
        .execute();
      const dueIds = [uuidv7(now.getTime() + 2), uuidv7(now.getTime() + 3)];
      await db
        .insertInto('transactions')
        .values(
          dueIds.map((id, i) => ({
            id,
            business_id: businessId,
            contact_id: contactId,
            amount_paise: 10_000,
            amount_paid_paise: i === 0 ? 4_000 : 10_000,
            currency: 'INR',
            status: i === 0 ? 'pending' : 'paid',
            open: i === 0 ? 1 : 0,
            direction: 'receivable',
            due_date: '2030-04-01',
            paid_at: i === 0 ? null : at,
            utr: null,
            payment_method: null,
            invoice_number: null,
            notes: null,
            reminder_count: 0,
            claim_count: 0,
            pay_token: `khata-${i}-${randomBytes(8).toString('hex')}`,
            created_at: at,
            updated_at: at,
          })),
        )
        .execute();
      const paymentIds = [uuidv7(now.getTime() + 4), uuidv7(now.getTime() + 5)];
      await db
        .insertInto('payments')
        .values(
          paymentIds.map((id, i) => ({
            id,
            business_id: businessId,
            transaction_id: dueIds[i] as string,
            amount_paise: i === 0 ? 4_000 : 10_000,
            utr: `UTR-${i}`,
            payment_method: 'upi',
            source: 'api',
            created_at: at,
          })) as never,
        )
        .execute();

      expect(await migrate(db)).toContain('2026-11-27T02-00_khata');

      const services = createServices({
        store,
        clock: new ManualClock(now),
        config: loadConfig({}, { dataDir: '', databaseUrl: undefined }),
      });
      const business = await services.businesses.get(businessId);
      const receipt = await services.receipts.get(business, paymentIds[0] as string);
      expect(receipt.receipt).toMatchObject({
        contact_id: contactId,
        amount_paise: 4_000,
        applied_paise: 4_000,
        credit_paise: 0,
        utr: 'UTR-0',
        // 20:00 UTC is the next day in Kolkata.
        received_on: '2030-03-11',
      });
      expect(receipt.allocations.map((a) => [a.transaction_id, Number(a.amount_paise)])).toEqual([[dueIds[0], 4_000]]);
      const { contact } = await services.contacts.get(business, contactId);
      expect(contact).toMatchObject({ open_paise: 6_000, credit_paise: 0, balance_paise: 6_000 });
      expect(contact.account_token).toMatch(/^[A-Za-z0-9_-]{24}$/);
      // The triggers keep it from here on.
      await services.transactions.recordPayment(business, dueIds[0] as string, { amountPaise: 1_000, source: 'api' });
      expect((await services.contacts.get(business, contactId)).contact.balance_paise).toBe(5_000);
    } finally {
      await drop();
    }
  });
});
