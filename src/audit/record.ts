import type { Insertable } from 'kysely';
import { insertEach } from '../db/port.js';
import type { AuditLogTable, Executor } from '../db/schema.js';
import type { TableRows } from '../db/table-rows.js';
import { uuidv7 } from '../lib/ids.js';
import { currentAuditContext } from './context.js';

/** A field's value before and after a change (null: absent, e.g. before a create). */
export type AuditValue = string | number | boolean | null;
export type AuditChanges = Record<string, [AuditValue, AuditValue]>;

/** The audit log's table: named outside src/audit through this only (the export lists it). */
export const AUDIT_TABLE = 'audit_log';

/** What an audit entry is about (its `entity`). */
export const AUDIT_ENTITIES = [
  'transaction',
  'receipt',
  'adjustment',
  'claim',
  'bank_credit',
  'contact',
  'api_key',
  'webhook',
  'user',
  'business',
] as const;
export type AuditEntity = (typeof AUDIT_ENTITIES)[number];

/** One change to audit: what was done to which entity, and its audited fields before and after. */
export interface AuditChange {
  action: string;
  entity: AuditEntity;
  entityId: string;
  changes: AuditChanges;
}

/**
 * The audit rows of `entries` for one business at `at`, naming the actor and request of the
 * current context (audit/context.ts). For a write that hands its rows to the store port in one
 * statement (`writeRows`); otherwise use recordAudit.
 */
export function auditRows(businessId: string, at: Date | string, entries: readonly AuditChange[]): TableRows {
  const { actor, requestId } = currentAuditContext();
  const atText = typeof at === 'string' ? at : at.toISOString();
  const atMs = Date.parse(atText);
  const rows: Insertable<AuditLogTable>[] = entries.map((e) => ({
    // The id's time is never before `at` (uuidv7 only moves forward): `since` reads from the id index.
    id: uuidv7(atMs),
    business_id: businessId,
    at: atText,
    actor_type: actor.type,
    actor_id: actor.id,
    actor_name: actor.name,
    action: e.action,
    entity: e.entity,
    entity_id: e.entityId,
    changes: JSON.stringify(e.changes),
    request_id: requestId,
  }));
  return { table: 'audit_log', rows };
}

/**
 * Writes audit entries inside the caller's transaction (`trx`): the one way into the audit log.
 * Many entries are one batched insert (the store port's insertEach).
 */
export async function recordAudit(
  trx: Executor,
  businessId: string,
  at: Date | string,
  entries: readonly AuditChange[],
): Promise<void> {
  if (entries.length === 0) return;
  const { rows } = auditRows(businessId, at, entries);
  await insertEach(trx, 'audit_log', rows as Insertable<AuditLogTable>[]);
}

/**
 * `{field: [before, after]}` of the fields of `fields` whose value differs between `before` and
 * `after` (a create: before is null; a delete: after is null).
 */
export function diff<T extends object>(
  before: T | null | undefined,
  after: T | null | undefined,
  fields: readonly (keyof T & string)[],
): AuditChanges {
  const out: Record<string, [AuditValue, AuditValue]> = {};
  for (const f of fields) {
    const b = before ? normalise(before[f]) : null;
    const a = after ? normalise(after[f]) : null;
    if (b !== a) out[f] = [b, a];
  }
  return out;
}

function normalise(v: unknown): AuditValue {
  if (v === undefined || v === null) return null;
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') return v;
  return JSON.stringify(v);
}
