import type { BusinessRow } from '../businesses/repository.js';
import { cache } from '../cache/cache.js';
import { fuzzyQuery } from '../contacts/fuzzy.js';
import { rarestFirst } from '../contacts/name-terms.js';
import type { LongReads } from '../contacts/service.js';
import type { Db } from '../db/schema.js';
import { errors } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import { localDate, localMonth } from '../lib/dates.js';
import { readTotals } from '../totals/read.js';
import * as repo from './repository.js';
import type { ListTransactionsInput, StatusFilter } from './schema.js';

/**
 * From this many dues changed since a `since`, the list walks the due-date order instead of
 * sorting every match (transactions/repository.ts filterCondition).
 */
const SINCE_MANY = 1000;
/** How many (business, since) pairs sinceMatchesMany keeps (a sync's pages ask with one `since`). */
const MANY_SINCE_KEPT = 1000;
/** A kept yes never goes stale (sinceMatchesMany): its entries have no version. */
const MANY_SINCE_VERSION = 0;

/** The statuses that are one value of `open` (the others also split on the due date). */
const OPEN_OF_STATUS: Partial<Record<StatusFilter, 0 | 1>> = { outstanding: 1, paid: 0 };

/**
 * Listing dues (PRODUCT part 17): a page of the list with its total, and the bulk export's
 * batches, read under the business's gate on the long-read threads when there are some.
 * TransactionService offers list and listBatchAs.
 */
export class DueList {
  /** sinceMatchesMany's kept yes answers, oldest first */
  readonly #manySince = cache.byCount<true>(MANY_SINCE_KEPT);

  constructor(private readonly deps: { db: Db; clock: Clock; reads?: LongReads | undefined }) {}

  /**
   * `more` holds the earlier shape's extra filters: due dates within [dueFrom, dueTo] (inclusive,
   * either bound optional) and a fuzzy contact-name search (contacts/fuzzy.ts; a search without
   * any word is ignored).
   */
  async list(
    business: BusinessRow,
    query: ListTransactionsInput,
    more: { dueFrom?: string; dueTo?: string; fuzzyContactName?: string } = {},
    today: string = localDate(business.timezone, this.deps.clock.now()),
  ) {
    const reads = this.deps.reads;
    if (!reads) return this.listOn(this.deps.db, business, query, more, today);
    return reads.gate.run(business.id, () => this.listOn(reads.db, business, query, more, today));
  }

  private async listOn(
    db: Db,
    business: BusinessRow,
    query: ListTransactionsInput,
    more: { dueFrom?: string; dueTo?: string; fuzzyContactName?: string },
    today: string,
  ) {
    const filter = await this.filterOf(db, business, query, more, today);
    const onlyStatus =
      !filter.includeDeleted &&
      filter.contactId === undefined &&
      filter.since === undefined &&
      filter.dueFrom === undefined &&
      filter.dueTo === undefined &&
      filter.contactName === undefined;
    const limit = query.limit ?? 50;
    const offset = query.offset ?? 0;
    const after = await this.listPosition(business, query.starting_after, offset);
    // One statement after the other: a business's list holds one read thread at a time (gate).
    const total = onlyStatus ? await this.countFromTotals(business, filter) : await this.count(db, business, filter);
    const found = await this.page(db, business, filter, limit, offset, total, after);
    const rows = found.length > limit ? found.slice(0, limit) : found;
    const hasMore = after === undefined ? offset + rows.length < total : found.length > limit;
    return { rows, total, limit, offset, hasMore };
  }

  /**
   * The rows of one page. A cursor page reads one row more than it shows: whether that row exists
   * is hasMore. An offset page past the middle of the list is read from its other end, so that a
   * deep page skips the rows behind it (few) rather than the ones before it (up to a million).
   */
  private page(
    db: Db,
    business: BusinessRow,
    filter: repo.TransactionFilter,
    limit: number,
    offset: number,
    total: number,
    after: repo.ListPosition | undefined,
  ): Promise<repo.TransactionView[]> {
    if (after !== undefined) return repo.listTransactions(db, business.id, filter, limit + 1, 0, after);
    if (filter.contactName === undefined && offset > total / 2) {
      if (offset >= total) return Promise.resolve([]);
      const shown = Math.min(limit, total - offset);
      return repo.listTransactionsFromEnd(db, business.id, filter, shown, total - offset - shown);
    }
    return repo.listTransactions(db, business.id, filter, limit, offset);
  }

