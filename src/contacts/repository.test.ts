import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CompiledQuery, Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../db/schema.js';
import { openSqlite } from '../db/sqlite/open.js';
import { migrate } from '../db/store.js';
import { contactBalances, findContactWithStanding, recentDuesForScore } from './repository.js';

/**
 * SQLite plans without statistics: a contact's dues must be read through the contact's index, not
 * by walking the business's (business_id, open, ...) index over every due of the business.
 */
describe('contact standing query plans (SQLite)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'contact-plans-'));
  const ran: CompiledQuery[] = [];
  const db = new Kysely<Database>({
    dialect: openSqlite(dir).dialect,
    log: (event) => {
      ran.push(event.query);
    },
  });
  beforeAll(() => migrate(db));
  afterAll(async () => {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  const business = '01959c4e-0000-7000-8000-000000000001';
  const contact = '01959c4e-0000-7000-8000-000000000002';

  async function planOf(run: () => Promise<unknown>): Promise<string> {
    ran.length = 0;
    await run();
    expect(ran).toHaveLength(1);
    const query = ran[0] as CompiledQuery;
    const plan = await db.executeQuery<{ detail: string }>(
      CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]),
    );
    return plan.rows.map((r) => r.detail).join(' | ');
  }

  for (const [name, run] of [
    ['one contact with its standing', () => findContactWithStanding(db, business, contact, '2026-11-24', 200)],
    ['balances', () => contactBalances(db, business, [contact], '2026-11-24')],
    ['recent dues', () => recentDuesForScore(db, business, [contact], 200)],
  ] as const) {
    it(`reads ${name} through the contact's index`, async () => {
      const plan = await planOf(run);
      expect(plan).toMatch(/transactions_business_contact_due/);
      expect(plan).not.toMatch(/transactions_business_open_due/);
    });
  }
});
