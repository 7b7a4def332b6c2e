import { sql } from 'kysely';
import { claimsOfContact } from '../contacts/repository.js';
import type { Executor } from '../db/schema.js';
import { updatedAtAfter } from '../db/updated-at.js';

/**
 * The writes of merging one buyer into another (contact-merge/service.ts runs them in one
 * transaction, both contacts locked): every row that names the merged contact names the kept one.
 */

/** What moves with the merged buyer, counted for the confirmation step. */
export interface MergeCounts {
  dues: number;
  receipts: number;
  claims: number;
  replies: number;
  /** bank credits matched to the buyer or suggesting it */
  bank_credits: number;
}

const count = async (q: { executeTakeFirstOrThrow(): Promise<{ n: number | string | bigint }> }) =>
  Number((await q.executeTakeFirstOrThrow()).n);

export async function countMoving(db: Executor, businessId: string, contactId: string): Promise<MergeCounts> {
  const n = sql<number>`count(*)`.as('n');
  const [dues, receipts, claims, replies, bankCredits] = await Promise.all([
    count(
      db
        .selectFrom('transactions')
        .select(n)
        .where('business_id', '=', businessId)
        .where('contact_id', '=', contactId)
        .where('deleted_at', 'is', null),
    ),
    count(
      db.selectFrom('receipts').select(n).where('business_id', '=', businessId).where('contact_id', '=', contactId),
    ),
    count(
      db
        .selectFrom('payment_claims')
        .select(n)
        .where('business_id', '=', businessId)
        .where((eb) => claimsOfContact(eb, businessId, contactId)),
    ),
    count(
      db
        .selectFrom('buyer_replies')
        .select(n)
        .where('business_id', '=', businessId)
        .where('contact_id', '=', contactId),
    ),
    count(
      db
        .selectFrom('bank_credits')
        .select(n)
        .where('business_id', '=', businessId)
        .where((eb) => eb.or([eb('contact_id', '=', contactId), eb('suggestions', 'like', `%${contactId}%`)])),
    ),
  ]);
  return { dues, receipts, claims, replies, bank_credits: bankCredits };
}

/** The ids of the merged contact's dues that are not deleted (they get transaction.updated). */
export function liveDueIds(db: Executor, businessId: string, contactId: string): Promise<string[]> {
  return db
    .selectFrom('transactions')
    .select('id')
    .where('business_id', '=', businessId)
    .where('contact_id', '=', contactId)
    .where('deleted_at', 'is', null)
    .orderBy('id')
    .execute()
    .then((rows) => rows.map((r) => r.id));
}

/**
 * The ids of every due, receipt and adjustment of the merged contact: their audit entries. A
 * deleted due moves too, but is absent in the log since its deletion (every field null): no entry.
 */
export async function movedIds(db: Executor, businessId: string, contactId: string) {
  const [dues, receipts, adjustments] = await Promise.all([
    db
      .selectFrom('transactions')
      .select('id')
      .where('business_id', '=', businessId)
      .where('contact_id', '=', contactId)
      .where('deleted_at', 'is', null)
      .execute(),
    db
      .selectFrom('receipts')
      .select('id')
      .where('business_id', '=', businessId)
      .where('contact_id', '=', contactId)
      .execute(),
    db
      .selectFrom('adjustments')
      .select('id')
      .where('business_id', '=', businessId)
      .where('contact_id', '=', contactId)
      .execute(),
  ]);
  return {
    dues: dues.map((r) => r.id),
    receipts: receipts.map((r) => r.id),
    adjustments: adjustments.map((r) => r.id),
  };
}

/**
 * Moves the merged contact's dues to the kept one, stamped `at` (a client syncing dues by `since`
 * sees their new contact). The balance triggers watch amounts, not contact_id: the service moves
 * the contacts' kept balances itself.
 */
export async function moveDues(db: Executor, businessId: string, from: string, to: string, at: string) {
  await db
    .updateTable('transactions')
    .set({ contact_id: to, updated_at: updatedAtAfter(db, at) })
    .where('business_id', '=', businessId)
    .where('contact_id', '=', from)
    .execute();
}

/** The tables whose rows belong to one contact of the business by a plain contact_id column. */
const BY_CONTACT = [
  'receipts',
  'adjustments',
  'payment_claims',
  'reminders',
  'buyer_replies',
  'bank_credits',
  'bank_payers',
  // the account page's gateway links and the gateway payments made on them
  'account_payment_links',
  'gateway_payments',
] as const;

export async function moveContactRows(db: Executor, businessId: string, from: string, to: string) {
  for (const table of BY_CONTACT) {
    await db
      .updateTable(table)
      .set({ contact_id: to })
      .where('business_id', '=', businessId)
      .where('contact_id', '=', from)
      .execute();
  }
  // Messages sent to the buyer (the business is on the row; the contact id is unique anyway).
  await db.updateTable('chat_messages').set({ contact_id: to }).where('contact_id', '=', from).execute();
}

/**
 * The merged contact's kept statement months (contact_ledger_months) added into the kept one's,
 * month by month, then removed: O(months). Their triggers watch amounts, not contact_id.
 */
