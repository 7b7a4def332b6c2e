import type { Db, Executor } from '../db/schema.js';
import type { Clock } from '../lib/clock.js';
import { uuidv7 } from '../lib/ids.js';
import * as deliveriesRepo from './delivery-repository.js';
import * as endpointsRepo from './endpoint-repository.js';
import { deliveryBody, deliveryHeaders } from './payload.js';
import * as queueRepo from './queue-repository.js';
import type { SecretBox } from './secret-box.js';
import type { WebhookResult, WebhookSender } from './sender.js';

/** Waits before the 2nd..6th attempt (SPEC part 6): 1 min, 5 min, 30 min, 2 h, 6 h. */
export const RETRY_DELAYS_MS = [60_000, 300_000, 1_800_000, 7_200_000, 21_600_000] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
/** An endpoint that has failed every attempt for this long is disabled (PRODUCT part 5). */
export const DISABLE_AFTER_MS = 3 * 24 * 60 * 60 * 1000;
/**
 * How long finished attempts wait to be recorded together: each recording transaction is a
 * durable commit (an fsync on SQLite): outcomes are recorded once half the slots have finished,
 * or after this long, so that one commit carries many.
 */
const RECORD_WINDOW_MS = 20;
/** With slots free and nothing finishing, how often the loop looks for new work. */
const IDLE_POLL_MS = 500;

type Leased = queueRepo.LeasedDelivery & { lease_id: string };

export type AttemptOutcome = 'delivered' | 'failed' | 'lease_lost';

export interface DispatcherDeps {
  db: Db;
  clock: Clock;
  sender: WebhookSender;
  secretBox: () => Promise<SecretBox>;
  /** WEBHOOK_TIMEOUT_MS: the sender's bound on one attempt; the lease is sized from it */
  timeoutMs: number;
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
  constructor(private readonly deps: DispatcherDeps) {}

  /**
   * How long a claimed delivery stays ours: a queued delivery waits at most one attempt's bound
   * for a slot (the queue is no longer than the slots), then its own attempt's bound, plus a
   * margin for recording.
   */
  get leaseMs(): number {
    return 2 * this.deps.timeoutMs + 5000;
  }

