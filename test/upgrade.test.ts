import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Migrator, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { migrations } from '../src/db/migrations/index.js';
import { migrate, openStore, type Store } from '../src/db/store.js';
import { sha256Hex } from '../src/lib/ids.js';
import { verifyStore } from '../src/ops/verify/index.js';
import { DashboardClient } from './helpers/dashboard.js';
import { type Harness, STORE, startHarness } from './helpers/harness.js';
import { signInWithPhone } from './helpers/staff.js';

/**
 * Upgrades: a store made by the oldest released schema (its first migration alone), holding data
 * written with that release's SQL (test/fixtures/oldest-schema.sql), migrates to the current
 * schema and reads the same through the API; every kept figure then verifies. A store from before
 * staff and roles gets its owner's user from the business phone.
 */
const OLDEST = ['2026-11-21T00-00_core'];
const FIXTURE = path.join(import.meta.dirname, 'fixtures', 'oldest-schema.sql');
const API_KEY = 'rk_live_oldestschemafixture_0123456789abcdefghijklmnop';
const BUSINESS = '01935f6a-0000-7000-8000-000000000001';
const id = (tail: string) => `01935f6a-0000-7000-8000-0000000000${tail}`;
// 2026-11-21, 12:00 in Kolkata.
const NOW = '2026-11-21T06:30:00.000Z';

/** A store with nothing in it: a new SQLite folder, or a new empty PostgreSQL database (no template). */
async function emptyStore(): Promise<{ store: Store; dataDir: string; databaseUrl: string | undefined }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'receivables-upgrade-'));
  let databaseUrl: string | undefined;
  if (STORE === 'postgres') {
    const name = `${inject('pgTemplate').replace(/_template$/, '')}_oldest_${randomBytes(3).toString('hex')}`;
    const admin = new pg.Client({ connectionString: inject('pgAdminUrl') });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
    const url = new URL(inject('pgAdminUrl'));
    url.pathname = `/${name}`;
    databaseUrl = url.toString();
  }
  return { store: openStore({ dataDir, databaseUrl, pgPoolMax: 5 }), dataDir, databaseUrl };
}

async function migrateOnly(store: Store, names: readonly string[]) {
  const only = Object.fromEntries(names.map((n) => [n, migrations[n] as (typeof migrations)[string]]));
  const { error, results } = await new Migrator({
    db: store.db,
    provider: { getMigrations: async () => only },
  }).migrateToLatest();
  if (error) throw error;
  return results?.map((r) => r.migrationName);
}

/** The fixture's statements: each ends with a semicolon at the end of a line. */
function fixtureStatements(): string[] {
  const text = readFileSync(FIXTURE, 'utf8')
    .split('\n')
    .filter((line) => !line.startsWith('--'))
    .join('\n');
  return text
    .split(/;\s*\n/)
    .map((s) => s.trim().replace(/;$/, ''))
    .filter((s) => s !== '');
}

let h: Harness;
let applied: string[];
beforeAll(async () => {
  const opened = await emptyStore();
  try {
    expect(await migrateOnly(opened.store, OLDEST)).toEqual(OLDEST);
    for (const statement of fixtureStatements()) await sql.raw(statement).execute(opened.store.db);
    applied = await migrate(opened.store.db);
  } catch (error) {
    await opened.store.close();
    throw error;
  }
  h = await startHarness({ now: NOW, store: opened });
});
afterAll(() => h?.close());

const get = (url: string) => h.request('GET', url, { headers: { 'x-api-key': API_KEY } });

describe('a store from an earlier release whose later migrations are named before ones it ran', () => {
  it('migrates: a migration released later but named earlier still runs', async () => {
    // The order migrations were released in is the order they are registered; a store made at any
    // point of that history holds a prefix of it. The longest prefix that a later release's
    // migration sorts into (by name) is the hard case.
    const released = Object.keys(migrations);
    let cut = 0;
    for (let i = 1; i < released.length; i++) {
      if (released.slice(0, i).some((earlier) => earlier > (released[i] as string))) cut = i;
    }
    expect(cut, 'no migration was released out of name order yet').toBeGreaterThan(0);
    const opened = await emptyStore();
    try {
      await migrateOnly(opened.store, released.slice(0, cut));
      const ran = await migrate(opened.store.db);
      expect(ran).toEqual(released.slice(cut).sort());
      expect((await verifyStore(opened.store.db)).ok).toBe(true);
    } finally {
      await opened.store.close();
      rmSync(opened.dataDir, { recursive: true, force: true });
    }
  });
});

