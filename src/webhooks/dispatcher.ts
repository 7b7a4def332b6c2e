import type { Db, Executor } from '../db/schema.js';
import type { Clock } from '../lib/clock.js';
import { uuidv7 } from '../lib/ids.js';
import { deliveryBody, deliveryHeaders } from './payload.js';
import * as repo from './repository.js';
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

type Leased = repo.LeasedDelivery & { lease_id: string };

export type AttemptOutcome = 'delivered' | 'failed' | 'lease_lost';

export interface DispatcherDeps {
  db: Db;
  clock: Clock;
  sender: WebhookSender;
  secretBox: () => Promise<SecretBox>;
  isPostgres: boolean;
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

  /** How long a claimed delivery stays ours: the attempt's own bound plus a margin for recording. */
  get leaseMs(): number {
    return this.deps.timeoutMs + Math.max(5000, this.deps.timeoutMs);
  }

  /**
   * Fans out up to `limit` undispatched events to the endpoints subscribed at the time of the
   * event. Returns how many events it handled.
   */
  async fanOut(limit = 200): Promise<number> {
    return this.deps.db.transaction().execute((trx) => this.#fanOutIn(trx, limit));
  }

  async #fanOutIn(trx: Executor, limit: number): Promise<number> {
    const events = await repo.claimEvents(trx, limit, this.deps.isPostgres);
    if (events.length === 0) return 0;
    const businessIds = [...new Set(events.map((e) => e.business_id))];
    const endpoints = (await repo.activeEndpointsOf(trx, businessIds)).map((e) => ({
      ...e,
      subscribed: new Set(JSON.parse(e.events) as string[]),
    }));
    const now = this.deps.clock.now().toISOString();
    const rows: repo.DeliveryRow[] = [];
    for (const event of events) {
      for (const endpoint of endpoints) {
        if (endpoint.business_id !== event.business_id || !endpoint.subscribed.has(event.type)) continue;
        // An endpoint gets the events that happened after it was created, not the history.
        if (endpoint.created_at > event.created_at) continue;
        rows.push({
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
          next_attempt_at: now,
          delivered_at: null,
          requeue: 0,
          lease_id: null,
          locked_until: null,
          created_at: now,
          updated_at: now,
        });
      }
    }
    await repo.insertDeliveries(trx, rows);
    await repo.markDispatched(
      trx,
      events.map((e) => e.id),
      now,
    );
    return events.length;
  }

  /** Claims up to `limit` due deliveries and attempts them concurrently; returns how many. */
  async deliverDue(limit = 50, onOutcome?: RunOptions['onOutcome']): Promise<number> {
    const claimed = await this.#claim(limit);
    await Promise.all(claimed.map((d) => this.#attempt(d, onOutcome)));
    return claimed.length;
  }

  /**
   * The worker's loop: keeps up to `concurrency` attempts in flight, fanning out and claiming
   * more as attempts finish, until nothing is left to do or `signal` aborts. Attempts already in
   * flight are always finished and recorded (graceful shutdown).
   */
  async run(signal: AbortSignal, opts: RunOptions = {}): Promise<number> {
    const concurrency = opts.concurrency ?? 64;
    let handled = 0;
    const inflight = new Set<Promise<void>>();
    // Outcomes are recorded once half the slots have finished (or after RECORD_WINDOW_MS).
    this.#flushAt = Math.max(1, Math.floor(concurrency / 2));
    while (!signal.aborted) {
      const room = concurrency - inflight.size;
      // One transaction (one durable commit) fans out new events and claims what is due.
      const { fannedOut, claimed } = await this.#fanOutAndClaim(room);
      handled += fannedOut;
      for (const delivery of claimed) {
        const p: Promise<void> = this.#attempt(delivery, opts.onOutcome).finally(() => inflight.delete(p));
        inflight.add(p);
      }
      handled += claimed.length;
      if (inflight.size === 0) {
        if (claimed.length === 0) break;
        continue;
      }
      // Claim again once half the slots are free (one claim per several attempts, not per
      // attempt); while the queue is empty, look again now and then for new work.
      while (inflight.size > concurrency / 2) await Promise.race(inflight);
      if (claimed.length === 0 && inflight.size > 0) {
        await Promise.race([...inflight, new Promise((r) => setTimeout(r, 500).unref())]);
      }
    }
    await Promise.all(inflight);
    return handled;
  }

  async #claim(limit: number): Promise<Leased[]> {
    return this.deps.db.transaction().execute((trx) => this.#claimIn(trx, limit));
  }

  async #fanOutAndClaim(limit: number): Promise<{ fannedOut: number; claimed: Leased[] }> {
    return this.deps.db.transaction().execute(async (trx) => {
      const fannedOut = await this.#fanOutIn(trx, 200);
      return { fannedOut, claimed: limit > 0 ? await this.#claimIn(trx, limit) : [] };
    });
  }

  async #claimIn(trx: Executor, limit: number): Promise<Leased[]> {
    const now = this.deps.clock.now();
    const leaseId = uuidv7();
    const ids = await repo.claimDeliveries(trx, {
      now: now.toISOString(),
      leaseId,
      lockedUntil: new Date(now.getTime() + this.leaseMs).toISOString(),
      limit,
      isPostgres: this.deps.isPostgres,
    });
    if (ids.length === 0) return [];
    const rows = await repo.leasedDeliveries(trx, ids, leaseId);
    return rows.map((r) => ({ ...r, lease_id: leaseId }));
  }

  async #attempt(delivery: Leased, onOutcome?: RunOptions['onOutcome']): Promise<void> {
    const result = await signAndSend(this.deps, {
      url: delivery.url,
      secretSealed: delivery.secret_sealed,
      body: delivery.body,
      event: delivery.event,
      eventId: delivery.event_id,
      deliveryId: delivery.id,
    });
    const outcome = await this.#record(delivery, result);
    onOutcome?.(outcome);
  }

