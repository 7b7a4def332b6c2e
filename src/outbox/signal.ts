import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import { notifyAfterCommit } from '../db/port.js';
import type { Executor } from '../db/schema.js';
import type { Store } from '../db/store.js';

/**
 * "There is webhook work to do": sent when an event is recorded or a delivery re-queued, so the
 * dispatcher starts at once instead of at its next poll. On PostgreSQL it is a NOTIFY asked for in
 * the writer's transaction and sent right after its commit (db/postgres/queries.ts), to every process that
 * LISTENs; in this process
 * it is also an in-memory signal, which is all SQLite (one process) needs. The poll stays as the
 * safety net: a lost signal only delays work, it never loses it.
 */
export const OUTBOX_CHANNEL = 'receivables_outbox';

const local = new EventEmitter();
local.setMaxListeners(0);
let localPending = false;

export async function signalOutbox(db: Executor): Promise<void> {
  // To other processes once the writer's transaction commits (PostgreSQL; db/port.ts).
  await notifyAfterCommit(db, OUTBOX_CHANNEL);
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
 * Calls `wake` on every signal: in-process always, and via LISTEN when `listen` is given
 * (db/listen.ts: held for good, replaced when lost); each time the LISTEN is in place again it
 * wakes once, to pick up what was written meanwhile. The poll covers the gap.
 */
export function onOutboxSignal(
  wake: () => void,
  opts: { listen?: Store['listen'] | undefined; logger?: Logger },
): () => void {
  local.on('signal', wake);
  const stop = opts.listen?.(OUTBOX_CHANNEL, { onNotify: wake, onListening: wake, logger: opts.logger });
  return () => {
    local.removeListener('signal', wake);
    stop?.();
  };
}
