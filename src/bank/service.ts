import { runAs, SYSTEM_ACTOR } from '../audit/context.js';
import { recordAudit } from '../audit/record.js';
import type { BusinessRow } from '../businesses/repository.js';
import type { BankCreditTable, Db, Executor } from '../db/schema.js';
import { AppError, errors } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import { uuidv7 } from '../lib/ids.js';
import { balanceOf } from '../transactions/domain.js';
import { lockContact } from '../transactions/receipt-repository.js';
import * as dues from '../transactions/repository.js';
import { bankCreditEntry } from './audit.js';
import { matchCredits, type NewCredit, payContact, payDue, type Suggestion } from './match.js';
import { fingerprint, payersIn } from './narration.js';
import { parseStatement, type StatementCredit, StatementError, type StatementProblem } from './parse.js';
import * as repo from './repository.js';
import { asCredit } from './requeue.js';

export interface StatementResult {
  statement_id: string;
  lines: number;
  credits: number;
  duplicates: number;
  matched: number;
  suggested: number;
  unmatched: number;
}

export type BankCreditStatus = 'matched' | 'suggested' | 'unmatched' | 'ignored';

/** A credit row with its suggestions read back. */
export type BankCreditView = Omit<BankCreditTable, 'suggestions'> & { suggestions: Suggestion[] };

const view = (row: BankCreditTable): BankCreditView => ({
  ...row,
  suggestions: JSON.parse(row.suggestions) as Suggestion[],
});

/** A statement refused: 400 naming `csv` and the line; the parser's finding kept for pages to word. */
export class StatementRefused extends AppError {
  readonly line: number | null;
  readonly problem: StatementProblem;
  readonly value: string;
  constructor(error: StatementError) {
    super('invalid_request', error.message, { field: 'csv' });
    this.line = error.line;
    this.problem = error.problem;
    this.value = error.value;
  }
}

/**
 * Statement lines recorded and matched at a time: what the rules look for is read once per chunk
 * (bank/match.ts), by index, so the cost of a line does not grow with the business's dues.
 */
const LINES_PER_CHUNK = 500;

/** Credits that wait for the owner's decision. */
export const WAITING: readonly BankCreditStatus[] = ['suggested', 'unmatched'];

/** The dues and contacts a page of credits names, for showing names instead of ids. */
export interface CreditTargets {
  dues: Map<string, { contact_name: string; invoice_number: string | null; due_date: string; balance: number }>;
  contacts: Map<string, { name: string; balance: number }>;
}

/**
 * Bank statements (uploads) and their credits: an upload is ONE database transaction with every
 * credit, receipt, total and event it caused (a failure leaves nothing; the same file uploaded
 * again then records it all), its lines matched in chunks of 500.
 */
export class BankService {
  constructor(private readonly deps: { db: Db; clock: Clock }) {}

  async upload(business: BusinessRow, text: string): Promise<StatementResult> {
    let parsed: ReturnType<typeof parseStatement>;
    try {
      parsed = parseStatement(text);
    } catch (error) {
      if (error instanceof StatementError) throw new StatementRefused(error);
      throw error;
    }
    const now = this.deps.clock.now();
    const at = now.toISOString();
    const statementId = uuidv7(now.getTime());
    const rows = parsed.credits.map((c): BankCreditTable & { credit: StatementCredit } => ({
      credit: c,
      id: uuidv7(now.getTime()),
      business_id: business.id,
      statement_id: statementId,
      fingerprint: fingerprint(c),
      date: c.date,
      amount_paise: c.amountPaise,
      reference: c.reference,
      narration: c.narration,
      balance_paise: c.balancePaise,
      status: 'unmatched',
      matched_by: null,
      transaction_id: null,
      contact_id: null,
      receipt_id: null,
      suggestions: '[]',
      created_at: at,
      decided_at: null,
    }));
    const result: StatementResult = {
      statement_id: statementId,
      lines: parsed.lines,
      credits: 0,
      duplicates: 0,
      matched: 0,
      suggested: 0,
      unmatched: 0,
    };
    // One database transaction for the whole statement: a crash mid-upload leaves all of it or
    // none of it. Inside it the lines are matched a chunk at a time (each chunk's candidates read
    // at once, bank/match.ts).
    // Matching is the system's work (its audit entries say so), in the upload's request.
    await runAs(SYSTEM_ACTOR, () => this.uploadIn(business, rows, result, statementId, at, now));
    return result;
  }

