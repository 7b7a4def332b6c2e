import { type RawBuilder, sql } from 'kysely';
import { isPostgres } from '../db/precompiled.js';
import type { Executor } from '../db/schema.js';

export type StepStatus = 'scheduled' | 'sent' | 'skipped' | 'cancelled';

export type Delivery = 'sent' | 'delivered' | 'read' | 'failed';
const DELIVERIES: ReadonlySet<string> = new Set(['sent', 'delivered', 'read', 'failed']);

export interface SequenceStepView {
  template: string;
  scheduled_for: string;
  status: StepStatus;
  reason: string | null;
  /** what WhatsApp's status webhooks said of the message; null before the first, or when none went */
  delivery: Delivery | null;
}

/** Reasons that end a sequence from outside (the due or the business changed): `cancelled`. */
const CANCELLED_BY = new Set(['paid', 'deleted', 'paused', 'rescheduled']);

/**
 * A stored automatic reminder as a step of its due's sequence (PRODUCT part 13): in flight counts as
 * scheduled; a step a protection, a promise or a failing channel held back for good is `skipped`.
 */
export function stepView(row: {
  template: string | null;
  scheduled_for: string;
  status: string;
  reason: string | null;
  delivery_status?: string | null;
}): SequenceStepView {
  let status: StepStatus;
  if (row.status === 'sent') status = 'sent';
  else if (row.status === 'scheduled' || row.status === 'sending') status = 'scheduled';
  else if (row.status === 'cancelled' && row.reason !== null && CANCELLED_BY.has(row.reason)) status = 'cancelled';
  else status = 'skipped';
  return {
    template: row.template ?? '',
    scheduled_for: row.scheduled_for,
    status,
    reason: status === 'sent' ? null : row.reason,
    delivery:
      status === 'sent' && row.delivery_status && DELIVERIES.has(row.delivery_status)
        ? (row.delivery_status as Delivery)
        : null,
  };
}

/**
 * Issue 26: the steps of a due's sequence as one column of the due's own read (GET one due is one
 * statement): a JSON array of [template, scheduled_for, status, reason, delivery], oldest first, or
 * null when it has none. A manual reminder that went out is a step of its own. `transactions` is the due's table in the outer query. Timestamps are written
 * as the API writes them (ISO 8601 UTC with milliseconds) on both stores.
 */
export function sequenceJson(db: Executor): RawBuilder<string | unknown[] | null> {
  if (isPostgres(db)) {
    return sql`(select json_agg(json_build_array(r.template,
        to_char(r.scheduled_for at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), r.status, r.reason,
        r.delivery_status)
        order by r.scheduled_for, r.id)
      from reminders r where r.transaction_id = transactions.id
        and (r.kind = 'automatic' or r.status = 'sent'))`;
  }
  return sql`(select json_group_array(json_array(r.template, r.scheduled_for, r.status, r.reason, r.delivery_status)
        order by r.scheduled_for, r.id)
      from reminders r where r.transaction_id = transactions.id
        and (r.kind = 'automatic' or r.status = 'sent'))`;
}

/** The steps from sequenceJson's column. */
export function sequenceFromJson(value: string | unknown[] | null): SequenceStepView[] {
  if (value === null) return [];
  const rows = (typeof value === 'string' ? JSON.parse(value) : value) as [
    string | null,
    string,
    string,
    string | null,
    string | null,
  ][];
  return rows.map(([template, scheduled_for, status, reason, delivery_status]) =>
    stepView({ template, scheduled_for, status, reason, delivery_status }),
  );
}
