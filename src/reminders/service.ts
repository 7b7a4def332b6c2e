import type { BusinessRow } from '../businesses/repository.js';
import { findBusiness } from '../businesses/repository.js';
import { ChannelError } from '../channels/channel.js';
import type { Db, Executor } from '../db/schema.js';
import { errors } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import { dateAfter, instantAt, LAST_DATE, localDate } from '../lib/dates.js';
import { randomToken, uuidv7 } from '../lib/ids.js';
import type { Messenger } from '../messaging/messenger.js';
import { type SendPace, unpaced } from '../messaging/pace.js';
import { insertMessage, isUnreachable } from '../messaging/repository.js';
import { recordEvent } from '../outbox/events.js';
import { AUTOMATIC_HOUR } from '../reminder-schedule/schedule.js';
import { liveDue } from '../transactions/live-due.js';
import { findTransaction, type TransactionView } from '../transactions/repository.js';
import {
  CANCELLING_REASONS,
  CAP_WINDOW_MS,
  type HoldReason,
  holdReason,
  nextAllowedAt,
  type ReminderGate,
} from './protections.js';
import * as repo from './repository.js';
import type { RemindInput } from './schema.js';
import { chooseTemplate, type ReminderTemplate, reminderMessage } from './templates.js';

export interface RemindResult {
  sent: boolean;
  reason: HoldReason | null;
  template: ReminderTemplate;
}

/** What became of one automatic reminder the scheduler picked (metrics label `outcome`). */
export type AutomaticOutcome = 'sent' | AutomaticHold | 'paid' | 'late' | 'channel_error' | 'failed';
/** What holds an automatic reminder back: part 6's protections, or the buyer's promise to pay. */
type AutomaticHold = HoldReason | 'promised';

/** A sender holds its reminder this long; after that a crashed sender's reminder is taken over. */
export const LEASE_MS = 5 * 60_000;
/** How many automatic reminders one worker sends at once. */
const SENDS_IN_FLIGHT = 8;
/** Channel failures of an automatic reminder are retried after these delays, then it fails. */
export const RETRY_DELAYS_MS = [60_000, 5 * 60_000, 30 * 60_000, 2 * 60 * 60_000];

interface ReadyToSend {
  reminderId: string;
  leaseId: string;
  business: BusinessRow;
  due: TransactionView;
  template: ReminderTemplate;
}

/**
 * Reminders (PRODUCT part 6). Sending is three steps so that no database transaction is held open
 * across the network call:
 *  1. decide: with the contact's row locked, check the protections and mark the reminder
 *     `sending` (which counts against the cooldown, so a concurrent sender sees it);
 *  2. call the channel;
 *  3. record: `sent`, reminder_count + 1 and the reminder.sent event, in one transaction.
 * A channel failure records nothing as sent: the reminder is marked failed (manual) or retried.
 */
export class ReminderService {
  constructor(
    private readonly deps: {
      db: Db;
      clock: Clock;
      /** the messenger (messaging/messenger.ts): charges the pace; the send's record is written here */
      channel: Pick<Messenger, 'deliver'>;
      publicBaseUrl: string;
      /** the number's sending pace (messaging/pace.ts), taken per batch by runDue */
      pace?: SendPace;
    },
  ) {}