  private uploadIn(
    business: BusinessRow,
    rows: readonly (BankCreditTable & { credit: StatementCredit })[],
    result: StatementResult,
    statementId: string,
    at: string,
    now: Date,
  ) {
    return this.deps.db.transaction().execute(async (trx) => {
      for (let from = 0; from < rows.length; from += LINES_PER_CHUNK) {
        const counts = await this.recordChunk(trx, business, rows.slice(from, from + LINES_PER_CHUNK), now);
        for (const key of ['credits', 'duplicates', 'matched', 'suggested', 'unmatched'] as const) {
          result[key] += counts[key];
        }
      }
      await repo.insertStatement(trx, {
        id: statementId,
        business_id: business.id,
        lines: result.lines,
        credits: result.credits,
        duplicates: result.duplicates,
        created_at: at,
      });
    });
  }

  /** Records a chunk's credit lines not seen before and matches them (rules 1-5), in the caller's transaction. */
  private async recordChunk(
    trx: Executor,
    business: BusinessRow,
    chunk: readonly (BankCreditTable & { credit: StatementCredit })[],
    now: Date,
  ) {
    const at = now.toISOString();
    const inserted = await repo.insertNewCredits(
      trx,
      chunk.map(({ credit: _c, ...row }) => row),
    );
    const fresh: NewCredit[] = chunk.filter((r) => inserted.has(r.id)).map((r) => ({ ...r.credit, id: r.id }));
    const outcomes = await matchCredits(trx, business, fresh, now);
    const counts = {
      credits: fresh.length,
      duplicates: chunk.length - fresh.length,
      matched: 0,
      suggested: 0,
      unmatched: 0,
    };
    const decided: BankCreditTable[] = [];
    for (const { credit: _c, ...row } of chunk) {
      const o = outcomes.get(row.id);
      if (!o) continue;
      counts[o.status]++;
      if (o.status === 'unmatched') continue;
      decided.push({
        ...row,
        status: o.status,
        matched_by: o.matchedBy,
        transaction_id: o.transactionId,
        contact_id: o.contactId,
        receipt_id: o.receiptId,
        suggestions: JSON.stringify(o.suggestions),
        decided_at: o.status === 'matched' ? at : null,
      });
    }
    await repo.saveDecisions(trx, decided);
    const recorded = new Map(chunk.map((r) => [r.id, r]));
    await recordAudit(
      trx,
      business.id,
      now,
      decided
        .filter((row) => row.status === 'matched')
        .map((row) => bankCreditEntry('matched', recorded.get(row.id) as BankCreditTable, row)),
    );
    return counts;
  }

  async list(
    business: BusinessRow,
    query: { status?: BankCreditStatus | readonly BankCreditStatus[]; limit?: number; offset?: number },
  ) {
    const limit = query.limit ?? 50;
    const offset = query.offset ?? 0;
    const statuses = query.status === undefined ? [] : typeof query.status === 'string' ? [query.status] : query.status;
    const rows = await repo.listCredits(this.deps.db, business.id, statuses, limit + 1, offset);
    return { items: rows.slice(0, limit).map(view), limit, offset, hasMore: rows.length > limit };
  }

  /** How many credits have these statuses (the credits waiting for the owner, by default). */
  count(business: BusinessRow, statuses: readonly BankCreditStatus[] = WAITING): Promise<number> {
    return repo.countCredits(this.deps.db, business.id, statuses);
  }

