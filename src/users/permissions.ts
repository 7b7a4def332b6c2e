import type { Role } from '../db/schema.js';

/**
 * What each role may do: THE table. The dashboard's routes (dashboard/route-actions.ts), the chat
 * commands (chat-commands/service.ts) and the tests (test/permissions.test.ts, generated from
 * this table) all read it; nothing else decides.
 *
 * - owner: everything.
 * - accountant: everything but users, API keys and webhooks.
 * - collector: the buyers assigned to them only (SCOPED_ROLES): records receipts, sends
 *   reminders, adds dues; never deletes, never edits an amount, no settings.
 * - viewer: reads everything (the business's CA), changes nothing.
 */
const ALL: readonly Role[] = ['owner', 'accountant', 'collector', 'viewer'];
const READERS: readonly Role[] = ['owner', 'accountant', 'viewer'];
const BOOKKEEPERS: readonly Role[] = ['owner', 'accountant'];
const COLLECTORS: readonly Role[] = ['owner', 'accountant', 'collector'];
const OWNER: readonly Role[] = ['owner'];

export const PERMISSIONS = {
  /** a due's page, and the dues of a buyer */
  'dues.read': ALL,
  /** the business's totals, aging and every due at once (home, the dues list, chat `dues`) */
  'summary.read': READERS,
  'dues.create': COLLECTORS,
  /** amounts, dates, notes, and pausing a due's reminders */
  'dues.edit': BOOKKEEPERS,
  'dues.delete': BOOKKEEPERS,
  /** a payment, mark-paid, a receipt */
  'payments.record': COLLECTORS,
  /** reverse a receipt (its money comes off the dues it paid) */
  'payments.reverse': BOOKKEEPERS,
  'reminders.send': COLLECTORS,
  /** confirm or reject a buyer's "I have paid" */
  'claims.decide': BOOKKEEPERS,
  'contacts.read': ALL,
  /** a buyer's name, phone and language; pause their reminders */
  'contacts.edit': BOOKKEEPERS,
  /** assign a buyer to a user (a collector then sees and acts on them) */
  'contacts.assign': BOOKKEEPERS,
  /** merge two buyers that are one person (everything of one moves to the other) */
  'contacts.merge': BOOKKEEPERS,
  import: BOOKKEEPERS,
  /** bank statements and their credits */
  'bank.read': READERS,
  /** upload a statement, apply or ignore a credit */
  'bank.manage': BOOKKEEPERS,
  export: READERS,
  'settings.read': READERS,
  'settings.edit': BOOKKEEPERS,
  /** the developers page: key prefixes, endpoints, deliveries, events (no secret is ever shown again) */
  'developers.read': READERS,
  'keys.manage': OWNER,
  'webhooks.manage': OWNER,
  'users.read': READERS,
  'users.manage': OWNER,
} as const satisfies Record<string, readonly Role[]>;

export type Action = keyof typeof PERMISSIONS;
export const ACTIONS = Object.keys(PERMISSIONS) as Action[];

/** Roles that see and act on the buyers assigned to them only. */
export const SCOPED_ROLES: readonly Role[] = ['collector'];

export function may(role: Role, action: Action): boolean {
  return (PERMISSIONS[action] as readonly Role[]).includes(role);
}

export function isScoped(role: Role): boolean {
  return SCOPED_ROLES.includes(role);
}
