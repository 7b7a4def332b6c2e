import { type AuditChange, diff, recordAudit } from '../audit/record.js';
import type { BusinessRow } from '../businesses/repository.js';
import { isUniqueViolation } from '../db/errors.js';
import type { Db, Executor, Trx } from '../db/schema.js';
import { errors } from '../errors.js';
import type { Answer, IdempotencyStore, Idempotent } from '../idempotency/store.js';
import type { BusinessGate } from '../lib/business-gate.js';
import type { Clock } from '../lib/clock.js';
import { daysBetween, localDate } from '../lib/dates.js';
import { isUuid, randomToken, uuidv7 } from '../lib/ids.js';
import { contactPaymentReference } from '../lib/payment-reference.js';
import {
  paidDateMatters,
  paymentScore,
  paymentScoreFromSums,
  type RiskFlag,
  riskFlag,
  type ScoredDue,
} from '../lib/payment-score.js';
import { normalisePhone, reversedDigits } from '../lib/phone.js';
import { recordEvents } from '../outbox/events.js';
import { pauseContactSequences } from '../reminder-schedule/schedule.js';
import { addContact } from '../totals/aggregates.js';
import { readTotalsColumn } from '../totals/read.js';
import { findUser } from '../users/repository.js';
import { fuzzyQuery } from './fuzzy.js';
import { contactNameKey } from './name-key.js';
import { rarestFirst, writeNameTerms, writeNewNameTerms } from './name-terms.js';
import * as repo from './repository.js';
import type { CreateContactInput, ListContactsInput, UpdateContactInput } from './schema.js';
import { editDistance, isCloseName } from './similar.js';

export interface ContactStanding {
  paymentScore: number;
  riskFlag: RiskFlag;
  outstandingPaise: number;
  pendingCount: number;
  overdueCount: number;
  totalTransactions: number;
}

export function checkContactName(name: string, field: string): string {
  const trimmed = name.trim().normalize('NFC');
  if (trimmed.length < 2 || trimmed.length > 120) {
    throw errors.invalid(field, `${field} must be 2-120 characters after trimming spaces`);
  }
  return trimmed;
}

export function parsePhone(input: string, business: BusinessRow, field: string): string {
  const phone = normalisePhone(input, business.country);
  if (!phone) throw errors.invalid(field, `${field} is not a valid phone number`);
  return phone;
}

/** Where the long reads run (the store's read threads) and the per-business bound on them. */
export interface LongReads {
  db: Db;
  gate: BusinessGate;
}

export interface CreatedContact {
  contact: repo.ContactRow;
  standing: ContactStanding;
  created: boolean;
}

/** Candidates read per lookup when looking for a close name. */
const SIMILAR_READ = 20;

/** Names looked up and contacts written per statement by findOrCreateMany (well under every store's parameter limit). */
const MANY_CONTACTS = 500;

export class ContactService {
  constructor(private readonly deps: { db: Db; clock: Clock; idempotency: IdempotencyStore; reads?: LongReads }) {}

  /** Each of these contacts' name by id; unknown ids (and text that is no id) are left out. */
  async namesOf(businessId: string, ids: Iterable<string>): Promise<Map<string, string>> {
    const unique = [...new Set(ids)].filter(isUuid);
    if (unique.length === 0) return new Map();
    const rows = await repo.contactNamesByIds(this.deps.db, businessId, unique);
    return new Map(rows.map((r) => [r.id, r.name]));
  }

  /**
   * Finds the business's contact with this name, or creates it (emitting contact.created).
   * A phone fills in a contact that has none; it never replaces a different existing phone.
   */
  async findOrCreate(
    trx: Trx,
    business: BusinessRow,
    name: string,
    phone: string | null,
  ): Promise<{ contact: repo.ContactRow; created: boolean }> {
    return (await this.findOrCreateMany(trx, business, [{ name, phone }]))[0] as {
      contact: repo.ContactRow;
      created: boolean;
    };
  }

