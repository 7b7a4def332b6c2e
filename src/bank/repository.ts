import { sql } from 'kysely';
import { lockedRows } from '../db/port.js';
import type { BankCreditTable, BankStatementTable, Executor } from '../db/schema.js';

/** Lookups by value are sent in slices of this many values (bound parameters stay well under the stores' limits). */
const IN_SLICE = 500;

async function inSlices<T>(values: readonly string[], read: (slice: string[]) => Promise<T[]>): Promise<T[]> {
  const unique = [...new Set(values)];
  const rows: T[] = [];
  for (let i = 0; i < unique.length; i += IN_SLICE) rows.push(...(await read(unique.slice(i, i + IN_SLICE))));
  return rows;
}

export function insertStatement(db: Executor, row: BankStatementTable) {
  return db.insertInto('bank_statements').values(row).execute();
}

/**
 * Inserts the credits not seen before and returns those inserted: a line whose fingerprint the
 * business has (from an earlier upload, or one committing now: the unique index waits for it) is
 * left out.
 */
export async function insertNewCredits(db: Executor, rows: readonly BankCreditTable[]): Promise<Set<string>> {
  const inserted = new Set<string>();
  for (let i = 0; i < rows.length; i += 200) {
    const done = await db
      .insertInto('bank_credits')
      .values(rows.slice(i, i + 200))
      .onConflict((oc) => oc.columns(['business_id', 'fingerprint']).doNothing())
      .returning('id')
      .execute();
    for (const r of done) inserted.add(r.id);
  }
  return inserted;
}

/** Writes the decisions of many credits inserted earlier in the transaction (by id), a slice per statement. */
export async function saveDecisions(db: Executor, rows: readonly BankCreditTable[]) {
  for (let i = 0; i < rows.length; i += 200) {
    await db
      .insertInto('bank_credits')
      .values(rows.slice(i, i + 200))
      .onConflict((oc) =>
        oc.column('id').doUpdateSet((eb) => ({
          status: eb.ref('excluded.status'),
          matched_by: eb.ref('excluded.matched_by'),
          transaction_id: eb.ref('excluded.transaction_id'),
          contact_id: eb.ref('excluded.contact_id'),
          receipt_id: eb.ref('excluded.receipt_id'),
          suggestions: eb.ref('excluded.suggestions'),
          decided_at: eb.ref('excluded.decided_at'),
        })),
      )
      .execute();
  }
}

export function updateCredit(
  db: Executor,
  id: string,
  patch: Partial<
    Pick<
      BankCreditTable,
      'status' | 'matched_by' | 'transaction_id' | 'contact_id' | 'receipt_id' | 'suggestions' | 'decided_at'
    >
  >,
) {
  return db.updateTable('bank_credits').set(patch).where('id', '=', id).execute();
}

const credit = (db: Executor, businessId: string, id: string) =>
  db.selectFrom('bank_credits').selectAll().where('business_id', '=', businessId).where('id', '=', id);

/** One credit of the business. */
export function findCredit(db: Executor, businessId: string, id: string) {
  return credit(db, businessId, id).executeTakeFirst();
}

/** One credit of the business, locked on PostgreSQL so that two decisions on it queue. */
export function lockCredit(db: Executor, businessId: string, id: string) {
  return credit(db, businessId, id).$call(lockedRows(db)).executeTakeFirst();
}

/** The credit that recorded a receipt (the partial index on receipt_id). */
export function creditOfReceipt(db: Executor, businessId: string, receiptId: string) {
  return db
    .selectFrom('bank_credits')
    .selectAll()
    .where('receipt_id', '=', receiptId)
    .where('business_id', '=', businessId)
    .executeTakeFirst();
}

/** Forgets that these payers pay for this contact (a payer since remembered for another stays). */
export async function forgetPayers(db: Executor, businessId: string, payers: readonly string[], contactId: string) {
  if (payers.length === 0) return;
  await db
    .deleteFrom('bank_payers')
    .where('business_id', '=', businessId)
    .where('payer', 'in', payers)
    .where('contact_id', '=', contactId)
    .execute();
}

