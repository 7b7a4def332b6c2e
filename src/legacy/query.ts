import { errors } from '../errors.js';
import { isCalendarDate } from '../lib/dates.js';
import { isUuid } from '../lib/ids.js';
import { isCleanText } from '../lib/text.js';

/**
 * The earlier shape never answers 400 to a query (PRODUCT part 7): each parameter is taken when
 * valid, clamped when it is a number out of range, and otherwise ignored as if absent. Unknown
 * parameters are ignored. A repeated parameter counts with its first value.
 */

const MAX_LIMIT = 200;
const DEFAULT_LIMIT = 50;
/** Same ceiling as /v1's offset: deeper pages cost a long index walk for nothing useful. */
const MAX_OFFSET = 10_000_000;
/** Names are at most 120 characters, so longer searches cannot match anything more. */
const MAX_SEARCH = 120;
const STATUSES = ['pending', 'overdue', 'paid'] as const;

type RawQuery = Record<string, unknown>;

/** A value with a control character or an unpaired surrogate is ignored like any other bad value. */
function text(query: RawQuery, name: string): string | undefined {
  const value = query[name];
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' && isCleanText(first, 'line') ? first.trim() : undefined;
}

/** A finite number truncated and clamped to [min, max]; `fallback` when it is not a number. */
function clampedInt(value: string | undefined, min: number, max: number, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (Number.isNaN(n)) return fallback;
  return Math.min(max, Math.max(min, Math.trunc(n)));
}

function date(query: RawQuery, name: string): string | undefined {
  const value = text(query, name);
  return value !== undefined && isCalendarDate(value) ? value : undefined;
}

function search(query: RawQuery): string | undefined {
  const value = text(query, 'search');
  return value ? Array.from(value).slice(0, MAX_SEARCH).join('') : undefined;
}

export function legacyPage(query: RawQuery): { limit: number; offset: number } {
  return {
    limit: clampedInt(text(query, 'limit'), 1, MAX_LIMIT, DEFAULT_LIMIT),
    offset: clampedInt(text(query, 'offset'), 0, MAX_OFFSET, 0),
  };
}

export interface LegacyTransactionsQuery {
  limit: number;
  offset: number;
  status: (typeof STATUSES)[number] | undefined;
  contactId: string | undefined;
  startDate: string | undefined;
  endDate: string | undefined;
  search: string | undefined;
}

export function parseTransactionsQuery(raw: unknown): LegacyTransactionsQuery {
  const query = (raw ?? {}) as RawQuery;
  const status = text(query, 'status')?.toLowerCase();
  const contactId = text(query, 'contact_id')?.toLowerCase();
  return {
    ...legacyPage(query),
    status: STATUSES.find((s) => s === status),
    contactId: contactId !== undefined && isUuid(contactId) ? contactId : undefined,
    startDate: date(query, 'startDate'),
    endDate: date(query, 'endDate'),
    search: search(query),
  };
}

export function parseContactsQuery(raw: unknown): { limit: number; offset: number; search: string | undefined } {
  const query = (raw ?? {}) as RawQuery;
  return { ...legacyPage(query), search: search(query) };
}

/**
 * A path id of this shape. Ids are lower-case uuids on both stores; anything else names nothing
 * and is answered 404 (never 400) before it reaches PostgreSQL's uuid columns.
 */
export function legacyId(raw: string, resource: string): string {
  const id = raw.toLowerCase();
  if (!isUuid(id)) throw errors.notFound(resource);
  return id;
}