  /** POST /v1/transactions/{id}/remind: send now unless a protection holds it back. */
  async remind(business: BusinessRow, transactionId: string, input: RemindInput): Promise<RemindResult> {
    const { db, clock } = this.deps;
    const now = clock.now();
    const leaseId = randomToken();
    const decided = await db.transaction().execute(async (trx) => {
      const due = liveDue(await findTransaction(trx, business.id, transactionId));
      if (due.status === 'paid') throw errors.conflict('transaction is already paid; nothing to remind');
      const template = input.template ?? chooseTemplate(due.due_date, localDate(business.timezone, now));
      const { gate, phone } = await this.gate(trx, business, due);
      const reason = holdReason(gate, now);
      if (reason !== null) return { reason, template, ready: null };
      const reminderId = uuidv7(now.getTime());
      await repo.insertReminder(trx, {
        id: reminderId,
        business_id: business.id,
        transaction_id: due.id,
        contact_id: due.contact_id,
        kind: 'manual',
        status: 'sending',
        template,
        reason: null,
        scheduled_for: now.toISOString(),
        sent_at: now.toISOString(),
        attempts: 1,
        lease_id: leaseId,
        locked_until: new Date(now.getTime() + LEASE_MS).toISOString(),
        provider_message_id: null,
        delivery_status: null,
        delivery_updated_at: null,
        step_until: null,
        created_at: now.toISOString(),
        updated_at: now.toISOString(),
      });
      const ready: ReadyToSend = { reminderId, leaseId, business, due: { ...due, contact_phone: phone }, template };
      return { reason: null, template, ready };
    });
    if (!decided.ready) return { sent: false, reason: decided.reason, template: decided.template };

    try {
      await this.sendAndRecord(decided.ready, { manual: true });
    } catch (error) {
      await repo.updateLeasedReminder(db, decided.ready.reminderId, leaseId, {
        status: 'failed',
        sent_at: null,
        reason: failureReason(error),
        lease_id: null,
        locked_until: null,
        updated_at: clock.now().toISOString(),
      });
      throw error;
    }
    return { sent: true, reason: null, template: decided.template };
  }

  /**
   * The scheduler's batch: leases up to `limit` automatic reminders that are due and attempts each.
   * Returns what became of each (reminders a payment cancelled meanwhile are left out).
   * `businessId` narrows the batch to one business: tests sharing a database use it to touch only
   * their own reminders.
   */
  async runDue(
    signal: AbortSignal,
    options: { limit?: number; businessId?: string } = {},
  ): Promise<AutomaticOutcome[]> {
    return (await this.runDueBatch(signal, options)).outcomes;
  }

