import type { Executor } from '../db/schema.js';
import type { AuditChanges, AuditEntity, AuditValue } from './record.js';

const PAGE = 500;

/**
 * The one change audit entries ever get (a contact's erase, PRODUCT part 24): in the entries of
 * one entity, each field named in `fields` has its before and after values replaced by what
 * `fields[field]` makes of them. Read by the entity's index a page at a time; only entries that
 * change are written. Actors are never buyers, so actor names are left as they are. Returns how
 * many entries changed.
 */
export async function redactAuditEntity(
  trx: Executor,
  businessId: string,
  entity: AuditEntity,
  entityId: string,
  fields: Record<string, (value: AuditValue) => AuditValue>,
): Promise<number> {
  let changed = 0;
  let after: string | null = null;
  for (;;) {
    const rows: { id: string; changes: string }[] = await trx
      .selectFrom('audit_log')
      .select(['id', 'changes'])
      .where('business_id', '=', businessId)
      .where('entity', '=', entity)
      .where('entity_id', '=', entityId)
      .$if(after !== null, (q) => q.where('id', '>', after as string))
      .orderBy('id')
      .limit(PAGE)
      .execute();
    for (const row of rows) {
      const changes = JSON.parse(row.changes) as AuditChanges;
      let touched = false;
      for (const [field, redact] of Object.entries(fields)) {
        const pair = changes[field];
        if (!pair) continue;
        const next: [AuditValue, AuditValue] = [redact(pair[0]), redact(pair[1])];
        if (next[0] !== pair[0] || next[1] !== pair[1]) {
          changes[field] = next;
          touched = true;
        }
      }
      if (!touched) continue;
      await trx
        .updateTable('audit_log')
        .set({ changes: JSON.stringify(changes) })
        .where('id', '=', row.id)
        .execute();
      changed++;
    }
    if (rows.length < PAGE) break;
    after = (rows[rows.length - 1] as { id: string }).id;
  }
  return changed;
}
