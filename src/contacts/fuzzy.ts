/**
 * Fuzzy name search for the earlier response shape (PRODUCT part 7): case-insensitive, and
 * tolerant of one typo per word. It must stay index-friendly on both stores (no trigram extension
 * on SQLite, no scan of every contact), so it uses the symmetric-delete method of SymSpell:
 *
 * - Every word of a contact's name is stored in contact_name_terms as itself (pos -1) and as each
 *   variant with one character deleted (the deleted position and character kept beside it).
 * - A query word is expanded the same way, and the lookup is `term IN (its variants)` on the
 *   (business_id, term) primary key: one short index probe per query word.
 * - Two words share a variant exactly when they are at most one deletion apart on each side. That
 *   alone would also accept some two-typo pairs ("abc"/"bca", "ab"/"bc"), so the positions decide:
 *   the query word itself matches any stored variant (one deletion in the query), a query variant
 *   matches the stored word itself (one insertion), the same deleted position is a substitution,
 *   and neighbouring positions with the same deleted character are a transposition. Exactly the
 *   pairs within Damerau (optimal string alignment) distance 1 match; fuzzy.test.ts checks this
 *   against a brute-force distance.
 *
 * Words: the name is lower-cased and NFC-normalised (as name_key is), apostrophes are dropped
 * ("D'Souza" -> "dsouza"), and anything that is not a letter, mark or digit separates words.
 * Accents are kept rather than folded: folding by stripping marks would destroy Indic scripts,
 * whose vowel signs are marks, and an accent difference is one substitution anyway.
 *
 * Short words: a query word of one or two characters must equal a word of the name (one typo in
 * "al" would match almost every name), so the names' short words are stored as themselves only.
 * Longer query words tolerate one typo, including against a short name word ("alx" finds "Al").
 *
 * A contact matches when every query word matches some word of its name.
 */

/** Typo tolerance starts at this many characters (code points). */
export const MIN_FUZZY_WORD = 3;
/** Query words beyond this many are ignored: each one costs an index probe and a semi-join. */
export const MAX_QUERY_WORDS = 8;

export interface NameTerm {
  term: string;
  /** code-point index of the deleted character; -1 for the word itself */
  pos: number;
  /** the deleted character; '' for the word itself */
  ch: string;
}

export interface FuzzyWord {
  word: string;
  /** the word itself (pos -1) and, for words long enough to tolerate a typo, its deletion variants */
  variants: NameTerm[];
  /** short words match only a whole stored word */
  exact: boolean;
}

/** The distinct words of a name or query, lower-cased and NFC-normalised. */
export function nameWords(text: string): string[] {
  const folded = text.normalize('NFC').toLowerCase().normalize('NFC').replace(/['’`]/gu, '');
  return [...new Set(folded.split(/[^\p{L}\p{M}\p{N}]+/u).filter((w) => w !== ''))];
}

/** The word itself and, when it is long enough, every variant with one code point deleted. */
function variantsOf(word: string): NameTerm[] {
  const chars = Array.from(word);
  const variants: NameTerm[] = [{ term: word, pos: -1, ch: '' }];
  if (chars.length < MIN_FUZZY_WORD) return variants;
  for (let i = 0; i < chars.length; i++) {
    variants.push({
      term: chars.slice(0, i).join('') + chars.slice(i + 1).join(''),
      pos: i,
      ch: chars[i] as string,
    });
  }
  return variants;
}

/** Rows to store for a contact name: every variant of every distinct word. */
export function nameTerms(name: string): NameTerm[] {
  return nameWords(name).flatMap(variantsOf);
}

/** The query as words to match, or null when it has none (a search of only punctuation). */
export function fuzzyQuery(search: string): FuzzyWord[] | null {
  const words = nameWords(search).slice(0, MAX_QUERY_WORDS);
  if (words.length === 0) return null;
  return words.map((word) => {
    const exact = Array.from(word).length < MIN_FUZZY_WORD;
    return { word, exact, variants: exact ? [{ term: word, pos: -1, ch: '' }] : variantsOf(word) };
  });
}

/**
 * Whether a query variant and a stored variant with the same term are a match: the rule that
 * name-terms.ts writes as SQL. Kept here, pure, so that it can be tested exhaustively.
 */
export function variantsMatch(query: NameTerm, stored: NameTerm, exact: boolean): boolean {
  if (query.term !== stored.term) return false;
  if (exact) return stored.pos === -1;
  if (query.pos === -1 || stored.pos === -1) return true;
  if (query.pos === stored.pos) return true;
  return Math.abs(query.pos - stored.pos) === 1 && query.ch === stored.ch;
}

/** Whether a query word matches a name word, through their variants (what the index computes). */
export function wordMatches(query: FuzzyWord, nameWord: string): boolean {
  const stored = variantsOf(nameWord);
  return query.variants.some((q) => stored.some((s) => variantsMatch(q, s, query.exact)));
}
