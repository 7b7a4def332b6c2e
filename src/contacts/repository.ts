import { type ExpressionBuilder, type Selectable, type SelectQueryBuilder, sql } from 'kysely';
import { exactTime, fewNameTrigramMatches, jsonArrays, offIndex } from '../db/port.js';
import { precompiled } from '../db/precompiled.js';
import type { ContactTable, Database, Executor } from '../db/schema.js';
import { updatedAtAfter } from '../db/updated-at.js';
import { readTotalsColumn } from '../totals/read.js';
import type { FuzzyWord } from './fuzzy.js';
import { fromFuzzyMatches } from './name-terms.js';

export type ContactRow = Selectable<ContactTable>;

const findContactQuery = precompiled<{ businessId: string; id: string }, ContactRow>((db, arg) =>
  db.selectFrom('contacts').selectAll().where('business_id', '=', arg('businessId')).where('id', '=', arg('id')),
);

/** One contact of the business (on every create by contact_id: precompiled). */
export async function findContact(db: Executor, businessId: string, id: string): Promise<ContactRow | undefined> {
  return (await findContactQuery(db, { businessId, id }))[0];
}

/** These contacts' names by id (the buyers a page of audit entries names); by id, not the business's index. */
export function contactNamesByIds(db: Executor, businessId: string, ids: readonly string[]) {
  return db
    .selectFrom('contacts')
    .select(['id', 'name'])
    .where(offIndex(db, 'business_id'), '=', businessId)
    .where('id', 'in', ids)
    .execute();
}

export function findContactByNameKey(db: Executor, businessId: string, nameKey: string) {
  return db
    .selectFrom('contacts')
    .selectAll()
    .where('business_id', '=', businessId)
    .where('name_key', '=', nameKey)
    .executeTakeFirst();
}