/** A business's credits of these statuses (all when none given), newest first. */
export function listCredits(
  db: Executor,
  businessId: string,
  statuses: readonly string[],
  limit: number,
  offset: number,
) {
  return db
    .selectFrom('bank_credits')
    .selectAll()
    .where('business_id', '=', businessId)
    .$if(statuses.length > 0, (q) => q.where('status', 'in', statuses))
    .orderBy('date', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .offset(offset)
    .execute();
}

export function pendingClaimsByReference(db: Executor, businessId: string, references: readonly string[]) {
  return inSlices(references, (slice) =>
    db
      .selectFrom('payment_claims')
      .select(['id', 'transaction_id', 'contact_id', 'reference', 'created_at'])
      .where('business_id', '=', businessId)
      // A literal, not a parameter: SQLite uses a partial index only for its own condition as written.
      .where('status', '=', sql.lit('pending'))
      .where('reference', 'in', slice)
      .orderBy('created_at')
      .execute(),
  );
}

export function duesByPaymentReference(db: Executor, businessId: string, references: readonly string[]) {
  return inSlices(references, (slice) =>
    db
      .selectFrom('transactions')
      .select(['id', 'contact_id', 'payment_reference'])
      .where('business_id', '=', businessId)
      .where('payment_reference', 'in', slice)
      .execute(),
  );
}

/** Contacts by payment reference, a buyer merged into another by its own (as the kept buyer). */
export function contactsByPaymentReference(db: Executor, businessId: string, references: readonly string[]) {
  return inSlices(references, (slice) =>
    db
      .selectFrom('contacts')
      .select(['id', 'payment_reference'])
      .where('business_id', '=', businessId)
      .where('payment_reference', 'in', slice)
      .unionAll(
        db
          .selectFrom('merged_contacts')
          .select(['kept_id as id', 'payment_reference'])
          .where('business_id', '=', businessId)
          .where('payment_reference', 'in', slice),
      )
      .execute(),
  );
}

/** Open dues by invoice number (the index on business_id, invoice_number). */
export function openDuesByInvoiceNumber(db: Executor, businessId: string, numbers: readonly string[]) {
  return inSlices(numbers, (slice) =>
    db
      .selectFrom('transactions')
      .select(['id', 'contact_id', 'invoice_number', 'due_date', 'created_at'])
      .where('business_id', '=', businessId)
      .where('invoice_number', 'in', slice)
      .where('open', '=', 1)
      .execute(),
  );
}

export function payersByKey(db: Executor, businessId: string, payers: readonly string[]) {
  return inSlices(payers, (slice) =>
    db
      .selectFrom('bank_payers')
      .select(['payer', 'contact_id'])
      .where('business_id', '=', businessId)
      .where('payer', 'in', slice)
      .execute(),
  );
}

/** Remembers many payers at once, each for its contact (one entry per payer: the caller keeps the latest). */
export async function rememberPayerContacts(
  db: Executor,
  businessId: string,
  payers: ReadonlyMap<string, string>,
  at: string,
) {
  const rows = [...payers].map(([payer, contactId]) => ({
    business_id: businessId,
    payer,
    contact_id: contactId,
    updated_at: at,
  }));
  for (let i = 0; i < rows.length; i += IN_SLICE) {
    await db
      .insertInto('bank_payers')
      .values(rows.slice(i, i + IN_SLICE))
      .onConflict((oc) =>
        oc.columns(['business_id', 'payer']).doUpdateSet((eb) => ({
          contact_id: eb.ref('excluded.contact_id'),
          updated_at: eb.ref('excluded.updated_at'),
        })),
      )
      .execute();
  }
}

/** Remembers who paid for a contact (the latest contact wins). */
export async function rememberPayers(
  db: Executor,
  businessId: string,
  payers: readonly string[],
  contactId: string,
  at: string,
) {
  if (payers.length === 0) return;
  await db
    .insertInto('bank_payers')
    .values(payers.map((payer) => ({ business_id: businessId, payer, contact_id: contactId, updated_at: at })))
    .onConflict((oc) => oc.columns(['business_id', 'payer']).doUpdateSet({ contact_id: contactId, updated_at: at }))
    .execute();
}

export function contactsByNameKey(db: Executor, businessId: string, keys: readonly string[]) {
  return inSlices(keys, (slice) =>
    db
      .selectFrom('contacts')
      .select(['id', 'name_key'])
      .where('business_id', '=', businessId)
      .where('name_key', 'in', slice)
      .execute(),
  );
}

/** Amounts per statement in the suggestions' reads: one limited index probe each, joined by UNION ALL. */
const AMOUNT_SLICE = 100;

/**
 * For each amount, up to `limit` open dues whose balance is that amount, oldest due date first:
 * one index probe of `limit` rows per amount (the partial index on the balance), so an amount many
 * dues share costs no more than a rare one.
 */
export async function openDuesWithBalances(
  db: Executor,
  businessId: string,
  amounts: readonly number[],
  limit: number,
) {
  const unique = [...new Set(amounts)];
  const rows: { id: string; contact_id: string; balance: number; due_date: string }[] = [];
  for (let i = 0; i < unique.length; i += AMOUNT_SLICE) {
    const probes = unique.slice(i, i + AMOUNT_SLICE).map((paise, k) =>
      db
        .selectFrom(
          db
            .selectFrom('transactions')
            .select([
              'id',
              'contact_id',
              sql<number>`(amount_paise - amount_paid_paise - amount_adjusted_paise)`.as('balance'),
              'due_date',
            ])
            .where('business_id', '=', businessId)
            .where(sql`(amount_paise - amount_paid_paise - amount_adjusted_paise)`, '=', paise)
            .where('open', '=', sql.lit(1))
            .orderBy('due_date')
            .limit(limit)
            .as(`p${k}`),
        )
        .select(['id', 'contact_id', 'balance', 'due_date']),
    );
    const [first, ...rest] = probes;
    if (!first) continue;
    const query = rest.reduce((q, next) => q.unionAll(next), first);
    for (const r of await query.execute()) rows.push({ ...r, balance: Number(r.balance) });
  }
  return rows;
}

/** For each amount, up to `limit` contacts whose balance is that amount (the contacts' balance index). */
export async function contactsWithBalances(
  db: Executor,
  businessId: string,
  amounts: readonly number[],
  limit: number,
) {
  const unique = [...new Set(amounts)];
  const rows: { id: string; balance_paise: number }[] = [];
  for (let i = 0; i < unique.length; i += AMOUNT_SLICE) {
    const probes = unique
      .slice(i, i + AMOUNT_SLICE)
      .map((paise, k) =>
        db
          .selectFrom(
            db
              .selectFrom('contacts')
              .select(['id', 'balance_paise'])
              .where('business_id', '=', businessId)
              .where('balance_paise', '=', paise)
              .limit(limit)
              .as(`p${k}`),
          )
          .select(['id', 'balance_paise']),
      );
    const [first, ...rest] = probes;
    if (!first) continue;
    const query = rest.reduce((q, next) => q.unionAll(next), first);
    for (const r of await query.execute()) rows.push({ id: r.id, balance_paise: Number(r.balance_paise) });
  }
  return rows;
}

/** How many of a business's credits have these statuses (the status index). */
export async function countCredits(db: Executor, businessId: string, statuses: readonly string[]): Promise<number> {
  const row = await db
    .selectFrom('bank_credits')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('business_id', '=', businessId)
    .where('status', 'in', statuses)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** What the review queue shows of the dues its suggestions name (by primary key). */
export function duesByIds(db: Executor, businessId: string, ids: readonly string[]) {
  return inSlices(ids, (slice) =>
    db
      .selectFrom('transactions')
      .innerJoin('contacts', 'contacts.id', 'transactions.contact_id')
      .select([
        'transactions.id',
        'transactions.invoice_number',
        'transactions.due_date',
        'transactions.amount_paise',
        'transactions.amount_paid_paise',
        'transactions.amount_adjusted_paise',
        'transactions.open',
        'contacts.name as contact_name',
      ])
      .where('transactions.business_id', '=', businessId)
      .where('transactions.id', 'in', slice)
      .execute(),
  );
}

/** What the review queue shows of the contacts its suggestions and matches name (by primary key). */
export function contactsByIds(db: Executor, businessId: string, ids: readonly string[]) {
  return inSlices(ids, (slice) =>
    db
      .selectFrom('contacts')
      .select(['id', 'name', 'balance_paise'])
      .where('business_id', '=', businessId)
      .where('id', 'in', slice)
      .execute(),
  );
}
