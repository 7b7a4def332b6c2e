import { sql } from 'kysely';
import type { DashboardLoginTable, DashboardSessionTable, Executor } from '../db/schema.js';

/** Queries of the dashboard's sign-in and sessions (PRODUCT part 14); hashes only, never secrets. */

export function insertLogin(db: Executor, row: Omit<DashboardLoginTable, 'attempts'>) {
  return db.insertInto('dashboard_logins').values(row).execute();
}

/** How many codes were sent to this phone for this business since `since` (the per-phone rate limit). */
export async function countCodesSince(db: Executor, phone: string, businessId: string, since: string): Promise<number> {
  const row = await db
    .selectFrom('dashboard_logins')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('phone', '=', phone)
    .where('business_id', '=', businessId)
    .where('kind', '=', 'code')
    .where('created_at', '>=', since)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The ids of the phone's codes still usable at `now` with tries left, oldest first. */
export async function liveCodeIds(db: Executor, phone: string, now: string, tries: number): Promise<string[]> {
  const rows = await db
    .selectFrom('dashboard_logins')
    .select('id')
    .where('phone', '=', phone)
    .where('kind', '=', 'code')
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .where('attempts', '<', tries)
    .orderBy('id')
    .execute();
  return rows.map((r) => r.id);
}

/**
 * Spends one try of a code in a single conditional statement, before its secret is compared: the
 * row comes back (to be compared) only while tries were left, so however many guesses arrive at
 * once, at most `tries` of them ever see it. One row per statement and no transaction around it:
 * nothing to deadlock on.
 */
export function spendAttempt(db: Executor, id: string, now: string, tries: number) {
  return db
    .updateTable('dashboard_logins')
    .set({ attempts: sql`attempts + 1` })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .where('attempts', '<', tries)
    .returning(['id', 'business_id', 'user_id', 'secret_hash'])
    .executeTakeFirst();
}

/** Marks one login used; false when another request used it first (one use only). */
export async function useLogin(db: Executor, id: string, now: string): Promise<boolean> {
  const result = await db
    .updateTable('dashboard_logins')
    .set({ used_at: now })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export function findLinkByHash(db: Executor, secretHash: string) {
  return db
    .selectFrom('dashboard_logins')
    .selectAll()
    .where('secret_hash', '=', secretHash)
    .where('kind', '=', 'link')
    .executeTakeFirst();
}

export function insertSession(db: Executor, row: DashboardSessionTable) {
  return db.insertInto('dashboard_sessions').values(row).execute();
}

/** A live session with its business and its user (a removed user's sessions are gone with them). */
export function findSession(db: Executor, tokenHash: string, now: string) {
  return db
    .selectFrom('dashboard_sessions')
    .innerJoin('businesses', 'businesses.id', 'dashboard_sessions.business_id')
    .innerJoin('users', 'users.id', 'dashboard_sessions.user_id')
    .selectAll('businesses')
    .select([
      'dashboard_sessions.csrf_token',
      'dashboard_sessions.expires_at as session_expires_at',
      'users.id as user_id',
      'users.name as user_name',
      'users.role as user_role',
    ])
    .where('dashboard_sessions.token_hash', '=', tokenHash)
    .where('dashboard_sessions.expires_at', '>', now)
    .executeTakeFirst();
}

export function deleteSession(db: Executor, tokenHash: string) {
  return db.deleteFrom('dashboard_sessions').where('token_hash', '=', tokenHash).execute();
}

/**
 * Deletes up to `batch` sessions that have ended and sign-in codes and links that expired before
 * `loginsBefore` (kept a while longer: the per-phone rate limit counts the last hour's codes).
 */
export async function purgeExpired(db: Executor, now: string, loginsBefore: string, batch: number): Promise<number> {
  const sessions = await db
    .selectFrom('dashboard_sessions')
    .select('token_hash')
    .where('expires_at', '<=', now)
    .limit(batch)
    .execute();
  const logins = await db
    .selectFrom('dashboard_logins')
    .select('id')
    .where('expires_at', '<=', loginsBefore)
    .limit(batch)
    .execute();
  if (sessions.length > 0) {
    await db
      .deleteFrom('dashboard_sessions')
      .where(
        'token_hash',
        'in',
        sessions.map((r) => r.token_hash),
      )
      .execute();
  }
  if (logins.length > 0) {
    await db
      .deleteFrom('dashboard_logins')
      .where(
        'id',
        'in',
        logins.map((r) => r.id),
      )
      .execute();
  }
  return sessions.length + logins.length;
}
