import { type AuditChange, diff } from '../audit/record.js';
import type { AdjustmentTable, PaymentClaimTable, ReceiptTable } from '../db/schema.js';
import type { StoredTransaction } from './repository.js';

/**
 * The audit entries of money changes (PRODUCT part 23), built as plain data from a row before and
 * after the change: the writes of dues, receipts, adjustments and claims hand them to recordAudit
 * (or auditRows) in the change's own database transaction. Replaying an entity's entries, oldest
 * first, gives the current value of each audited field (a delete leaves every field null).
 */

/** A due's fields its audit entries show before and after. */
export const DUE_AUDITED = [
  'contact_id',
  'amount_paise',
  'amount_paid_paise',
  'amount_adjusted_paise',
  'due_date',
  'invoice_number',
  'notes',
  'recurrence',
  'reminders_paused',
  'status',
] as const;

/** A receipt's (a payment received) fields its audit entries show. */
export const RECEIPT_AUDITED = [
  'contact_id',
  'amount_paise',
  'applied_paise',
  'credit_paise',
  'utr',
  'payment_method',
  'source',
  'received_on',
  'claim_id',
  'reversed_at',
  'reversal_reason',
] as const;

/** An adjustment's fields (it is never changed once made). */
export const ADJUSTMENT_AUDITED = [
  'transaction_id',
  'contact_id',
  'kind',
  'amount_paise',
  'reason',
  'reference',
] as const;

/** A claim's fields its decision changes. */
export const CLAIM_AUDITED = ['status', 'decided_at'] as const;

/** A due, or the fields of it a change read and wrote (a field absent from both is unchanged). */
type Due = Pick<StoredTransaction, 'id'> & Partial<Pick<StoredTransaction, (typeof DUE_AUDITED)[number]>>;
/** A receipt, or the fields of it a change read and wrote (a field absent from both is unchanged). */
type Receipt = Pick<ReceiptTable, 'id'> & Partial<Pick<ReceiptTable, (typeof RECEIPT_AUDITED)[number]>>;

/**
 * What was done to a due: `created`, `updated` (PATCH, or a merge moving it), `deleted`, `paid`
 * (settled by a payment or credit), `part_paid`, `adjusted`, `payment_reversed`.
 */
export type DueAction = 'created' | 'updated' | 'deleted' | 'paid' | 'part_paid' | 'adjusted' | 'payment_reversed';

export function dueEntry(action: DueAction, before: Due | null, after: Due | null): AuditChange {
  return {
    action: `transaction.${action}`,
    entity: 'transaction',
    entityId: (after ?? before)?.id as string,
    changes: diff(before, after, DUE_AUDITED),
  };
}

/** A due's balance going down by a payment (or credit): `paid` when it settles, else `part_paid`. */
export function duePaidEntry(before: Due, after: Due): AuditChange {
  return dueEntry(after.status === 'paid' ? 'paid' : 'part_paid', before, after);
}

/** What was done to a receipt: `recorded`, `applied` (its credit used by a due), `reversed`, `updated` (a merge). */
export type ReceiptAction = 'recorded' | 'applied' | 'reversed' | 'updated';

export function receiptEntry(action: ReceiptAction, before: Receipt | null, after: Receipt): AuditChange {
  return {
    action: `receipt.${action}`,
    entity: 'receipt',
    entityId: after.id,
    changes: diff(before, after, RECEIPT_AUDITED),
  };
}

/** A receipt recorded, and what it did to each due it paid (before and after), in that order. */
export function receiptRecordedEntries(receipt: Receipt, dues: readonly { before: Due; after: Due }[]): AuditChange[] {
  return [receiptEntry('recorded', null, receipt), ...dues.map((d) => duePaidEntry(d.before, d.after))];
}

export function adjustmentEntry(adjustment: AdjustmentTable): AuditChange {
  return {
    action: 'adjustment.created',
    entity: 'adjustment',
    entityId: adjustment.id,
    changes: diff(null, adjustment, ADJUSTMENT_AUDITED),
  };
}

export function claimEntry(
  action: 'confirmed' | 'rejected',
  before: Pick<PaymentClaimTable, 'id' | 'status' | 'decided_at'>,
  after: Pick<PaymentClaimTable, 'status' | 'decided_at'>,
): AuditChange {
  return {
    action: `claim.${action}`,
    entity: 'claim',
    entityId: before.id,
    changes: diff(before, after, CLAIM_AUDITED),
  };
}
