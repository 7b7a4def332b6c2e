import { type Selectable, sql } from 'kysely';
import { inList, listArg, lockedRows } from '../db/port.js';
import { precompiled } from '../db/precompiled.js';
import type { BusinessTable, Executor, KeySource } from '../db/schema.js';
import type { KeyListing } from './keys.js';

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

/**
 * Takes the business's row lock until the transaction ends (PostgreSQL; SQLite has one writer),
 * so that two concurrent changes cannot both pass a per-business limit (20 webhook endpoints,
 * 5 active API keys).
 */
export function lockBusiness(db: Executor, businessId: string) {
  return db.selectFrom('businesses').select('id').where('id', '=', businessId).$call(lockedRows(db)).executeTakeFirst();
}

/** The business's row, locked until the transaction ends (a change's audit entry is made from it). */
export function findBusinessLocked(db: Executor, businessId: string) {
  return db.selectFrom('businesses').selectAll().where('id', '=', businessId).$call(lockedRows(db)).executeTakeFirst();
}

export function insertApiKey(
  db: Executor,
  row: {
    id: string;
    business_id: string;
    key_hash: string;
    key_prefix: string;
    created_at: string;
    source: KeySource;
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
    .returning(['id', 'key_prefix', 'business_id'])
    .executeTakeFirst();
}

export function listKeys(db: Executor, businessId: string): Promise<KeyListing[]> {
  return db
    .selectFrom('api_keys')
    .select(['id', 'key_prefix as prefix', 'created_at', 'last_used_at', 'revoked_at', 'source'])
    .where('business_id', '=', businessId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** Revokes an unrevoked key by id, within one business when `businessId` is given. */
export function revokeKeyById(db: Executor, keyId: string, at: string, businessId?: string) {
  let query = db
    .updateTable('api_keys')
    .set({ revoked_at: at })
    .where('id', '=', keyId)
    .where('revoked_at', 'is', null);
  if (businessId !== undefined) query = query.where('business_id', '=', businessId);
  return query.returning(['id', 'key_prefix', 'business_id']).executeTakeFirst();
}

/** Monotonic: a slower writer with an older time never moves it back. */
export function recordKeyUse(db: Executor, keyId: string, at: string) {
  return db
    .updateTable('api_keys')
    .set({ last_used_at: at })
    .where('id', '=', keyId)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', at)]))
    .execute();
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

// Summed over the business's shards of totals (PostgreSQL, totals/aggregates.ts): each only grows.
const dataVersionQuery = precompiled<{ businessId: string }, { data_version: number | string | null }>((db, arg) =>
  db
    .selectFrom('business_totals')
    .select(sql<number | string | null>`sum(data_version)`.as('data_version'))
    .where('business_id', '=', arg('businessId')),
);

/**
 * The business's data version: it moves, in the same transaction, with every change to the
 * business's dues or contacts (triggers: migrations/…business-data-version), never otherwise.
 */
export async function readDataVersion(db: Executor, businessId: string): Promise<number> {
  const [row] = await dataVersionQuery(db, { businessId });
  return Number(row?.data_version ?? 0);
}

const dataVersionsQuery = precompiled<
  { businessIds: never },
  { business_id: string; data_version: number | string | null }
>((db, arg) =>
  db
    .selectFrom('business_totals')
    .select(['business_id', sql<number | string | null>`sum(data_version)`.as('data_version')])
    .where(inList(db, 'business_id', arg('businessIds')))
    .groupBy('business_id'),
);

/** readDataVersion of several businesses in one statement (a business with no totals: 0). */
export async function readDataVersions(db: Executor, businessIds: readonly string[]): Promise<Map<string, number>> {
  const versions = new Map(businessIds.map((id) => [id, 0]));
  for (const row of await dataVersionsQuery(db, { businessIds: listArg(db, businessIds) })) {
    versions.set(row.business_id, Number(row.data_version ?? 0));
  }
  return versions;
}
