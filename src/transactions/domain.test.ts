import { describe, expect, it } from 'vitest';
import { effectiveStatus, nextDueDate, outstandingOf, storedOpenStatus } from './domain.js';

describe('nextDueDate', () => {
  it('adds a week across a month and a year end', () => {
    expect(nextDueDate('2026-12-28', 'weekly', 28)).toBe('2027-01-04');
  });
  it('clamps the 31st to the last day of shorter months and returns to the 31st after', () => {
    expect(nextDueDate('2027-01-31', 'monthly', 31)).toBe('2027-02-28');
    expect(nextDueDate('2027-02-28', 'monthly', 31)).toBe('2027-03-31');
    expect(nextDueDate('2028-01-31', 'monthly', 31)).toBe('2028-02-29');
    expect(nextDueDate('2026-12-15', 'monthly', 15)).toBe('2027-01-15');
  });
});

describe('status rules', () => {
  it('reads a past-due pending due as overdue', () => {
    expect(effectiveStatus({ status: 'pending', due_date: '2026-01-01' }, '2026-01-02')).toBe('overdue');
    expect(effectiveStatus({ status: 'pending', due_date: '2026-01-02' }, '2026-01-02')).toBe('pending');
    expect(storedOpenStatus('2026-01-01', '2026-01-02')).toBe('overdue');
    expect(storedOpenStatus('2026-01-02', '2026-01-02')).toBe('pending');
  });
  it('sums the balances of open dues only', () => {
    expect(
      outstandingOf([
        { open: 1, amount_paise: 1000, amount_paid_paise: 300 },
        { open: 0, amount_paise: 500, amount_paid_paise: 500 },
        { open: -1, amount_paise: 700, amount_paid_paise: 0 },
      ]),
    ).toBe(700);
  });
});
