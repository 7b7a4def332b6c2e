import type { MessageKey } from '../i18n/index.js';
import { addDays, isCalendarDate } from '../lib/dates.js';
import { MAX_AMOUNT_PAISE, type PAYMENT_METHODS } from '../transactions/schema.js';

/**
 * The forgiving parser of the business owner's chat commands (PRODUCT part 15). Pure: it turns a
 * message and the business's "today" into a command, and never looks anything up. Anything it does
 * not understand becomes `help` (with a `problem` when it knows what was wrong), so the owner
 * always gets an answer and nothing changes on a guess.
 */

export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

/** What was wrong with a command, as a catalogue phrase (`chat.problem.*`) and its values. */
export interface Problem {
  key: MessageKey;
  params: Record<string, string | number>;
}

export type ChatCommand =
  | {
      kind: 'add';
      name: string;
      /** the name was quoted: take or create exactly this contact, never suggest others */
      exactName: boolean;
      amountPaise: number;
      /** YYYY-MM-DD; today when the message names no date */
      dueDate: string;
      note: string | null;
    }
  | { kind: 'paid'; name: string; exactName: boolean; amountPaise: number | null; method: PaymentMethod | null }
  | { kind: 'dues' }
  | { kind: 'overdue' }
  | { kind: 'remind'; name: string; exactName: boolean }
  | { kind: 'statement'; name: string; exactName: boolean }
  | { kind: 'help'; problem: Problem | null };

/** A set of command words, NFC-normalised as the message is (Devanagari nukta letters differ otherwise). */
function words(list: string[]): Set<string> {
  return new Set(list.map((w) => w.normalize('NFC')));
}

/** Messages longer than this are not commands (WhatsApp allows 4096 characters). */
const MAX_COMMAND_LENGTH = 1000;

const ADD_VERBS = words(['add', 'new', 'due', 'udhar', 'udhaar', 'likho', 'jodo', 'उधार', 'जोड़ो', 'लिखो']);
const PAID_VERBS = words([
  'paid',
  'pay',
  'payment',
  'received',
  'receive',
  'recd',
  'rcvd',
  'got',
  'mila',
  'mile',
  'jama',
  'मिला',
  'मिले',
  'जमा',
]);
const DUES_WORDS = words([
  'dues',
  'balance',
  'balances',
  'outstanding',
  'pending',
  'total',
  'summary',
  'baki',
  'baaki',
  'bakaya',
  'hisab',
  'hisaab',
  'बाकी',
  'बकाया',
  'हिसाब',
]);
const OVERDUE_WORDS = words(['overdue', 'late', 'overdues']);
const REMIND_VERBS = words(['remind', 'reminder', 'nudge', 'yaad', 'याद']);
const HELP_WORDS = words(['help', 'menu', 'commands', 'madad', 'मदद', '?', 'hi', 'hello', 'namaste', 'नमस्ते']);
/** Small words between the verb, the name and the amount ("paid Ravi se 500", "add due for Ravi"). */
const FILLERS = words(['for', 'from', 'to', 'of', 'by', 'ka', 'ki', 'ke', 'se', 'ko', 'ne', 'a', 'the']);
/** Words after a paid name that mean "the whole balance". */
const WHOLE_WORDS = words(['full', 'all', 'whole', 'pura', 'poora', 'poore', 'pure', 'sab', 'complete']);
/** Tail words of "yaad dilao" / "remind karo" style commands. */
const REMIND_TAILS = words(['dilao', 'dila', 'do', 'karo', 'kar', 'dilana', 'दिलाओ', 'करो']);
const METHOD_WORDS: Record<string, PaymentMethod> = {
  cash: 'cash',
  nakad: 'cash',
  upi: 'upi',
  gpay: 'upi',
  phonepe: 'upi',
  paytm: 'upi',
  bank: 'bank_transfer',
  neft: 'bank_transfer',
  imps: 'bank_transfer',
  rtgs: 'bank_transfer',
  transfer: 'bank_transfer',
  card: 'card',
  cheque: 'other',
  check: 'other',
};

const MONTHS: Record<string, number> = {
  jan: 1,
  feb: 2,
  mar: 3,
  apr: 4,
  may: 5,
  jun: 6,
  jul: 7,
  aug: 8,
  sep: 9,
  sept: 9,
  oct: 10,
  nov: 11,
  dec: 12,
};

