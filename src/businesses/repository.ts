import type { Selectable } from 'kysely';
import { precompiled } from '../db/precompiled.js';
import type { BusinessTable, Executor } from '../db/schema.js';

export type BusinessRow = Selectable<BusinessTable>;

export function insertBusiness(db: Executor, row: BusinessRow) {
  return db.insertInto('businesses').values(row).execute();
}

export function findBusiness(db: Executor, id: string) {
  return db.selectFrom('businesses').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findBusinessesByPhone(db: Executor, phone: string) {
  return db.selectFrom('businesses').selectAll().where('phone', '=', phone).execute();
}

export function updateBusiness(db: Executor, id: string, patch: Partial<Omit<BusinessRow, 'id' | 'created_at'>>) {
  return db.updateTable('businesses').set(patch).where('id', '=', id).returningAll().executeTakeFirst();
}

export function insertApiKey(
  db: Executor,
  row: {
    id: string;
    business_id: string;
    key_hash: string;
    key_prefix: string;
    created_at: string;
  },
) {
  return db
    .insertInto('api_keys')
    .values({ ...row, revoked_at: null })
    .execute();
}

/** The hot path of every request: one indexed lookup by key hash, joined to its business. */
const findActiveKeyQuery = precompiled<{ keyHash: string }, BusinessRow & { key_id: string }>((db, arg) =>
  db
    .selectFrom('api_keys')
    .innerJoin('businesses', 'businesses.id', 'api_keys.business_id')
    .selectAll('businesses')
    .select('api_keys.id as key_id')
    .where('api_keys.key_hash', '=', arg('keyHash'))
    .where('api_keys.revoked_at', 'is', null),
);

/** The business of an unrevoked key (on every request: precompiled). */
export async function findActiveKey(db: Executor, keyHash: string) {
  return (await findActiveKeyQuery(db, { keyHash }))[0];
}

export function revokeKeyByHash(db: Executor, keyHash: string, at: string) {
  return db
    .updateTable('api_keys')
    .set({ revoked_at: at })
    .where('key_hash', '=', keyHash)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
}

export function insertTotals(db: Executor, businessId: string) {
  return db
    .insertInto('business_totals')
    .values({
      business_id: businessId,
      pending_count: 0,
      pending_paise: 0,
      overdue_count: 0,
      overdue_paise: 0,
      paid_count: 0,
      paid_paise: 0,
      contact_count: 0,
    })
    .execute();
}

const dataVersionQuery = precompiled<{ businessId: string }, { data_version: number }>((db, arg) =>
  db.selectFrom('business_totals').select('data_version').where('business_id', '=', arg('businessId')),
);

/**
 * The business's data version: it moves, in the same transaction, with every change to the
 * business's dues or contacts (triggers: migrations/…business-data-version), never otherwise.
 */
export async function readDataVersion(db: Executor, businessId: string): Promise<number> {
  const [row] = await dataVersionQuery(db, { businessId });
  return Number(row?.data_version ?? 0);
}