export async function moveLedgerMonths(db: Executor, businessId: string, from: string, to: string) {
  await db
    .insertInto('contact_ledger_months')
    .columns(['contact_id', 'month', 'business_id', 'paise'])
    .expression(
      db
        .selectFrom('contact_ledger_months as m')
        .innerJoin('contacts as kept', 'kept.business_id', 'm.business_id')
        .select(['kept.id', 'm.month', 'm.business_id', 'm.paise'])
        .where('m.contact_id', '=', from)
        .where('kept.id', '=', to)
        .where('m.business_id', '=', businessId),
    )
    .onConflict((oc) =>
      oc.columns(['contact_id', 'month']).doUpdateSet({ paise: sql`contact_ledger_months.paise + excluded.paise` }),
    )
    .execute();
  await db.deleteFrom('contact_ledger_months').where('contact_id', '=', from).execute();
}

/**
 * The merged contact's kept open days (contact_open_days) added into the kept one's, day by day,
 * then removed: O(days). Their triggers watch amounts, dates and `open`, not contact_id.
 */
export async function moveOpenDays(db: Executor, from: string, to: string) {
  await db
    .insertInto('contact_open_days')
    .columns(['contact_id', 'day', 'due_count', 'balance_paise', 'scored_paise'])
    .expression(
      db
        .selectFrom('contact_open_days as d')
        // the kept id as a column (a bound value in a select list has no type on PostgreSQL)
        .innerJoin('contacts as kept', (join) => join.on('kept.id', '=', to))
        .select(['kept.id', 'd.day', 'd.due_count', 'd.balance_paise', 'd.scored_paise'])
        .where('d.contact_id', '=', from),
    )
    .onConflict((oc) =>
      oc.columns(['contact_id', 'day']).doUpdateSet({
        due_count: sql`contact_open_days.due_count + excluded.due_count`,
        balance_paise: sql`contact_open_days.balance_paise + excluded.balance_paise`,
        scored_paise: sql`contact_open_days.scored_paise + excluded.scored_paise`,
      }),
    )
    .execute();
  await db.deleteFrom('contact_open_days').where('contact_id', '=', from).execute();
}

/** Bank credits waiting for the owner whose suggestions name the merged contact. */
export function creditsSuggesting(db: Executor, businessId: string, contactId: string) {
  return db
    .selectFrom('bank_credits')
    .select(['id', 'suggestions'])
    .where('business_id', '=', businessId)
    .where('suggestions', 'like', `%${contactId}%`)
    .execute();
}

export function setSuggestions(db: Executor, id: string, suggestions: string) {
  return db.updateTable('bank_credits').set({ suggestions }).where('id', '=', id).execute();
}

export function scoreSumsOf(db: Executor, contactId: string) {
  return db
    .selectFrom('contact_scores')
    .select(['epoch_day', 'weighted', 'weights', 'terms'])
    .where('contact_id', '=', contactId)
    .executeTakeFirst();
}

/**
 * The kept contact takes the merged one's open balance, credit, count of dues and oldest open due,
 * and its phone, language and assignee where it has none of its own.
 */
export function absorbInto(
  db: Executor,
  keptId: string,
  merged: {
    open_paise: number;
    credit_paise: number;
    due_count: number;
    oldest_open_due: string;
    phone: string | null;
    phone_rev: string | null;
    language: string | null;
    assigned_to: string | null;
  },
  at: string,
) {
  const open = Number(merged.open_paise);
  const credit = Number(merged.credit_paise);
  return db
    .updateTable('contacts')
    .set({
      open_paise: sql`open_paise + ${open}`,
      credit_paise: sql`credit_paise + ${credit}`,
      balance_paise: sql`balance_paise + ${open - credit}`,
      due_count: sql`due_count + ${Number(merged.due_count)}`,
      oldest_open_due: sql`case when oldest_open_due < ${merged.oldest_open_due} then oldest_open_due else ${merged.oldest_open_due} end`,
      phone: sql`coalesce(phone, ${merged.phone})`,
      phone_rev: sql`case when phone is null then ${merged.phone_rev} else phone_rev end`,
      language: sql`coalesce(language, ${merged.language})`,
      assigned_to: sql`coalesce(assigned_to, ${merged.assigned_to})`,
      updated_at: updatedAtAfter(db, at),
    })
    .where('id', '=', keptId)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/**
 * What the merged buyer keeps answering for (merged_contacts): its account link and payment
 * reference now lead to the kept buyer, and so do those of the buyers merged into it before.
 */
export async function forwardToKept(
  db: Executor,
  merged: { id: string; business_id: string; account_token: string | null; payment_reference: string | null },
  keptId: string,
  at: string,
) {
  await db.updateTable('merged_contacts').set({ kept_id: keptId }).where('kept_id', '=', merged.id).execute();
  await db
    .insertInto('merged_contacts')
    .values({
      id: merged.id,
      business_id: merged.business_id,
      kept_id: keptId,
      account_token: merged.account_token,
      payment_reference: merged.payment_reference,
      merged_at: at,
    })
    .execute();
}

/** The merged contact's own rows, then the contact itself (nothing else names it by then). */
export async function deleteContact(db: Executor, businessId: string, contactId: string) {
  await db.deleteFrom('contact_name_terms').where('contact_id', '=', contactId).execute();
  await db.deleteFrom('contact_scores').where('contact_id', '=', contactId).execute();
  await db.deleteFrom('contacts').where('business_id', '=', businessId).where('id', '=', contactId).execute();
}