const MULTIPLIERS: Record<string, number> = {
  '': 1,
  k: 1_000,
  thousand: 1_000,
  hazar: 1_000,
  hazaar: 1_000,
  hajar: 1_000,
  l: 100_000,
  lakh: 100_000,
  lakhs: 100_000,
  lac: 100_000,
  lacs: 100_000,
  cr: 10_000_000,
  crore: 10_000_000,
  crores: 10_000_000,
};

const STATEMENT_VERBS = words(['statement', 'account', 'khata', 'hisab', 'hisaab', 'खाता', 'हिसाब']);

/**
 * Glues what belongs to an amount into one token: "Rs. 1,500" -> "₹1,500", "1.5 lakh" -> "1.5lakh",
 * "1500/-" and "1500 rupees" -> "1500".
 */
function normalise(text: string): string {
  return text
    .normalize('NFC')
    .replace(/[“”„‟«»]/g, '"')
    .replace(/(?:₹|\brs\b\.?|\binr\b)\s*(?=[\d.])/giu, '₹')
    .replace(/(\d)\s*(k|thousand|hazaa?r|hajar|lakhs?|lacs?|l|crores?|cr)\b/giu, '$1$2')
    .replace(/(\d)\s*(?:\/-|(?:rs|rupees?|rupaye|rupay|rupiya)\b\.?)/giu, '$1')
    .replace(/\s+/g, ' ')
    .trim();
}

/** "1,500" / "₹1500.50" / "15k" / "1.5L" -> paise; "bad" when it looks like money but is not. */
export function parseAmount(token: string): number | 'bad' | null {
  const m = /^(-?)₹?(-?)([\d,]*\.?\d*)([a-z]*)$/iu.exec(token);
  if (!m) return token.startsWith('₹') ? 'bad' : null;
  const [, sign1, sign2, number = '', unit = ''] = m;
  if (!/\d/.test(number)) return token.startsWith('₹') ? 'bad' : null;
  const multiplier = lookup(MULTIPLIERS, unit.toLowerCase());
  if (multiplier === undefined) return null;
  if (sign1 || sign2) return 'bad';
  // Commas only as thousands separators ("1,500", Indian "1,50,000"), never after the point.
  const [whole = '', fraction = '', ...more] = number.split('.');
  if (more.length > 0 || fraction.includes(',')) return 'bad';
  if (whole.includes(',') && !/^\d{1,3}(,\d{2})*,\d{3}$/.test(whole) && !/^\d{1,3}(,\d{3})+$/.test(whole)) return 'bad';
  const digits = whole.replace(/,/g, '');
  // Rupees * 100 * multiplier, in integers: the fraction may not go below one paisa.
  const scale = 10 ** fraction.length;
  const scaled = Number(digits || '0') * scale + Number(fraction || '0');
  const paiseTimesScale = scaled * 100 * multiplier;
  if (paiseTimesScale % scale !== 0) return 'bad';
  const paise = paiseTimesScale / scale;
  if (!Number.isSafeInteger(paise) || paise <= 0 || paise > MAX_AMOUNT_PAISE) return 'bad';
  return paise;
}

