import type { ExpressionBuilder } from 'kysely';
import type { Database, Executor } from '../db/schema.js';
import { type FuzzyWord, type NameTerm, nameTerms } from './fuzzy.js';

type TermsEb = ExpressionBuilder<Database, 'contact_name_terms'>;

/**
 * Writes a contact's fuzzy-search terms (contacts/fuzzy.ts), replacing any it had. Called in the
 * database transaction that creates or renames the contact, so the index never disagrees with
 * the names it was built from.
 */
export async function writeNameTerms(
  db: Executor,
  contact: { id: string; business_id: string; name: string },
  options: { replace: boolean },
): Promise<void> {
  if (options.replace) await db.deleteFrom('contact_name_terms').where('contact_id', '=', contact.id).execute();
  const terms = nameTerms(contact.name);
  if (terms.length === 0) return;
  await db
    .insertInto('contact_name_terms')
    .values(terms.map((t) => ({ business_id: contact.business_id, contact_id: contact.id, ...t })))
    .execute();
}

/** fuzzy.ts `variantsMatch`, as SQL over one stored row with the same term. */
function variantCondition(eb: TermsEb, v: NameTerm, exact: boolean) {
  const sameTerm = eb('contact_name_terms.term', '=', v.term);
  if (exact) return eb.and([sameTerm, eb('contact_name_terms.pos', '=', -1)]);
  if (v.pos === -1) return sameTerm;
  return eb.and([
    sameTerm,
    eb.or([
      eb('contact_name_terms.pos', '=', -1),
      eb('contact_name_terms.pos', '=', v.pos),
      eb.and([eb('contact_name_terms.pos', 'in', [v.pos - 1, v.pos + 1]), eb('contact_name_terms.ch', '=', v.ch)]),
    ]),
  ]);
}

/**
 * Ids of the business's contacts with a name word within one typo of `word`: `term IN (...)` is a
 * range probe of the (business_id, term) primary key, and the position rule only refines the few
 * rows it finds. Used as `contact_id IN (this)`, once per query word.
 */
export function contactIdsMatching(db: Executor, businessId: string, word: FuzzyWord) {
  const terms = [...new Set(word.variants.map((v) => v.term))];
  return db
    .selectFrom('contact_name_terms')
    .select('contact_name_terms.contact_id')
    .where('contact_name_terms.business_id', '=', businessId)
    .where('contact_name_terms.term', 'in', terms)
    .where((eb) => eb.or(word.variants.map((v) => variantCondition(eb, v, word.exact))));
}
