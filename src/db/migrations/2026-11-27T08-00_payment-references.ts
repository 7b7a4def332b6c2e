import { randomInt } from 'node:crypto';
import type { Kysely } from 'kysely';

/**
 * Bank statements matched to dues: each due (`R` + 8 characters) and each contact's account (`R` +
 * 7) gets a short `payment_reference`, carried in the UPI link's note so that the bank's narration
 * names what was paid. Existing rows are given one here (drawn in JavaScript, checked unique per
 * business before writing), then a unique index per business makes the lookup by reference one
 * index probe.
 */
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const PAGE = 1000;

function draw(length: number): string {
  let s = 'R';
  for (let i = 0; i < length; i++) s += ALPHABET[randomInt(ALPHABET.length)];
  return s;
}

async function backfill(db: Kysely<any>, table: 'transactions' | 'contacts', length: number): Promise<void> {
  const taken = new Map<string, Set<string>>();
  for (;;) {
    const rows: { id: string; business_id: string }[] = await db
      .selectFrom(table)
      .select(['id', 'business_id'])
      .where('payment_reference', 'is', null)
      .limit(PAGE)
      .execute();
    if (rows.length === 0) return;
    for (const row of rows) {
      const used = taken.get(row.business_id) ?? new Set<string>();
      taken.set(row.business_id, used);
      let ref = draw(length);
      while (used.has(ref)) ref = draw(length);
      used.add(ref);
      await db.updateTable(table).set({ payment_reference: ref }).where('id', '=', row.id).execute();
    }
  }
}

export async function up(db: Kysely<any>): Promise<void> {
  for (const table of ['transactions', 'contacts'] as const) {
    await db.schema.alterTable(table).addColumn('payment_reference', 'text').execute();
  }
  await backfill(db, 'transactions', 8);
  await backfill(db, 'contacts', 7);
  await db.schema
    .createIndex('transactions_payment_reference')
    .unique()
    .on('transactions')
    .columns(['business_id', 'payment_reference'])
    .execute();
  await db.schema
    .createIndex('contacts_payment_reference')
    .unique()
    .on('contacts')
    .columns(['business_id', 'payment_reference'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('contacts_payment_reference').execute();
  await db.schema.dropIndex('transactions_payment_reference').execute();
  for (const table of ['transactions', 'contacts'] as const) {
    await db.schema.alterTable(table).dropColumn('payment_reference').execute();
  }
}
