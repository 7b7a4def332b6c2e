import { type RawBuilder, sql } from 'kysely';
import { isoMillis, jsonArrays } from '../db/port.js';
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
  const steps = jsonArrays(
    db,
    [sql`r.template`, isoMillis(db, sql`r.scheduled_for`), sql`r.status`, sql`r.reason`, sql`r.delivery_status`],
    sql`r.scheduled_for, r.id`,
  );
  return sql`(select ${steps}
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