  /**
   * runDue, and how long to wait before the next batch when the number's pace (messaging/pace.ts)
   * held steps back (0 otherwise). Tokens are taken before steps are claimed, so a step the pace
   * holds stays scheduled, untouched, for the next batch: late by the wait, never skipped. The
   * claim reads the steps that are due by their index: the cost is O(steps due), never
   * O(businesses).
   */
  async runDueBatch(
    signal: AbortSignal,
    options: { limit?: number; businessId?: string } = {},
  ): Promise<{ outcomes: AutomaticOutcome[]; waitMs: number }> {
    const { db, clock, pace = unpaced } = this.deps;
    const limit = options.limit ?? 20;
    const now = clock.now();
    const leaseId = randomToken();
    // One transaction takes the tokens and the steps they pay for, and gives back what found no step.
    const { granted, waitMs, ids } = await db.transaction().execute(async (trx) => {
      const taken = await pace.take(limit, trx);
      if (taken.granted === 0) return { ...taken, ids: [] };
      await repo.failStaleManualSends(trx, now.toISOString());
      const claimed = await repo.claimDue(trx, {
        now: now.toISOString(),
        leaseId,
        lockedUntil: new Date(now.getTime() + LEASE_MS).toISOString(),
        limit: taken.granted,
        businessId: options.businessId,
      });
      await pace.refund(taken.granted - claimed.length, trx);
      return { ...taken, ids: claimed };
    });
    if (granted === 0) return { outcomes: [], waitMs };
    const outcomes: AutomaticOutcome[] = [];
    const queue = [...ids];
    // A few sends in flight at once: reminders bunch up at 10:00 local, and each send waits on the network.
    const sender = async () => {
      for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
        if (signal.aborted) {
          // Shutting down: hand the rest back at once instead of after the lease.
          await repo.updateLeasedReminder(db, id, leaseId, { lease_id: null, locked_until: null });
          continue;
        }
        const outcome = await this.attemptAutomatic(id, leaseId);
        if (outcome !== null) outcomes.push(outcome);
      }
    };
    try {
      await Promise.all(Array.from({ length: Math.min(SENDS_IN_FLIGHT, ids.length) }, sender));
    } finally {
      // Tokens taken for steps that did not go out (none due, held back, paid meanwhile) go back.
      await pace.refund(
        granted - outcomes.filter((o) => o === 'sent' || o === 'channel_error' || o === 'failed').length,
      );
    }
    // Fewer steps than tokens: nothing is waiting on the pace.
    return { outcomes, waitMs: ids.length < granted ? 0 : waitMs };
  }

  private async attemptAutomatic(id: string, leaseId: string): Promise<AutomaticOutcome | null> {
    const { db, clock } = this.deps;
    const now = clock.now();
    const at = now.toISOString();
    const decided = await db.transaction().execute(async (trx) => {
      const reminder = await repo.findLeasedReminder(trx, id, leaseId);
      if (!reminder) return null;
      const due = await findTransaction(trx, reminder.business_id, reminder.transaction_id);
      const business = await findBusiness(trx, reminder.business_id);
      if (!due || !business || due.status === 'paid') {
        await repo.updateLeasedReminder(trx, id, leaseId, cancelled('paid', at));
        return 'paid' as const;
      }
      // The next step's moment has come (the worker was down, or a retry ran late): this step is
      // skipped rather than sent together with the next one.
      if (reminder.step_until !== null && at >= reminder.step_until) {
        await repo.updateLeasedReminder(trx, id, leaseId, cancelled(reminder.reason, at));
        return 'late' as const;
      }
      const { gate, phone } = await this.gate(trx, business, due, id);
      const hold = heldUntil(gate, due, business, now);
      if (hold !== null) {
        // A step held back past the next step's moment is skipped: never two steps in a burst.
        const skip =
          hold.until === null || (reminder.step_until !== null && hold.until.toISOString() >= reminder.step_until);
        await repo.updateLeasedReminder(
          trx,
          id,
          leaseId,
          skip
            ? cancelled(hold.reason, at)
            : {
                status: 'scheduled',
                scheduled_for: hold.until?.toISOString() ?? at,
                sent_at: null,
                reason: hold.reason,
                lease_id: null,
                locked_until: null,
                updated_at: at,
              },
        );
        return hold.reason;
      }
      const template =
        (reminder.template as ReminderTemplate | null) ??
        chooseTemplate(due.due_date, localDate(business.timezone, now));
      const claimed = await repo.updateLeasedReminder(trx, id, leaseId, {
        status: 'sending',
        template,
        sent_at: at,
        attempts: reminder.attempts + 1,
        locked_until: new Date(now.getTime() + LEASE_MS).toISOString(),
        updated_at: at,
      });
      // A payment committed while we decided (PostgreSQL waited for it) cancelled the reminder.
      if (Number(claimed.numUpdatedRows) === 0) return null;
      return {
        ready: { reminderId: id, leaseId, business, due: { ...due, contact_phone: phone }, template },
        attempts: reminder.attempts + 1,
      };
    });
    if (decided === null || typeof decided === 'string') return decided;

    try {
      await this.sendAndRecord(decided.ready, { manual: false });
      return 'sent';
    } catch (error) {
      const delay = RETRY_DELAYS_MS[decided.attempts - 1];
      const later = clock.now();
      await repo.updateLeasedReminder(db, id, leaseId, {
        status: delay === undefined ? 'failed' : 'scheduled',
        scheduled_for: new Date(later.getTime() + (delay ?? 0)).toISOString(),
        sent_at: null,
        reason: failureReason(error),
        lease_id: null,
        locked_until: null,
        updated_at: later.toISOString(),
      });
      if (!(error instanceof ChannelError)) throw error;
      return delay === undefined ? 'failed' : 'channel_error';
    }
  }

  /**
   * Steps 2 and 3: the channel call, then the record of the send. An automatic step's pace was
   * taken with its batch; a manual one is charged as it goes (a person is waiting for it). A
   * manual reminder becomes a step of its own in the due's `reminders`, at the moment it was sent.
   */
  private async sendAndRecord(ready: ReadyToSend, how: { manual: boolean }): Promise<void> {
    const { db, clock, channel, publicBaseUrl } = this.deps;
    const { messageId, record } = await channel.deliver(
      reminderMessage(ready.business, ready.due, ready.template, publicBaseUrl),
      {
        purpose: 'reminder',
        businessId: ready.business.id,
        contactId: ready.due.contact_id,
        reminderId: ready.reminderId,
        paced: !how.manual,
      },
    );
    const sentAt = clock.now();
    await db.transaction().execute(async (trx) => {
      // The message's record first: whatever became of the lease, it went out.
      await insertMessage(trx, record);
      const updated = await repo.updateLeasedReminder(trx, ready.reminderId, ready.leaseId, {
        status: 'sent',
        ...(how.manual && { scheduled_for: sentAt.toISOString() }),
        sent_at: sentAt.toISOString(),
        provider_message_id: messageId,
        reason: null,
        lease_id: null,
        locked_until: null,
        updated_at: sentAt.toISOString(),
      });
      // Lost the lease (the send outlived it and another worker took over): that worker records it.
      if (Number(updated.numUpdatedRows) === 0) return;
      await repo.incrementReminderCount(trx, ready.due.id, sentAt.toISOString());
      await recordEvent(trx, {
        businessId: ready.business.id,
        type: 'reminder.sent',
        data: {
          transactionId: ready.due.id,
          contactName: ready.due.contact_name,
          template: ready.template,
          sentAt: sentAt.toISOString(),
        },
        at: sentAt,
      });
    });
  }

  /** The protections' inputs for this due's contact, read with the contact's row locked. */
  private async gate(
    trx: Executor,
    business: BusinessRow,
    due: Pick<TransactionView, 'contact_id' | 'reminders_paused'>,
    exceptReminderId?: string,
  ): Promise<{ gate: ReminderGate; phone: string | null }> {
    const now = this.deps.clock.now();
    const contact = await repo.lockContact(trx, business.id, due.contact_id);
    const phone = contact?.phone ?? null;
    const optedOut = phone !== null && (await repo.isOptedOut(trx, phone));
    // WhatsApp said this phone cannot receive (messaging/statuses.ts): as good as no phone.
    const reachable = phone !== null && !(await isUnreachable(trx, phone));
    const since = new Date(now.getTime() - CAP_WINDOW_MS).toISOString();
    const recentSends = await repo.recentSends(trx, due.contact_id, since, exceptReminderId);
    return {
      gate: {
        optedOut,
        hasPhone: reachable,
        paused: business.reminders_paused === 1 || due.reminders_paused === 1 || contact?.reminders_paused === 1,
        recentSends,
        timezone: business.timezone,
      },
      phone,
    };
  }
}