/** A table lookup that never finds Object.prototype's members ("constructor", "toString"). */
function lookup<T>(table: Record<string, T>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/** How far back a date written without a year may lie: "15/12" in January means last December. */
const YEARLESS_PAST_DAYS = 90;

/** A day and month without a year: the next such date, or one up to 90 days ago. */
function yearlessDate(day: number, month: number, today: string): string | null {
  const year = Number(today.slice(0, 4));
  const earliest = addDays(today, -YEARLESS_PAST_DAYS);
  const candidates = [year - 1, year, year + 1]
    .map((y) => `${y}-${pad(month)}-${pad(day)}`)
    .filter((d) => isCalendarDate(d) && d >= earliest);
  return candidates[0] ?? null;
}

function fullDate(day: number, month: number, yearText: string | undefined, today: string): string | null {
  if (yearText === undefined) return yearlessDate(day, month, today);
  const year = yearText.length === 2 ? 2000 + Number(yearText) : Number(yearText);
  const date = `${year}-${pad(month)}-${pad(day)}`;
  return isCalendarDate(date) ? date : null;
}

function monthOf(word: string | undefined): number | undefined {
  if (word === undefined) return undefined;
  const w = word.toLowerCase().replace(/[.,]$/, '');
  return lookup(MONTHS, w) ?? lookup(MONTHS, w.slice(0, 3));
}

function isMonthWord(word: string | undefined): boolean {
  if (word === undefined) return false;
  const w = word.toLowerCase().replace(/[.,]$/, '');
  const key = w.slice(0, 3);
  if (lookup(MONTHS, key) === undefined) return false;
  // "dec", "december", "sept" - but not an unrelated word that happens to start like a month
  const full = [
    'january',
    'february',
    'march',
    'april',
    'may',
    'june',
    'july',
    'august',
    'september',
    'october',
    'november',
    'december',
  ];
  return w.length === 3 || w === 'sept' || full.some((f) => f.startsWith(w));
}

/** A date at the start of `tokens`: the date and how many tokens it took, or null. */
export function parseDate(tokens: string[], today: string): { date: string; used: number } | 'bad' | null {
  const [first = '', second, third] = tokens;
  const w = first.toLowerCase().replace(/[.,]$/, '');
  const relative: Record<string, number> = {
    today: 0,
    aaj: 0,
    आज: 0,
    tomorrow: 1,
    tmrw: 1,
    tmr: 1,
    kal: 1,
    कल: 1,
    parso: 2,
    parson: 2,
    परसों: 2,
  };
  const offset = lookup(relative, w);
  if (offset !== undefined) return { date: addDays(today, offset), used: 1 };
  if (w === 'next' && second?.toLowerCase() === 'week') return { date: addDays(today, 7), used: 2 };
  if ((w === 'agle' || w === 'agla') && /^(hafte|hafta|week)$/i.test(second ?? '')) {
    return { date: addDays(today, 7), used: 2 };
  }
  const iso = /^(\d{4})-(\d{2})-(\d{2})$/.exec(w);
  if (iso) return isCalendarDate(w) ? { date: w, used: 1 } : 'bad';
  // 15/12, 15-12, 15.12, 15/12/2026, 15-12-26
  const numeric = /^(\d{1,2})[/.-](\d{1,2})(?:[/.-](\d{2}|\d{4}))?$/.exec(w);
  if (numeric) {
    const date = fullDate(Number(numeric[1]), Number(numeric[2]), numeric[3], today);
    return date ? { date, used: 1 } : 'bad';
  }
  // 15 Dec [2026], 15th dec, 15-dec
  const dayFirst = /^(\d{1,2})(?:st|nd|rd|th)?(?:[-/]([a-z]+))?$/.exec(w);
  if (dayFirst) {
    const monthWord = dayFirst[2] ?? second;
    if (isMonthWord(monthWord)) {
      const month = monthOf(monthWord) as number;
      const yearWord = dayFirst[2] === undefined ? third : second;
      const hasYear = yearWord !== undefined && /^\d{4}$/.test(yearWord);
      const date = fullDate(Number(dayFirst[1]), month, hasYear ? yearWord : undefined, today);
      if (!date) return 'bad';
      return { date, used: (dayFirst[2] === undefined ? 2 : 1) + (hasYear ? 1 : 0) };
    }
    return null;
  }
  // Dec 15 [2026], dec 15th
  if (isMonthWord(w) && second !== undefined) {
    const day = /^(\d{1,2})(?:st|nd|rd|th)?,?$/.exec(second.toLowerCase());
    if (day) {
      const hasYear = third !== undefined && /^\d{4}$/.test(third);
      const date = fullDate(Number(day[1]), monthOf(w) as number, hasYear ? third : undefined, today);
      if (!date) return 'bad';
      return { date, used: hasYear ? 3 : 2 };
    }
  }
  return null;
}

/** A name, quoted ("Ravi") or not; fillers at either end dropped. */
function takeName(words: string[]): { name: string; exactName: boolean } | null {
  const joined = words.join(' ').trim();
  const quoted = /^"([^"]+)"$/.exec(joined) ?? /^'([^']+)'$/.exec(joined);
  if (quoted) {
    const name = (quoted[1] as string).trim();
    return name === '' ? null : { name, exactName: true };
  }
  const kept = [...words];
  while (kept.length > 0 && FILLERS.has((kept[0] as string).toLowerCase())) kept.shift();
  while (kept.length > 0 && FILLERS.has((kept[kept.length - 1] as string).toLowerCase())) kept.pop();
  const name = kept
    .join(' ')
    .replace(/^[,:;-]+|[,:;-]+$/g, '')
    .trim();
  return name === '' ? null : { name, exactName: false };
}

