/**
 * Issue 18, SQLite: the /v1 contact substring search with and without the FTS5 trigram table.
 * Seeds one business with N contacts named as bench/scale-seed.ts names them ("Buyer 12 Mills")
 * plus a second business of the same size (the trigram table spans businesses), then times the
 * page of 50 and the total, as contacts/repository.ts runs them (through the table for 3+
 * characters), against the query as it was before (`name_key LIKE` over the business's names).
 * Median of 7 runs each, after a warm-up.
 *
 *   npx tsx bench/contact-search.ts               # 100,000 contacts per business
 *   npx tsx bench/contact-search.ts --contacts 20000
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Kysely, sql } from 'kysely';
import { countContacts, listContacts, trigramsNarrow } from '../src/contacts/repository.js';
import { insertRows } from '../src/db/insert-rows.js';
import type { Database } from '../src/db/schema.js';
import { openSqlite } from '../src/db/sqlite/open.js';
import { migrate } from '../src/db/store.js';
import { uuidv7 } from '../src/lib/ids.js';

const { values } = parseArgs({ options: { contacts: { type: 'string', default: '100000' } } });
const count = Number(values.contacts);
const dir = mkdtempSync(path.join(tmpdir(), 'bench-contact-search-'));
const db = new Kysely<Database>({ dialect: openSqlite(dir).dialect });
const at = '2026-11-24T00:00:00.000Z';

async function seedBusiness(id: string): Promise<void> {
  await db
    .insertInto('businesses')
    .values({
      id,
      name: 'Bench',
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
  await db
    .insertInto('business_totals')
    .values({
      business_id: id,
      pending_count: 0,
      pending_paise: 0,
      overdue_count: 0,
      overdue_paise: 0,
      paid_count: 0,
      paid_paise: 0,
      contact_count: count,
    })
    .execute();
  const base = Date.parse(at);
  for (let from = 0; from < count; from += 20_000) {
    await db.transaction().execute(async (trx) => {
      const rows = [];
      for (let i = from; i < Math.min(from + 20_000, count); i++) {
        const created = new Date(base + i * 1000);
        const name = `Buyer ${i} ${['Stores', 'Traders', 'Textiles', 'Mills'][i % 4]}`;
        rows.push({
          id: uuidv7(created.getTime()),
          business_id: id,
          name,
          name_key: name.toLowerCase(),
          phone: null,
          phone_rev: null,
          created_at: created.toISOString(),
          updated_at: created.toISOString(),
        });
      }
      await insertRows(trx, 'contacts', rows);
    });
  }
}

/** The search as it ran before the trigram table: LIKE over the business's names. */
function scanned(businessId: string, search: string) {
  const like = `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  const q = db
    .selectFrom('contacts')
    .where('business_id', '=', businessId)
    .where(sql<boolean>`name_key like ${like} escape '\\'`);
  return Promise.all([
    q.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(50).execute(),
    q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
}

/** Through the trigram table, whatever the text. */
function indexed(businessId: string, search: string) {
  const filter = { search, searchTrigrams: true };
  return Promise.all([listContacts(db, businessId, filter, 50, 0), countContacts(db, businessId, filter)]);
}

/** As the service runs it: the table when trigramsNarrow says the text is rare, else the scan. */
async function chosen(businessId: string, search: string) {
  const filter = { search, searchTrigrams: await trigramsNarrow(db, businessId, search) };
  const rows = await listContacts(db, businessId, filter, 50, 0);
  return [filter.searchTrigrams, rows, await countContacts(db, businessId, filter)] as const;
}

async function median(run: () => Promise<unknown>): Promise<number> {
  await run();
  const ms: number[] = [];
  for (let i = 0; i < 7; i++) {
    const start = performance.now();
    await run();
    ms.push(performance.now() - start);
  }
  ms.sort((a, b) => a - b);
  return ms[3] as number;
}

try {
  await migrate(db);
  const business = uuidv7(Date.parse(at));
  const other = uuidv7(Date.parse(at) + 1);
  const seeding = performance.now();
  await seedBusiness(business);
  await seedBusiness(other);
  console.log(`seeded 2 x ${count} contacts in ${((performance.now() - seeding) / 1000).toFixed(1)} s`);
  console.log('search            matches  scan ms  table ms  as served ms (path)');
  for (const search of ['er 12', 'r 1999', 'textiles', '12345', 'mills', 'nobody']) {
    const [[, before], [, after]] = [await scanned(business, search), await indexed(business, search)];
    if (Number(before.n) !== after) throw new Error(`${search}: ${before.n} scanned, ${after} indexed`);
    const scanMs = await median(() => scanned(business, search));
    const ftsMs = await median(() => indexed(business, search));
    const [table] = await chosen(business, search);
    const servedMs = await median(() => chosen(business, search));
    console.log(
      `${JSON.stringify(search).padEnd(17)} ${String(after).padStart(7)} ${scanMs.toFixed(1).padStart(8)} ${ftsMs.toFixed(1).padStart(9)} ${servedMs.toFixed(1).padStart(12)} (${table ? 'table' : 'scan'})`,
    );
  }
} finally {
  await db.destroy();
  rmSync(dir, { recursive: true, force: true });
}
