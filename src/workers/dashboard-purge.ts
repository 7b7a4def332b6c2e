import { purgeExpired } from '../dashboard/repository.js';
import type { Db } from '../db/schema.js';
import type { Clock } from '../lib/clock.js';
import type { Job } from './runner.js';

const KEEP_LOGINS_MS = 2 * 60 * 60_000;

/** Deletes ended dashboard sessions and expired sign-in codes and links (PRODUCT part 14). */
export function dashboardPurge(deps: { db: Db; clock: Clock }, idleMs = 10 * 60_000, batch = 500): Job {
  return {
    name: 'dashboard-purge',
    idleMs,
    runOnce: () => {
      const now = deps.clock.now();
      return purgeExpired(deps.db, now.toISOString(), new Date(now.getTime() - KEEP_LOGINS_MS).toISOString(), batch);
    },
  };
}