/** Splits "<name words> <amount> <rest>": the amount is the first money-like word after the name. */
function splitAtAmount(tokens: string[]): {
  nameWords: string[];
  amount: number | null;
  badAmount: string | null;
  rest: string[];
} {
  // A quoted name may hold spaces and digits: it ends at the closing quote.
  if (tokens[0]?.startsWith('"')) {
    const close = tokens.findIndex((t, i) => (i === 0 ? t.length > 1 && t.endsWith('"') : t.endsWith('"')));
    if (close >= 0) {
      const after = tokens.slice(close + 1).filter((t, i) => i > 0 || !FILLERS.has(t.toLowerCase()));
      const amount = after[0] === undefined ? null : parseAmount(after[0]);
      return {
        nameWords: tokens.slice(0, close + 1),
        amount: typeof amount === 'number' ? amount : null,
        badAmount: amount === 'bad' ? (after[0] as string) : null,
        rest: amount === null ? after : after.slice(1),
      };
    }
  }
  for (let i = 1; i < tokens.length; i++) {
    const amount = parseAmount(tokens[i] as string);
    if (amount === null) continue;
    return {
      nameWords: tokens.slice(0, i),
      amount: amount === 'bad' ? null : amount,
      badAmount: amount === 'bad' ? (tokens[i] as string) : null,
      rest: tokens.slice(i + 1),
    };
  }
  return { nameWords: tokens, amount: null, badAmount: null, rest: [] };
}

function badAmountHelp(token: string): ChatCommand {
  return {
    kind: 'help',
    problem: { key: 'chat.problem.amount', params: { token } },
  };
}

function parseAdd(tokens: string[], today: string): ChatCommand {
  if (tokens.length === 0) return { kind: 'help', problem: { key: 'chat.problem.add_empty', params: {} } };
  const { nameWords, amount, badAmount, rest } = splitAtAmount(tokens);
  if (badAmount !== null) return badAmountHelp(badAmount);
  const name = takeName(nameWords);
  if (name === null) return { kind: 'help', problem: { key: 'chat.problem.add_name', params: {} } };
  if (amount === null) return { kind: 'help', problem: { key: 'chat.problem.add_amount', params: {} } };
  let remaining = rest;
  if (remaining[0] !== undefined && /^(on|by|due|date|till|until|tak)$/i.test(remaining[0]) && remaining.length > 1) {
    const maybe = parseDate(remaining.slice(1), today);
    if (maybe !== null) remaining = remaining.slice(1);
  }
  let dueDate = today;
  const date = parseDate(remaining, today);
  if (date === 'bad') {
    return {
      kind: 'help',
      problem: { key: 'chat.problem.date', params: { text: remaining.slice(0, 2).join(' ') } },
    };
  }
  if (date !== null) {
    dueDate = date.date;
    remaining = remaining.slice(date.used);
  }
  const note = remaining
    .join(' ')
    .replace(/^[-:,]\s*/, '')
    .trim();
  return { kind: 'add', ...name, amountPaise: amount, dueDate, note: note === '' ? null : note.slice(0, 500) };
}

function parsePaid(tokens: string[]): ChatCommand {
  let words = tokens;
  let method: PaymentMethod | null = null;
  // Trailing method and "full" words, in any order: "paid Ravi 500 cash", "paid Ravi full".
  for (;;) {
    const last = words[words.length - 1]?.toLowerCase();
    if (last === undefined) break;
    const said = lookup(METHOD_WORDS, last);
    if (said !== undefined && words.length > 1) {
      method ??= said;
      words = words.slice(0, -1);
    } else if ((WHOLE_WORDS.has(last) || last === 'in' || last === 'by' || last === 'via') && words.length > 1) {
      words = words.slice(0, -1);
    } else break;
  }
  if (words.length === 0) return { kind: 'help', problem: { key: 'chat.problem.paid_name', params: {} } };
  // "got 500 from Ravi": the amount first, the name after it.
  const leading = parseAmount(words[0] as string);
  if (leading === 'bad') return badAmountHelp(words[0] as string);
  if (leading !== null) {
    const name = takeName(words.slice(1));
    if (name === null) return { kind: 'help', problem: { key: 'chat.problem.paid_name', params: {} } };
    return { kind: 'paid', ...name, amountPaise: leading, method };
  }
  const { nameWords, amount, badAmount } = splitAtAmount(words);
  if (badAmount !== null) return badAmountHelp(badAmount);
  const name = takeName(nameWords);
  if (name === null) return { kind: 'help', problem: { key: 'chat.problem.paid_name', params: {} } };
  return { kind: 'paid', ...name, amountPaise: amount, method };
}