  /**
   * findOrCreate for several names (a bulk import's chunk), with the outcome of calling it for each
   * in turn: the contact as it stood after that name's step (created, found, or its phone filled).
   * One lookup for the names; the new contacts are written in a few statements (contacts, name
   * terms, the count, contact.created events, in findOrCreate's order).
   */
  async findOrCreateMany(
    trx: Trx,
    business: BusinessRow,
    wanted: readonly { name: string; phone: string | null }[],
  ): Promise<{ contact: repo.ContactRow; created: boolean }[]> {
    const results: { contact: repo.ContactRow; created: boolean }[] = [];
    for (let start = 0; start < wanted.length; start += MANY_CONTACTS) {
      results.push(...(await this.findOrCreateChunk(trx, business, wanted.slice(start, start + MANY_CONTACTS))));
    }
    return results;
  }

  private async findOrCreateChunk(
    trx: Trx,
    business: BusinessRow,
    wanted: readonly { name: string; phone: string | null }[],
  ): Promise<{ contact: repo.ContactRow; created: boolean }[]> {
    const keys = wanted.map((w) => contactNameKey(w.name));
    const known = new Map<string, repo.ContactRow>();
    for (const row of await repo.findContactsByNameKeys(trx, business.id, [...new Set(keys)]))
      known.set(row.name_key, row);
    // The first mention of a name not found creates it (with that mention's phone).
    const now = this.deps.clock.now();
    const fresh = new Map<string, repo.ContactRow>();
    const creates = keys.map((key, i) => {
      if (known.has(key) || fresh.has(key)) return false;
      const { name, phone } = wanted[i] as { name: string; phone: string | null };
      fresh.set(key, {
        id: uuidv7(now.getTime()),
        business_id: business.id,
        name,
        name_key: key,
        reminders_paused: 0,
        phone,
        phone_rev: phone === null ? null : reversedDigits(phone),
        created_at: now.toISOString(),
        updated_at: now.toISOString(),
        open_paise: 0,
        credit_paise: 0,
        balance_paise: 0,
        account_token: randomToken(),
        language: null,
        oldest_open_due: '9999-12-31',
        due_count: 0,
        payment_reference: contactPaymentReference(),
        assigned_to: null,
      });
      return true;
    });
    const inserted = await repo.insertContactsIfAbsent(trx, [...fresh.values()]);
    for (const row of inserted) known.set(row.name_key, row);
    for (const key of fresh.keys()) {
      if (known.has(key)) continue;
      // Another request created the same name a moment ago (PostgreSQL waited for it to commit).
      const winner = await repo.findContactByNameKey(trx, business.id, key);
      if (!winner) throw new Error('contact vanished after a name conflict');
      known.set(key, winner);
    }
    const created = new Set(inserted.map((row) => row.name_key));
    if (inserted.length > 0) {
      await addContact(trx, business.id, inserted.length);
      await recordAudit(
        trx,
        business.id,
        now,
        inserted.map((row) => contactEntry('contact.created', null, row)),
      );
      await writeNewNameTerms(trx, inserted);
      await recordEvents(
        trx,
        inserted.map((row) => ({
          businessId: business.id,
          type: 'contact.created' as const,
          data: { id: row.id, name: row.name, phone: row.phone, createdAt: row.created_at },
          at: now,
        })),
      );
    }
    // Then each mention in turn: a found (or conflicting) contact without a phone takes the first one given.
    const results: { contact: repo.ContactRow; created: boolean }[] = [];
    for (const [i, key] of keys.entries()) {
      const isNew = creates[i] === true && created.has(key);
      let contact = known.get(key) as repo.ContactRow;
      if (!isNew) {
        contact = await this.fillPhone(trx, contact, (wanted[i] as { phone: string | null }).phone);
        known.set(key, contact);
      }
      results.push({ contact, created: isNew });
    }
    return results;
  }

  async fillPhone(trx: Executor, contact: repo.ContactRow, phone: string | null): Promise<repo.ContactRow> {
    if (phone === null || contact.phone !== null) return contact;
    const at = this.deps.clock.now().toISOString();
    const updated = await repo.updateContact(
      trx,
      contact.business_id,
      contact.id,
      { phone, phone_rev: reversedDigits(phone) },
      at,
    );
    if (updated) await recordAudit(trx, contact.business_id, at, [contactEntry('contact.updated', contact, updated)]);
    return updated ?? contact;
  }

