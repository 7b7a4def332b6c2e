import type pg from 'pg';

/**
 * The statement that asks for a NOTIFY (channel $1, payload $2) when the transaction it is sent
 * in commits: see wrapQueries. Outside a transaction it is sent at once, from the pool.
 */
export const NOTIFY_AFTER_COMMIT = 'select pg_notify($1, $2) /* after commit */';

type Query = (...args: unknown[]) => unknown;

/** SQL text -> the name it is prepared under on each connection (see preparedStatement). */
const prepared = new Map<string, string>();

/**
 * Issue 26: `sql` is sent as a named prepared statement from now on: parsed and planned once per
 * connection (pg keeps the names it prepared on each), then only bound and executed. For the
 * statements of every request (db/precompiled.ts), a fixed set: never for SQL made per call.
 */
export function preparedStatement(sql: string): void {
  if (!prepared.has(sql)) prepared.set(sql, `p${prepared.size + 1}`);
}

/**
 * What each connection's `query` does besides sending: the prepared statements' names
 * (preparedStatement), NOTIFY_AFTER_COMMIT, and a callback for a query sent without one
 * (viaCallback).
 *
 * Issue 26: a transaction that NOTIFYs takes a database-wide lock at COMMIT and holds it until its
 * commit record is on disk (PostgreSQL orders notifications by commit), so every writer that
 * signalled the outbox in its transaction committed one at a time, whatever its business. Here
 * NOTIFY_AFTER_COMMIT inside a transaction is only remembered on the connection, and sent once the
 * COMMIT has succeeded, as a statement of its own (no xid, no WAL flush: the lock is held for a
 * moment); a ROLLBACK forgets it. Listeners then learn of the change after it is visible, never
 * before. A notification lost on the way (the connection fails) is what a listener's poll covers.
 */
export function wrapQueries(client: pg.PoolClient, notify: (channel: string, payload: string) => void) {
  const query = client.query.bind(client) as Query;
  let inTransaction = false;
  let pending: [string, string][] = [];
  const end = (committed: boolean) => {
    inTransaction = false;
    const sent = pending;
    pending = [];
    if (committed) for (const [channel, payload] of sent) notify(channel, payload);
  };
  (client as unknown as { query: Query }).query = (...args: unknown[]) => {
    const text = args[0];
    if (typeof text !== 'string') return query(...args);
    const name = prepared.get(text);
    if (name !== undefined && typeof args[2] !== 'function') {
      return viaCallback(query, { name, text, values: args[1] as unknown[] | undefined });
    }
    if (text === NOTIFY_AFTER_COMMIT && typeof args[2] !== 'function') {
      const [channel, payload] = args[1] as [string, string];
      // Outside a transaction the statement before has committed already: sent now, by the pool.
      if (inTransaction) pending.push([channel, payload]);
      else notify(channel, payload);
      return Promise.resolve({ command: 'SELECT', rowCount: 1, rows: [{ pg_notify: '' }], fields: [] });
    }
    if (text === 'begin' || text.startsWith('start transaction')) {
      inTransaction = true;
      pending = [];
    } else if ((text === 'commit' || text === 'rollback') && typeof args[2] !== 'function') {
      return (query(...args) as Promise<unknown>).then(
        (result) => {
          end(text === 'commit');
          return result;
        },
        (error: unknown) => {
          end(false);
          throw error;
        },
      );
    }
    if (args.length <= 2 && typeof args[1] !== 'function') {
      return viaCallback(query, { text, values: args[1] as unknown[] | undefined });
    }
    return query(...args);
  };
}

/**
 * Issue 21: a query sent with a callback, the promise made here. Sent without one (as Kysely
 * does), pg makes its own promise, and the rows of such queries were kept alive past young
 * collections and moved to the old generation: 200 queries of 1,000 rows, the same SQL through the
 * same pool, promoted ~240 MB with pg's promise against ~6 MB with a callback (--trace-gc-nvp),
 * and the export of 200,000 dues grew the server's RSS by 65-86 MB against 0-10 MB. Why pg's own
 * promise path keeps them was not pinned down; a promise wrapped around the callback (the same
 * `.catch` hop pg adds included) does not. Errors are the same objects; their stack ends in the
 * socket's read, with Kysely's appended (extendStackTrace).
 */
function viaCallback(query: Query, config: { name?: string; text: string; values: unknown[] | undefined }) {
  return new Promise((resolve, reject) => {
    query(config, (error: unknown, result: unknown) => (error ? reject(error) : resolve(result)));
  });
}

/**
 * After a notification is sent, repeats asked for within this long are sent as one at its end.
 * Issue 26: each NOTIFY is a transaction of its own (an xid, a commit record flushed to disk, the
 * database-wide notify lock) on a connection taken from the requests' pool; sent back to back, it
 * was 0.4 of a round trip per create under load. A listener learns of a burst at once, and of
 * what follows in it at most this much later.
 */
export const NOTIFY_SPACING_MS = 20;

/**
 * Sends notifications from the pool, one at a time per channel and payload: the first at once,
 * the repeats asked for while it is in flight or in the NOTIFY_SPACING_MS after it as one.
 */
export function notifier(pool: pg.Pool) {
  const busy = new Set<string>();
  const again = new Set<string>();
  const send = (channel: string, payload: string) => {
    const key = `${channel}\u0000${payload}`;
    if (busy.has(key)) {
      again.add(key);
      return;
    }
    busy.add(key);
    pool
      .query('select pg_notify($1, $2)', [channel, payload])
      .catch(() => {
        // the pool's health already heard of a failed connection; the listeners' poll covers it
      })
      .finally(() => {
        setTimeout(() => {
          busy.delete(key);
          if (again.delete(key)) send(channel, payload);
        }, NOTIFY_SPACING_MS).unref();
      });
  };
  return send;
}
