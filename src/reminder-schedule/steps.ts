import { precompiled } from '../db/precompiled.js';
import type { Executor } from '../db/schema.js';

export type StepStatus = 'scheduled' | 'sent' | 'skipped' | 'cancelled';

export interface SequenceStepView {
  template: string;
  scheduled_for: string;
  status: StepStatus;
  reason: string | null;
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
  };
}

const sequenceQuery = precompiled<
  { transactionId: string },
  { template: string | null; scheduled_for: string; status: string; reason: string | null }
>((db, arg) =>
  db
    .selectFrom('reminders')
    .select(['template', 'scheduled_for', 'status', 'reason'])
    .where('transaction_id', '=', arg('transactionId'))
    .where('kind', '=', 'automatic')
    .orderBy('scheduled_for')
    .orderBy('id'),
);

/** The steps of a due's sequence, oldest first (on every GET of a due: precompiled). */
export async function sequenceOf(db: Executor, transactionId: string): Promise<SequenceStepView[]> {
  return (await sequenceQuery(db, { transactionId })).map(stepView);
}