  /** Finds or creates a contact by name in its own transaction, with the Idempotency-Key when `idem` is given. */
  create(business: BusinessRow, input: CreateContactInput): Promise<CreatedContact>;
  create(business: BusinessRow, input: CreateContactInput, idem: Idempotent<CreatedContact>): Promise<Answer>;
  create(
    business: BusinessRow,
    input: CreateContactInput,
    idem?: Idempotent<CreatedContact>,
  ): Promise<CreatedContact | Answer> {
    return this.deps.db.transaction().execute<CreatedContact | Answer>((trx) => {
      const work = () => this.createIn(trx, business, input);
      return idem ? this.deps.idempotency.once(trx, business.id, idem, work) : work();
    });
  }

  /** Finds or creates a contact by name inside the caller's transaction (a larger change, a batch). */
  async createIn(trx: Trx, business: BusinessRow, input: CreateContactInput): Promise<CreatedContact> {
    const name = checkContactName(input.name, 'name');
    const phone = input.phone === undefined ? null : parsePhone(input.phone, business, 'phone');
    const found = await this.findOrCreate(trx, business, name, phone);
    const { created } = found;
    let { contact } = found;
    // A language given names the buyer's language: set on a new contact, or one that had none.
    if (typeof input.language === 'string' && contact.language === null) {
      const at = this.deps.clock.now().toISOString();
      const before = contact;
      contact = (await repo.updateContact(trx, business.id, contact.id, { language: input.language }, at)) ?? contact;
      await recordAudit(trx, business.id, at, [contactEntry('contact.updated', before, contact)]);
    }
    const standing = created ? NEW_CONTACT_STANDING : await this.standing(trx, business, contact.id);
    return { contact, standing, created };
  }

  /**
   * Contacts whose name is close to `name` (similar.ts), closest first, at most `limit`; when a
   * contact has exactly this name (case-insensitively) it alone. Found through the indexes, never a
   * scan of the business's contacts: the names holding the typed one, and the names with a word
   * within one typo of each typed word (the fuzzy search's terms); those are then measured.
   */
  async similar(
    business: BusinessRow,
    name: string,
    limit = 3,
  ): Promise<{ exact: boolean; contacts: repo.ContactRow[] }> {
    const db = this.deps.db;
    const key = contactNameKey(name);
    const exact = await repo.findContactByNameKey(db, business.id, key);
    if (exact) return { exact: true, contacts: [exact] };
    if (Array.from(key).length < 2) return { exact: false, contacts: [] };
    const found = new Map<string, repo.ContactRow>();
    const add = (rows: repo.ContactRow[]) => {
      for (const row of rows) if (isCloseName(key, row.name_key)) found.set(row.id, row);
    };
    const search = { search: key, searchTrigrams: await repo.trigramsNarrow(db, business.id, key) };
    add(await repo.listContacts(db, business.id, search, SIMILAR_READ, 0));
    for (const word of fuzzyQuery(name) ?? []) {
      const fuzzyName = await rarestFirst(db, business.id, [word]);
      add(await repo.listContacts(db, business.id, { fuzzyName }, SIMILAR_READ, 0));
    }
    const rank = (row: repo.ContactRow) => editDistance(key, row.name_key, 120);
    return { exact: false, contacts: [...found.values()].sort((a, b) => rank(a) - rank(b)).slice(0, limit) };
  }

  /** The buyer's chat replies, newest first (PRODUCT part 13: kept for the business to read). */
  async replies(business: BusinessRow, id: string, limit: number) {
    const contact = await repo.findContact(this.deps.db, business.id, id);
    if (!contact) throw errors.notFound('contact');
    return repo.listReplies(this.deps.db, contact.id, limit);
  }

