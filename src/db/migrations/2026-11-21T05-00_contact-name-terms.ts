import type { Kysely } from 'kysely';
import { columnTypes } from '../column-types.js';

const BACKFILL_PAGE = 500;

/**
 * The word rules of contacts/fuzzy.ts as they were when this migration was written, frozen here:
 * a migration is history and must not change when the live code does (should the rules change,
 * a new migration rebuilds the table).
 */
const MIN_FUZZY_WORD = 3;

function nameWords(text: string): string[] {
  const folded = text.normalize('NFC').toLowerCase().normalize('NFC').replace(/['’`]/gu, '');
  return [...new Set(folded.split(/[^\p{L}\p{M}\p{N}]+/u).filter((w) => w !== ''))];
}

function variantsOf(word: string): { term: string; pos: number; ch: string }[] {
  const chars = Array.from(word);
  const variants = [{ term: word, pos: -1, ch: '' }];
  if (chars.length < MIN_FUZZY_WORD) return variants;
  for (let i = 0; i < chars.length; i++) {
    variants.push({ term: chars.slice(0, i).join('') + chars.slice(i + 1).join(''), pos: i, ch: chars[i] as string });
  }
  return variants;
}

function nameTerms(name: string): { term: string; pos: number; ch: string }[] {
  return nameWords(name).flatMap(variantsOf);
}

/**
 * The fuzzy name-search index of the earlier response shape (contacts/fuzzy.ts), backfilled for
 * the contacts that exist, with the frozen copy of the word rules above.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable('contact_name_terms')
    .addColumn('business_id', t.uuid, (c) => c.notNull().references('businesses.id'))
    .addColumn('term', 'text', (c) => c.notNull())
    .addColumn('contact_id', t.uuid, (c) => c.notNull().references('contacts.id'))
    .addColumn('pos', 'integer', (c) => c.notNull())
    .addColumn('ch', 'text', (c) => c.notNull())
    // Lookups are "this business, these terms": the primary key's leading columns serve them.
    .addPrimaryKeyConstraint('contact_name_terms_pk', ['business_id', 'term', 'contact_id', 'pos', 'ch'])
    .execute();
  // A rename replaces the contact's rows.
  await db.schema.createIndex('contact_name_terms_contact').on('contact_name_terms').column('contact_id').execute();

  const typed = db as unknown as Kysely<{
    contacts: { id: string; business_id: string; name: string };
    contact_name_terms: { business_id: string; term: string; contact_id: string; pos: number; ch: string };
  }>;
  let after: string | null = null;
  for (;;) {
    let query = typed.selectFrom('contacts').select(['id', 'business_id', 'name']).orderBy('id').limit(BACKFILL_PAGE);
    if (after !== null) query = query.where('id', '>', after);
    const page = await query.execute();
    if (page.length === 0) break;
    const rows = page.flatMap((c) =>
      nameTerms(c.name).map((term) => ({ business_id: c.business_id, contact_id: c.id, ...term })),
    );
    // Chunks keep each statement well under both stores' bound-parameter limits.
    for (let i = 0; i < rows.length; i += 1000) {
      await typed
        .insertInto('contact_name_terms')
        .values(rows.slice(i, i + 1000))
        .execute();
    }
    after = (page[page.length - 1] as { id: string }).id;
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('contact_name_terms').execute();
}