  async get(business: BusinessRow, id: string): Promise<BankCreditView> {
    const row = await repo.findCredit(this.deps.db, business.id, id);
    if (!row) throw errors.notFound('bank credit');
    return view(row);
  }

  /** The names, invoice numbers and balances of the dues and contacts these credits name, read by id. */
  async targets(business: BusinessRow, credits: readonly BankCreditView[]): Promise<CreditTargets> {
    const dueIds = credits.flatMap((c) => [c.transaction_id, ...c.suggestions.map((s) => s.transaction_id)]);
    const contactIds = credits.flatMap((c) => [c.contact_id, ...c.suggestions.map((s) => s.contact_id)]);
    const present = (ids: (string | null)[]) => ids.filter((id): id is string => id !== null);
    const [dueRows, contactRows] = await Promise.all([
      repo.duesByIds(this.deps.db, business.id, present(dueIds)),
      repo.contactsByIds(this.deps.db, business.id, present(contactIds)),
    ]);
    return {
      dues: new Map(
        dueRows.map((d) => [
          d.id,
          {
            contact_name: d.contact_name,
            invoice_number: d.invoice_number,
            due_date: d.due_date,
            balance: d.open === 1 ? balanceOf(d) : 0,
          },
        ]),
      ),
      contacts: new Map(contactRows.map((c) => [c.id, { name: c.name, balance: Number(c.balance_paise) }])),
    };
  }

  /** The owner applies a credit to a due or a contact; the payer is remembered for the next statement. */
  apply(
    business: BusinessRow,
    id: string,
    target: { transactionId?: string | undefined; contactId?: string | undefined },
  ): Promise<BankCreditView> {
    const now = this.deps.clock.now();
    return this.deps.db.transaction().execute(async (trx) => {
      const row = await this.undecided(trx, business, id);
      const credit = asCredit(row);
      let applied: { transactionId: string | null; contactId: string; receiptId: string } | undefined;
      if (target.transactionId !== undefined) {
        const due = await dues.findTransaction(trx, business.id, target.transactionId);
        if (!due || due.deleted_at !== null) throw errors.notFound('transaction');
        applied = (await payDue(trx, business, credit, due, now)) as NonNullable<typeof applied>;
      } else {
        const contact = await lockContact(trx, business.id, target.contactId as string);
        if (!contact) throw errors.notFound('contact');
        applied = await payContact(trx, business, credit, contact.id, now);
      }
      const at = now.toISOString();
      const done = applied as NonNullable<typeof applied>;
      await repo.rememberPayers(trx, business.id, payersIn(credit.narration), done.contactId, at);
      const patch = {
        status: 'matched',
        matched_by: 'owner',
        transaction_id: done.transactionId,
        contact_id: done.contactId,
        receipt_id: done.receiptId as string | null,
        decided_at: at as string | null,
      };
      await repo.updateCredit(trx, id, patch);
      await recordAudit(trx, business.id, now, [bankCreditEntry('applied', row, { ...row, ...patch })]);
      return view({ ...row, ...patch });
    });
  }

  ignore(business: BusinessRow, id: string): Promise<BankCreditView> {
    const at = this.deps.clock.now().toISOString();
    return this.deps.db.transaction().execute(async (trx) => {
      const row = await this.undecided(trx, business, id);
      const ignored = { ...row, status: 'ignored', decided_at: at };
      await repo.updateCredit(trx, id, { status: 'ignored', decided_at: at });
      await recordAudit(trx, business.id, at, [bankCreditEntry('ignored', row, ignored)]);
      return view(ignored);
    });
  }

  /** The credit, locked; an unknown or another business's: 404; matched or ignored already: 409. */
  private async undecided(trx: Parameters<typeof repo.lockCredit>[0], business: BusinessRow, id: string) {
    const row = await repo.lockCredit(trx, business.id, id);
    if (!row) throw errors.notFound('bank credit');
    if (row.status === 'matched' || row.status === 'ignored') {
      throw errors.conflict(`bank credit is already ${row.status}`);
    }
    return row;
  }
}