  /** One statement (issue 26): the contact, its balances and what its score is computed from. */
  async get(
    business: BusinessRow,
    id: string,
    today = localDate(business.timezone, this.deps.clock.now()),
  ): Promise<{ contact: repo.ContactRow; standing: ContactStanding }> {
    const row = await repo.findContactWithStanding(this.deps.db, business.id, id, today);
    if (!row) throw errors.notFound('contact');
    const { open_days, paid_after_today, epoch_day, weighted, weights, terms, ...contact } = row;
    const standing = await this.standingOf(this.deps.db, business, today, {
      contact_id: contact.id,
      due_count: contact.due_count,
      open_days,
      paid_after_today,
      epoch_day,
      weighted,
      weights,
      terms,
    });
    return { contact, standing };
  }

  /**
   * `more.fuzzySearch` is the earlier shape's search (contacts/fuzzy.ts): one typo per word
   * tolerated; a search without any word is ignored.
   */
  async list(
    business: BusinessRow,
    query: ListContactsInput,
    more: { fuzzySearch?: string; assignedTo?: string } = {},
  ) {
    const reads = this.deps.reads;
    if (!reads) return this.listOn(this.deps.db, business, query, more);
    return reads.gate.run(business.id, () => this.listOn(reads.db, business, query, more));
  }

  private async listOn(
    db: Executor,
    business: BusinessRow,
    query: ListContactsInput,
    more: { fuzzySearch?: string; assignedTo?: string },
  ) {
    const filter: repo.ContactFilter = {};
    if (more.assignedTo !== undefined) filter.assignedTo = more.assignedTo;
    const fuzzy = more.fuzzySearch === undefined ? null : fuzzyQuery(more.fuzzySearch);
    if (fuzzy !== null) filter.fuzzyName = await rarestFirst(db, business.id, fuzzy);
    if (query.search !== undefined) {
      const search = query.search.trim().normalize('NFC').toLowerCase();
      if (search.length < 2) throw errors.invalid('search', 'search must be at least 2 characters');
      filter.search = search;
      if (await repo.trigramsNarrow(db, business.id, search)) filter.searchTrigrams = true;
    }
    if (query.since !== undefined) filter.since = new Date(query.since).toISOString();
    if (query.phone !== undefined) {
      const digits = query.phone.replace(/[\s()+.-]/g, '');
      if (!/^\d{6,}$/.test(digits)) throw errors.invalid('phone', 'phone must be at least 6 digits');
      filter.phoneRevPrefix = reversedDigits(digits);
    }
    const limit = query.limit ?? 50;
    const offset = query.offset ?? 0;
    const after = await this.listPosition(business, query.starting_after, offset);
    const unfiltered =
      filter.search === undefined &&
      filter.phoneRevPrefix === undefined &&
      filter.fuzzyName === undefined &&
      filter.since === undefined &&
      filter.assignedTo === undefined;
    // A cursor page reads one row more than it shows: whether that row exists is hasMore. One
    // statement after the other: a business's list holds one read thread at a time (gate).
    if (query.has_balance === 'true') filter.hasBalance = true;
    const found = await repo.listContacts(
      db,
      business.id,
      filter,
      after === undefined ? limit : limit + 1,
      offset,
      after,
      (query.sort ?? 'created_desc') as repo.ContactSort,
    );
    // Unfiltered, the total is kept in the business's totals (with has_balance, the count of
    // contacts whose balance is above 0): O(1) however many contacts the business has.
    const total = unfiltered
      ? await this.keptCount(business.id, filter.hasBalance === true ? 'balance_contact_count' : 'contact_count')
      : await repo.countContacts(db, business.id, filter);
    const rows = found.length > limit ? found.slice(0, limit) : found;
    const hasMore = after === undefined ? offset + rows.length < total : found.length > limit;
    const standings = await this.standings(
      db,
      business,
      rows.map((r) => r.id),
    );
    return {
      items: rows.map((contact) => ({
        contact,
        standing: standings.get(contact.id) ?? NEW_CONTACT_STANDING,
      })),
      total,
      limit,
      offset,
      hasMore,
    };
  }

