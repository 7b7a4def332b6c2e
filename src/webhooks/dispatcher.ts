import type { ChatChannel } from '../channels/channel.js';
import type { Db } from '../db/schema.js';
import type { Clock } from '../lib/clock.js';
import { sendDisabledNotices } from './disabled-notices.js';
import { fanOutIn } from './fan-out.js';
import { claimIn, type Leased, type LeaseTerms } from './leases.js';
import { type AttemptOutcome, type Finished, recordOutcomes } from './outcomes.js';
import * as queueRepo from './queue-repository.js';
import type { SecretBox } from './secret-box.js';
import type { WebhookResult, WebhookSender } from './sender.js';
import { SendingSecrets } from './sending-secrets.js';
import { signAndSend } from './sign-and-send.js';

/**
 * How long finished attempts wait to be recorded together: each recording transaction is a
 * durable commit (an fsync on SQLite): outcomes are recorded once half the slots have finished,
 * or after this long, so that one commit carries many.
 */
const RECORD_WINDOW_MS = 20;
/** With slots free and nothing finishing, how often the loop looks for new work. */
const IDLE_POLL_MS = 500;

export interface DispatcherDeps {
  db: Db;
  clock: Clock;
  sender: WebhookSender;
  secretBox: () => Promise<SecretBox>;
  /** WEBHOOK_TIMEOUT_MS: the sender's bound on one attempt; the lease is sized from it */
  timeoutMs: number;
  /** tells a business its endpoint was disabled after 3 days of failures; absent: nobody is told */
  channel?: ChatChannel;
}

export interface RunOptions {
  /** attempts in flight at once (per process), 64 by default */
  concurrency?: number;
  /** called after each attempt is recorded (metrics) */
  onOutcome?: (outcome: AttemptOutcome) => void;
}

/**
 * Turns outbox events into deliveries and sends them (PRODUCT part 5).
 *
 * Durability: an event row is fanned out to delivery rows and marked dispatched in one
 * transaction. A delivery is sent under a lease (lease_id + locked_until) and its outcome is
 * recorded only if the lease is still ours; a process killed mid-attempt leaves a lease that
 * expires, and the delivery is attempted again: every committed event reaches its endpoints at
 * least once, and receivers de-duplicate on X-Service-Event-Id. Several processes share the
 * queue through FOR UPDATE SKIP LOCKED on PostgreSQL (SQLite has a single writer).
 */
export class WebhookDispatcher {
  readonly #secrets: SendingSecrets;

  constructor(private readonly deps: DispatcherDeps) {
    this.#secrets = new SendingSecrets(deps.db);
  }

  /**
   * How long a claimed delivery stays ours: a queued delivery waits at most one attempt's bound
   * for a slot (the queue is no longer than the slots), then its own attempt's bound, plus a
   * margin for recording.
   */
  get leaseMs(): number {
    return 2 * this.deps.timeoutMs + 5000;
  }

