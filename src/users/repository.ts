import type { Selectable } from 'kysely';
import type { Executor, UserTable } from '../db/schema.js';
import { updatedAtAfter } from '../db/updated-at.js';

export type UserRow = Selectable<UserTable>;

export function insertUser(db: Executor, row: UserRow) {
  return db.insertInto('users').values(row).execute();
}

/** The business's users: the owner first, then staff in the order they were added. */
export function listUsers(db: Executor, businessId: string) {
  return db
    .selectFrom('users')
    .selectAll()
    .where('business_id', '=', businessId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export function setUserRole(db: Executor, businessId: string, id: string, role: UserRow['role']) {
  return db.updateTable('users').set({ role }).where('business_id', '=', businessId).where('id', '=', id).execute();
}

export function findUser(db: Executor, businessId: string, id: string) {
  return db
    .selectFrom('users')
    .selectAll()
    .where('business_id', '=', businessId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The names of some users of the business (a page's assignees): one read by primary key. */
export function userNamesByIds(db: Executor, businessId: string, ids: string[]) {
  return db
    .selectFrom('users')
    .select(['id', 'name'])
    .where('business_id', '=', businessId)
    .where('id', 'in', ids)
    .execute();
}

/** Every business a phone is a user of (sign-in, chat commands): the business, and the user's id and role. */
export function membershipsByPhone(db: Executor, phone: string) {
  return db
    .selectFrom('users')
    .innerJoin('businesses', 'businesses.id', 'users.business_id')
    .selectAll('businesses')
    .select(['users.id as user_id', 'users.role as user_role', 'users.name as user_name'])
    .where('users.phone', '=', phone)
    .orderBy('users.business_id')
    .execute();
}

/**
 * A removed user leaves nothing that still acts: sessions, unused sign-in codes and links,
 * assignments. Returns the ids of the buyers that were assigned to them.
 */
export async function deleteUser(db: Executor, businessId: string, id: string, now: string): Promise<string[]> {
  await db.deleteFrom('dashboard_sessions').where('user_id', '=', id).execute();
  await db.deleteFrom('dashboard_logins').where('user_id', '=', id).execute();
  const unassigned = await db
    .updateTable('contacts')
    .set({ assigned_to: null, updated_at: updatedAtAfter(db, now) })
    .where('assigned_to', '=', id)
    .where('business_id', '=', businessId)
    .returning('id')
    .execute();
  await db.deleteFrom('users').where('id', '=', id).where('business_id', '=', businessId).execute();
  return unassigned.map((r) => r.id);
}

/** The business's country (phones are parsed with it), or undefined for no such business. */
export function businessCountry(db: Executor, businessId: string) {
  return db.selectFrom('businesses').select('country').where('id', '=', businessId).executeTakeFirst();
}
