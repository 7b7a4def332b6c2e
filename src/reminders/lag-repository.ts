import type { Executor } from '../db/schema.js';

/**
 * When the oldest reminder waiting to be sent came due: a scheduled one whose time has come, or
 * one whose sender's lease ran out (a worker that died mid-send). Both are index reads
 * (reminders_scheduled, reminders_sending). Null when none is waiting.
 */
export async function oldestDueReminder(db: Executor, now: string): Promise<string | null> {
  const [scheduled, stalled] = await Promise.all([
    db
      .selectFrom('reminders')
      .select((eb) => eb.fn.min('scheduled_for').as('at'))
      .where('status', '=', 'scheduled')
      .where('scheduled_for', '<=', now)
      .executeTakeFirst(),
    db
      .selectFrom('reminders')
      .select((eb) => eb.fn.min('locked_until').as('at'))
      .where('status', '=', 'sending')
      .where('locked_until', '<=', now)
      .executeTakeFirst(),
  ]);
  const times = [scheduled?.at, stalled?.at].filter((t): t is string => typeof t === 'string');
  return times.length === 0 ? null : (times.sort()[0] as string);
}
