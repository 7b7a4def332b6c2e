import { describe, expect, it } from 'vitest';
import { holdReason, nextAllowedAt, type ReminderGate } from './protections.js';

const HOUR = 60 * 60 * 1000;
const open: ReminderGate = {
  optedOut: false,
  hasPhone: true,
  paused: false,
  recentSends: [],
  timezone: 'Asia/Kolkata',
};
const noon = new Date('2026-03-10T06:30:00.000Z'); // 12:00 in Kolkata
const ago = (ms: number) => new Date(noon.getTime() - ms).toISOString();

describe('holdReason', () => {
  it('lets a reminder through when nothing applies', () => {
    expect(holdReason(open, noon)).toBeNull();
  });

  it('checks the protections in PRODUCT order', () => {
    const everything: ReminderGate = {
      ...open,
      optedOut: true,
      hasPhone: false,
      paused: true,
      recentSends: [ago(HOUR), ago(30 * HOUR), ago(60 * HOUR)],
    };
    const night = new Date('2026-03-10T17:00:00.000Z'); // 22:30
    expect(holdReason(everything, night)).toBe('opted_out');
    expect(holdReason({ ...everything, optedOut: false }, night)).toBe('no_phone');
    expect(holdReason({ ...everything, optedOut: false, hasPhone: true }, night)).toBe('paused');
    const unpaused = { ...everything, optedOut: false, hasPhone: true, paused: false };
    expect(holdReason(unpaused, night)).toBe('too_soon');
    expect(holdReason({ ...unpaused, recentSends: [ago(25 * HOUR), ago(30 * HOUR), ago(60 * HOUR)] }, night)).toBe(
      'max_reached',
    );
    expect(holdReason({ ...unpaused, recentSends: [ago(25 * HOUR), ago(30 * HOUR)] }, night)).toBe('quiet_hours');
  });

  it('counts the cooldown and the cap over sliding windows', () => {
    expect(holdReason({ ...open, recentSends: [ago(24 * HOUR - 1)] }, noon)).toBe('too_soon');
    expect(holdReason({ ...open, recentSends: [ago(24 * HOUR)] }, noon)).toBeNull();
    const three = [ago(7 * 24 * HOUR - 1), ago(3 * 24 * HOUR), ago(2 * 24 * HOUR)];
    expect(holdReason({ ...open, recentSends: three }, noon)).toBe('max_reached');
    const oldestOut = [ago(7 * 24 * HOUR), ago(3 * 24 * HOUR), ago(2 * 24 * HOUR)];
    expect(holdReason({ ...open, recentSends: oldestOut }, noon)).toBeNull();
  });

  it('keeps quiet hours in the business time zone, 09:00 to 21:00', () => {
    const ny = { ...open, timezone: 'America/New_York' };
    expect(holdReason(ny, new Date('2026-03-10T12:59:59.999Z'))).toBe('quiet_hours'); // 08:59 EDT
    expect(holdReason(ny, new Date('2026-03-10T13:00:00.000Z'))).toBeNull();
    expect(holdReason(ny, new Date('2026-03-11T00:59:59.999Z'))).toBeNull();
    expect(holdReason(ny, new Date('2026-03-11T01:00:00.000Z'))).toBe('quiet_hours');
  });
});

describe('nextAllowedAt', () => {
  it('moves quiet hours to the next 09:00 local, across a daylight-saving change', () => {
    const ny = { ...open, timezone: 'America/New_York' };
    // 22:00 on Saturday 7 March (EST); clocks go forward that night: 09:00 Sunday is EDT.
    expect(nextAllowedAt('quiet_hours', ny, new Date('2026-03-08T03:00:00.000Z')).toISOString()).toBe(
      '2026-03-08T13:00:00.000Z',
    );
    // 06:00 local: the same day.
    expect(nextAllowedAt('quiet_hours', open, new Date('2026-03-10T00:30:00.000Z')).toISOString()).toBe(
      '2026-03-10T03:30:00.000Z',
    );
  });

  it('moves the cooldown to 24 hours after the latest reminder', () => {
    const gate = { ...open, recentSends: [ago(30 * HOUR), ago(2 * HOUR), ago(5 * HOUR)] };
    expect(nextAllowedAt('too_soon', gate, noon).toISOString()).toBe(
      new Date(noon.getTime() + 22 * HOUR).toISOString(),
    );
  });

  it('moves the cap to when the oldest of the last three leaves the 7-day window', () => {
    const gate = { ...open, recentSends: [ago(2 * 24 * HOUR), ago(6 * 24 * HOUR), ago(4 * 24 * HOUR)] };
    expect(nextAllowedAt('max_reached', gate, noon).toISOString()).toBe(
      new Date(noon.getTime() + 24 * HOUR).toISOString(),
    );
    // Four in the window (a send recorded twice after a crash): the count drops below 3 when two have left.
    const four = {
      ...open,
      recentSends: [ago(6 * 24 * HOUR), ago(5 * 24 * HOUR), ago(4 * 24 * HOUR), ago(3 * 24 * HOUR)],
    };
    expect(nextAllowedAt('max_reached', four, noon).toISOString()).toBe(
      new Date(noon.getTime() + 2 * 24 * HOUR).toISOString(),
    );
  });

  it('refuses reasons that do not pass with time', () => {
    expect(() => nextAllowedAt('paused', open, noon)).toThrow();
  });
});
