import { describe, expect, it } from 'vitest';
import {
  addDays,
  daysBetween,
  instantAt,
  isCalendarDate,
  isTimeZone,
  localDate,
  localMonth,
  localParts,
} from './dates.js';

describe('local dates', () => {
  it('gives the date in the business time zone', () => {
    const at = new Date('2026-11-21T20:00:00.000Z');
    expect(localDate('Asia/Kolkata', at)).toBe('2026-11-22');
    expect(localDate('America/New_York', at)).toBe('2026-11-21');
    expect(localMonth('Asia/Kolkata', new Date('2026-11-30T19:00:00.000Z'))).toBe('2026-12');
    expect(localParts('Asia/Kolkata', at)).toEqual({ date: '2026-11-22', hour: 1, minute: 30, second: 0 });
  });

  it('finds the instant of a local wall time, across DST changes', () => {
    expect(instantAt('Asia/Kolkata', '2026-12-01', 10).toISOString()).toBe('2026-12-01T04:30:00.000Z');
    expect(instantAt('America/New_York', '2026-07-01', 10).toISOString()).toBe('2026-07-01T14:00:00.000Z');
    expect(instantAt('America/New_York', '2026-12-01', 10).toISOString()).toBe('2026-12-01T15:00:00.000Z');
    expect(instantAt('Europe/London', '2026-03-29', 10).toISOString()).toBe('2026-03-29T09:00:00.000Z');
  });

  it('answers a wall time asked again from its cache with a fresh Date', () => {
    const first = instantAt('Asia/Kolkata', '2026-12-02', 9, 15);
    first.setTime(0);
    const again = instantAt('Asia/Kolkata', '2026-12-02', 9, 15);
    expect(again.toISOString()).toBe('2026-12-02T03:45:00.000Z');
    expect(instantAt('Asia/Kolkata', '2026-12-02', 9, 16).toISOString()).toBe('2026-12-02T03:46:00.000Z');
  });

  it('validates calendar dates and time zones', () => {
    expect(isCalendarDate('2028-02-29')).toBe(true);
    expect(isCalendarDate('2026-02-29')).toBe(false);
    expect(isCalendarDate('2026-04-31')).toBe(false);
    expect(isCalendarDate('2026-4-1')).toBe(false);
    expect(isTimeZone('Asia/Kolkata')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
  });

  it('counts and adds days', () => {
    expect(daysBetween('2026-11-01', '2026-11-21')).toBe(20);
    expect(daysBetween('2026-11-21', '2026-11-01')).toBe(-20);
    expect(daysBetween('2026-03-28', '2026-03-30')).toBe(2);
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01');
  });
});