  /**
   * Fans out up to `limit` undispatched events to the endpoints subscribed at the time of the
   * event. Returns how many events it handled.
   */
  async fanOut(limit = 200): Promise<number> {
    return this.deps.db.transaction().execute(async (trx) => (await this.#fanOutIn(trx, limit)).events);
  }

  /**
   * Fans out up to `limit` events. The first `lease` deliveries it creates are created already
   * leased to this worker and returned, ready to send: no claim query for new work.
   */
  async #fanOutIn(trx: Executor, limit: number, lease = 0): Promise<{ events: number; leased: Leased[] }> {
    const events = await queueRepo.claimEvents(trx, limit);
    if (events.length === 0) return { events: 0, leased: [] };
    const businessIds = [...new Set(events.map((e) => e.business_id))];
    const endpoints = (await queueRepo.activeEndpointsOf(trx, businessIds)).map((e) => ({
      ...e,
      subscribed: new Set(JSON.parse(e.events) as string[]),
    }));
    const clockNow = this.deps.clock.now();
    const now = clockNow.toISOString();
    const leaseId = uuidv7();
    const lockedUntil = new Date(clockNow.getTime() + this.leaseMs).toISOString();
    const rows: deliveriesRepo.DeliveryRow[] = [];
    const leased: Leased[] = [];
    for (const event of events) {
      for (const endpoint of endpoints) {
        if (endpoint.business_id !== event.business_id || !endpoint.subscribed.has(event.type)) continue;
        // An endpoint gets the events that happened after it was created, not the history.
        if (endpoint.created_at > event.created_at) continue;
        const take = leased.length < lease;
        const row: deliveriesRepo.DeliveryRow = {
          id: uuidv7(),
          business_id: event.business_id,
          endpoint_id: endpoint.id,
          event_id: event.id,
          event: event.type,
          body: deliveryBody(event.type, event.created_at, event.payload),
          status: 'pending',
          attempts: 0,
          response_status: null,
          error: null,
          // leased: due again only if this worker's lease runs out (see queueRepo.claimDeliveries)
          next_attempt_at: take ? lockedUntil : now,
          delivered_at: null,
          requeue: 0,
          lease_id: take ? leaseId : null,
          locked_until: take ? lockedUntil : null,
          created_at: now,
          updated_at: now,
        };
        rows.push(row);
        if (take) {
          leased.push({
            id: row.id,
            endpoint_id: row.endpoint_id,
            event_id: row.event_id,
            event: row.event,
            body: row.body,
            url: endpoint.url,
            secret_sealed: endpoint.secret_sealed,
            lease_id: leaseId,
          });
        }
      }
    }
    const created = await queueRepo.insertDeliveries(trx, rows);
    await queueRepo.markDispatched(
      trx,
      events.map((e) => e.id),
      now,
    );
    if (created < rows.length && leased.length > 0) {
      // Some deliveries existed already (a fan-out made twice) and were left as they are: which
      // of ours went in is not known, so the new rows' leases are given back for a claim to take.
      await queueRepo.releaseLeases(
        trx,
        leased.map((d) => d.id),
        [leaseId],
        now,
      );
      return { events: events.length, leased: [] };
    }
    return { events: events.length, leased };
  }

  /** Claims up to `limit` due deliveries, attempts them concurrently and records them; returns how many. */
  async deliverDue(limit = 50, onOutcome?: RunOptions['onOutcome']): Promise<number> {
    const claimed = await this.#claim(limit);
    const finished = await Promise.all(
      claimed.map(async (delivery) => ({ delivery, result: await this.#send(delivery) })),
    );
    if (finished.length > 0) {
      const outcomes = await this.deps.db.transaction().execute((trx) => this.#recordIn(trx, finished));
      for (const outcome of outcomes) onOutcome?.(outcome);
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

  async #claim(limit: number): Promise<Leased[]> {
    return this.deps.db.transaction().execute((trx) => this.#claimIn(trx, limit));
  }

  /**
   * One cycle's transaction: record what finished, give back `release`d leases (unsent), then
   * fill up to `room`: due deliveries claimed, new events' deliveries created leased.
   */
  async #cycle(batch: Finished[], room: number, release: Leased[]): Promise<CycleResult> {
    return this.deps.db.transaction().execute(async (trx) => {
      const outcomes = batch.length > 0 ? await this.#recordIn(trx, batch) : [];
      if (release.length > 0) {
        await queueRepo.releaseLeases(
          trx,
          release.map((d) => d.id),
          [...new Set(release.map((d) => d.lease_id))],
          this.deps.clock.now().toISOString(),
        );
      }
      if (room === 0) return { outcomes, fannedOut: 0, claimed: [] };
      // Due deliveries first (retries, expired leases), then new events' deliveries, created
      // leased up to the room that is left. Only about as many events as there is room for are
      // fanned out (at least one, so a backlog of retries never stalls them): events wait in the
      // outbox rather than as unleased deliveries that a later cycle would have to claim.
      const claimed = await this.#claimIn(trx, room);
      const left = room - claimed.length;
      const fanned = await this.#fanOutIn(trx, Math.min(200, Math.max(1, left)), left);
      return { outcomes, fannedOut: fanned.events, claimed: [...claimed, ...fanned.leased] };
    });
  }

  async #claimIn(trx: Executor, limit: number): Promise<Leased[]> {
    const now = this.deps.clock.now();
    const leaseId = uuidv7();
    const ids = await queueRepo.claimDeliveries(trx, {
      now: now.toISOString(),
      leaseId,
      lockedUntil: new Date(now.getTime() + this.leaseMs).toISOString(),
      limit,
    });
    if (ids.length === 0) return [];
    const rows = await queueRepo.leasedDeliveries(trx, ids, leaseId);
    return rows.map((r) => ({ ...r, lease_id: leaseId }));
  }

  #send(delivery: Leased): Promise<WebhookResult> {
    return signAndSend(this.deps, {
      url: delivery.url,
      secretSealed: delivery.secret_sealed,
      body: delivery.body,
      event: delivery.event,
      eventId: delivery.event_id,
      deliveryId: delivery.id,
    });
  }

  /** Records finished attempts, each only if its lease is still ours, in the caller's transaction. */
  async #recordIn(trx: Executor, batch: Finished[]): Promise<AttemptOutcome[]> {
    const now = this.deps.clock.now();
    const at = now.toISOString();
    // Endpoints first, in one order, then deliveries: the lock order of delete and disable too.
    const endpointIds = [...new Set(batch.map((b) => b.delivery.endpoint_id))].sort();
    for (const id of endpointIds) await endpointsRepo.lockEndpoint(trx, id);
    const held = new Map(
      (
        await queueRepo.findLeasedMany(
          trx,
          batch.map((b) => b.delivery.id),
        )
      ).map((row) => [row.id, row]),
    );
    const valid = batch.filter((b) => held.get(b.delivery.id)?.lease_id === b.delivery.lease_id);

    // Each endpoint's counters move once for the whole batch, in the order the attempts ended.
    const live = new Map<string, boolean>();
    for (const endpointId of endpointIds) {
      const results = valid.filter((b) => b.delivery.endpoint_id === endpointId).map((b) => b.result.ok);
      if (results.length === 0) continue;
      const lastOk = results.lastIndexOf(true);
      const endpoint = await endpointsRepo.recordEndpointOutcomes(trx, endpointId, {
        reset: lastOk >= 0,
        failuresAfter: results.length - 1 - lastOk,
        at,
      });
      let isLive = endpoint !== undefined && endpoint.active === 1 && endpoint.deleted_at === null;
      if (
        isLive &&
        results[results.length - 1] === false &&
        endpoint?.failing_since &&
        now.getTime() - new Date(endpoint.failing_since).getTime() >= DISABLE_AFTER_MS
      ) {
        const reason = `disabled after failing every attempt since ${endpoint.failing_since}`;
        await endpointsRepo.disableEndpoint(trx, endpointId, reason, at);
        await deliveriesRepo.cancelQueued(trx, endpointId, 'endpoint disabled after 3 days of failures', at);
        isLive = false;
      }
      live.set(endpointId, isLive);
    }

    const attempts: deliveriesRepo.AttemptRow[] = [];
    // The usual outcome, delivered, is written for many deliveries at once (one statement per
    // response status); failures and requeued deliveries each get their own update.
    const delivered = new Map<number, string[]>();
    for (const { delivery, result } of valid) {
      const current = held.get(delivery.id) as NonNullable<ReturnType<typeof held.get>>;
      const attempt = current.attempts + 1;
      const isLive = live.get(delivery.endpoint_id) === true;
      const retryAt =
        !result.ok && isLive && attempt < MAX_ATTEMPTS
          ? new Date(now.getTime() + (RETRY_DELAYS_MS[attempt - 1] ?? 0)).toISOString()
          : null;
      const requeued = isLive && current.requeue === 1;
      attempts.push(deliveriesRepo.attemptRow(delivery.id, attempt, result, retryAt, at));
      if (result.ok && !requeued && result.status !== null) {
        const ids = delivered.get(result.status);
        if (ids) ids.push(delivery.id);
        else delivered.set(result.status, [delivery.id]);
        continue;
      }
      await queueRepo.updateDelivery(trx, delivery.id, {
        status: requeued ? 'pending' : result.ok ? 'delivered' : 'failed',
        attempts: attempt,
        response_status: result.status,
        error: result.ok ? null : result.error,
        ...(result.ok && { delivered_at: at }),
        next_attempt_at: requeued ? at : retryAt,
        requeue: 0,
        lease_id: null,
        locked_until: null,
        updated_at: at,
      });
    }
    for (const [responseStatus, ids] of delivered) await queueRepo.markDelivered(trx, ids, responseStatus, at);
    await deliveriesRepo.insertAttempts(trx, attempts);
    return batch.map((b) =>
      held.get(b.delivery.id)?.lease_id !== b.delivery.lease_id ? 'lease_lost' : b.result.ok ? 'delivered' : 'failed',
    );
  }
}

interface CycleResult {
  outcomes: AttemptOutcome[];
  fannedOut: number;
  claimed: Leased[];
}

interface Finished {
  delivery: Leased;
  result: WebhookResult;
}

/**
 * One signed attempt: opens the endpoint's secret, signs the exact body and sends it. Never
 * throws; a failure (even a secret that no longer opens) is a result. Used by the dispatcher and
 * by the test operation.
 */
export async function signAndSend(
  deps: { sender: WebhookSender; secretBox: () => Promise<SecretBox> },
  d: { url: string; secretSealed: string; body: string; event: string; eventId: string; deliveryId: string },
): Promise<WebhookResult> {
  try {
    const secret = (await deps.secretBox()).open(d.secretSealed);
    const headers = deliveryHeaders({
      body: d.body,
      secret,
      event: d.event,
      eventId: d.eventId,
      deliveryId: d.deliveryId,
    });
    return await deps.sender.send({ url: d.url, body: d.body, headers });
  } catch (error) {
    return { ok: false, status: null, error: shortError(error), durationMs: 0 };
  }
}

function shortError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.length > 200 ? `${message.slice(0, 197)}...` : message;
}
