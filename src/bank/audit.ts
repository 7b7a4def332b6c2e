import { type AuditChange, diff } from '../audit/record.js';
import type { BankCreditTable } from '../db/schema.js';

/**
 * The audit entries of bank credits (PRODUCT part 23): a credit matched by an upload's rules,
 * applied or ignored by the owner, or put back in the review queue when its receipt is reversed.
 * Written in the change's own transaction; the receipt a match records has its own entries
 * (transactions/).
 */
export const BANK_CREDIT_AUDITED = [
  'status',
  'matched_by',
  'transaction_id',
  'contact_id',
  'receipt_id',
  'decided_at',
] as const;

type Audited = Pick<BankCreditTable, 'id' | (typeof BANK_CREDIT_AUDITED)[number]>;

export function bankCreditEntry(
  action: 'matched' | 'applied' | 'ignored' | 'requeued',
  before: Audited,
  after: Audited,
): AuditChange {
  return {
    action: `bank_credit.${action}`,
    entity: 'bank_credit',
    entityId: before.id,
    changes: diff(before, after, BANK_CREDIT_AUDITED),
  };
}
