import { describe, expect, it } from 'vitest';
import { CLOSE_EDITS, editDistance, isCloseName } from './similar.js';

/** The textbook full-table Levenshtein distance, by code point. */
function bruteDistance(a: string, b: string): number {
  const x = Array.from(a);
  const y = Array.from(b);
  const d = Array.from({ length: x.length + 1 }, (_, i) =>
    Array.from({ length: y.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= x.length; i++)
    for (let j = 1; j <= y.length; j++)
      (d[i] as number[])[j] = Math.min(
        ((d[i - 1] as number[])[j] as number) + 1,
        ((d[i] as number[])[j - 1] as number) + 1,
        ((d[i - 1] as number[])[j - 1] as number) + (x[i - 1] === y[j - 1] ? 0 : 1),
      );
  return (d[x.length] as number[])[y.length] as number;
}

describe('editDistance', () => {
  it('agrees with the full table up to the bound, and says "more" past it', () => {
    const words = [
      '',
      'a',
      'ab',
      'ba',
      'abc',
      'ravi',
      'ravi kumar',
      'ravi kumaar',
      'rvai',
      'meena',
      'mina',
      'रवि',
      'रवी',
      'kumar ravi',
    ];
    for (const a of words)
      for (const b of words) {
        const exact = bruteDistance(a, b);
        expect(editDistance(a, b), `${a} / ${b}`).toBe(Math.min(exact, CLOSE_EDITS + 1));
      }
  });
});

describe('isCloseName', () => {
  it('two edits or fewer, or one name inside the other; never the same key', () => {
    expect(isCloseName('ravi kumaar', 'ravi kumar')).toBe(true);
    expect(isCloseName('meena', 'mina')).toBe(true);
    expect(isCloseName('ravi', 'ravi kumar')).toBe(true);
    expect(isCloseName('ravi kumar traders', 'ravi kumar')).toBe(true);
    expect(isCloseName('ravi kumar', 'ravi kumar')).toBe(false);
    expect(isCloseName('gupta', 'patel')).toBe(false);
    expect(isCloseName('ravindra', 'ravi kumar')).toBe(false);
  });
});
