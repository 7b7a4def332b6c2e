import type { FastifyReply, FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import { isLockTimeout } from '../db/errors.js';
import type { Db, Trx } from '../db/schema.js';
import type { StoreKind } from '../db/store.js';
import { errors } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import { sha256Hex } from '../lib/ids.js';

export interface StoredResponse {
  status: number;
  body: unknown;
}

const WINDOW_MS = 24 * 60 * 60 * 1000;

/** JSON with sorted keys, so that {"a":1,"b":2} and {"b":2,"a":1} are the same request. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * Idempotency-Key with Stripe's semantics (PRODUCT part 2). The key row is claimed, the work done
 * and its response stored in ONE database transaction, so:
 * - a crash before commit leaves no key and no effect, and the client's retry simply runs again;
 * - a concurrent duplicate waits on the key's row lock (PostgreSQL) or on the single writer
 *   (SQLite) until the first commits, then replays its response;
 * - a request that fails (validation or otherwise) rolls back and stores nothing.
 * An expired key (older than 24 hours) is taken over by the next request that uses it.
 */
export class Idempotency {
  constructor(private readonly deps: { db: Db; clock: Clock; storeKind: StoreKind }) {}

  async execute(
    request: FastifyRequest,
    reply: FastifyReply,
    operation: string,
    work: (trx: Trx) => Promise<StoredResponse>,
  ): Promise<FastifyReply> {
    const header = request.headers['idempotency-key'];
    if (header === undefined) {
      const result = await this.deps.db.transaction().execute(work);
      return reply.code(result.status).send(result.body);
    }
    const key = Array.isArray(header) ? header[0] : header;
    if (!key || key.length > 255 || !/^[\x21-\x7e]+$/.test(key)) {
      throw errors.invalid('Idempotency-Key', 'Idempotency-Key must be 1-255 visible ASCII characters');
    }
    const businessId = request.auth.business.id;
    const requestHash = sha256Hex(canonical(request.body ?? {}));
    const now = this.deps.clock.now();

    let outcome: { replayed: boolean; status: number; body: string };
    try {
      outcome = await this.deps.db.transaction().execute(async (trx) => {
        if (this.deps.storeKind === 'postgres') {
          // A duplicate that cannot get the key's lock in time gets 409 rather than hanging.
          await sql`set local lock_timeout = '15s'`.execute(trx);
        }
        const claimed = await trx
          .insertInto('idempotency_keys')
          .values({
            business_id: businessId,
            operation,
            idempotency_key: key,
            request_hash: requestHash,
            response_status: 0,
            response_body: '',
            created_at: now.toISOString(),
          })
          .onConflict((oc) =>
            oc
              .columns(['business_id', 'operation', 'idempotency_key'])
              .doUpdateSet({
                request_hash: requestHash,
                response_status: 0,
                response_body: '',
                created_at: now.toISOString(),
              })
              .where('idempotency_keys.created_at', '<', new Date(now.getTime() - WINDOW_MS).toISOString()),
          )
          .returning('idempotency_key')
          .executeTakeFirst();

        if (!claimed) {
          const original = await trx
            .selectFrom('idempotency_keys')
            .select(['request_hash', 'response_status', 'response_body'])
            .where('business_id', '=', businessId)
            .where('operation', '=', operation)
            .where('idempotency_key', '=', key)
            .executeTakeFirstOrThrow();
          if (original.request_hash !== requestHash) {
            throw errors.unprocessable(
              'this Idempotency-Key was already used with a different request body',
              'Idempotency-Key',
            );
          }
          return {
            replayed: true,
            status: original.response_status,
            body: original.response_body,
          };
        }

        const result = await work(trx);
        const body = JSON.stringify(result.body);
        await trx
          .updateTable('idempotency_keys')
          .set({ response_status: result.status, response_body: body })
          .where('business_id', '=', businessId)
          .where('operation', '=', operation)
          .where('idempotency_key', '=', key)
          .execute();
        return { replayed: false, status: result.status, body };
      });
    } catch (error) {
      if (isLockTimeout(error)) {
        throw errors.conflict(
          'a request with this Idempotency-Key is still in progress; retry later',
          'Idempotency-Key',
        );
      }
      throw error;
    }
    if (outcome.replayed) reply.header('idempotent-replayed', 'true');
    // The stored text is sent as is: the replay is byte-for-byte the original response.
    return reply
      .code(outcome.status)
      .type('application/json; charset=utf-8')
      .serializer((payload: unknown) => payload as string)
      .send(outcome.body);
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
