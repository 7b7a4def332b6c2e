import { describe, expect, it } from 'vitest';
import { fuzzyQuery, MAX_QUERY_WORDS, nameTerms, nameWords, wordMatches } from './fuzzy.js';

/** Damerau distance in its optimal-string-alignment form, by the textbook dynamic programme. */
function osaDistance(a: string, b: string): number {
  const x = Array.from(a);
  const y = Array.from(b);
  const d: number[][] = Array.from({ length: x.length + 1 }, (_, i) =>
    Array.from({ length: y.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= x.length; i++) {
    for (let j = 1; j <= y.length; j++) {
      const cost = x[i - 1] === y[j - 1] ? 0 : 1;
      const row = d[i] as number[];
      const prev = d[i - 1] as number[];
      let best = Math.min((prev[j] as number) + 1, (row[j - 1] as number) + 1, (prev[j - 1] as number) + cost);
      if (i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1]) {
        best = Math.min(best, ((d[i - 2] as number[])[j - 2] as number) + 1);
      }
      row[j] = best;
    }
  }
  return (d[x.length] as number[])[y.length] as number;
}

function queryWord(word: string) {
  const q = fuzzyQuery(word);
  if (q?.length !== 1) throw new Error(`expected one query word from ${word}`);
  return q[0] as NonNullable<typeof q>[number];
}

/** Every string over `alphabet` of length 1..maxLength. */
function allWords(alphabet: string, maxLength: number): string[] {
  let level = [''];
  const out: string[] = [];
  for (let n = 1; n <= maxLength; n++) {
    level = level.flatMap((w) => Array.from(alphabet, (c) => w + c));
    out.push(...level);
  }
  return out;
}

describe('fuzzy word matching', () => {
  it('matches exactly the pairs within one typo (Damerau/OSA distance 1), exhaustively over short words', () => {
    // Three letters make every kind of edit, repeated letters included, appear many times.
    const words = allWords('abc', 5);
    let compared = 0;
    for (const q of words) {
      const query = queryWord(q);
      for (const w of words) {
        const expected = Array.from(q).length < 3 ? q === w : osaDistance(q, w) <= 1;
        if (wordMatches(query, w) !== expected) {
          throw new Error(`${q} vs ${w}: expected ${expected}, distance ${osaDistance(q, w)}`);
        }
        compared++;
      }
    }
    expect(compared).toBe(words.length ** 2);
  });

  it('accepts one substitution, deletion, insertion or transposition and refuses two typos', () => {
    const ravi = queryWord('ravi');
    expect(wordMatches(ravi, 'ravi')).toBe(true);
    expect(wordMatches(ravi, 'rabi')).toBe(true);
    expect(wordMatches(ravi, 'ravii')).toBe(true);
    expect(wordMatches(ravi, 'avi')).toBe(true);
    expect(wordMatches(ravi, 'arvi')).toBe(true);
    expect(wordMatches(ravi, 'rbvi')).toBe(true);
    expect(wordMatches(ravi, 'rxvy')).toBe(false);
    expect(wordMatches(ravi, 'vira')).toBe(false);
    expect(wordMatches(queryWord('abc'), 'bca')).toBe(false);
  });

  it('counts characters by code point, so a typo in a non-Latin name is still one typo', () => {
    expect(wordMatches(queryWord('रवी'), 'रवि')).toBe(true);
    expect(wordMatches(queryWord('josé'), 'jose')).toBe(true);
    expect(wordMatches(queryWord('𠀀ab'), '𠀀ac')).toBe(true);
  });

  it('requires short query words to equal a name word', () => {
    expect(wordMatches(queryWord('al'), 'al')).toBe(true);
    expect(wordMatches(queryWord('al'), 'ali')).toBe(false);
    expect(wordMatches(queryWord('al'), 'ab')).toBe(false);
    expect(wordMatches(queryWord('alx'), 'al')).toBe(true);
  });
});

describe('nameWords', () => {
  it('lower-cases, normalises, drops apostrophes and splits on other punctuation', () => {
    expect(nameWords("  D'Souza  & Sons, M.K. ")).toEqual(['dsouza', 'sons', 'm', 'k']);
    expect(nameWords('Jose\u0301 JOSÉ')).toEqual(['josé']);
    expect(nameWords('!!!')).toEqual([]);
  });
});

describe('nameTerms', () => {
  it('stores each distinct word with its one-deletion variants, and short words alone', () => {
    expect(nameTerms('Al Ravi ravi')).toEqual([
      { term: 'al', pos: -1, ch: '' },
      { term: 'ravi', pos: -1, ch: '' },
      { term: 'avi', pos: 0, ch: 'r' },
      { term: 'rvi', pos: 1, ch: 'a' },
      { term: 'rai', pos: 2, ch: 'v' },
      { term: 'rav', pos: 3, ch: 'i' },
    ]);
  });
});

describe('fuzzyQuery', () => {
  it('is null when the search has no words, and keeps at most MAX_QUERY_WORDS words', () => {
    expect(fuzzyQuery(' ,. ')).toBeNull();
    const many = Array.from({ length: MAX_QUERY_WORDS + 3 }, (_, i) => `word${i}`).join(' ');
    expect(fuzzyQuery(many)).toHaveLength(MAX_QUERY_WORDS);
  });
});
