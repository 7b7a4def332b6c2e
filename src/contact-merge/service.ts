import { type AuditChange, diff, recordAudit } from '../audit/record.js';
import type { BusinessRow } from '../businesses/repository.js';
import type { ContactRow } from '../contacts/repository.js';
import { addScoreSums } from '../db/port.js';
import type { Db, Executor } from '../db/schema.js';
import { errors } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import { localDate } from '../lib/dates.js';
import { recordEvents } from '../outbox/events.js';
import { pauseContactSequences } from '../reminder-schedule/schedule.js';
import { addContact } from '../totals/aggregates.js';
import { useCreditIn } from '../transactions/account.js';
import { transactionEventData } from '../transactions/presenter.js';
import { lockContacts } from '../transactions/receipt-repository.js';
import { lockOpenDuesOfContact, lockTransactions, type TransactionView } from '../transactions/repository.js';
import * as repo from './repository.js';

/** Dues read (and locked) per statement while the moved dues' events are written or credit is used. */
const PAGE = 100;

export interface MergePreview {
  kept: ContactRow;
  merged: ContactRow;
  moving: repo.MergeCounts;
  /** the kept buyer's balance once merged (outstanding − credit; credit is then used on open dues) */
  balance_paise: number;
}

export interface MergeResult {
  contact: ContactRow;
  merged_contact_id: string;
  moved: repo.MergeCounts;
}

/**
 * Merging two buyers that are one person (a typo made a second one): the merged buyer's dues,
 * receipts (with their allocations and credit), adjustments (on its dues), claims, replies, bank
 * credits (and their suggestions), remembered payers, reminders and messages move to the kept
 * buyer, in one database transaction; the merged contact row is then deleted (its id answers 404,
 * as a contact that never was), but what the buyer was given keeps working: its account link
 * forwards to the kept buyer's page and a bank line naming its payment reference is matched to
 * the kept buyer (merged_contacts). The kept buyer's balance, credit, oldest open due and payment
 * score take the merged one's; credit meeting open dues is used on them oldest first (PRODUCT
 * part 18). Both contacts are locked in id order first: the lock order of receipts and of a due's
 * payments (contact, then dues), so nothing is applied twice.
 */
export class ContactMergeService {
  constructor(private readonly deps: { db: Db; clock: Clock }) {}

  private async pair(db: Executor, business: BusinessRow, keptId: string, mergedId: string, lock: boolean) {
    if (keptId === mergedId) throw errors.invalid('merge_id', 'a buyer cannot be merged with itself');
    const ids = [keptId, mergedId].sort();
    if (lock) await lockContacts(db, business.id, ids);
    const rows = await db
      .selectFrom('contacts')
      .selectAll()
      .where('business_id', '=', business.id)
      .where('id', 'in', ids)
      .execute();
    const kept = rows.find((r) => r.id === keptId);
    const merged = rows.find((r) => r.id === mergedId);
    if (!kept || !merged) throw errors.notFound('contact');
    return { kept, merged };
  }

  /** What a merge would move, and the balance it leaves (the confirmation step). Reads only. */
  async preview(business: BusinessRow, keptId: string, mergedId: string): Promise<MergePreview> {
    const { kept, merged } = await this.pair(this.deps.db, business, keptId, mergedId, false);
    return {
      kept,
      merged,
      moving: await repo.countMoving(this.deps.db, business.id, mergedId),
      balance_paise: Number(kept.balance_paise) + Number(merged.balance_paise),
    };
  }

