import { describe, expect, it } from 'vitest';
import { parsePromiseDate } from './promise-date.js';

// Tuesday 24 November 2026, business-local.
const TODAY = '2026-11-24';

/** Replies as buyers write them, and the date each promises (null: unclear, nothing changes). */
const PHRASINGS: [string, string | null][] = [
  // relative days, English and Hinglish
  ['kal', '2026-11-25'],
  ['Kal pakka', '2026-11-25'],
  ['kal tak kar dunga', '2026-11-25'],
  ['bhai kal de dunga', '2026-11-25'],
  ['will pay tomorrow', '2026-11-25'],
  ['Tmrw sir', '2026-11-25'],
  ['parso', '2026-11-26'],
  ['parson tak payment ho jayega', '2026-11-26'],
  ['day after tomorrow', '2026-11-26'],
  ['aaj shaam tak', '2026-11-24'],
  ['today evening i will pay', '2026-11-24'],
  ['narso', '2026-11-27'],
  // day of the month
  ['5 tareekh', '2026-12-05'],
  ['5 tarikh ko', '2026-12-05'],
  ['30 tareekh tak', '2026-11-30'],
  ['10 ki tarikh ko bhej dunga', '2026-12-10'],
  ['25th date ko', '2026-11-25'],
  ['date 28 ko', '2026-11-28'],
  ['on the 1st', '2026-12-01'],
  ['by 15th', '2026-12-15'],
  ['24th', '2026-11-24'],
  // numeric dates, day first
  ['5/12', '2026-12-05'],
  ['will pay on 5/12', '2026-12-05'],
  ['05-12-2026', '2026-12-05'],
  ['5.12.26', '2026-12-05'],
  ['2/1', '2027-01-02'],
  ['15/01/2027 tak', '2027-01-15'],
  // month names
  ['5 Dec', '2026-12-05'],
  ['will pay on 5 Dec', '2026-12-05'],
  ['5th December', '2026-12-05'],
  ['Dec 5', '2026-12-05'],
  ['December 5th, 2026', '2026-12-05'],
  ['30 nov', '2026-11-30'],
  ['10 jan', '2027-01-10'],
  ['3rd of January', '2027-01-03'],
  // weekdays
  ['next Monday', '2026-11-30'],
  ['monday', '2026-11-30'],
  ['Friday ko', '2026-11-27'],
  ['this saturday', '2026-11-28'],
  ['somvar ko', '2026-11-30'],
  ['shukravar tak', '2026-11-27'],
  ['agle budhvar', '2026-11-25'],
  ['tuesday', '2026-12-01'],
  // spans
  ['in 3 days', '2026-11-27'],
  ['3 din mein', '2026-11-27'],
  ['2 din baad', '2026-11-26'],
  ['2-3 din me', '2026-11-27'],
  ['ek hafte mein', '2026-12-01'],
  ['in a week', '2026-12-01'],
  ['next week', '2026-12-01'],
  ['agle hafte', '2026-12-01'],
  ['2 weeks', '2026-12-08'],
  ['month end', '2026-11-30'],
  ['end of the month', '2026-11-30'],
  ['mahine ke end tak', '2026-11-30'],
  ['Rs 5000 kal bhejunga', '2026-11-25'],
  // unclear: no date, two dates, past, too far, or already paid
  ['ok', null],
  ['thik hai', null],
  ['payment kar dunga', null],
  ['soon', null],
  ['kal ya parso', null],
  ['5 dec or 10 dec', null],
  ['paid yesterday', null],
  ['kal bhej diya tha', null],
  ['already paid on 20/11', null],
  ['5/13', null],
  ['31/2', null],
  ['in 200 days', null],
  ['5 dec 2025', null],
  ['STOP', null],
];

describe('parsePromiseDate', () => {
  it('has a table of at least 50 real-world phrasings', () => {
    expect(PHRASINGS.length).toBeGreaterThanOrEqual(50);
  });

  it.each(PHRASINGS)('reads %j as %s', (text, expected) => {
    expect(parsePromiseDate(text, TODAY)).toBe(expected);
  });

  it('rolls a day of the month past today into the next month, and a date past this year into the next', () => {
    expect(parsePromiseDate('5 tareekh', '2026-12-06')).toBe('2027-01-05');
    expect(parsePromiseDate('5/1', '2026-12-20')).toBe('2027-01-05');
    expect(parsePromiseDate('31 tareekh', '2027-02-01')).toBe('2027-03-31');
  });
});