/** The business's contacts with these name keys (at most one each). */
export function findContactsByNameKeys(db: Executor, businessId: string, nameKeys: readonly string[]) {
  if (nameKeys.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('contacts')
    .selectAll()
    .where('business_id', '=', businessId)
    .where('name_key', 'in', nameKeys)
    .execute();
}

/** Inserts those whose name is not taken; returns the rows inserted (a taken name's row is left out). */
export function insertContactsIfAbsent(db: Executor, rows: readonly ContactRow[]): Promise<ContactRow[]> {
  if (rows.length === 0) return Promise.resolve([]);
  return db
    .insertInto('contacts')
    .values(rows)
    .onConflict((oc) => oc.columns(['business_id', 'name_key']).doNothing())
    .returningAll()
    .execute();
}

/**
 * Changes a contact, stamped `at` (never earlier than its last stamp: db/updated-at.ts). A new name
 * or phone is also its dues' contact_name / contact_phone, so their updated_at moves with it (in
 * the caller's transaction): a client syncing dues by `since` sees them change.
 */
export async function updateContact(
  db: Executor,
  businessId: string,
  id: string,
  patch: Partial<
    Pick<ContactRow, 'name' | 'name_key' | 'phone' | 'phone_rev' | 'reminders_paused' | 'assigned_to' | 'language'>
  >,
  at: string,
) {
  const updated = await db
    .updateTable('contacts')
    .set({ ...patch, updated_at: updatedAtAfter(db, at) })
    .where('business_id', '=', businessId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
  if (updated && (patch.name !== undefined || patch.phone !== undefined)) {
    await db
      .updateTable('transactions')
      .set({ updated_at: updatedAtAfter(db, at) })
      .where('business_id', '=', businessId)
      .where('contact_id', '=', id)
      .execute();
  }
  return updated;
}

export interface ContactFilter {
  /** lower-cased substring of the name */
  search?: string | undefined;
  /** read the search's matches from the trigram table (SQLite, 3+ characters: see trigramsNarrow) */
  searchTrigrams?: boolean | undefined;
  /** changed at or after this instant (ISO 8601): an incremental sync */
  since?: string | undefined;
  /** reversed phone digits: "ends with" as a prefix range */
  phoneRevPrefix?: string | undefined;
  /** every word must match a name word within one typo (contacts/fuzzy.ts) */
  fuzzyName?: FuzzyWord[] | undefined;
  /** only contacts whose kept balance is above 0 */
  hasBalance?: boolean | undefined;
  /** only the buyers assigned to this user (a collector's list) */
  assignedTo?: string | undefined;
}

export const CONTACT_SORTS = ['created_desc', 'balance_desc', 'name', 'oldest_due'] as const;
export type ContactSort = (typeof CONTACT_SORTS)[number];

/** Each sort's order: its key column, its direction; ties broken by id in the same direction. */
const SORT_KEYS: Record<
  ContactSort,
  { column: 'created_at' | 'balance_paise' | 'name_key' | 'oldest_open_due'; dir: 'asc' | 'desc' }
> = {
  created_desc: { column: 'created_at', dir: 'desc' },
  balance_desc: { column: 'balance_paise', dir: 'desc' },
  name: { column: 'name_key', dir: 'asc' },
  oldest_due: { column: 'oldest_open_due', dir: 'asc' },
};

function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** Upper bound of the digit strings starting with `prefix` ("1239" -> "124"); null when none. */
function nextDigitPrefix(prefix: string): string | null {
  const digits = prefix.split('');
  while (digits.length > 0) {
    const last = digits.pop() as string;
    if (last !== '9') return digits.join('') + String(Number(last) + 1);
  }
  return null;
}

/** The FTS5 trigram tokenizer indexes 3-character runs: a shorter text has nothing to look up. */
const TRIGRAM = 3;
/**
 * Reading a match through the trigram table (the table's entry, then the contact by rowid, then
 * a sort) costs about what testing 10-30 of the business's names costs in the scan (measured in
 * bench/contact-search.ts): past one match in 16 names, the scan is the cheaper read.
 */
const NAMES_PER_MATCH = 16;

/** The search as one FTS5 phrase: `%`, `_`, `\` and spaces are plain characters there. */
function trigramPhrase(search: string): string {
  return `"${search.replaceAll('"', '""')}"`;
}

/**
 * Issue 18, SQLite: whether a search should read its matches from the FTS5 trigram table
 * (migration 2026-11-24T12-00) rather than scan the business's names. The table spans every
 * business, so a text most names hold (`mills`, `ers`) matches far more rows there than the
 * business has names: the table pays only when the text is rare. Decided by reading at most
 * 1/16 of the business's contact count of matches: fewer than that, and the table is cheaper.
 * Never on PostgreSQL (its planner weighs its trigram index itself) nor under 3 characters.
 */
export async function trigramsNarrow(db: Executor, businessId: string, search: string): Promise<boolean> {
  // NUL ends an FTS5 query string (a syntax error): the scan answers such a text (refused at the
  // API's edge anyway, PRODUCT part 16).
  if ([...search].length < TRIGRAM || search.includes('\u0000')) return false;
  return fewNameTrigramMatches(db, trigramPhrase(search), async () =>
    Math.floor((await readTotalsColumn(db, businessId, 'contact_count')) / NAMES_PER_MATCH),
  );
}

/**
 * The contacts whose name holds the search's trigrams, read from the FTS5 table and joined to
 * `contacts` by rowid, so the query starts from the index rather than the business's names. The
 * caller keeps the exact LIKE test, so the table only narrows the rows: the results are the scan's.
 */
function fromNameTrigrams(db: Executor, search: string) {
  const matches = sql<{
    name_rowid: number;
  }>`(select rowid as name_rowid from contacts_name_fts where contacts_name_fts match ${trigramPhrase(search)})`;
  return db
    .selectFrom(matches.as('name_match'))
    .crossJoin('contacts')
    .where(sql<boolean>`contacts.rowid = name_match.name_rowid`) as unknown as SelectQueryBuilder<
    Database,
    'contacts',
    object
  >;
}

function filtered(db: Executor, businessId: string, filter: ContactFilter) {
  const from =
    filter.fuzzyName === undefined
      ? filter.search !== undefined && filter.searchTrigrams === true
        ? fromNameTrigrams(db, filter.search)
        : db.selectFrom('contacts')
      : fromFuzzyMatches(db, businessId, filter.fuzzyName, 'contacts');
  let q = from.where('business_id', '=', businessId);
  if (filter.search !== undefined) {
    q = q.where(sql<boolean>`name_key like ${`%${escapeLike(filter.search)}%`} escape '\\'`);
  }
  if (filter.hasBalance === true) q = q.where('contacts.balance_paise', '>', 0);
  if (filter.assignedTo !== undefined) q = q.where('contacts.assigned_to', '=', filter.assignedTo);
  if (filter.since !== undefined) q = q.where('updated_at', '>=', filter.since);
  if (filter.phoneRevPrefix !== undefined) {
    q = q.where('phone_rev', '>=', filter.phoneRevPrefix);
    const upper = nextDigitPrefix(filter.phoneRevPrefix);
    if (upper !== null) q = q.where('phone_rev', '<', upper);
  }
  return q;
}

/** Where a page starts (PRODUCT part 17): the list's order keys of the row given as `starting_after`. */
export interface ContactPosition {
  created_at: string;
  id: string;
  /** the other sorts' keys (findContactPosition reads them all) */
  balance_paise?: number;
  name_key?: string;
  oldest_open_due?: string;
}

export function findContactPosition(
  db: Executor,
  businessId: string,
  id: string,
): Promise<ContactPosition | undefined> {
  return db
    .selectFrom('contacts')
    .select([exactTime(db, 'created_at').as('created_at'), 'id', 'balance_paise', 'name_key', 'oldest_open_due'])
    .where('business_id', '=', businessId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** A page of contacts, newest first: `offset` rows skipped, or those following `after` (a cursor). */
export function listContacts(
  db: Executor,
  businessId: string,
  filter: ContactFilter,
  limit: number,
  offset: number,
  after?: ContactPosition,
  sort: ContactSort = 'created_desc',
) {
  const { column, dir } = SORT_KEYS[sort];
  return filtered(db, businessId, filter)
    .$if(after !== undefined, (q) =>
      q.where((eb) =>
        eb(
          eb.refTuple(`contacts.${column}`, 'contacts.id'),
          dir === 'desc' ? '<' : '>',
          eb.tuple((after as ContactPosition)[column] as never, (after as ContactPosition).id),
        ),
      ),
    )
    .selectAll('contacts')
    .orderBy(`contacts.${column}`, dir)
    .orderBy('contacts.id', dir)
    .limit(limit)
    .offset(offset)
    .execute();
}

export async function countContacts(db: Executor, businessId: string, filter: ContactFilter): Promise<number> {
  const row = await filtered(db, businessId, filter)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * What a contact's standing (balances, counts, payment score) is computed from, all kept or
 * bounded: its count of dues, its open dues by day (contact_open_days), its paid dues dated after
 * today, and its kept score sums (contact_scores). Reading it costs the days its open dues fall
 * on, never its history.
 */
export interface ContactStandingRow {
  contact_id: string;
  /** its dues not deleted (kept) */
  due_count: number;
  /** JSON (text on SQLite) of the contact_open_days rows, or null (PostgreSQL) when none */
  open_days: string | OpenDayJson[] | null;
  /** JSON of the paid dues dated after today, whose kept score terms the read corrects (lib/payment-score.ts) */
  paid_after_today: string | PaidDueJson[] | null;
  /** the contact's kept sums (contact_scores); null when none of its dues was ever paid */
  epoch_day: number | null;
  weighted: number | null;
  weights: number | null;
  terms: number | null;
}

/** [day, due_count, balance_paise, scored_paise] of one contact_open_days row */
export type OpenDayJson = [string, number, number, number];
/** [amount_paise, due_date, paid_at, promise_date] of a paid due */
export type PaidDueJson = [number, string, string | null, string | null];

/**
 * The standing's columns of the contact `c` (its kept score sums joined as `s`). The paid dues
 * after today are found by their partial index (`open = 0` written, not bound, to match it).
 * `today` is a value or a precompiled stand-in.
 */
function standingColumns(db: Executor, today: unknown) {
  const days = jsonArrays(db, [sql`d.day`, sql`d.due_count`, sql`d.balance_paise`, sql`d.scored_paise`]);
  const paid = jsonArrays(db, [sql`p.amount_paise`, sql`p.due_date`, sql`p.paid_at`, sql`p.promise_date`]);
  return [
    sql<OpenDayJson[] | string | null>`(select ${days} from contact_open_days d where d.contact_id = c.id)`.as(
      'open_days',
    ),
    sql<PaidDueJson[] | string | null>`(select ${paid} from transactions p
      where p.contact_id = c.id and p.open = 0 and p.due_date > ${today})`.as('paid_after_today'),
    's.epoch_day',
    's.weighted',
    's.weights',
    's.terms',
  ] as const;
}

/** Standings of some contacts of the business, in one statement. */
export function contactStandings(
  db: Executor,
  businessId: string,
  contactIds: string[],
  today: string,
): Promise<ContactStandingRow[]> {
  return (
    db
      .selectFrom('contacts as c')
      .leftJoin('contact_scores as s', 's.contact_id', 'c.id')
      .select(['c.id as contact_id', 'c.due_count'])
      .select(standingColumns(db, today))
      // Off the index: SQLite (no statistics) otherwise walked the business's contacts by
      // (business_id, ...) for the page's ids (113 ms at 100,000 contacts) instead of their keys.
      .where(offIndex(db, 'c.business_id'), '=', businessId)
      .where('c.id', 'in', contactIds)
      .execute() as Promise<ContactStandingRow[]>
  );
}

/** Every due of some contacts (not deleted), as the score reads them: when the kept sums cannot tell. */
export function duesForScore(db: Executor, businessId: string, contactIds: string[]) {
  return db
    .selectFrom('transactions')
    .select(['contact_id', 'amount_paise', 'due_date', 'paid_at', 'promise_date'])
    .where('business_id', '=', businessId)
    .where('contact_id', 'in', contactIds)
    .where(offIndex(db, 'open'), '>=', 0)
    .execute();
}

/**
 * A contact's chat replies, newest first, with the due date and amount of the due a promise was
 * recorded on, unless it was deleted since (for the dashboard to name and link it; the API's schema
 * leaves them out).
 */
export function listReplies(db: Executor, contactId: string, limit: number) {
  return db
    .selectFrom('buyer_replies as r')
    .leftJoin('transactions as t', (join) =>
      join
        .onRef('t.id', '=', 'r.transaction_id')
        .onRef('t.business_id', '=', 'r.business_id')
        .on('t.deleted_at', 'is', null),
    )
    .select([
      'r.id',
      'r.text',
      'r.received_at',
      'r.promise_date',
      'r.transaction_id',
      't.due_date as due_date',
      't.amount_paise as due_amount_paise',
    ])
    .where('r.contact_id', '=', contactId)
    .orderBy('r.received_at', 'desc')
    .orderBy('r.id', 'desc')
    .limit(limit)
    .execute();
}

export type ReplyRow = Awaited<ReturnType<typeof listReplies>>[number];

/** A contact with what its standing is computed from (contactStandings for one contact). */
export type ContactWithStandingRow = ContactRow & Omit<ContactStandingRow, 'contact_id' | 'due_count'>;

const contactWithStandingQuery = precompiled<{ businessId: string; id: string; today: string }, ContactWithStandingRow>(
  (db, arg) =>
    db
      .selectFrom('contacts as c')
      .leftJoin('contact_scores as s', 's.contact_id', 'c.id')
      .selectAll('c')
      .select(standingColumns(db, arg('today')))
      .where('c.business_id', '=', arg('businessId'))
      .where('c.id', '=', arg('id')) as never,
);

/**
 * One contact of the business with what its standing is computed from (contactStandings for one
 * contact), in one statement: GET /v1/contacts/{id} is one round trip.
 */
export async function findContactWithStanding(
  db: Executor,
  businessId: string,
  id: string,
  today: string,
): Promise<ContactWithStandingRow | undefined> {
  return (await contactWithStandingQuery(db, { businessId, id, today }))[0];
}

/**
 * "The claims of a contact" as a filter: on its account, or on any of its dues (deleted ones too).
 * What erasing a buyer clears and merging two buyers moves.
 */
export function claimsOfContact(
  eb: ExpressionBuilder<Database, 'payment_claims'>,
  businessId: string,
  contactId: string,
) {
  return eb.or([
    eb('contact_id', '=', contactId),
    eb(
      'transaction_id',
      'in',
      eb
        .selectFrom('transactions')
        .select('id')
        .where('business_id', '=', businessId)
        .where('contact_id', '=', contactId),
    ),
  ]);
}
