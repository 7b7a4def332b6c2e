import { describe, expect, it } from 'vitest';
import { AllocationError, checkExplicit, planCreditUse, planReceipt } from './allocate.js';

const due = (id: string, balancePaise: number, contactId = 'c1', open = true) => [
  id,
  { id, contactId, open, balancePaise },
];

describe('planReceipt', () => {
  it('applies explicit allocations first, then oldest first, then credit', () => {
    const plan = planReceipt(
      100,
      [{ transactionId: 'c', amountPaise: 30 }],
      [
        { id: 'a', balancePaise: 20 },
        { id: 'b', balancePaise: 40 },
        { id: 'c', balancePaise: 30 },
      ],
    );
    expect(plan).toEqual({
      allocations: [
        { transactionId: 'c', amountPaise: 30 },
        { transactionId: 'a', amountPaise: 20 },
        { transactionId: 'b', amountPaise: 40 },
      ],
      appliedPaise: 90,
      creditPaise: 10,
    });
  });

  it('tops up a partly allocated due with the rest, as one allocation', () => {
    const plan = planReceipt(50, [{ transactionId: 'a', amountPaise: 5 }], [{ id: 'a', balancePaise: 20 }]);
    expect(plan.allocations).toEqual([{ transactionId: 'a', amountPaise: 20 }]);
    expect(plan.creditPaise).toBe(30);
  });

  it('stops at the money received', () => {
    expect(
      planReceipt(
        15,
        [],
        [
          { id: 'a', balancePaise: 10 },
          { id: 'b', balancePaise: 10 },
          { id: 'c', balancePaise: 10 },
        ],
      ),
    ).toEqual({
      allocations: [
        { transactionId: 'a', amountPaise: 10 },
        { transactionId: 'b', amountPaise: 5 },
      ],
      appliedPaise: 15,
      creditPaise: 0,
    });
  });
});

describe('checkExplicit', () => {
  const dues = new Map([due('a', 10), due('b', 10, 'c2'), due('p', 10, 'c1', false)] as [string, never][]);
  it.each([
    [[{ transactionId: 'a', amountPaise: 11 }], 100, /balance/],
    [[{ transactionId: 'b', amountPaise: 1 }], 100, /not a due of this contact/],
    [[{ transactionId: 'p', amountPaise: 1 }], 100, /not an open due/],
    [[{ transactionId: 'x', amountPaise: 1 }], 100, /not a due of this contact/],
    [
      [
        { transactionId: 'a', amountPaise: 1 },
        { transactionId: 'a', amountPaise: 1 },
      ],
      100,
      /already listed/,
    ],
    [[{ transactionId: 'a', amountPaise: 10 }], 9, /more than amount_paise/],
  ])('refuses %j of %i', (explicit, amount, message) => {
    expect(() => checkExplicit(amount, 'c1', explicit, dues)).toThrow(AllocationError);
    expect(() => checkExplicit(amount, 'c1', explicit, dues)).toThrow(message);
  });

  it('accepts allocations within balances and the receipt', () => {
    expect(() => checkExplicit(10, 'c1', [{ transactionId: 'a', amountPaise: 10 }], dues)).not.toThrow();
  });
});

describe('planCreditUse', () => {
  it('uses credit oldest receipt first, as far as it goes', () => {
    const credits = [
      { receiptId: 'r1', creditPaise: 3 },
      { receiptId: 'r2', creditPaise: 5 },
    ];
    expect(planCreditUse(6, credits)).toEqual([
      { receiptId: 'r1', amountPaise: 3 },
      { receiptId: 'r2', amountPaise: 3 },
    ]);
    expect(planCreditUse(20, credits)).toEqual([
      { receiptId: 'r1', amountPaise: 3 },
      { receiptId: 'r2', amountPaise: 5 },
    ]);
  });
});
