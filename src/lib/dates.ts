/**
 * Calendar arithmetic in a business's time zone. Dates are 'YYYY-MM-DD' strings, which sort and
 * compare correctly as text on both stores.
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    });
    formatters.set(timeZone, f);
  }
  return f;
}

export interface LocalParts {
  date: string;
  hour: number;
  minute: number;
  second: number;
}

/** Wall-clock date and time of an instant in a time zone. */
export function localParts(timeZone: string, at: Date): LocalParts {
  const parts: Record<string, string> = {};
  for (const p of formatter(timeZone).formatToParts(at)) parts[p.type] = p.value;
  return {
    date: `${parts.year}-${parts.month}-${parts.day}`,
    hour: Number(parts.hour),
    minute: Number(parts.minute),
    second: Number(parts.second),
  };
}

const dateCache = new Map<string, { minute: number; date: string }>();

/**
 * Today's date in a time zone. Asked on every request (pending vs overdue), so the answer is kept
 * for the minute: a zone's date only changes on a minute boundary.
 */
export function localDate(timeZone: string, at: Date): string {
  const minute = Math.floor(at.getTime() / 60_000);
  const hit = dateCache.get(timeZone);
  if (hit && hit.minute === minute) return hit.date;
  const { date } = localParts(timeZone, at);
  if (dateCache.size > 1000) dateCache.clear();
  dateCache.set(timeZone, { minute, date });
  return date;
}

/** 'YYYY-MM' of the instant in the time zone. */
export function localMonth(timeZone: string, at: Date): string {
  return localDate(timeZone, at).slice(0, 7);
}

const instantCache = new Map<string, number>();

/**
 * The instant at which the wall clock in `timeZone` shows `date` `hour:minute`. Wall times that do
 * not exist (a spring-forward gap) resolve to the first instant after the gap. Kept per
 * (zone, wall time): reminder scheduling asks for the same few on every new due, and each answer
 * costs two Intl formatting passes.
 */
export function instantAt(timeZone: string, date: string, hour: number, minute = 0): Date {
  const key = `${timeZone} ${date} ${hour}:${minute}`;
  const hit = instantCache.get(key);
  if (hit !== undefined) return new Date(hit);
  const asUtc = Date.parse(`${date}T00:00:00.000Z`) + (hour * 60 + minute) * 60_000;
  // Two passes of "guess, measure the zone offset at the guess, correct" settle even across DST.
  let guess = asUtc;
  for (let i = 0; i < 2; i++) {
    const p = localParts(timeZone, new Date(guess));
    const shown = Date.parse(`${p.date}T00:00:00.000Z`) + ((p.hour * 60 + p.minute) * 60 + p.second) * 1000;
    guess += asUtc - shown;
  }
  if (instantCache.size >= 10_000) instantCache.clear();
  instantCache.set(key, guess);
  return new Date(guess);
}

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * The years a date or an instant may name (PRODUCT part 16): earlier years break Date arithmetic
 * (year 0500 is a RangeError in toISOString after a time-zone shift) and PostgreSQL's timestamps.
 */
export const MIN_YEAR = 1900;
export const MAX_YEAR = 9999;

/** True for a real calendar date written YYYY-MM-DD (no 2026-02-30) in the years 1900-9999. */
export function isCalendarDate(value: string): boolean {
  const m = DATE_RE.exec(value);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (y < MIN_YEAR || mo < 1 || mo > 12 || d < 1) return false;
  const daysInMonth = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  return d <= daysInMonth;
}

/** True when an ISO 8601 timestamp names an instant in the years 1900-9999 (UTC). */
export function isInstantInRange(value: string): boolean {
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) return false;
  const year = new Date(ms).getUTCFullYear();
  return year >= MIN_YEAR && year <= MAX_YEAR;
}

/** Whole days from `from` to `to` (both YYYY-MM-DD); negative when `to` is earlier. */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

/** Dates run in the years MIN_YEAR-MAX_YEAR: nothing is scheduled after this day. */
export const LAST_DATE = `${MAX_YEAR}-12-31`;

/** The date `days` later (earlier when negative). Within the years 1900-9999 only: see dateAfter. */
export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

/**
 * addDays for a date that comes from input (a due date, a promised date): null when the result
 * would fall after LAST_DATE (year 10000 is no YYYY-MM-DD date, and no time either store keeps),
 * so that whatever it was for is simply not scheduled.
 */
export function dateAfter(date: string, days: number): string | null {
  const next = addDays(date, days);
  return /^\d{4}-/.test(next) && next <= LAST_DATE ? next : null;
}

/** SPEC part 1: a due_date in a response is 00:00:00 UTC of that day. */
export function dateToTimestamp(date: string): string {
  return `${date}T00:00:00.000Z`;
}

export function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}