/**
 * Why an automatic reminder may not go now and until when: part 6's protections (a cancelling one:
 * until null), then a promise to pay, which holds the due's reminders until the day after the
 * promised date (PRODUCT part 13).
 */
function heldUntil(
  gate: ReminderGate,
  due: Pick<TransactionView, 'promise_date'>,
  business: Pick<BusinessRow, 'timezone'>,
  now: Date,
): { reason: AutomaticHold; until: Date | null } | null {
  const reason = holdReason(gate, now);
  if (reason !== null && CANCELLING_REASONS.has(reason)) return { reason, until: null };
  if (due.promise_date !== null && localDate(business.timezone, now) <= due.promise_date) {
    const dayAfter = dateAfter(due.promise_date, 1) ?? LAST_DATE;
    return { reason: 'promised', until: instantAt(business.timezone, dayAfter, AUTOMATIC_HOUR) };
  }
  if (reason !== null) return { reason, until: nextAllowedAt(reason, gate, now) };
  return null;
}

function cancelled(reason: string | null, at: string) {
  return { status: 'cancelled', reason, lease_id: null, locked_until: null, updated_at: at };
}

function failureReason(error: unknown): string {
  if (error instanceof ChannelError) return `channel_error: ${error.message}`.slice(0, 500);
  return 'error: the reminder could not be sent';
}
