import { type AuditEntry, type AuditFilter, listAuditEntries } from '../audit/read.js';
import type { AuditValue } from '../audit/record.js';
import type { App } from '../http/types.js';
import type { MessageKey } from '../i18n/index.js';
import type { View } from './pages/view.js';

/** Audited fields whose values are ids: of the business's users (whom a buyer is assigned to), of its buyers. */
const USER_FIELDS = ['assigned_to'] as const;
const CONTACT_FIELDS = ['contact_id'] as const;

/**
 * A page of audit entries as the dashboard shows them: a field that names a user or a buyer shows
 * their name, not their id; a user removed since, or a buyer since merged into another, says so.
 */
export async function auditEntriesForPage(app: App, v: View, filter: AuditFilter): Promise<AuditEntry[]> {
  const businessId = v.business.id;
  const { users, contacts } = app.deps.services;
  const entries = await listAuditEntries(app.deps.store.db, businessId, filter);
  const idsIn = (fields: readonly string[]): string[] => {
    const ids: string[] = [];
    for (const e of entries) {
      for (const f of fields) for (const x of e.changes[f] ?? []) if (typeof x === 'string') ids.push(x);
    }
    return ids;
  };
  const userIds = idsIn(USER_FIELDS);
  const contactIds = idsIn(CONTACT_FIELDS);
  if (userIds.length === 0 && contactIds.length === 0) return entries;
  const [userNames, contactNames] = await Promise.all([
    users.namesOf(businessId, userIds),
    contacts.namesOf(businessId, contactIds),
  ]);
  const named = (names: Map<string, string>, gone: MessageKey) => (value: AuditValue) =>
    typeof value === 'string' ? (names.get(value) ?? v.t(gone)) : value;
  const kinds = [
    [USER_FIELDS, named(userNames, 'audit.removed_user')],
    [CONTACT_FIELDS, named(contactNames, 'audit.merged_contact')],
  ] as const;
  return entries.map((e) => {
    const changes = { ...e.changes };
    for (const [fields, name] of kinds) {
      for (const f of fields) {
        const pair = changes[f];
        if (pair) changes[f] = [name(pair[0]), name(pair[1])];
      }
    }
    return { ...e, changes };
  });
}
