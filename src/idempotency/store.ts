import { isLockTimeout } from '../db/errors.js';
import { lockTimeout } from '../db/port.js';
import type { Db, Trx } from '../db/schema.js';
import { errors } from '../errors.js';
import type { Clock } from '../lib/clock.js';

const WINDOW_MS = 24 * 60 * 60 * 1000;

/** One Idempotency-Key as a request gave it (http/idempotency.ts reads it from the headers). */
export interface IdempotencyKey {
  /** what the key is scoped to besides the business, e.g. `transactions.create` */
  operation: string;
  key: string;
  /** sha256 of the canonical request body: the same key with another body is refused */
  requestHash: string;
}

/** The HTTP response a write answered with, stored for its replays. */
export interface StoredResponse {
  status: number;
  body: unknown;
}

/**
 * What a service call that honours Idempotency-Key is given: the key (absent when the request had
 * none) and how its result becomes the stored response (the route's presenter). The call answers
 * with `Answer`, a first response or a replay.
 */
export interface Idempotent<T> {
  idempotencyKey: IdempotencyKey | undefined;
  respond: (result: T) => StoredResponse;
}

export interface Answer extends StoredResponse {
  replayed: boolean;
}

/**
 * Idempotency-Key with Stripe's semantics (PRODUCT part 2), used by a service INSIDE its own
 * database transaction: the key row is claimed, the work done and its response stored in that ONE
 * transaction, so:
 * - a crash before commit leaves no key and no effect, and the client's retry simply runs again;
 * - a concurrent duplicate waits on the key's row lock (PostgreSQL) or on the single writer
 *   (SQLite) until the first commits, then replays its response;
 * - a request that fails (validation or otherwise) rolls back and stores nothing.
 * An expired key (older than 24 hours) is taken over by the next request that uses it.
 */
export class IdempotencyStore {
  constructor(private readonly deps: { db: Db; clock: Clock }) {}

  /**
   * Runs `work` in `trx` once per key: a first request runs it and stores `respond(result)`, a
   * repeat gets the stored response (`replayed: true`) and runs nothing.
   */
  async once<T>(trx: Trx, businessId: string, idem: Idempotent<T>, work: () => Promise<T>): Promise<Answer> {
    const key = idem.idempotencyKey;
    if (key) {
      const earlier = await this.claim(trx, businessId, key);
      if (earlier) return { ...earlier, replayed: true };
    }
    const response = idem.respond(await work());
    if (key) await this.save(trx, businessId, key, response);
    return { ...response, replayed: false };
  }

  /** Claims the key in `trx`, or returns the response stored under it (422 for another body). */
  private async claim(trx: Trx, businessId: string, key: IdempotencyKey): Promise<StoredResponse | null> {
    const now = this.deps.clock.now();
    try {
      // A duplicate that cannot get the key's lock in time gets 409 rather than hanging.
      await lockTimeout(trx, 15);
      const claimed = await trx
        .insertInto('idempotency_keys')
        .values({
          business_id: businessId,
          operation: key.operation,
          idempotency_key: key.key,
          request_hash: key.requestHash,
          response_status: 0,
          response_body: '',
          created_at: now.toISOString(),
        })
        .onConflict((oc) =>
          oc
            .columns(['business_id', 'operation', 'idempotency_key'])
            .doUpdateSet({
              request_hash: key.requestHash,
              response_status: 0,
              response_body: '',
              created_at: now.toISOString(),
            })
            .where('idempotency_keys.created_at', '<', new Date(now.getTime() - WINDOW_MS).toISOString()),
        )
        .returning('idempotency_key')
        .executeTakeFirst();
      if (claimed) return null;
    } catch (error) {
      if (isLockTimeout(error)) {
        throw errors.conflict(
          'a request with this Idempotency-Key is still in progress; retry later',
          'Idempotency-Key',
        );
      }
      throw error;
    }
    const original = await trx
      .selectFrom('idempotency_keys')
      .select(['request_hash', 'response_status', 'response_body'])
      .where('business_id', '=', businessId)
      .where('operation', '=', key.operation)
      .where('idempotency_key', '=', key.key)
      .executeTakeFirstOrThrow();
    if (original.request_hash !== key.requestHash) {
      throw errors.unprocessable(
        'this Idempotency-Key was already used with a different request body',
        'Idempotency-Key',
      );
    }
    return { status: original.response_status, body: JSON.parse(original.response_body) };
  }

  private async save(trx: Trx, businessId: string, key: IdempotencyKey, response: StoredResponse): Promise<void> {
    await trx
      .updateTable('idempotency_keys')
      .set({ response_status: response.status, response_body: JSON.stringify(response.body) })
      .where('business_id', '=', businessId)
      .where('operation', '=', key.operation)
      .where('idempotency_key', '=', key.key)
      .execute();
  }

  /**
   * Deletes keys older than the 24-hour window, about `batch` at a time (by created_at range, so
   * each statement stays short); returns how many were deleted.
   */
  async purgeExpired(batch = 500): Promise<number> {
    const cutoff = new Date(this.deps.clock.now().getTime() - WINDOW_MS).toISOString();
    const edge = await this.deps.db
      .selectFrom('idempotency_keys')
      .select('created_at')
      .where('created_at', '<', cutoff)
      .orderBy('created_at')
      .offset(batch - 1)
      .limit(1)
      .executeTakeFirst();
    const result = await this.deps.db
      .deleteFrom('idempotency_keys')
      .where('created_at', '<', cutoff)
      .$if(edge !== undefined, (q) => q.where('created_at', '<=', edge?.created_at as string))
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
