/**
 * PRODUCT part 16: text refuses NUL, other control characters (C0, DEL and C1) and unpaired
 * surrogates. PostgreSQL cannot store a NUL at all; the rest corrupt logs, terminals and exports.
 * Multi-line text (a due's notes) keeps tab, line feed and carriage return.
 */
export type TextKind = 'line' | 'multiline';

const LINE_FORBIDDEN = /[\p{Cc}\p{Cs}]/u;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
const MULTILINE_FORBIDDEN = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\p{Cs}]/u;

export function isCleanText(value: string, kind: TextKind = 'line'): boolean {
  return !(kind === 'multiline' ? MULTILINE_FORBIDDEN : LINE_FORBIDDEN).test(value);
}

/** What String.prototype.trim removes (WhiteSpace and LineTerminator), for trim(x, characters); a unit test checks it. */
export const TRIMMED =
  '\u0009\u000a\u000b\u000c\u000d\u0020\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff';

/** The schema keyword of the text rule (lib/validation.ts): 'line' or 'multiline'. */
export const TEXT_KEYWORD = 'x-text';