function parseRemind(tokens: string[]): ChatCommand {
  let words = tokens;
  while (words.length > 0 && REMIND_TAILS.has((words[0] as string).toLowerCase())) words = words.slice(1);
  while (words.length > 0 && REMIND_TAILS.has((words[words.length - 1] as string).toLowerCase())) {
    words = words.slice(0, -1);
  }
  const name = takeName(words);
  if (name === null) {
    return { kind: 'help', problem: { key: 'chat.problem.remind_name', params: {} } };
  }
  return { kind: 'remind', ...name };
}

/** The owner's message as a command; `today` is the business's date (YYYY-MM-DD). */
export function parseChatCommand(text: string, today: string): ChatCommand {
  if (text.length > MAX_COMMAND_LENGTH) {
    return { kind: 'help', problem: { key: 'chat.problem.too_long', params: { max: MAX_COMMAND_LENGTH } } };
  }
  const tokens = normalise(text)
    .split(' ')
    .filter((t) => t !== '');
  // Punctuation around the verb does not matter ("Add:", "dues?", "/paid").
  const verbOf = (token: string | undefined) =>
    token === undefined ? '' : token.toLowerCase().replace(/^[/!#]+|[:,.!?]+$/g, '') || token;
  const verb = verbOf(tokens[0]);
  const rest = tokens.slice(1);
  if (tokens.length === 0) return { kind: 'help', problem: null };

  if (HELP_WORDS.has(verb) && rest.length === 0) return { kind: 'help', problem: null };
  if (OVERDUE_WORDS.has(verb) && rest.every((t) => /^(dues?|list|kaun|who)$/i.test(t))) return { kind: 'overdue' };
  if (verb === 'over' && verbOf(rest[0]) === 'due' && rest.length === 1) return { kind: 'overdue' };
  if (
    (DUES_WORDS.has(verb) || verb === 'due') &&
    rest.every((t) => /^(dues?|list|kitna|kya|hai|batao|all)$/i.test(t))
  ) {
    return { kind: 'dues' };
  }
  if (ADD_VERBS.has(verb)) {
    // "add due Ravi 500", "new due for Ravi 500"
    let words = rest;
    while (words[0] !== undefined && /^(due|udhar|entry|for|to)$/i.test(words[0]) && words.length > 2) {
      words = words.slice(1);
    }
    return parseAdd(words, today);
  }
  if (PAID_VERBS.has(verb)) {
    let words = rest;
    if (/^(from|by|se)$/i.test(words[0] ?? '')) words = words.slice(1);
    return parsePaid(words);
  }
  if (REMIND_VERBS.has(verb)) return parseRemind(rest);
  if (STATEMENT_VERBS.has(verb)) {
    const name = takeName(rest);
    if (name === null) {
      return {
        kind: 'help',
        problem: { key: 'chat.problem.statement_name', params: {} },
      };
    }
    return { kind: 'statement', ...name };
  }

  // Hinglish puts the verb last: "Ravi se 500 mila", "Ravi ko yaad dilao", "Ravi 500 likho".
  const lastWords = tokens.map((t) => verbOf(t));
  const last = lastWords[lastWords.length - 1] ?? '';
  if (tokens.length > 1 && PAID_VERBS.has(last)) return parsePaid(tokens.slice(0, -1));
  if (tokens.length > 1 && ADD_VERBS.has(last) && last !== 'new' && last !== 'due')
    return parseAdd(tokens.slice(0, -1), today);
  const remindAt = lastWords.findIndex((w, i) => i > 0 && REMIND_VERBS.has(w));
  if (remindAt > 0 && lastWords.slice(remindAt + 1).every((w) => REMIND_TAILS.has(w))) {
    return parseRemind(tokens.slice(0, remindAt));
  }
  return { kind: 'help', problem: null };
}
