/**
 * Limits on JSON that arrives from outside (PRODUCT part 26). Everything that walks a parsed value
 * recursively (the idempotency hash, schema validation, serialisers) would overflow the stack on
 * a deep enough body, so depth is refused where bodies are parsed, before anything walks them.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Whether JSON text nests arrays and objects deeper than `limit`: one pass over the text counting
 * brackets outside strings, no recursion and no parse (invalid JSON is left to the parser).
 */
export function jsonTooDeep(text: string, limit = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/**
 * Whether any string of a parsed JSON value, key or value, holds a NUL character (`\u0000`), which
 * PostgreSQL's text refuses. Iterative, so any depth is safe.
 */
export function holdsNul(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const v = pending.pop();
    if (typeof v === 'string') {
      if (v.includes('\u0000')) return true;
    } else if (Array.isArray(v)) {
      for (const item of v) pending.push(item);
    } else if (v !== null && typeof v === 'object') {
      for (const [k, item] of Object.entries(v)) {
        if (k.includes('\u0000')) return true;
        pending.push(item);
      }
    }
  }
  return false;
}
