import { describe, expect, it } from 'vitest';
import { addDays } from './dates.js';
import { paidDateMatters, paymentScore, riskFlag, scoreForDaysLate } from './payment-score.js';

describe('scoreForDaysLate (PAYDEX-like curve)', () => {
  it('follows the documented points', () => {
    expect(scoreForDaysLate(-30)).toBe(100);
    expect(scoreForDaysLate(-7)).toBe(100);
    expect(scoreForDaysLate(0)).toBe(80);
    expect(scoreForDaysLate(15)).toBe(70);
    expect(scoreForDaysLate(30)).toBe(50);
    expect(scoreForDaysLate(90)).toBe(30);
    expect(scoreForDaysLate(120)).toBe(20);
    expect(scoreForDaysLate(400)).toBe(0);
  });

  it('interpolates between points and never rises with lateness', () => {
    expect(scoreForDaysLate(45)).toBe(45);
    let previous = 101;
    for (let d = -10; d <= 400; d++) {
      const s = scoreForDaysLate(d);
      expect(s).toBeLessThanOrEqual(previous);
      previous = s;
    }
  });
});

describe('paymentScore', () => {
  const today = '2026-11-21';

  it('is 100 with no history and ignores dues not yet due', () => {
    expect(paymentScore([], today)).toBe(100);
    expect(paymentScore([{ amountPaise: 100, dueDate: '2026-12-01', paidDate: null }], today)).toBe(100);
  });

  it('scores on-time payment 80 and early payment higher', () => {
    expect(paymentScore([{ amountPaise: 100, dueDate: '2026-11-01', paidDate: '2026-11-01' }], today)).toBe(80);
    expect(paymentScore([{ amountPaise: 100, dueDate: '2026-11-10', paidDate: '2026-11-01' }], today)).toBe(100);
  });

  it('counts open overdue dues by their days overdue so far', () => {
    expect(paymentScore([{ amountPaise: 100, dueDate: '2026-10-22', paidDate: null }], today)).toBe(50);
  });

  it('counts a broken promise as a due that fell due on the promised date', () => {
    const paidLate = { amountPaise: 100, dueDate: '2026-11-01', paidDate: '2026-11-01' };
    // Paid on its due date (80), but 30 days after the date promised: a second entry scoring 50
    // (weighing a little less: its date is older).
    expect(paymentScore([{ ...paidLate, promiseDate: '2026-10-02' }], today)).toBe(66);
    // Kept (paid on or before the promised day): no change.
    expect(paymentScore([{ ...paidLate, promiseDate: '2026-11-01' }], today)).toBe(80);
    // Still open 30 days after the promise, on a due not yet due: only the broken promise counts.
    expect(
      paymentScore([{ amountPaise: 100, dueDate: '2026-12-01', paidDate: null, promiseDate: '2026-10-22' }], today),
    ).toBe(50);
    // The promised day has not ended: nothing yet.
    expect(paymentScore([{ amountPaise: 100, dueDate: '2026-12-01', paidDate: null, promiseDate: today }], today)).toBe(
      100,
    );
  });

  it('weights by amount', () => {
    const score = paymentScore(
      [
        { amountPaise: 9000, dueDate: '2026-11-01', paidDate: '2026-11-01' },
        { amountPaise: 1000, dueDate: '2026-08-23', paidDate: '2026-11-21' },
      ],
      today,
    );
    expect(score).toBeGreaterThan(70);
    expect(score).toBeLessThan(80);
  });

  it('lets recent behaviour weigh more than old behaviour', () => {
    const oldLateRecentPrompt = paymentScore(
      [
        { amountPaise: 100, dueDate: '2024-01-01', paidDate: '2024-04-01' },
        { amountPaise: 100, dueDate: '2026-11-01', paidDate: '2026-11-01' },
      ],
      today,
    );
    const oldPromptRecentLate = paymentScore(
      [
        { amountPaise: 100, dueDate: '2024-01-01', paidDate: '2024-01-01' },
        { amountPaise: 100, dueDate: '2026-08-01', paidDate: '2026-11-01' },
      ],
      today,
    );
    expect(oldLateRecentPrompt).toBeGreaterThan(oldPromptRecentLate);
  });
});

describe('riskFlag', () => {
  it('derives from score and overdue age', () => {
    expect(riskFlag(100, 0)).toBe('low');
    expect(riskFlag(80, 14)).toBe('low');
    expect(riskFlag(80, 15)).toBe('medium');
    expect(riskFlag(69, 0)).toBe('medium');
    expect(riskFlag(90, 60)).toBe('high');
    expect(riskFlag(49, 0)).toBe('high');
  });
});

describe('paidDateMatters', () => {
  const today = '2026-11-28';
  it('is false exactly where any paid date up to today gives the due the same score', () => {
    for (let ahead = 1; ahead <= 12; ahead++) {
      const dueDate = addDays(today, ahead);
      // Paid today, or on any of the 400 days before: the scores a read could compute.
      const scores = new Set(
        Array.from({ length: 400 }, (_, back) =>
          paymentScore([{ amountPaise: 1_000, dueDate, paidDate: addDays(today, -back) }], dueDate),
        ),
      );
      expect(paidDateMatters(dueDate, today), `due ${ahead} days ahead: ${[...scores]}`).toBe(scores.size > 1);
    }
  });
});
