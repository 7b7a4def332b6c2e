import type { Logger } from 'pino';
import type { Store } from '../db/store.js';
import type { Metrics } from '../http/metrics.js';
import type { Clock } from '../lib/clock.js';
import { onOutboxSignal } from '../outbox/signal.js';
import type { WebhookDispatcher } from '../webhooks/dispatcher.js';
import { oldestWaiting } from '../webhooks/queue-repository.js';
import type { Job } from './runner.js';

/**
 * Fans outbox events out to webhook deliveries and sends them, up to `concurrency` attempts at a
 * time (PRODUCT part 5). Wakes on new events (LISTEN/NOTIFY on PostgreSQL, an in-process signal
 * otherwise) and polls every `idleMs` for retries that come due and as a safety net. Stopping
 * lets the attempts in flight finish and be recorded.
 */
export function webhookDispatcherJob(
  deps: { dispatcher: WebhookDispatcher; store: Store; clock: Clock; metrics: Metrics; logger?: Logger },
  opts: { idleMs?: number; concurrency?: number } = {},
): Job {
  deps.metrics.lagGauge(
    'webhook_queue_lag_seconds',
    'Age of the oldest webhook work waiting: an event not yet fanned out or a delivery past its due time',
    async () => {
      const now = deps.clock.now();
      const oldest = await oldestWaiting(deps.store.db, now.toISOString());
      return oldest === null ? 0 : Math.max(0, (now.getTime() - new Date(oldest).getTime()) / 1000);
    },
  );
  return {
    name: 'webhook-dispatcher',
    idleMs: opts.idleMs ?? 1000,
    runOnce: (signal) =>
      deps.dispatcher.run(signal, {
        ...(opts.concurrency !== undefined && { concurrency: opts.concurrency }),
        onOutcome: (outcome) => deps.metrics.webhookDeliveries.inc({ outcome }),
      }),
    subscribe: (wake) =>
      onOutboxSignal(wake, { listen: deps.store.listen, ...(deps.logger && { logger: deps.logger }) }),
  };
}