  /**
   * The buyers who owe most (Home): one page of the balance index, their kept balances only. Not
   * `list`, which adds each buyer's standing read from its dues: with the biggest buyers' open
   * dues by the thousand, that read made Home cost their dues instead of a page.
   */
  topOwing(business: BusinessRow, limit: number): Promise<repo.ContactRow[]> {
    return repo.listContacts(this.deps.db, business.id, { hasBalance: true }, limit, 0, undefined, 'balance_desc');
  }

  /** PRODUCT part 17: `starting_after` names a contact of this business, and comes without an offset. */
  private async listPosition(
    business: BusinessRow,
    startingAfter: string | undefined,
    offset: number,
  ): Promise<repo.ContactPosition | undefined> {
    if (startingAfter === undefined) return undefined;
    if (offset !== 0) throw errors.invalid('offset', 'offset must be 0 or absent with starting_after');
    const position = await repo.findContactPosition(this.deps.db, business.id, startingAfter);
    if (!position) throw errors.invalid('starting_after', 'starting_after is not the id of a contact of this business');
    return position;
  }

  /** `language`: the buyer's pages' language (en or hi), null for the business's. */
  async update(business: BusinessRow, id: string, input: UpdateContactInput & { language?: 'en' | 'hi' | null }) {
    const patch: Parameters<typeof repo.updateContact>[3] = {};
    if (input.language !== undefined) patch.language = input.language;
    if (input.name !== undefined) {
      patch.name = checkContactName(input.name, 'name');
      patch.name_key = contactNameKey(patch.name);
    }
    if (input.phone !== undefined) {
      patch.phone = input.phone === null ? null : parsePhone(input.phone, business, 'phone');
      patch.phone_rev = patch.phone === null ? null : reversedDigits(patch.phone);
    }
    const pause = input.reminders_paused === undefined ? undefined : input.reminders_paused ? 1 : 0;
    return this.deps.db.transaction().execute(async (trx) => {
      const current = await repo.findContact(trx, business.id, id);
      if (!current) throw errors.notFound('contact');
      let contact = current;
      if (pause !== undefined && pause !== current.reminders_paused) patch.reminders_paused = pause;
      if (patch.language === current.language) delete patch.language;
      if (input.assigned_to !== undefined && input.assigned_to !== current.assigned_to) {
        const userId = input.assigned_to?.toLowerCase() ?? null;
        if (userId !== null && !(await findUser(trx, business.id, userId))) {
          throw errors.invalid('assigned_to', 'assigned_to is not the id of a user of this business');
        }
        patch.assigned_to = userId;
      }
      if (Object.keys(patch).length > 0) {
        const now = this.deps.clock.now();
        try {
          contact = (await repo.updateContact(trx, business.id, id, patch, now.toISOString())) ?? current;
        } catch (error) {
          if (isUniqueViolation(error)) throw errors.conflict('another contact already has this name', 'name');
          throw error;
        }
        await recordAudit(trx, business.id, now, [contactEntry('contact.updated', current, contact)]);
        if (patch.name !== undefined) await writeNameTerms(trx, contact, { replace: true });
        if (patch.reminders_paused !== undefined) {
          await pauseContactSequences(trx, business, id, patch.reminders_paused === 1, now);
        }
      }
      return { contact, standing: await this.standing(trx, business, id) };
    });
  }

  async standing(db: Executor, business: BusinessRow, contactId: string): Promise<ContactStanding> {
    return (await this.standings(db, business, [contactId])).get(contactId) ?? NEW_CONTACT_STANDING;
  }

  /**
   * Balances, payment score and risk flag of some contacts: one statement for their balances and
   * the score's open part, with their kept score sums (issue 18: no walk over their paid dues).
   */
  async standings(db: Executor, business: BusinessRow, contactIds: string[]): Promise<Map<string, ContactStanding>> {
    const result = new Map<string, ContactStanding>();
    if (contactIds.length === 0) return result;
    const today = localDate(business.timezone, this.deps.clock.now());
    for (const row of await repo.contactStandings(db, business.id, contactIds, today)) {
      result.set(row.contact_id, await this.standingOf(db, business, today, row));
    }
    return result;
  }