  /** Merges `mergedId` into `keptId` (both of the business; not the same: 400 naming merge_id). */
  async merge(business: BusinessRow, keptId: string, mergedId: string): Promise<MergeResult> {
    const now = this.deps.clock.now();
    const at = now.toISOString();
    return this.deps.db.transaction().execute(async (trx) => {
      const { kept, merged } = await this.pair(trx, business, keptId, mergedId, true);
      const moved = await repo.countMoving(trx, business.id, mergedId);
      const dueIds = await repo.liveDueIds(trx, business.id, mergedId);
      const audited = await repo.movedIds(trx, business.id, mergedId);
      await repo.moveDues(trx, business.id, mergedId, keptId, at);
      await repo.moveContactRows(trx, business.id, mergedId, keptId);
      await repo.moveLedgerMonths(trx, business.id, mergedId, keptId);
      await repo.moveOpenDays(trx, mergedId, keptId);
      for (const credit of await repo.creditsSuggesting(trx, business.id, mergedId)) {
        await repo.setSuggestions(trx, credit.id, renameInSuggestions(credit.suggestions, mergedId, keptId));
      }
      const sums = await repo.scoreSumsOf(trx, mergedId);
      if (sums) {
        await addScoreSums(trx, business.id, keptId, {
          epochDay: Number(sums.epoch_day),
          weighted: Number(sums.weighted),
          weights: Number(sums.weights),
          terms: Number(sums.terms),
        });
      }
      await repo.forwardToKept(trx, merged, keptId, at);
      await repo.deleteContact(trx, business.id, mergedId);
      await addContact(trx, business.id, -1);
      let contact = await repo.absorbInto(trx, keptId, merged, at);
      // The kept buyer's reminders are paused: so are those of the dues that came to it.
      if (kept.reminders_paused === 1 && merged.reminders_paused !== 1) {
        await pauseContactSequences(trx, business, keptId, true, now);
      }
      // Every moved due says its new contact (transaction.updated carries contactId).
      const today = localDate(business.timezone, now);
      for (let i = 0; i < dueIds.length; i += PAGE) {
        const page = await lockTransactions(trx, business.id, dueIds.slice(i, i + PAGE));
        await recordEvents(
          trx,
          page.map((due) => ({
            businessId: business.id,
            type: 'transaction.updated',
            data: transactionEventData(due, today),
            at: now,
          })),
        );
      }
      // Credit and open dues together: the credit settles them oldest first, as for a new due
      // (useCreditIn writes those payments' events).
      if (Number(contact.credit_paise) > 0 && Number(contact.open_paise) > 0) {
        const open = await openDuesCovering(trx, business.id, keptId, Number(contact.credit_paise));
        await useCreditIn(trx, business, open, now);
        contact = (await trx
          .selectFrom('contacts')
          .selectAll()
          .where('id', '=', keptId)
          .executeTakeFirst()) as ContactRow;
      }
      await auditMerge(trx, business.id, now, kept, merged, contact, audited);
      return { contact, merged_contact_id: mergedId, moved };
    });
  }
}

/** Audit entries written per statement (a merged buyer may have many dues). */
const AUDIT_BATCH = 500;

/**
 * The merge in the audit log, in its transaction: the kept buyer's entry (what it took), the
 * merged buyer's (removed, and into whom), and each moved due's, receipt's and adjustment's new
 * contact (a deleted due's: none).
 */
async function auditMerge(
  trx: Executor,
  businessId: string,
  now: Date,
  kept: ContactRow,
  merged: ContactRow,
  after: ContactRow,
  moved: { dues: string[]; receipts: string[]; adjustments: string[] },
) {
  const entries: AuditChange[] = [
    {
      action: 'contact.merged',
      entity: 'contact',
      entityId: kept.id,
      changes: {
        merged_contact_id: [null, merged.id],
        ...diff(kept, after, ['phone', 'language', 'assigned_to', 'open_paise', 'credit_paise', 'balance_paise']),
      },
    },
    {
      action: 'contact.merged_away',
      entity: 'contact',
      entityId: merged.id,
      changes: { ...diff(merged, null, ['name', 'phone']), merged_into: [null, kept.id] },
    },
    ...moved.dues.map((id) => ({
      action: 'transaction.updated',
      entity: 'transaction' as const,
      entityId: id,
      changes: { contact_id: [merged.id, kept.id] as [string, string] },
    })),
    ...moved.receipts.map((id) => ({
      action: 'receipt.updated',
      entity: 'receipt' as const,
      entityId: id,
      changes: { contact_id: [merged.id, kept.id] as [string, string] },
    })),
    ...moved.adjustments.map((id) => ({
      action: 'adjustment.updated',
      entity: 'adjustment' as const,
      entityId: id,
      changes: { contact_id: [merged.id, kept.id] as [string, string] },
    })),
  ];
  for (let i = 0; i < entries.length; i += AUDIT_BATCH) {
    await recordAudit(trx, businessId, now, entries.slice(i, i + AUDIT_BATCH));
  }
}

/** The kept contact's open dues, oldest first, until their balances reach `credit` (the ones credit can settle). */
async function openDuesCovering(trx: Executor, businessId: string, contactId: string, credit: number) {
  const dues: TransactionView[] = [];
  let left = credit;
  let after: TransactionView | undefined;
  while (left > 0) {
    const page = await lockOpenDuesOfContact(trx, businessId, contactId, PAGE, after);
    for (const due of page) {
      if (left <= 0) break;
      dues.push(due);
      left -= Number(due.amount_paise) - Number(due.amount_paid_paise) - Number(due.amount_adjusted_paise);
    }
    if (page.length < PAGE) break;
    after = page[page.length - 1];
  }
  return dues;
}

/** A bank credit's suggestions (JSON) naming the kept contact where they named the merged one, each once. */
export function renameInSuggestions(json: string, from: string, to: string): string {
  const list = JSON.parse(json) as { transaction_id: string | null; contact_id: string | null; reason: string }[];
  const seen = new Set<string>();
  const renamed = [];
  for (const s of list) {
    const next = { ...s, contact_id: s.contact_id === from ? to : s.contact_id };
    const key = JSON.stringify(next);
    if (seen.has(key)) continue;
    seen.add(key);
    renamed.push(next);
  }
  return JSON.stringify(renamed);
}
