import { requeueCreditOf } from '../bank/requeue.js';
import type { BusinessRow } from '../businesses/repository.js';
import { type ContactRow, findContact } from '../contacts/repository.js';
import type { ContactService, ContactStanding } from '../contacts/service.js';
import type { Db, PaymentTable, ReceiptTable } from '../db/schema.js';
import { errors } from '../errors.js';
import type { Answer, IdempotencyStore, Idempotent } from '../idempotency/store.js';
import type { Clock } from '../lib/clock.js';
import { isCalendarDate } from '../lib/dates.js';
import { type ReceiptInput, type RecordedReceipt, recordReceiptIn, reverseReceiptIn } from '../transactions/account.js';
import * as repo from '../transactions/receipt-repository.js';
import type { TransactionView } from '../transactions/repository.js';
import type { ListReceiptsInput } from './schema.js';

export interface RecordedReceiptWithContact extends RecordedReceipt {
  contact: ContactRow;
  standing: ContactStanding;
}

/** Receipts of a buyer's account over HTTP: each in its own database transaction. */
export class ReceiptService {
  constructor(
    private readonly deps: { db: Db; clock: Clock; contacts: ContactService; idempotency: IdempotencyStore },
  ) {}

  record(
    business: BusinessRow,
    contactId: string,
    input: ReceiptInput,
    idem: Idempotent<RecordedReceiptWithContact>,
  ): Promise<Answer> {
    if (input.receivedOn !== undefined && !isCalendarDate(input.receivedOn)) {
      throw errors.invalid('received_on', 'received_on must be a calendar date YYYY-MM-DD');
    }
    return this.deps.db.transaction().execute((trx) =>
      this.deps.idempotency.once(trx, business.id, idem, async () => {
        const recorded = await recordReceiptIn(trx, business, contactId, input, this.deps.clock.now());
        const contact = (await repo.lockContact(trx, business.id, contactId)) as ContactRow;
        const standing = await this.deps.contacts.standing(trx, business, contactId);
        return { ...recorded, contact, standing };
      }),
    );
  }

  /** A contact's receipts, newest first, with their allocations. */
  async list(business: BusinessRow, contactId: string, query: ListReceiptsInput) {
    const db = this.deps.db;
    if (!(await findContact(db, business.id, contactId))) throw errors.notFound('contact');
    const limit = query.limit ?? 50;
    const offset = query.offset ?? 0;
    let after: { created_at: string; id: string } | undefined;
    if (query.starting_after !== undefined) {
      if (offset !== 0) throw errors.invalid('offset', 'offset must be 0 or absent with starting_after');
      after = await repo.findReceiptPosition(db, business.id, contactId, query.starting_after);
      if (!after) throw errors.invalid('starting_after', 'starting_after is not a payment of this contact');
    }
    const rows = await repo.listReceipts(db, business.id, contactId, limit + 1, offset, after);
    const page = rows.slice(0, limit);
    const allocations = await repo.allocationsOf(
      db,
      page.map((r) => r.id),
    );
    return {
      items: page.map((receipt) => ({ receipt, allocations })),
      total: await repo.countReceipts(db, business.id, contactId),
      limit,
      offset,
      hasMore: rows.length > limit,
    };
  }

  async get(business: BusinessRow, id: string): Promise<{ receipt: ReceiptTable; allocations: PaymentTable[] }> {
    const receipt = await repo.findReceipt(this.deps.db, business.id, id);
    if (!receipt) throw errors.notFound('payment');
    return { receipt, allocations: await repo.allocationsOf(this.deps.db, [id]) };
  }

  /** Reverses a receipt; a bank credit that recorded it goes back to the review queue, in the same transaction. */
  reverse(business: BusinessRow, id: string, reason: string) {
    return this.deps.db.transaction().execute(async (trx) => {
      const now = this.deps.clock.now();
      const reversed = await reverseReceiptIn(trx, business, id, reason, now);
      await requeueCreditOf(trx, business.id, id, now);
      return reversed;
    });
  }
}

export type { TransactionView };
