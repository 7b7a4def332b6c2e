import type { Executor } from '../db/schema.js';
import { errors } from '../errors.js';
import type { AuditActor } from './context.js';
import type { AuditChanges } from './record.js';

/** One audit entry as every reader sees it (GET /v1/audit-log, the dashboard). */
export interface AuditEntry {
  id: string;
  at: string;
  actor: AuditActor;
  action: string;
  entity: string;
  entity_id: string;
  changes: AuditChanges;
  request_id: string | null;
}

export interface AuditFilter {
  /** one kind of entity (`transaction`, `contact`, ...) */
  entity?: string | undefined;
  /** one entity (with `entity`) */
  entityId?: string | undefined;
  /** entries at or after this time (ISO 8601) */
  since?: string | undefined;
  /** the id of the last entry of the previous page: the entries before it (older) */
  startingAfter?: string | undefined;
  /** at most this many entries */
  limit: number;
}

/** The smallest uuidv7 of a millisecond: every id made at or after `at` is at least this. */
function firstIdAt(at: string): string {
  const hex = Math.max(0, Date.parse(at)).toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7000-8000-000000000000`;
}

/**
 * A page of the business's audit entries, newest first, read from audit_log_business or (for one
 * entity) audit_log_business_entity: a page costs its own rows at any depth. A `startingAfter`
 * that is not one of the business's entries is refused (400 naming starting_after).
 */
export async function listAuditEntries(db: Executor, businessId: string, filter: AuditFilter): Promise<AuditEntry[]> {
  const { entity, entityId, since, startingAfter, limit } = filter;
  if (startingAfter !== undefined) {
    const found = await db
      .selectFrom('audit_log')
      .select('id')
      .where('business_id', '=', businessId)
      .where('id', '=', startingAfter)
      .executeTakeFirst();
    if (!found)
      throw errors.invalid('starting_after', 'starting_after is not the id of an audit entry of this business');
  }
  const rows = await db
    .selectFrom('audit_log')
    .select([
      'id',
      'at',
      'actor_type',
      'actor_id',
      'actor_name',
      'action',
      'entity',
      'entity_id',
      'changes',
      'request_id',
    ])
    .where('business_id', '=', businessId)
    .$if(entity !== undefined, (q) => q.where('entity', '=', entity as string))
    .$if(entityId !== undefined, (q) => q.where('entity_id', '=', entityId as string))
    .$if(since !== undefined, (q) =>
      q.where('id', '>=', firstIdAt(since as string)).where('at', '>=', new Date(since as string).toISOString()),
    )
    .$if(startingAfter !== undefined, (q) => q.where('id', '<', startingAfter as string))
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    id: r.id,
    at: r.at,
    actor: { type: r.actor_type, id: r.actor_id, name: r.actor_name },
    action: r.action,
    entity: r.entity,
    entity_id: r.entity_id,
    changes: JSON.parse(r.changes) as AuditChanges,
    request_id: r.request_id,
  }));
}