  /** The list's filters as the repository takes them (the list and the bulk export share them). */
  private async filterOf(
    db: Db,
    business: BusinessRow,
    query: Pick<ListTransactionsInput, 'status' | 'contact_id' | 'since' | 'include_deleted'>,
    more: { dueFrom?: string; dueTo?: string; fuzzyContactName?: string },
    today: string,
  ): Promise<repo.TransactionFilter> {
    const filter: repo.TransactionFilter = {
      status: query.status as repo.TransactionFilter['status'],
      contactId: query.contact_id,
      since: query.since === undefined ? undefined : new Date(query.since).toISOString(),
      dueFrom: more.dueFrom,
      dueTo: more.dueTo,
      contactName: undefined,
      today,
      // Deleted dues only reach an incremental sync that asks for them (PRODUCT part 10).
      includeDeleted: query.since !== undefined && query.include_deleted === true,
    };
    const fuzzy = more.fuzzyContactName === undefined ? null : fuzzyQuery(more.fuzzyContactName);
    if (fuzzy !== null) filter.contactName = await rarestFirst(db, business.id, fuzzy);
    if (filter.since !== undefined)
      filter.sinceMatchesMany = await this.sinceMatchesMany(db, business.id, filter.since);
    return filter;
  }

  /**
   * Whether SINCE_MANY+ dues of the business changed at or after `since` (deleted ones too). A
   * sync asks every page with the same `since`, and the answer only ever turns from no to yes
   * (a due's updated_at only moves forward; dues are never removed, only marked deleted), so a
   * yes is kept: one probe per sync rather than one per page. It only picks the plan (both give
   * the same rows and total), so a kept answer can never make a page wrong.
   */
  private async sinceMatchesMany(db: Db, businessId: string, since: string): Promise<boolean> {
    const key = `${businessId} ${since}`;
    if (this.#manySince.get(key, MANY_SINCE_VERSION)) return true;
    const many = await repo.updatedSinceAtLeast(db, businessId, since, SINCE_MANY);
    if (many) {
      this.#manySince.set(key, MANY_SINCE_VERSION, true);
    }
    return many;
  }

  /**
   * The dues matching the list's filters, `limit` after `after` in the list's order, each as
   * `selection` makes it (repository.ts listTransactionsAs; the bulk export walks every due this
   * way, one CSV line each): each batch is a cursor page, a long read under the business's gate
   * like a list page, without the list's count.
   */
  listBatchAs<R>(
    selection: repo.ListSelection,
    business: BusinessRow,
    query: Pick<ListTransactionsInput, 'status' | 'contact_id' | 'since' | 'include_deleted'>,
    after: repo.ListPosition | undefined,
    limit: number,
    today: string,
    publicBaseUrl: string,
  ): Promise<R[]> {
    const run = async (db: Db) =>
      repo.listTransactionsAs<R>(
        selection,
        db,
        business.id,
        await this.filterOf(db, business, query, {}, today),
        limit,
        after,
        publicBaseUrl,
      );
    const reads = this.deps.reads;
    return reads ? reads.gate.run(business.id, () => run(reads.db)) : run(this.deps.db);
  }

  /** PRODUCT part 17: `starting_after` names a due of this business, and comes without an offset. */
  private async listPosition(
    business: BusinessRow,
    startingAfter: string | undefined,
    offset: number,
  ): Promise<repo.ListPosition | undefined> {
    if (startingAfter === undefined) return undefined;
    if (offset !== 0) throw errors.invalid('offset', 'offset must be 0 or absent with starting_after');
    const position = await repo.findListPosition(this.deps.db, business.id, startingAfter);
    if (!position) throw errors.invalid('starting_after', 'starting_after is not the id of a due of this business');
    return position;
  }

  /**
   * An incremental sync that matches most dues (a first sync from long ago) counts the dues it
   * does not match, from the updated_at index alone, and takes them from the running totals.
   */
  private async count(db: Db, business: BusinessRow, filter: repo.TransactionFilter): Promise<number> {
    const open = filter.status === undefined ? undefined : OPEN_OF_STATUS[filter.status];
    const fromTotals =
      filter.since !== undefined &&
      filter.sinceMatchesMany &&
      !filter.includeDeleted &&
      filter.contactId === undefined &&
      filter.dueFrom === undefined &&
      filter.dueTo === undefined &&
      filter.contactName === undefined &&
      (filter.status === undefined || open !== undefined);
    if (!fromTotals) return repo.countTransactions(db, business.id, filter);
    const all = await this.countFromTotals(business, filter);
    const unmatched = await repo.countUpdatedBefore(db, business.id, filter.since as string, open);
    return all - unmatched;
  }

  /** Status-only counts come from the running totals instead of counting up to millions of rows. */
  private async countFromTotals(business: BusinessRow, filter: repo.TransactionFilter): Promise<number> {
    const now = this.deps.clock.now();
    const t = await readTotals(this.deps.db, business.id, filter.today, localMonth(business.timezone, now));
    switch (filter.status) {
      case 'pending':
        return t.pending.count;
      case 'overdue':
        return t.overdue.count;
      case 'outstanding':
        return t.pending.count + t.overdue.count;
      case 'paid':
        return t.paid.count;
      default:
        return t.pending.count + t.overdue.count + t.paid.count;
    }
  }
}
