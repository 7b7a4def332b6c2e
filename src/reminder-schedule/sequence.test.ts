import { describe, expect, it } from 'vitest';
import { chooseTemplate, parseReminderSteps, sequenceFor } from './sequence.js';
import { stepView } from './steps.js';

describe('parseReminderSteps', () => {
  it.each([
    ['-3,0,7,30', [-3, 0, 7, 30]],
    [' -5 , +1, 40 ', [-5, 1, 40]],
    ['0', [0]],
    ['-60,365', [-60, 365]],
  ])('reads %j', (text, steps) => {
    expect(parseReminderSteps(text)).toEqual(steps);
  });

  it.each(['', '0,0', '7,0', '-61', '366', '1.5', 'x', '0,,1', '1,2,3,4,5,6,7,8,9'])('refuses %j', (text) => {
    expect(parseReminderSteps(text)).toBeNull();
  });
});

describe('sequenceFor', () => {
  it('puts each step at 10:00 business time with the template of its day, and the next step as its limit', () => {
    const steps = sequenceFor('Asia/Kolkata', '2030-03-10', '-3,0,7,30');
    expect(steps.map((s) => [s.offset, s.template, s.at.toISOString(), s.until?.toISOString() ?? null])).toEqual([
      [-3, 'reminder_upcoming', '2030-03-07T04:30:00.000Z', '2030-03-10T04:30:00.000Z'],
      [0, 'reminder_due_today', '2030-03-10T04:30:00.000Z', '2030-03-17T04:30:00.000Z'],
      [7, 'reminder_overdue_week', '2030-03-17T04:30:00.000Z', '2030-04-09T04:30:00.000Z'],
      [30, 'reminder_final', '2030-04-09T04:30:00.000Z', null],
    ]);
  });

  it('follows part 6 for other offsets: 29 days after is still the overdue week template', () => {
    expect(chooseTemplate('2030-03-10', '2030-04-08')).toBe('reminder_overdue_week');
    expect(sequenceFor('UTC', '2030-03-10', '-1,29,30').map((s) => s.template)).toEqual([
      'reminder_upcoming',
      'reminder_overdue_week',
      'reminder_final',
    ]);
  });
});

describe('stepView', () => {
  const base = { template: 'reminder_final', scheduled_for: '2030-04-09T04:30:00.000Z' };
  it('shows the delivery of a step that went out, and none of one that did not', () => {
    expect(stepView({ ...base, status: 'sent', reason: null, delivery_status: 'read' }).delivery).toBe('read');
    expect(stepView({ ...base, status: 'sent', reason: null, delivery_status: null }).delivery).toBeNull();
    expect(stepView({ ...base, status: 'sent', reason: null, delivery_status: 'bogus' }).delivery).toBeNull();
    expect(stepView({ ...base, status: 'cancelled', reason: 'paid', delivery_status: 'sent' }).delivery).toBeNull();
  });

  it.each([
    ['sent', null, 'sent', null],
    ['sending', null, 'scheduled', null],
    ['scheduled', 'quiet_hours', 'scheduled', 'quiet_hours'],
    ['cancelled', 'paid', 'cancelled', 'paid'],
    ['cancelled', 'deleted', 'cancelled', 'deleted'],
    ['cancelled', 'paused', 'cancelled', 'paused'],
    ['cancelled', 'promised', 'skipped', 'promised'],
    ['cancelled', 'max_reached', 'skipped', 'max_reached'],
    ['cancelled', null, 'skipped', null],
    ['failed', 'channel_error: down', 'skipped', 'channel_error: down'],
  ])('shows a stored %s (%s) as %s (%s)', (status, reason, shown, shownReason) => {
    expect(stepView({ ...base, status, reason })).toEqual({
      ...base,
      status: shown,
      reason: shownReason,
      delivery: null,
    });
  });
});