  /**
   * A contact's standing from its kept parts (repo.ContactStandingRow): the counts, the balance
   * and the oldest overdue date from its open days, the score from its kept sums with each open
   * day before today as one term (its dues' amounts and the promises broken on it), and its paid
   * dues dated after today (from their rows, when the kept sums cannot tell).
   */
  private async standingOf(
    db: Executor,
    business: BusinessRow,
    today: string,
    b: repo.ContactStandingRow,
  ): Promise<ContactStanding> {
    const json = <T>(v: string | T[] | null): T[] => (typeof v === 'string' ? JSON.parse(v) : (v ?? [])) as T[];
    // A due's row as the score reads it (paid at an instant, counted on its business-local date).
    const scored = (amount: number, dueDate: string, paidAt: string | null, promiseDate: string | null) =>
      ({
        amountPaise: Number(amount),
        dueDate,
        paidDate: paidAt === null ? null : localDate(business.timezone, new Date(paidAt)),
        promiseDate,
      }) satisfies ScoredDue;
    let outstanding = 0;
    let pending = 0;
    let overdue = 0;
    let oldestOverdue: string | null = null;
    const open: ScoredDue[] = [];
    for (const [day, count, balance, scoredPaise] of json<repo.OpenDayJson>(b.open_days)) {
      outstanding += Number(balance);
      if (day >= today) {
        pending += Number(count);
        continue;
      }
      overdue += Number(count);
      if (Number(count) > 0 && (oldestOverdue === null || day < oldestOverdue)) oldestOverdue = day;
      open.push({ amountPaise: Number(scoredPaise), dueDate: day, paidDate: null });
    }
    // Paid by today and dated after it: scored as paid today where the day cannot matter.
    const paidAfterToday = json<repo.PaidDueJson>(b.paid_after_today).map(([amount, dueDate, paidAt, promiseDate]) =>
      paidDateMatters(dueDate, today)
        ? scored(amount, dueDate, paidAt, promiseDate)
        : { amountPaise: Number(amount), dueDate, paidDate: today, promiseDate },
    );
    let score = paymentScoreFromSums(
      {
        paid:
          b.epoch_day === null
            ? null
            : {
                epochDay: Number(b.epoch_day),
                weighted: Number(b.weighted),
                weights: Number(b.weights),
                terms: Number(b.terms),
              },
        open,
        paidAfterToday,
      },
      today,
    );
    if (score === null) {
      // Rare (paid dues dated 15+ years after the others): from the rows, as paymentScore defines it.
      const rows = await repo.duesForScore(db, business.id, [b.contact_id]);
      score = paymentScore(
        rows.map((d) => scored(d.amount_paise, d.due_date, d.paid_at, d.promise_date)),
        today,
      );
    }
    const maxDaysOverdue = oldestOverdue === null ? 0 : daysBetween(oldestOverdue, today);
    return {
      paymentScore: score,
      riskFlag: riskFlag(score, maxDaysOverdue),
      outstandingPaise: outstanding,
      pendingCount: pending,
      overdueCount: overdue,
      totalTransactions: Number(b.due_count),
    };
  }

  private async keptCount(businessId: string, column: 'contact_count' | 'balance_contact_count'): Promise<number> {
    return readTotalsColumn(this.deps.db, businessId, column);
  }
}

const NEW_CONTACT_STANDING: ContactStanding = {
  paymentScore: 100,
  riskFlag: 'low',
  outstandingPaise: 0,
  pendingCount: 0,
  overdueCount: 0,
  totalTransactions: 0,
};

/** A contact's fields its audit entries show before and after. */
export const CONTACT_AUDITED = ['name', 'phone', 'language', 'reminders_paused', 'assigned_to'] as const;

function contactEntry(action: string, before: repo.ContactRow | null, after: repo.ContactRow): AuditChange {
  return { action, entity: 'contact', entityId: after.id, changes: diff(before, after, CONTACT_AUDITED) };
}
