/**
 * Near-duplicate buyer names (PRODUCT part 20): adding a due for "Ravi Kumaar" when "Ravi Kumar"
 * exists asks "Did you mean Ravi Kumar?" instead of quietly making a second buyer. Two names are
 * close when their keys (trimmed, NFC, lower case: contactNameKey) are at most two edits apart
 * (Levenshtein, by code point) or one holds the other.
 */

/** The largest edit distance that still counts as the same name mistyped. */
export const CLOSE_EDITS = 2;

/**
 * Levenshtein distance between two strings by code point, or `max + 1` as soon as it must exceed
 * `max` (each row's minimum only grows): O(|a| x |b|) at worst, for names of at most 120 characters.
 */
export function editDistance(a: string, b: string, max = CLOSE_EDITS): number {
  const x = Array.from(a);
  const y = Array.from(b);
  if (Math.abs(x.length - y.length) > max) return max + 1;
  let previous = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const row = [i];
    let smallest = i;
    for (let j = 1; j <= y.length; j++) {
      const cost = x[i - 1] === y[j - 1] ? 0 : 1;
      const value = Math.min(
        (previous[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      );
      row.push(value);
      if (value < smallest) smallest = value;
    }
    if (smallest > max) return max + 1;
    previous = row;
  }
  return Math.min(previous[y.length] as number, max + 1);
}

/** Whether two name keys are close: a different name key within CLOSE_EDITS edits, or one inside the other. */
export function isCloseName(typedKey: string, existingKey: string): boolean {
  if (typedKey === existingKey) return false;
  return (
    existingKey.includes(typedKey) ||
    typedKey.includes(existingKey) ||
    editDistance(typedKey, existingKey) <= CLOSE_EDITS
  );
}
