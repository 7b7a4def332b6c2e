import { type Kysely, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { planStore } from '../db/sqlite/plans.test-support.js';
import {
  type ContactRow,
  contactStandings,
  countContacts,
  duesForScore,
  findContactWithStanding,
  listContacts,
  trigramsNarrow,
} from './repository.js';

/**
 * SQLite plans without statistics. A contact's standing reads what is kept (its open days) and
 * its paid dues dated after today by their partial index, never its dues whole; the score's rare
 * fallback reads its dues through the contact's index, not the business's.
 */
describe('contact standing query plans (SQLite)', () => {
  const { db, planOf } = planStore('contact-plans-');

  const business = '01959c4e-0000-7000-8000-000000000001';
  const contact = '01959c4e-0000-7000-8000-000000000002';
  const page = Array.from({ length: 50 }, (_, i) => `01959c4e-0000-7000-8000-${String(i + 2).padStart(12, '0')}`);

  for (const [name, run] of [
    ['one contact with its standing', () => findContactWithStanding(db, business, contact, '2026-11-24')],
    // A page's contacts (50): by their keys, not by a walk of the business's contacts.
    ['standings', () => contactStandings(db, business, page, '2026-11-24')],
  ] as const) {
    it(`reads ${name} from the kept days and the paid dues after today alone`, async () => {
      const plan = await planOf(run);
      expect(plan).toMatch(/SEARCH d USING (COVERING )?INDEX sqlite_autoindex_contact_open_days_1 \(contact_id=\?\)/);
      expect(plan).toMatch(/SEARCH p USING INDEX transactions_contact_paid_due \(contact_id=\? AND due_date>\?\)/);
      expect(plan).toMatch(/SEARCH c USING (COVERING )?INDEX sqlite_autoindex_contacts_1 \(id=\?\)/);
      expect(plan).not.toMatch(
        /SCAN|contacts_business|transactions_business|transactions_contact_open_due|transactions_contact_created/,
      );
    });
  }
  it("reads the dues for the score through the contact's index", async () => {
    const plan = await planOf(() => duesForScore(db, business, [contact]));
    expect(plan).toMatch(/transactions_business_contact_due/);
    expect(plan).not.toMatch(/transactions_business_open_due/);
  });
});

/**
 * Issue 18: on SQLite a contact search of 3 or more characters starts from the FTS5 trigram table
 * (migration 2026-11-24T12-00) and reads only the matching contacts by rowid, not the business's
 * names; 2 characters (too short for a trigram) keep the scan of the business's names. The table
 * is kept by triggers and filled from the contacts already there.
 */
describe('contact name search through the trigram table (SQLite)', () => {
  const business = '01959c4e-0000-7000-8000-0000000000b1';
  const at = '2026-11-24T08:00:00.000Z';
  function contact(n: number, name: string) {
    const id = `01959c4e-0000-7000-8000-${String(n).padStart(12, '0')}`;
    return {
      id,
      business_id: business,
      name,
      name_key: name.toLowerCase(),
      phone: null,
      phone_rev: null,
      created_at: at,
      updated_at: at,
    };
  }
  const { db, plansOf } = planStore('contact-fts-', async (seeded) => {
    await seeded
      .insertInto('businesses')
      .values({
        id: business,
        name: 'Plan Test',
        phone: '919800000000',
        plan: 'free',
        plan_expires_at: at,
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
  });

  const after = { created_at: at, id: '01959c4e-0000-7000-8000-ffffffffffff' };
  for (const [name, run] of [
    ['a page', () => listContacts(db, business, { search: 'arma t', searchTrigrams: true }, 20, 0)],
    ['a page after a cursor', () => listContacts(db, business, { search: 'राम', searchTrigrams: true }, 20, 0, after)],
    ['the count', () => countContacts(db, business, { search: '100%', searchTrigrams: true })],
  ] as const) {
    it(`reads ${name} of a 3+ character search from the trigram table, then contacts by rowid`, async () => {
      const [plan, ...more] = await plansOf(run);
      expect(more).toEqual([]);
      expect(plan).toMatch(/^SCAN \S+ VIRTUAL TABLE INDEX \d+:M/);
      expect(plan).toMatch(/SEARCH contacts USING INTEGER PRIMARY KEY \(rowid=\?\)/);
      expect(plan).not.toMatch(/contacts_business_(created|name_key)/);
    });
  }

  it('scans the business names when not told to read the table', async () => {
    const [plan] = await plansOf(() => listContacts(db, business, { search: 'arma t' }, 20, 0));
    expect(plan).not.toMatch(/VIRTUAL TABLE/);
    expect(plan).toMatch(/contacts_business_created|contacts_business_name_key/);
  });

  it('is filled from existing contacts and follows inserts, renames and deletes', async () => {
    const names = async (search: string) =>
      (await listContacts(db, business, { search, searchTrigrams: true }, 50, 0)).map((c) => c.name).sort();
    await db
      .insertInto('contacts')
      .values([contact(1, 'Sharma Traders'), contact(2, 'Varma Tea')])
      .execute();
    // Rebuilt from scratch (as the migration does over a database with contacts).
    const fts = await import('../db/migrations/2026-11-24T12-00_contact-name-fts.js');
    await fts.down(db as unknown as Kysely<unknown>);
    await db.insertInto('contacts').values(contact(3, 'Karma Works')).execute();
    await fts.up(db as unknown as Kysely<unknown>);
    expect(await names('arma')).toEqual(['Karma Works', 'Sharma Traders', 'Varma Tea']);
    await db.insertInto('contacts').values(contact(4, 'Armaan Stores')).execute();
    expect(await names('arma')).toEqual(['Armaan Stores', 'Karma Works', 'Sharma Traders', 'Varma Tea']);
    await db
      .updateTable('contacts')
      .set({ name: 'Verma Tea', name_key: 'verma tea' })
      .where('id', '=', contact(2, '').id)
      .execute();
    expect(await names('arma')).toEqual(['Armaan Stores', 'Karma Works', 'Sharma Traders']);
    expect(await names('erma')).toEqual(['Verma Tea']);
    await db.deleteFrom('contacts').where('id', '=', contact(1, '').id).execute();
    expect(await names('arma')).toEqual(['Armaan Stores', 'Karma Works']);
    // The index agrees with its contacts row for row (FTS5's own consistency check).
    await sql`insert into contacts_name_fts(contacts_name_fts, rank) values ('integrity-check', 1)`.execute(db);
  });

  const TRICKY = [
    'Sharma Traders',
    'SHARMA & Sons',
    'राम लाल',
    'श्याम राम ट्रेडर्स',
    '100% Cotton',
    'Cotton_Mill',
    'Green_Mart',
    'The "Quoted" Shop',
    'Back\\slash Supplies',
    'Müller Ärmel',
  ];

  it('gives the same rows, order, counts and cursor pages through the table as by the scan', async () => {
    const start = 100;
    await db
      .insertInto('contacts')
      .values(TRICKY.map((name, i) => ({ ...contact(start + i, name), created_at: `2026-11-24T08:0${i % 3}:00.000Z` })))
      .execute();
    const searches = ['arma', 'ARMA T', 'राम', 'म ल', '0% c', 'n_m', 'on_', '"quoted"', 'k\\s', 'ärm', 'rma', 'xyz'];
    let found = 0;
    for (const raw of searches) {
      const search = raw.toLowerCase();
      const scan = await listContacts(db, business, { search }, 50, 0);
      const table = await listContacts(db, business, { search, searchTrigrams: true }, 50, 0);
      expect(
        table.map((c) => c.id),
        search,
      ).toEqual(scan.map((c) => c.id));
      expect(await countContacts(db, business, { search, searchTrigrams: true }), search).toBe(
        await countContacts(db, business, { search }),
      );
      found += scan.length;
      if (scan.length > 1) {
        const cursor = { created_at: (scan[0] as ContactRow).created_at, id: (scan[0] as ContactRow).id };
        const next = await listContacts(db, business, { search, searchTrigrams: true }, 50, 0, cursor);
        expect(
          next.map((c) => c.id),
          search,
        ).toEqual(scan.slice(1).map((c) => c.id));
      }
    }
    expect(found).toBeGreaterThan(searches.length);
  });

  it('reads the table only when the text is rare among the business names', async () => {
    await db
      .insertInto('contacts')
      .values(Array.from({ length: 100 }, (_, i) => contact(200 + i, `Filler ${i} Mills`)))
      .execute();
    const { n } = await db
      .selectFrom('contacts')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('business_id', '=', business)
      .executeTakeFirstOrThrow();
    // No totals row yet: no count of names to weigh against, so the scan.
    expect(await trigramsNarrow(db, business, 'sharma')).toBe(false);
    await db
      .insertInto('business_totals')
      .values({
        business_id: business,
        pending_count: 0,
        pending_paise: 0,
        overdue_count: 0,
        overdue_paise: 0,
        paid_count: 0,
        paid_paise: 0,
        contact_count: Number(n),
      })
      .execute();
    expect(await trigramsNarrow(db, business, 'sharma')).toBe(true);
    expect(await trigramsNarrow(db, business, 'nobody has this')).toBe(true);
    expect(await trigramsNarrow(db, business, 'राम')).toBe(true);
    // Most names hold it: reading every match through the table costs more than the scan.
    expect(await trigramsNarrow(db, business, 'mills')).toBe(false);
    expect(await trigramsNarrow(db, business, 'filler 1')).toBe(false);
    // Too short for a trigram.
    expect(await trigramsNarrow(db, business, 'sh')).toBe(false);
    // NUL would end the FTS5 query string: the scan.
    expect(await trigramsNarrow(db, business, 'shar\u0000ma')).toBe(false);
    expect(await listContacts(db, business, { search: 'shar\u0000ma' }, 50, 0)).toEqual([]);
  });
});