  #lease(): LeaseTerms {
    return { clock: this.deps.clock, leaseMs: this.leaseMs };
  }

  /**
   * Fans out up to `limit` undispatched events to the endpoints subscribed at the time of the
   * event. Returns how many events it handled.
   */
  async fanOut(limit = 200): Promise<number> {
    return this.deps.db.transaction().execute(async (trx) => (await fanOutIn(trx, this.#lease(), limit)).events);
  }

  /** Claims up to `limit` due deliveries, attempts them concurrently and records them; returns how many. */
  async deliverDue(limit = 50, onOutcome?: RunOptions['onOutcome']): Promise<number> {
    const claimed = await this.#claim(limit);
    const finished = await Promise.all(
      claimed.map(async (delivery) => ({ delivery, result: await this.#send(delivery) })),
    );
    if (finished.length > 0) {
      const disabled: string[] = [];
      const outcomes = await this.deps.db
        .transaction()
        .execute((trx) => recordOutcomes(trx, this.deps.clock, finished, disabled));
      for (const outcome of outcomes) onOutcome?.(outcome);
      if (disabled.length > 0) await this.notifyDisabled();
    }
    return claimed.length;
  }

  /**
   * The worker's loop. Up to `concurrency` attempts are in flight, fed from a local queue of
   * claimed deliveries (at most `concurrency` more), so a finished attempt's slot is refilled at
   * once. Bookkeeping happens in cycles, each one transaction (one durable commit): record the
   * attempts that finished since the last cycle, claim due deliveries into the queue, fan out new
   * events into deliveries created leased into it. A cycle runs once half the slots' worth of
   * attempts have finished, when the queue runs dry, RECORD_WINDOW_MS after the first unrecorded
   * attempt finished, and (slots free, nothing finishing) every IDLE_POLL_MS to look for new work.
   *
   * An attempt counts only once its cycle has committed (onOutcome is called then); a process
   * that dies before leaves leases that expire, and those attempts are made again (at least
   * once). When `signal` aborts, nothing more is claimed or started, queued deliveries are
   * released, and attempts in flight are finished and recorded (graceful shutdown). Returns how
   * many events and deliveries it handled; stops when there is nothing left to do.
   */
  async run(signal: AbortSignal, opts: RunOptions = {}): Promise<number> {
    const concurrency = opts.concurrency ?? 64;
    const half = Math.max(1, Math.floor(concurrency / 2));
    let handled = 0;
    let sending = 0;
    let queue: Leased[] = [];
    let finished: Finished[] = [];
    // Wake-ups: `due` remembers one that came while a cycle was running.
    let due = false;
    let wake: (() => void) | null = null;
    let windowTimer: NodeJS.Timeout | null = null;
    const notify = () => {
      due = true;
      wake?.();
    };
    const pump = () => {
      while (sending < concurrency && queue.length > 0 && !signal.aborted) {
        const delivery = queue.shift() as Leased;
        sending++;
        void this.#send(delivery).then((result) => {
          sending--;
          finished.push({ delivery, result });
          pump();
          if (finished.length >= half || queue.length === 0) notify();
          else windowTimer ??= setTimeout(notify, RECORD_WINDOW_MS);
        });
      }
    };
    signal.addEventListener('abort', notify);
    await this.notifyDisabled();
    try {
      for (;;) {
        due = false;
        if (windowTimer) clearTimeout(windowTimer);
        windowTimer = null;
        const batch = finished;
        finished = [];
        const release = signal.aborted ? queue : [];
        if (signal.aborted) queue = [];
        const room = signal.aborted ? 0 : concurrency - queue.length;
        let cycle: CycleResult;
        try {
          cycle = await this.#cycle(batch, room, release);
        } catch (error) {
          // Not recorded: those leases expire and the attempts are made again. Let the sends in
          // flight end before giving up, so none is cut off mid-request.
          queue = [];
          while (sending > 0) await new Promise<void>((r) => (wake = r));
          throw error;
        }
        for (const outcome of cycle.outcomes) opts.onOutcome?.(outcome);
        if (cycle.disabled.length > 0) await this.notifyDisabled();
        handled += cycle.fannedOut + cycle.claimed.length;
        queue.push(...cycle.claimed);
        pump();
        if (sending === 0 && finished.length === 0 && queue.length === 0) {
          if (signal.aborted || (cycle.claimed.length === 0 && cycle.fannedOut === 0)) break;
          continue;
        }
        if (!due) {
          await new Promise<void>((resolve) => {
            wake = resolve;
            if (finished.length > 0) windowTimer ??= setTimeout(notify, RECORD_WINDOW_MS);
            else if (sending < concurrency && !signal.aborted) setTimeout(resolve, IDLE_POLL_MS).unref();
          });
          wake = null;
        }
      }
    } finally {
      signal.removeEventListener('abort', notify);
      if (windowTimer) clearTimeout(windowTimer);
    }
    return handled;
  }

  /**
   * Tells the businesses whose endpoints were disabled (and not yet told): after the cycle that
   * disabled them, and at the start of each run for any a stopped process left untold. A channel
   * failure leaves them for the next run; it never stops delivery.
   */
  async notifyDisabled(): Promise<number> {
    if (!this.deps.channel) return 0;
    try {
      return await sendDisabledNotices({ db: this.deps.db, channel: this.deps.channel });
    } catch {
      return 0;
    }
  }

  async #claim(limit: number): Promise<Leased[]> {
    return this.deps.db.transaction().execute((trx) => claimIn(trx, this.#lease(), limit));
  }

  /**
   * One cycle's transaction: record what finished, give back `release`d leases (unsent), then
   * fill up to `room`: due deliveries claimed, new events' deliveries created leased.
   */
  async #cycle(batch: Finished[], room: number, release: Leased[]): Promise<CycleResult> {
    const disabled: string[] = [];
    return this.deps.db.transaction().execute(async (trx) => {
      const outcomes = batch.length > 0 ? await recordOutcomes(trx, this.deps.clock, batch, disabled) : [];
      if (release.length > 0) {
        await queueRepo.releaseLeases(
          trx,
          release.map((d) => d.id),
          [...new Set(release.map((d) => d.lease_id))],
          this.deps.clock.now().toISOString(),
        );
      }
      if (room === 0) return { outcomes, disabled, fannedOut: 0, claimed: [] };
      // Due deliveries first (retries, expired leases), then new events' deliveries, created
      // leased up to the room that is left. Only about as many events as there is room for are
      // fanned out (at least one, so a backlog of retries never stalls them): events wait in the
      // outbox rather than as unleased deliveries that a later cycle would have to claim.
      const claimed = await claimIn(trx, this.#lease(), room);
      const left = room - claimed.length;
      const fanned = await fanOutIn(trx, this.#lease(), Math.min(200, Math.max(1, left)), left);
      return { outcomes, disabled, fannedOut: fanned.events, claimed: [...claimed, ...fanned.leased] };
    });
  }

  #send(delivery: Leased): Promise<WebhookResult> {
    return signAndSend(this.deps, {
      url: delivery.url,
      endpointId: delivery.endpoint_id,
      secrets: () => this.#secrets.of(delivery.endpoint_id),
      body: delivery.body,
      event: delivery.event,
      eventId: delivery.event_id,
      deliveryId: delivery.id,
    });
  }
}

interface CycleResult {
  outcomes: AttemptOutcome[];
  /** endpoints this cycle disabled after 3 days of failures */
  disabled: string[];
  fannedOut: number;
  claimed: Leased[];
}
