import { EventEmitter } from 'node:events';
import { CompiledQuery, PostgresAdapter } from 'kysely';
import type pg from 'pg';
import type { Logger } from 'pino';
import { NOTIFY_AFTER_COMMIT } from '../db/postgres.js';
import type { Executor } from '../db/schema.js';

/**
 * "There is webhook work to do": sent when an event is recorded or a delivery re-queued, so the
 * dispatcher starts at once instead of at its next poll. On PostgreSQL it is a NOTIFY asked for in
 * the writer's transaction and sent right after its commit (db/postgres.ts), to every process that
 * LISTENs; in this process
 * it is also an in-memory signal, which is all SQLite (one process) needs. The poll stays as the
 * safety net: a lost signal only delays work, it never loses it.
 */
export const OUTBOX_CHANNEL = 'receivables_outbox';

const local = new EventEmitter();
local.setMaxListeners(0);
let localPending = false;

export async function signalOutbox(db: Executor): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    // Sent once the writer's transaction commits (db/postgres.ts: NOTIFY inside it serialised commits).
    await db.executeQuery(CompiledQuery.raw(NOTIFY_AFTER_COMMIT, [OUTBOX_CHANNEL, '']));
  }
  // Coalesced: a burst of writes wakes the dispatcher once.
  if (!localPending) {
    localPending = true;
    setImmediate(() => {
      localPending = false;
      local.emit('signal');
    });
  }
}

/**
 * Calls `wake` on every signal: in-process always, and via LISTEN when `pool` is given. The
 * LISTEN connection is held for good; when it is lost (a restart, a failover) it is replaced with
 * bounded back-off (100 ms doubling to 5 s) and LISTENs again, then wakes once to pick up what
 * was written meanwhile. Loss and return are logged once each; the poll covers the gap.
 */
export function onOutboxSignal(wake: () => void, opts: { pool?: pg.Pool | undefined; logger?: Logger }): () => void {
  local.on('signal', wake);
  let stopped = false;
  let client: pg.PoolClient | undefined;
  let retry: NodeJS.Timeout | undefined;
  let failures = 0;

  const lost = (error: unknown, what: string) => {
    if (failures === 0) opts.logger?.warn({ err: error }, `${what}; polling until LISTEN is back`);
    failures++;
    drop(true);
  };
  const listen = async () => {
    if (!opts.pool || stopped) return;
    try {
      const c = await opts.pool.connect();
      if (stopped) {
        c.release();
        return;
      }
      client = c;
      c.on('notification', wake);
      c.on('error', (error) => {
        if (client === c) lost(error, 'LISTEN connection lost');
      });
      await c.query(`LISTEN ${OUTBOX_CHANNEL}`);
      if (failures > 0) opts.logger?.info({ attempts: failures }, 'LISTEN connection back');
      failures = 0;
      // Anything written while we were not listening is picked up by this wake.
      wake();
    } catch (error) {
      lost(error, 'LISTEN failed');
    }
  };
  const drop = (again: boolean) => {
    const c = client;
    client = undefined;
    if (c) {
      c.removeListener('notification', wake);
      c.release(true);
    }
    if (again && !stopped && !retry) {
      retry = setTimeout(
        () => {
          retry = undefined;
          void listen();
        },
        Math.min(100 * 2 ** (failures - 1), 5000),
      );
      retry.unref();
    }
  };
  void listen();

  return () => {
    stopped = true;
    local.removeListener('signal', wake);
    if (retry) clearTimeout(retry);
    drop(false);
  };
}
