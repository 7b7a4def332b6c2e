import { dateAfter, daysBetween, instantAt } from '../lib/dates.js';

/** The four WhatsApp templates (README lists their bodies; each takes the same five parameters). */
export const REMINDER_TEMPLATES = [
  'reminder_upcoming',
  'reminder_due_today',
  'reminder_overdue_week',
  'reminder_final',
] as const;
export type ReminderTemplate = (typeof REMINDER_TEMPLATES)[number];

/** How many days overdue a due must be for the final notice. */
const FINAL_AFTER_DAYS = 30;

/** PRODUCT part 6: the template when the caller names none, from the due date and today (business-local). */
export function chooseTemplate(dueDate: string, today: string): ReminderTemplate {
  const overdueDays = daysBetween(dueDate, today);
  if (overdueDays < 0) return 'reminder_upcoming';
  if (overdueDays === 0) return 'reminder_due_today';
  if (overdueDays < FINAL_AFTER_DAYS) return 'reminder_overdue_week';
  return 'reminder_final';
}

/** PRODUCT part 13: upcoming 3 days before, due today, overdue a week, final after 30 days. */
export const DEFAULT_REMINDER_STEPS = '-3,0,7,30';
/** Every step goes out at this local time on its day. */
export const STEP_HOUR = 10;
const MIN_OFFSET = -60;
const MAX_OFFSET = 365;
const MAX_STEPS = 8;

/**
 * The offsets in days from the due date, e.g. "-3,0,7,30"; null when the text is not a strictly
 * increasing list of 1-8 whole numbers between -60 and 365.
 */
export function parseReminderSteps(text: string): number[] | null {
  const parts = text.split(',').map((p) => p.trim());
  if (parts.length === 0 || parts.length > MAX_STEPS) return null;
  const offsets: number[] = [];
  for (const part of parts) {
    if (!/^[+-]?\d{1,3}$/.test(part)) return null;
    const offset = Number(part);
    if (offset < MIN_OFFSET || offset > MAX_OFFSET) return null;
    const previous = offsets.at(-1);
    if (previous !== undefined && offset <= previous) return null;
    offsets.push(offset);
  }
  return offsets;
}

export const REMINDER_STEPS_RULE = `a comma-separated, strictly increasing list of 1-${MAX_STEPS} whole days from the due date between ${MIN_OFFSET} and ${MAX_OFFSET}, such as "${DEFAULT_REMINDER_STEPS}"`;

export interface SequenceStep {
  offset: number;
  template: ReminderTemplate;
  /** 10:00 business time on the step's day */
  at: Date;
  /** the next step's moment: a step held back until then is skipped; null for the last step */
  until: Date | null;
}

/**
 * A due's sequence: each step's template follows part 6's rule for its offset (the day of the step
 * against the due date), at 10:00 business time.
 */
export function sequenceFor(timezone: string, dueDate: string, stepsText: string): SequenceStep[] {
  const offsets = parseReminderSteps(stepsText) ?? (parseReminderSteps(DEFAULT_REMINDER_STEPS) as number[]);
  // A step whose day would fall after 9999-12-31 is not scheduled (a due dated at the very end).
  const days = offsets
    .map((offset) => ({ offset, day: dateAfter(dueDate, offset) }))
    .filter((d): d is { offset: number; day: string } => d.day !== null);
  const moments = days.map(({ day }) => instantAt(timezone, day, STEP_HOUR, 0));
  return days.map(({ offset, day }, i) => ({
    offset,
    template: chooseTemplate(dueDate, day),
    at: moments[i] as Date,
    until: moments[i + 1] ?? null,
  }));
}
