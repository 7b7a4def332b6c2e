import type pg from 'pg';
import { listen } from '../listen.js';

/**
 * The channel the API keys' and businesses' triggers NOTIFY on (migration 2026-11-24T08-00 keeps
 * its own copy of the name: migrations never import application code, nor the reverse).
 */
const KEYS_CHANNEL = 'receivables_keys';

/** How long a cached key may be served at most on PostgreSQL, whatever the notifications did. */
const KEY_EPOCH_MS = 60_000;

/**
 * Issue 26: PostgreSQL's signal for the API key cache. A LISTEN on KEYS_CHANNEL (migration
 * 2026-11-24T08-00: triggers on api_keys and businesses NOTIFY it on commit, from any process)
 * moves the version on every notification and each time the LISTEN is in place again (what was
 * missed meanwhile); while it is not in place, every read is a new version, so nothing cached is
 * served. A change is seen once its notification arrives, milliseconds after its commit; and the
 * version moves every minute too, so an entry never outlives a lost notification for long.
 */
export function keyChanges(pool: pg.Pool): { version: () => number; stop: () => void } {
  let moves = 0;
  let listening = false;
  let stop: (() => void) | undefined;
  let stopped = false;
  return {
    // Negative while not listening: never a value that was served while listening.
    version: () => {
      // Started by the first read (the API's first authentication), so that the CLI and
      // migrations, which cache no keys, hold no LISTEN connection.
      if (!stop && !stopped) {
        stop = listen(pool, KEYS_CHANNEL, {
          onNotify: () => moves++,
          onListening: () => {
            listening = true;
            moves++;
          },
          onLost: () => {
            listening = false;
          },
        });
      }
      return listening ? moves * 1e6 + (Math.floor(Date.now() / KEY_EPOCH_MS) % 1e6) : -++moves;
    },
    stop: () => {
      stopped = true;
      listening = false;
      stop?.();
    },
  };
}
