import { recordAudit } from '../audit/record.js';
import type { BankCreditTable, Executor } from '../db/schema.js';
import { bankCreditEntry } from './audit.js';
import { suggestionsFor } from './match.js';
import { payersIn } from './narration.js';
import type { StatementCredit } from './parse.js';
import * as repo from './repository.js';

/** A stored credit as the matching reads it. */
export const asCredit = (row: BankCreditTable): StatementCredit => ({
  line: 0,
  date: row.date,
  amountPaise: Number(row.amount_paise),
  reference: row.reference,
  narration: row.narration,
  balancePaise: row.balance_paise === null ? null : Number(row.balance_paise),
});

/**
 * The receipt a bank credit recorded was reversed (matched to the wrong buyer, entered by
 * mistake): the credit must not stay matched to money taken back. It goes back to the review
 * queue, `suggested` with the suggestions as they stand now, else `unmatched`, its due, contact and
 * receipt cleared, so the owner can apply it again or ignore it. The narration's payer is no longer
 * taken for that contact (rule 4 would send the next credit the same wrong way). Runs in the
 * reversal's database transaction; a receipt no credit recorded changes nothing.
 */
export async function requeueCreditOf(trx: Executor, businessId: string, receiptId: string, now: Date): Promise<void> {
  const row = await repo.creditOfReceipt(trx, businessId, receiptId);
  if (!row) return;
  if (row.contact_id !== null) await repo.forgetPayers(trx, businessId, payersIn(row.narration), row.contact_id);
  const suggestions = await suggestionsFor(trx, businessId, asCredit(row));
  const patch = {
    status: suggestions.length > 0 ? 'suggested' : 'unmatched',
    matched_by: null,
    transaction_id: null,
    contact_id: null,
    receipt_id: null,
    suggestions: JSON.stringify(suggestions),
    decided_at: null,
  };
  await repo.updateCredit(trx, row.id, patch);
  await recordAudit(trx, businessId, now, [bankCreditEntry('requeued', row, { ...row, ...patch })]);
}
