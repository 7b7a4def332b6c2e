import { addDays, daysBetween, isCalendarDate } from '../lib/dates.js';

/**
 * The date a buyer promises to pay by, read from a chat reply in English or common Hinglish
 * (PRODUCT part 13): "kal" (tomorrow), "parso", "5 tareekh", "next Monday", "somvar ko", "5/12"
 * (day/month, the Indian order), "5 Dec", "Dec 5th", "in 3 days", "2 din mein", "next week",
 * "month end"... `today` is the business-local date.
 *
 * Null when the reply is unclear, and then nothing changes: no date, two different dates, a
 * date in the past or more than 120 days ahead, or a reply that says the money was already sent
 * ("paid", "kar diya", "bhej diya").
 */
export function parsePromiseDate(text: string, today: string): string | null {
  let s = ` ${text.toLowerCase().replace(/[’'`]/g, '')} `;
  if (PAST_TENSE.test(s)) return null;
  const found = new Set<string>();
  for (const { pattern, date } of MATCHERS) {
    s = s.replace(pattern, (...match: unknown[]) => {
      const groups = match.slice(0, -2) as (string | undefined)[];
      const d = date(groups, today);
      if (d !== null) found.add(d);
      return ' ';
    });
  }
  if (found.size !== 1) return null;
  const [date] = found as Set<string>;
  if (date === undefined) return null;
  const ahead = daysBetween(today, date);
  return ahead >= 0 && ahead <= MAX_DAYS_AHEAD ? date : null;
}

const MAX_DAYS_AHEAD = 120;

/** The money went already: a date in such a reply is not a promise. */
const PAST_TENSE =
  /\b(paid|already|sent|transferred|done|ho gaya|ho gya|hogaya|kar diya|kr diya|kar dia|kr dia|kardiya|krdiya|bhej diya|bhej dia|bhejdiya|de diya|de dia|dediya|diya tha|kiya tha)\b/;

const MONTHS: Record<string, number> = {
  jan: 1,
  feb: 2,
  mar: 3,
  apr: 4,
  may: 5,
  jun: 6,
  jul: 7,
  aug: 8,
  sep: 9,
  oct: 10,
  nov: 11,
  dec: 12,
};
const MONTH = '(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\\.?';
const ORDINAL = '(?:st|nd|rd|th)?';

/** English and Hindi (romanised) day names, Sunday first. */
const WEEKDAYS: string[][] = [
  ['sunday', 'ravivar', 'raviwar', 'itvaar', 'itwar', 'itwaar', 'etwar'],
  ['monday', 'mon', 'somvar', 'somwar', 'somvaar', 'somwaar'],
  ['tuesday', 'tue', 'tues', 'mangalvar', 'mangalwar'],
  ['wednesday', 'wed', 'budhvar', 'budhwar'],
  ['thursday', 'thu', 'thur', 'thurs', 'guruvar', 'guruwar', 'brihaspativar', 'veervar'],
  ['friday', 'fri', 'shukravar', 'shukrawar', 'sukravar'],
  ['saturday', 'sat', 'shanivar', 'shaniwar'],
];
const WEEKDAY_INDEX = new Map(WEEKDAYS.flatMap((names, i) => names.map((n) => [n, i] as const)));
const WEEKDAY = `(${WEEKDAYS.flat()
  .sort((a, b) => b.length - a.length)
  .join('|')})`;

const NUMBER_WORDS: Record<string, number> = {
  a: 1,
  an: 1,
  one: 1,
  ek: 1,
  two: 2,
  do: 2,
  three: 3,
  teen: 3,
  four: 4,
  char: 4,
  chaar: 4,
  five: 5,
  paanch: 5,
  panch: 5,
};
const COUNT = `(\\d{1,3}|${Object.keys(NUMBER_WORDS).join('|')})`;

function count(word: string | undefined): number {
  if (word === undefined) return Number.NaN;
  return NUMBER_WORDS[word] ?? Number(word);
}

function year(y: string | undefined, fallback: number): number {
  if (y === undefined) return fallback;
  return y.length === 2 ? 2000 + Number(y) : Number(y);
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/** day/month with an optional year; without one, the next such day on or after today. */
function dayMonth(day: number, month: number, y: string | undefined, today: string): string | null {
  const thisYear = Number(today.slice(0, 4));
  const date = `${year(y, thisYear)}-${pad(month)}-${pad(day)}`;
  if (!isCalendarDate(date)) return null;
  if (y === undefined && date < today) {
    const next = `${thisYear + 1}-${pad(month)}-${pad(day)}`;
    return isCalendarDate(next) ? next : null;
  }
  return date;
}

/** The next `day` of a month on or after today ("5 tareekh", "on the 5th"). */
function dayOfMonth(day: number, today: string): string | null {
  if (day < 1 || day > 31) return null;
  let y = Number(today.slice(0, 4));
  let m = Number(today.slice(5, 7));
  for (let i = 0; i < 3; i++) {
    const date = `${y}-${pad(m)}-${pad(day)}`;
    if (isCalendarDate(date) && date >= today) return date;
    m += 1;
    if (m > 12) {
      m = 1;
      y += 1;
    }
  }
  return null;
}

function weekdayOf(date: string): number {
  return new Date(`${date}T00:00:00Z`).getUTCDay();
}

/** The named weekday after today (today's own name means a week ahead). */
function nextWeekday(name: string, today: string): string | null {
  const target = WEEKDAY_INDEX.get(name);
  if (target === undefined) return null;
  const ahead = (target - weekdayOf(today) + 7) % 7 || 7;
  return addDays(today, ahead);
}

function monthEnd(today: string): string {
  let date = today;
  while (addDays(date, 1).slice(5, 7) === today.slice(5, 7)) date = addDays(date, 1);
  return date;
}

type Groups = (string | undefined)[];
interface Matcher {
  pattern: RegExp;
  date: (g: Groups, today: string) => string | null;
}

const re = (source: string) => new RegExp(source, 'g');

/**
 * Tried in order; each match is blanked out before the next matcher runs, so "5 Dec" is not also
 * read as "5" and "day after tomorrow" not also as "tomorrow".
 */
const MATCHERS: Matcher[] = [
  // "2-3 din", "2 se 3 days": the later day of a range.
  {
    pattern: re(`\\b(\\d{1,2})\\s*(?:-|to|se|or|ya)\\s*(\\d{1,2})\\s*(?:din|days?)\\b`),
    date: (g, t) => addDays(t, Number(g[2])),
  },
  // 5/12, 05-12-2026, 5.12.26: day first.
  {
    pattern: re(`\\b(\\d{1,2})[/.-](\\d{1,2})(?:[/.-](\\d{4}|\\d{2}))?\\b`),
    date: (g, t) => dayMonth(Number(g[1]), Number(g[2]), g[3], t),
  },
  // 5 Dec, 5th December 2026, 5 of dec
  {
    pattern: re(`\\b(\\d{1,2})${ORDINAL}\\s*(?:of\\s+)?${MONTH}(?:\\s*,?\\s*(\\d{4}))?\\b`),
    date: (g, t) => {
      const month = MONTHS[g[2] ?? ''];
      return month === undefined ? null : dayMonth(Number(g[1]), month, g[3], t);
    },
  },
  // Dec 5, December 5th, 2026
  {
    pattern: re(`\\b${MONTH}\\s*(\\d{1,2})${ORDINAL}\\b(?:\\s*,?\\s*(\\d{4}))?`),
    date: (g, t) => {
      const month = MONTHS[g[1] ?? ''];
      return month === undefined ? null : dayMonth(Number(g[2]), month, g[3], t);
    },
  },
  // 5 tareekh, 5 ki tarikh, 10th date ko, date 5
  {
    pattern: re(`\\b(\\d{1,2})${ORDINAL}\\s*(?:ki\\s+|ko\\s+)?(?:tareekh|tarikh|tareek|tarik|taarikh|date)\\b`),
    date: (g, t) => dayOfMonth(Number(g[1]), t),
  },
  { pattern: re(`\\b(?:tareekh|tarikh|date)\\s*(\\d{1,2})\\b`), date: (g, t) => dayOfMonth(Number(g[1]), t) },
  // on the 5th, by 15th
  { pattern: re(`\\b(\\d{1,2})(?:st|nd|rd|th)\\b`), date: (g, t) => dayOfMonth(Number(g[1]), t) },
  {
    pattern: re(`\\b(?:day after tomorrow|day after tmrw|parso|parson|parsoon|parsu)\\b`),
    date: (_g, t) => addDays(t, 2),
  },
  { pattern: re(`\\b(?:narso|narson)\\b`), date: (_g, t) => addDays(t, 3) },
  { pattern: re(`\\b(?:tomorrow|tommorow|tomorow|tmrw|tmrrw|tmr|tmw|kal|kl|kall)\\b`), date: (_g, t) => addDays(t, 1) },
  { pattern: re(`\\b(?:today|tonight|aaj|aj|abhi)\\b`), date: (_g, t) => t },
  // in 3 days, 3 din mein, after 2 days, 2 din baad
  {
    pattern: re(`\\b(?:in|after|within)?\\s*${COUNT}\\s*(?:din|days?)\\b(?:\\s*(?:mein|me|main|mai|baad|bad|later))?`),
    date: (g, t) => {
      const n = count(g[1]);
      return Number.isFinite(n) ? addDays(t, n) : null;
    },
  },
  // in a week, 2 hafte mein, after two weeks
  {
    pattern: re(`\\b(?:in|after|within)?\\s*${COUNT}\\s*(?:weeks?|wks?|hafte|hafta|hapte|haftay)\\b`),
    date: (g, t) => {
      const n = count(g[1]);
      return Number.isFinite(n) ? addDays(t, 7 * n) : null;
    },
  },
  // next Monday, somvar ko, this friday
  {
    pattern: re(`\\b(?:next|agle|agla|is|this|coming|aane wale)?\\s*${WEEKDAY}\\b`),
    date: (g, t) => nextWeekday(g[1] ?? '', t),
  },
  // next week, agle hafte
  {
    pattern: re(`\\b(?:next|agle|agla|aane wale)\\s*(?:week|wk|hafte|hafta|haftay)\\b`),
    date: (_g, t) => addDays(t, 7),
  },
  // month end, end of the month, mahine ke end/aakhir mein
  {
    pattern: re(
      `\\b(?:month\\s*end|end of (?:the |this )?month|(?:mahine|mahina|month) (?:ke|ka|ki) (?:end|aakhir|akhir|last|ant))\\b`,
    ),
    date: (_g, t) => monthEnd(t),
  },
];
