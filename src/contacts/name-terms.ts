import { type ExpressionBuilder, type SelectQueryBuilder, sql } from 'kysely';
import { insertEach } from '../db/port.js';
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
  await writeNewNameTerms(db, [contact]);
}

/** The terms of contacts that have none yet (new contacts), each store's fastest way (db/insert-each.ts). */
export async function writeNewNameTerms(
  db: Executor,
  contacts: readonly { id: string; business_id: string; name: string }[],
): Promise<void> {
  const rows = contacts.flatMap((contact) =>
    nameTerms(contact.name).map((t) => ({ business_id: contact.business_id, contact_id: contact.id, ...t })),
  );
  await insertEach(db, 'contact_name_terms', rows);
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

/** A stored row belongs to a name word within one typo of `word`. */
function wordCondition(eb: TermsEb, word: FuzzyWord) {
  return eb.or(word.variants.map((v) => variantCondition(eb, v, word.exact)));
}

/** A word's candidate rows are counted up to this many: enough to tell a rare word from a common one. */
const SELECTIVITY_PROBE = 1000;

/**
 * The query words, rarest first: the word with the fewest stored rows among its variants leads
 * (contactIdsMatching starts from it). Each word costs one probe of the (business_id, term) key
 * that stops at SELECTIVITY_PROBE rows, so a common word ("buyer" in every name) costs no more than
 * a rare one. All words must match, so their order changes the plan, never the result.
 */
export async function rarestFirst(db: Executor, businessId: string, words: FuzzyWord[]): Promise<FuzzyWord[]> {
  if (words.length < 2) return words;
  const counts = await Promise.all(
    words.map(async (w) => {
      const row = await db
        .selectFrom((eb) =>
          eb
            .selectFrom('contact_name_terms')
            .select(sql<number>`1`.as('one'))
            .where('business_id', '=', businessId)
            .where('term', 'in', [...new Set(w.variants.map((v) => v.term))])
            .limit(SELECTIVITY_PROBE)
            .as('probe'),
        )
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    }),
  );
  return words
    .map((word, i) => ({ word, n: counts[i] as number }))
    .sort((a, b) => a.n - b.n)
    .map((x) => x.word);
}

/**
 * Ids of the business's contacts whose name has, for every query word, a word within one typo.
 * One query word: one range probe of the (business_id, term) primary key collects the rows of its
 * variants. Several: the first word (rarestFirst puts the rarest there) finds its contacts that
 * way, and only those contacts' rows (by contact_id) are read for the other words, so the cost
 * follows the rarest word rather than the commonest. Grouping by contact then checks that each
 * query word found one. A single grouped query rather than one semi-join per word keeps the plan
 * the same whatever the planner's statistics say (PostgreSQL without them probed each contact's
 * terms through the whole business); the CROSS JOIN keeps SQLite's join order.
 */
function contactIdsMatching(db: Executor, businessId: string, words: FuzzyWord[]) {
  const [lead, ...rest] = words as [FuzzyWord, ...FuzzyWord[]];
  const termsOf = (ws: FuzzyWord[]) => [...new Set(ws.flatMap((w) => w.variants.map((v) => v.term)))];
  const leadIds = db
    .selectFrom('contact_name_terms')
    .select('contact_name_terms.contact_id as fuzzy_contact_id')
    .where('contact_name_terms.business_id', '=', businessId)
    .where('contact_name_terms.term', 'in', termsOf([lead]))
    .where((eb) => wordCondition(eb, lead));
  if (rest.length === 0) return leadIds.groupBy('contact_name_terms.contact_id');
  return db
    .selectFrom(leadIds.distinct().as('fuzzy_lead'))
    .crossJoin('contact_name_terms')
    .select('fuzzy_lead.fuzzy_contact_id')
    .whereRef('contact_name_terms.contact_id', '=', 'fuzzy_lead.fuzzy_contact_id')
    .where('contact_name_terms.business_id', '=', businessId)
    .where('contact_name_terms.term', 'in', termsOf(rest))
    .where((eb) => eb.or(rest.map((w) => wordCondition(eb, w))))
    .groupBy('fuzzy_lead.fuzzy_contact_id')
    .having((eb) =>
      eb.and(rest.map((w) => eb(eb.fn.max(eb.case().when(wordCondition(eb, w)).then(1).else(0).end()), '=', 1))),
    );
}

type Searchable = 'contacts' | 'transactions';

/**
 * `table`, restricted to rows whose contact matches the fuzzy query, as the start of a query.
 * The matching ids come first, in a CROSS JOIN, because SQLite keeps that join order: the query
 * then visits only the matches. As `contact_id IN (...)`, SQLite (which assumes, without
 * statistics, that a business has ten rows) walked every contact of the business instead.
 * The derived table is hidden from the type: callers select `table`'s columns by name
 * (selectAll('contacts')), never a bare selectAll().
 */
export function fromFuzzyMatches(
  db: Executor,
  businessId: string,
  words: FuzzyWord[],
  table: 'contacts',
): SelectQueryBuilder<Database, 'contacts', object>;
export function fromFuzzyMatches(
  db: Executor,
  businessId: string,
  words: FuzzyWord[],
  table: 'transactions',
): SelectQueryBuilder<Database, 'transactions', object>;
export function fromFuzzyMatches(db: Executor, businessId: string, words: FuzzyWord[], table: Searchable) {
  const matches = db.selectFrom(contactIdsMatching(db, businessId, words).as('fuzzy_match'));
  const joined =
    table === 'contacts'
      ? matches.crossJoin('contacts').whereRef('contacts.id', '=', 'fuzzy_match.fuzzy_contact_id')
      : matches.crossJoin('transactions').whereRef('transactions.contact_id', '=', 'fuzzy_match.fuzzy_contact_id');
  return joined as unknown as SelectQueryBuilder<Database, Searchable, object>;
}