describe('a store from the oldest released schema', () => {
  it('migrates to the current schema: every later migration ran, in name order', () => {
    expect(applied).toEqual(
      Object.keys(migrations)
        .filter((n) => !OLDEST.includes(n))
        .sort(),
    );
  });

  it('verifies: every kept figure agrees with the rows after the upgrade', async () => {
    const report = await verifyStore(h.store.db);
    expect(report.differences).toEqual([]);
    expect(report).toMatchObject({ ok: true, businesses: 1 });
  });

  it('answers its API key, and reads the same summary', async () => {
    const me = await get('/v1/me');
    expect(me.status, me.text).toBe(200);
    expect(me.body.data).toMatchObject({ id: BUSINESS, name: 'Oldest Traders', plan: 'business' });
    const summary = await get('/v1/summary');
    expect(summary.status, summary.text).toBe(200);
    expect(summary.body.data).toMatchObject({
      pending: { count: 1, paise: 150_000 },
      overdue: { count: 2, paise: 70_000 },
      paid: { count: 2, paise: 105_000 },
      paid_this_month_paise: 75_000,
      total_outstanding_paise: 220_000,
    });
  });

  it('reads the same dues, with their balances and payments', async () => {
    const list = await get('/v1/transactions?limit=50');
    expect(list.status, list.text).toBe(200);
    const byId = new Map((list.body.data as { id: string }[]).map((d) => [d.id, d]));
    expect(byId.size).toBe(5);
    // Dues from before payment references were given one by the upgrade, each its own.
    const refs = (list.body.data as { payment_reference: string }[]).map((d) => d.payment_reference);
    for (const ref of refs) expect(ref).toMatch(/^R[A-Z0-9]{8}$/);
    expect(new Set(refs).size).toBe(5);
    expect(byId.get(id('d1'))).toMatchObject({
      contact_name: 'Ravi Kumar',
      amount_paise: 150_000,
      amount_paid_paise: 0,
      balance_paise: 150_000,
      status: 'pending',
      due_date: '2026-12-05T00:00:00.000Z',
      invoice_number: 'INV-101',
      notes: 'cloth, 30 m',
    });
    expect(byId.get(id('d2'))).toMatchObject({ status: 'overdue', balance_paise: 50_000 });
    expect(byId.get(id('d4'))).toMatchObject({ status: 'overdue', balance_paise: 20_000 });
    expect(byId.get(id('d3'))).toMatchObject({
      status: 'paid',
      amount_paid_paise: 75_000,
      balance_paise: 0,
      paid_at: '2026-11-12T09:00:00.000Z',
      utr: 'UTR0001',
      payment_method: 'upi',
    });
    const overdue = await get('/v1/transactions?status=overdue');
    expect((overdue.body.data as { id: string }[]).map((d) => d.id).sort()).toEqual([id('d2'), id('d4')]);
  });

  it('reads the same contacts, their balances and scores, and finds them by name', async () => {
    const ravi = await get(`/v1/contacts/${id('c1')}`);
    expect(ravi.status, ravi.text).toBe(200);
    expect(ravi.body.data).toMatchObject({
      name: 'Ravi Kumar',
      phone: '919812345678',
      outstanding_paise: 200_000,
      pending_count: 1,
      overdue_count: 1,
      total_transactions: 2,
    });
    const sunita = await get(`/v1/contacts/${id('c2')}`);
    expect(sunita.body.data).toMatchObject({ outstanding_paise: 0, total_transactions: 1, payment_score: 79 }); // paid 2 days late
    const found = await get('/v1/contacts?search=mohan');
    expect((found.body.data as { id: string }[]).map((c) => c.id)).toEqual([id('c3')]);
  });

  it('takes new writes on the upgraded data: a part payment and a new due, and still verifies', async () => {
    const pay = await h.request('POST', `/v1/transactions/${id('d1')}/payments`, {
      headers: { 'x-api-key': API_KEY },
      body: { amount_paise: 50_000 },
    });
    expect(pay.status, pay.text).toBe(201);
    const created = await h.request('POST', '/v1/transactions', {
      headers: { 'x-api-key': API_KEY },
      body: { amount_paise: 9_900, due_date: '2026-12-31', contact_name: 'ravi kumar' },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body.data.contact_id).toBe(id('c1'));
    const summary = await get('/v1/summary');
    expect(summary.body.data).toMatchObject({ pending: { count: 2, paise: 109_900 }, paid_this_month_paise: 125_000 });
    expect((await verifyStore(h.store.db)).differences).toEqual([]);
  });
});

describe('a store from before staff and roles (no users table)', () => {
  it("migrates with the owner's user made from the business phone: the owner's session and code sign-in act as the owner", async () => {
    const released = Object.keys(migrations);
    const before = released.slice(0, released.indexOf('2026-11-28T07-00_users'));
    expect(before.length).toBeGreaterThan(OLDEST.length);
    const opened = await emptyStore();
    const token = 'a-session-from-before-users-0123456789';
    let old: Harness | undefined;
    try {
      await migrateOnly(opened.store, OLDEST);
      for (const statement of fixtureStatements()) await sql.raw(statement).execute(opened.store.db);
      await migrateOnly(opened.store, before);
      await sql`insert into dashboard_sessions (token_hash, business_id, csrf_token, created_at, expires_at)
                values (${sha256Hex(token)}, ${BUSINESS}, ${'csrf-from-before-users'}, ${NOW}, ${'2026-12-01T00:00:00.000Z'})`.execute(
        opened.store.db,
      );
      expect(await migrate(opened.store.db)).toContain('2026-11-28T07-00_users');
      old = await startHarness({ now: NOW, store: opened });

      const users = await old.request('GET', '/v1/users', { headers: { 'x-api-key': API_KEY } });
      expect(users.status, users.text).toBe(200);
      expect(users.body.data).toEqual([
        {
          id: BUSINESS,
          name: 'Oldest Traders',
          phone: '919800000001',
          role: 'owner',
          created_at: '2026-10-01T04:30:00.000Z',
        },
      ]);

      // The session opened before the upgrade is the owner's: the owner's forms are on the Staff page.
      const client = new DashboardClient(old);
      client.cookies.set('dashboard_session', token);
      const staff = await client.get('/dashboard/users');
      expect(staff.status, staff.text).toBe(200);
      expect(staff.text).toContain('action="/dashboard/users"');

      // A code sent to the business phone signs in the owner.
      const owner = await signInWithPhone(old, '919800000001');
      expect((await owner.get('/dashboard')).status).toBe(200);
      const added = await owner.submit('/dashboard/users', '/dashboard/users', {
        name: 'Asha Accountant',
        phone: '98765 40404',
        role: 'accountant',
      });
      expect(added.status, added.text).toBe(303);
      expect((await verifyStore(old.store.db)).differences).toEqual([]);
    } finally {
      if (old) await old.close();
      else await opened.store.close();
      rmSync(opened.dataDir, { recursive: true, force: true });
    }
  });
});
