import { addDays, instantAt, localParts } from '../lib/dates.js';

/** PRODUCT part 6, in the order they are checked: the first that applies is the reason. */
export const HOLD_REASONS = ['opted_out', 'no_phone', 'paused', 'too_soon', 'max_reached', 'quiet_hours'] as const;
export type HoldReason = (typeof HOLD_REASONS)[number];

const HOUR_MS = 60 * 60 * 1000;
export const COOLDOWN_MS = 24 * HOUR_MS;
export const CAP_WINDOW_MS = 7 * 24 * HOUR_MS;
export const CAP_PER_WINDOW = 3;
export const QUIET_END_HOUR = 9;
export const QUIET_START_HOUR = 21;

/** Reasons that will not pass by waiting: an automatic reminder held back by one is cancelled. */
export const CANCELLING_REASONS: ReadonlySet<HoldReason> = new Set(['opted_out', 'no_phone', 'paused']);

export interface ReminderGate {
  /** the contact's phone sent STOP */
  optedOut: boolean;
  hasPhone: boolean;
  /** the business paused its reminders */
  paused: boolean;
  /** when this contact's reminders went out (sent or in flight) in the last 7 days, any order */
  recentSends: readonly string[];
  timezone: string;
}

function sendsSince(gate: ReminderGate, since: number): number[] {
  return gate.recentSends
    .map((at) => Date.parse(at))
    .filter((ms) => ms > since)
    .sort((a, b) => a - b);
}

function isQuietHour(timezone: string, now: Date): boolean {
  const { hour } = localParts(timezone, now);
  return hour < QUIET_END_HOUR || hour >= QUIET_START_HOUR;
}

/** The protection that holds a reminder back now, or null when it may go. */
export function holdReason(gate: ReminderGate, now: Date): HoldReason | null {
  const ms = now.getTime();
  if (gate.optedOut) return 'opted_out';
  if (!gate.hasPhone) return 'no_phone';
  if (gate.paused) return 'paused';
  if (sendsSince(gate, ms - COOLDOWN_MS).length > 0) return 'too_soon';
  if (sendsSince(gate, ms - CAP_WINDOW_MS).length >= CAP_PER_WINDOW) return 'max_reached';
  if (isQuietHour(gate.timezone, now)) return 'quiet_hours';
  return null;
}

/**
 * When a reminder held back by a passing reason may next be tried: quiet hours -> the next 09:00
 * in the business's time zone; too_soon -> 24 hours after the contact's last reminder; max_reached
 * -> when the oldest reminder that keeps the count at 3 leaves the 7-day window. The next attempt
 * checks everything again (the new moment may itself fall in quiet hours).
 */
export function nextAllowedAt(reason: HoldReason, gate: ReminderGate, now: Date): Date {
  const ms = now.getTime();
  let next: number;
  switch (reason) {
    case 'quiet_hours': {
      const local = localParts(gate.timezone, now);
      const date = local.hour >= QUIET_START_HOUR ? addDays(local.date, 1) : local.date;
      next = instantAt(gate.timezone, date, QUIET_END_HOUR, 0).getTime();
      break;
    }
    case 'too_soon': {
      const sends = sendsSince(gate, ms - COOLDOWN_MS);
      next = (sends[sends.length - 1] ?? ms) + COOLDOWN_MS;
      break;
    }
    case 'max_reached': {
      const sends = sendsSince(gate, ms - CAP_WINDOW_MS);
      next = (sends[sends.length - CAP_PER_WINDOW] ?? ms) + CAP_WINDOW_MS;
      break;
    }
    default:
      throw new Error(`${reason} does not pass with time`);
  }
  // Never "now or earlier": that would spin the scheduler on the same row.
  return new Date(Math.max(next, ms + 1000));
}
