import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildStatement, type EntryKind, latestEntries, type StatementItem } from './statement.js';

/**
 * The buyer page's newest entries (latestEntries) against the whole statement (buildStatement):
 * from each kind's newest `count + 1` items and the balance after the newest, the same entries
 * with the same running balance, newest first, as the last `count` of a statement of everything.
 */
const KINDS: EntryKind[] = ['due', 'payment', 'adjustment', 'reversal'];

const itemArb = fc.record({
  kind: fc.constantFrom(...KINDS),
  // few dates and times, so that entries often share a date or an instant
  day: fc.integer({ min: 1, max: 6 }),
  minute: fc.integer({ min: 0, max: 3 }),
  paise: fc.integer({ min: 1, max: 1_000_000 }),
});

type Drawn = typeof itemArb extends fc.Arbitrary<infer T> ? T : never;

function itemsOf(drawn: readonly Drawn[]): StatementItem[] {
  return drawn.map((d, i) => {
    const date = `2026-03-0${d.day}`;
    const id = `id-${String(i).padStart(3, '0')}`;
    const debit = d.kind === 'due' || d.kind === 'reversal';
    return {
      date,
      at: `${date}T0${d.minute}:00:00.000Z`,
      id,
      kind: d.kind,
      transactionId: null,
      receiptId: null,
      // the id again: tells which item an entry came from
      description: id,
      debitPaise: debit ? d.paise : 0,
      creditPaise: debit ? 0 : d.paise,
      detail: {},
    };
  });
}

describe('latestEntries', () => {
  it("agrees with buildStatement's running balance on random items", () => {
    fc.assert(
      fc.property(fc.array(itemArb, { maxLength: 40 }), fc.integer({ min: 1, max: 12 }), (drawn, count) => {
        const items = itemsOf(drawn);
        const whole = buildStatement(0, { side: 'before', month: '0000-01' }, items, '0000-01-01', '9999-12-31');
        // What the store reads: each kind's newest count + 1, in the statement's order.
        const byId = new Map(items.map((i) => [i.id, i]));
        const read = KINDS.flatMap((kind) =>
          whole.entries
            .filter((e) => e.kind === kind)
            .slice(-(count + 1))
            .map((e) => byId.get(e.description) as StatementItem),
        );
        const latest = latestEntries(whole.closing, read, count);
        const expected = whole.entries.slice(-count).reverse();
        expect(latest.entries).toEqual(expected);
        expect(latest.older).toBe(whole.entries.length > count);
        const before = whole.entries.at(-count - 1);
        expect(latest.opening).toBe(before === undefined ? whole.opening : before.balance_paise);
      }),
      { numRuns: 300 },
    );
  });

  it('an account without entries has its balance as its opening, and nothing older', () => {
    expect(latestEntries(0, [], 50)).toEqual({ entries: [], opening: 0, older: false });
  });
});
