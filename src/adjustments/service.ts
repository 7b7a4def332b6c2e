import { recordAudit } from '../audit/record.js';
import type { BusinessRow } from '../businesses/repository.js';
import type { AdjustmentTable, Db, Executor } from '../db/schema.js';
import { nextUpdatedAt } from '../db/updated-at.js';
import { errors } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import { localMonth } from '../lib/dates.js';
import { uuidv7 } from '../lib/ids.js';
import * as aggregates from '../totals/aggregates.js';
import { adjustmentEntry, dueEntry } from '../transactions/audit.js';
import { balanceOf } from '../transactions/domain.js';
import { afterBalanceChange } from '../transactions/payments.js';
import * as dues from '../transactions/repository.js';
import * as repo from './repository.js';
import type { CreateAdjustmentInput } from './schema.js';

/**
 * Adjustments (tds, discount, credit_note, write_off) lower a due's balance without money
 * received: a due they close is paid (closed), with the usual events, and they never count in
 * this month's money.
 */
export class AdjustmentService {
  constructor(private readonly deps: { db: Db; clock: Clock }) {}

  create(business: BusinessRow, transactionId: string, input: CreateAdjustmentInput) {
    return this.deps.db
      .transaction()
      .execute((trx) => adjustIn(trx, business, transactionId, input, this.deps.clock.now()));
  }

  async list(business: BusinessRow, transactionId: string) {
    const due = await dues.findTransaction(this.deps.db, business.id, transactionId);
    if (!due) throw errors.notFound('transaction');
    return repo.listAdjustments(this.deps.db, business.id, transactionId);
  }
}

export async function adjustIn(
  trx: Executor,
  business: BusinessRow,
  transactionId: string,
  input: CreateAdjustmentInput,
  now: Date,
): Promise<{ adjustment: AdjustmentTable; transaction: dues.TransactionView }> {
  const current = await dues.lockTransaction(trx, business.id, transactionId);
  if (!current || current.deleted_at !== null) throw errors.notFound('transaction');
  if (current.status === 'paid') throw errors.conflict('transaction is already paid');
  const balance = balanceOf(current);
  if (input.amount_paise > balance) {
    throw errors.invalid('amount_paise', `amount_paise must not exceed the balance of ${balance}`);
  }
  const at = now.toISOString();
  const adjustment: AdjustmentTable = {
    id: uuidv7(now.getTime()),
    business_id: business.id,
    transaction_id: current.id,
    contact_id: current.contact_id,
    kind: input.kind,
    amount_paise: input.amount_paise,
    reason: input.reason ?? null,
    reference: input.reference ?? null,
    created_at: at,
  };
  const settles = input.amount_paise === balance;
  const change: Partial<dues.StoredTransaction> = {
    amount_adjusted_paise: Number(current.amount_adjusted_paise) + input.amount_paise,
    updated_at: nextUpdatedAt(current.updated_at, now),
    ...(settles && { status: 'paid', open: 0, paid_at: at }),
  };
  await dues.updateTransaction(trx, business.id, current.id, change);
  await repo.insertAdjustment(trx, adjustment);
  await aggregates.applyPayment(trx, {
    businessId: business.id,
    fromStatus: current.status as 'pending' | 'overdue',
    dueDate: current.due_date,
    paise: input.amount_paise,
    settles,
    amountPaise: Number(current.amount_paise),
    month: localMonth(business.timezone, now),
    moneyPaise: 0,
  });
  const transaction = { ...current, ...change };
  await recordAudit(trx, business.id, now, [adjustmentEntry(adjustment), dueEntry('adjusted', current, transaction)]);
  await afterBalanceChange(trx, business, transaction, settles, now);
  return { adjustment, transaction };
}
