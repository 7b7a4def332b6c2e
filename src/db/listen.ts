import type pg from 'pg';
import type { Logger } from 'pino';

/**
 * A LISTEN on `channel` held for good on one of the pool's connections. `onNotify` runs on every
 * notification; `onListening` each time the LISTEN is (again) in place, and `onLost` each time it
 * is lost (a restart, a failover), after which it is replaced with bounded back-off (100 ms
 * doubling to 5 s). Loss and return are logged once each. Returns the function that stops it.
 */
export interface ListenHandlers {
  onNotify: () => void;
  onListening?: () => void;
  onLost?: () => void;
  logger?: Logger | undefined;
}

export function listen(pool: pg.Pool, channel: string, handlers: ListenHandlers): () => void {
  const { onNotify, logger } = handlers;
  let stopped = false;
  let client: pg.PoolClient | undefined;
  let retry: NodeJS.Timeout | undefined;
  let failures = 0;

  const lost = (error: unknown, what: string) => {
    if (failures === 0) logger?.warn({ err: error, channel }, `${what}; polling until LISTEN is back`);
    failures++;
    handlers.onLost?.();
    drop(true);
  };
  const start = async () => {
    if (stopped) return;
    try {
      const c = await pool.connect();
      if (stopped) {
        c.release();
        return;
      }
      client = c;
      c.on('notification', onNotify);
      c.on('error', (error) => {
        if (client === c) lost(error, 'LISTEN connection lost');
      });
      await c.query(`LISTEN ${channel}`);
      if (failures > 0) logger?.info({ attempts: failures, channel }, 'LISTEN connection back');
      failures = 0;
      handlers.onListening?.();
    } catch (error) {
      lost(error, 'LISTEN failed');
    }
  };
  const drop = (again: boolean) => {
    const c = client;
    client = undefined;
    if (c) {
      c.removeListener('notification', onNotify);
      c.release(true);
    }
    if (again && !stopped && !retry) {
      retry = setTimeout(
        () => {
          retry = undefined;
          void start();
        },
        Math.min(100 * 2 ** (failures - 1), 5000),
      );
      retry.unref();
    }
  };
  void start();
  return () => {
    stopped = true;
    if (retry) clearTimeout(retry);
    drop(false);
  };
}
