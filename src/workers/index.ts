import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Store } from '../db/store.js';
import type { Metrics } from '../http/metrics.js';
import type { Clock } from '../lib/clock.js';
import { reminderLag } from '../ops/worker-lag.js';
import type { Services } from '../services.js';
import { dashboardPurge } from './dashboard-purge.js';
import { idempotencyPurge } from './idempotency-purge.js';
import { overdueSweeper } from './overdue-sweeper.js';
import { paymentLinkCancel } from './payment-link-cancel.js';
import { recurrenceWorker } from './recurrence.js';
import { reminderScheduler } from './reminder-scheduler.js';
import type { Job } from './runner.js';
import { scheduledBackup } from './scheduled-backup.js';
import { webhookDispatcherJob } from './webhook-dispatcher.js';

export interface WorkerDeps {
  config: Config;
  store: Store;
  clock: Clock;
  services: Services;
  metrics: Metrics;
  logger?: Logger;
}

/** Every background job; the API process (WORKERS=on) and `npm run worker` run the same list. */
export function createJobs(deps: WorkerDeps): Job[] {
  const { db, backup } = deps.store;
  const backups = deps.config.backups;
  deps.metrics.lagGauge(
    'reminder_queue_lag_seconds',
    'Age of the oldest reminder due and not yet sent (a scheduled one past its time, or a stalled send)',
    async () => (await reminderLag(db, deps.clock)).lag_seconds,
  );
  return [
    overdueSweeper({ db, clock: deps.clock }),
    idempotencyPurge(deps.services.idempotency),
    dashboardPurge({ db, clock: deps.clock }),
    reminderScheduler({ reminders: deps.services.reminders, metrics: deps.metrics }),
    recurrenceWorker({ transactions: deps.services.transactions }),
    ...(deps.services.moneyIn.online
      ? [paymentLinkCancel({ moneyIn: deps.services.moneyIn, ...(deps.logger && { logger: deps.logger }) })]
      : []),
    ...(backups && backup
      ? [
          scheduledBackup({
            backup,
            clock: deps.clock,
            ...backups,
            metrics: deps.metrics,
            ...(deps.logger && { logger: deps.logger }),
          }),
        ]
      : []),
    webhookDispatcherJob({
      dispatcher: deps.services.webhookDispatcher,
      store: deps.store,
      clock: deps.clock,
      metrics: deps.metrics,
      ...(deps.logger && { logger: deps.logger }),
    }),
  ];
}
