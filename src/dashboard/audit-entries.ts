import { type AuditEntry, type AuditFilter, listAuditEntries } from '../audit/read.js';
import type { AuditValue } from '../audit/record.js';
import type { App } from '../http/types.js';
import type { View } from './pages/view.js';

/** Audited fields whose values are the ids of the business's users. */
const USER_FIELDS = ['assigned_to'] as const;

/**
 * A page of audit entries as the dashboard shows them: a field that names a user (whom a buyer is
 * assigned to) shows the user's name, not their id; a user removed since says so.
 */
export async function auditEntriesForPage(app: App, v: View, filter: AuditFilter): Promise<AuditEntry[]> {
  const businessId = v.business.id;
  const entries = await listAuditEntries(app.deps.store.db, businessId, filter);
  const ids: string[] = [];
  for (const e of entries) {
    for (const f of USER_FIELDS) for (const value of e.changes[f] ?? []) if (typeof value === 'string') ids.push(value);
  }
  if (ids.length === 0) return entries;
  const names = await app.deps.services.users.namesOf(businessId, ids);
  const named = (value: AuditValue) =>
    typeof value === 'string' ? (names.get(value) ?? v.t('audit.removed_user')) : value;
  return entries.map((e) => {
    const changes = { ...e.changes };
    for (const f of USER_FIELDS) {
      const pair = changes[f];
      if (pair) changes[f] = [named(pair[0]), named(pair[1])];
    }
    return { ...e, changes };
  });
}