  /**
   * Records an attempt's outcome. Outcomes that finish while a batch is being written are written
   * together in the next transaction (a group commit: one durable write for many attempts).
   */
  #record(delivery: Leased, result: WebhookResult): Promise<AttemptOutcome> {
    return new Promise((resolve, reject) => {
      this.#outcomes.push({ delivery, result, resolve, reject });
      if (this.#outcomes.length >= this.#flushAt && this.#flushTimer) {
        // Enough for a batch: record now rather than at the end of the window.
        clearTimeout(this.#flushTimer);
        this.#flushTimer = null;
        this.#flushWindowEnded?.();
      }
      // Otherwise wait a moment first, so that outcomes finishing together share one commit.
      this.#flushing ??= new Promise<void>((r) => {
        this.#flushWindowEnded = r;
        this.#flushTimer = setTimeout(r, RECORD_WINDOW_MS);
      }).then(() => {
        this.#flushTimer = null;
        return this.#flush();
      });
    });
  }

  #outcomes: PendingOutcome[] = [];
  #flushing: Promise<void> | null = null;
  #flushTimer: NodeJS.Timeout | null = null;
  #flushWindowEnded: (() => void) | null = null;
  /** Outcomes that make a batch worth recording at once (run() sets half its concurrency). */
  #flushAt = 32;

  async #flush(): Promise<void> {
    try {
      while (this.#outcomes.length > 0) {
        const batch = this.#outcomes.splice(0, 200);
        try {
          const outcomes = await this.#recordBatch(batch);
          for (const [i, item] of batch.entries()) item.resolve(outcomes[i] as AttemptOutcome);
        } catch (error) {
          for (const item of batch) item.reject(error);
        }
      }
    } finally {
      this.#flushing = null;
    }
  }

  /** Writes a batch of outcomes, each only if its lease is still ours, in one transaction. */
  async #recordBatch(batch: PendingOutcome[]): Promise<AttemptOutcome[]> {
    return this.deps.db.transaction().execute(async (trx) => {
      const { isPostgres } = this.deps;
      const now = this.deps.clock.now();
      const at = now.toISOString();
      // Endpoints first, in one order, then deliveries: the lock order of delete and disable too.
      const endpointIds = [...new Set(batch.map((b) => b.delivery.endpoint_id))].sort();
      for (const id of endpointIds) await repo.lockEndpoint(trx, id, isPostgres);
      const held = new Map(
        (
          await repo.findLeasedMany(
            trx,
            batch.map((b) => b.delivery.id),
            isPostgres,
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
        const endpoint = await repo.recordEndpointOutcomes(trx, endpointId, {
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
          await repo.disableEndpoint(trx, endpointId, reason, at);
          await repo.cancelQueued(trx, endpointId, 'endpoint disabled after 3 days of failures', at);
          isLive = false;
        }
        live.set(endpointId, isLive);
      }

      const attempts: repo.AttemptRow[] = [];
      for (const { delivery, result } of valid) {
        const current = held.get(delivery.id) as NonNullable<ReturnType<typeof held.get>>;
        const attempt = current.attempts + 1;
        const isLive = live.get(delivery.endpoint_id) === true;
        const retryAt =
          !result.ok && isLive && attempt < MAX_ATTEMPTS
            ? new Date(now.getTime() + (RETRY_DELAYS_MS[attempt - 1] ?? 0)).toISOString()
            : null;
        const requeued = isLive && current.requeue === 1;
        await repo.updateDelivery(trx, delivery.id, {
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
        attempts.push(repo.attemptRow(delivery.id, attempt, result, retryAt, at));
      }
      await repo.insertAttempts(trx, attempts);
      return batch.map((b) =>
        held.get(b.delivery.id)?.lease_id !== b.delivery.lease_id ? 'lease_lost' : b.result.ok ? 'delivered' : 'failed',
      );
    });
  }
}

interface PendingOutcome {
  delivery: Leased;
  result: WebhookResult;
  resolve: (outcome: AttemptOutcome) => void;
  reject: (error: unknown) => void;
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
