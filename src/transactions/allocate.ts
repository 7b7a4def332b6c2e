/**
 * The money model of a buyer's account, as pure functions over rows: how a receipt is allocated
 * to the contact's dues, and how credit is used by a due. No SQL, no HTTP: the service reads the
 * rows, calls these, and writes what they return in one database transaction.
 */

export interface Allocation {
  transactionId: string;
  amountPaise: number;
}

/** An explicitly allocated due as read (locked) for the receipt; undefined when not the contact's or not found. */
export interface DueForAllocation {
  id: string;
  contactId: string;
  /** open (pending or overdue) and not deleted */
  open: boolean;
  balancePaise: number;
}

export interface ReceiptPlan {
  /** one per due, explicit ones first, then oldest first */
  allocations: Allocation[];
  appliedPaise: number;
  creditPaise: number;
}

/** A refused allocation: a 400 naming `allocations`. */
export class AllocationError extends Error {}

/**
 * Checks the explicit allocations against their dues: each due the contact's own and open, each
 * amount within that due's balance, no due twice, the sum within the receipt.
 */
export function checkExplicit(
  amountPaise: number,
  contactId: string,
  explicit: readonly Allocation[],
  dues: ReadonlyMap<string, DueForAllocation>,
): void {
  const seen = new Set<string>();
  let sum = 0;
  for (const [i, a] of explicit.entries()) {
    if (seen.has(a.transactionId)) throw new AllocationError(`allocations[${i}] names a due already listed`);
    seen.add(a.transactionId);
    const due = dues.get(a.transactionId);
    if (!due || due.contactId !== contactId) {
      throw new AllocationError(`allocations[${i}].transaction_id is not a due of this contact`);
    }
    if (!due.open) throw new AllocationError(`allocations[${i}].transaction_id is not an open due`);
    if (a.amountPaise > due.balancePaise) {
      throw new AllocationError(`allocations[${i}].amount_paise exceeds that due's balance of ${due.balancePaise}`);
    }
    sum += a.amountPaise;
  }
  if (sum > amountPaise) throw new AllocationError('allocations add up to more than amount_paise');
}

/**
 * A receipt's allocations: the explicit ones (already checked), then what is left to the open
 * dues oldest first (`oldestFirst`, in that order, balances as they are before this receipt),
 * and the rest is credit.
 */
export function planReceipt(
  amountPaise: number,
  explicit: readonly Allocation[],
  oldestFirst: readonly { id: string; balancePaise: number }[],
): ReceiptPlan {
  const byDue = new Map<string, number>();
  for (const a of explicit) byDue.set(a.transactionId, a.amountPaise);
  let left = amountPaise - explicit.reduce((s, a) => s + a.amountPaise, 0);
  for (const due of oldestFirst) {
    if (left === 0) break;
    const room = due.balancePaise - (byDue.get(due.id) ?? 0);
    if (room <= 0) continue;
    const take = Math.min(room, left);
    byDue.set(due.id, (byDue.get(due.id) ?? 0) + take);
    left -= take;
  }
  const allocations = [...byDue].map(([transactionId, paise]) => ({ transactionId, amountPaise: paise }));
  return { allocations, appliedPaise: amountPaise - left, creditPaise: left };
}

/** How far a due's balance is settled from the contact's credit: receipts oldest first. */
export function planCreditUse(
  balancePaise: number,
  credits: readonly { receiptId: string; creditPaise: number }[],
): { receiptId: string; amountPaise: number }[] {
  const uses: { receiptId: string; amountPaise: number }[] = [];
  let left = balancePaise;
  for (const c of credits) {
    if (left === 0) break;
    const take = Math.min(c.creditPaise, left);
    if (take > 0) uses.push({ receiptId: c.receiptId, amountPaise: take });
    left -= take;
  }
  return uses;
}
