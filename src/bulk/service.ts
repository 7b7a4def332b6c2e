import { setImmediate as nextTurn } from 'node:timers/promises';
import { CsvError, parse } from 'csv-parse/sync';
import type { BusinessRow } from '../businesses/repository.js';
import type { ContactRow } from '../contacts/repository.js';
import { lockImports } from '../db/port.js';
import type { Db, Executor, Trx } from '../db/schema.js';
import { AppError, errors, type RowError, RowsError } from '../errors.js';
import type { Answer, IdempotencyStore, Idempotent } from '../idempotency/store.js';
import { compileSchema, validationError } from '../lib/validation.js';
import { CreateTransactionBody, type CreateTransactionInput } from '../transactions/schema.js';
import type { TransactionService } from '../transactions/service.js';
import { normaliseDueDate, rupeesToPaise, unguardCell } from './csv.js';
import { type ExportFilter, exportCsv } from './export.js';
import { existingInvoiceNumbers } from './repository.js';

/** PRODUCT part 12: at most this many rows in one import (and 5 MB, the route's body limit). */
export const MAX_IMPORT_ROWS = 10_000;
/** PRODUCT part 12: an import is at most 5 MB, whichever way it arrives (API, dashboard, CLI). */
export const MAX_IMPORT_BYTES = 5 * 1024 * 1024;
/** Rows written between two turns of the event loop, and invoice numbers looked up per query. */
const CHUNK = 500;

/** The columns a CSV import reads; any other column (an export's id, status...) is ignored. */
const TEXT_COLUMNS = ['contact_name', 'contact_phone', 'invoice_number', 'notes'] as const;

export type ImportSource = { csv: string } | { rows: unknown[] };

export interface ImportResult {
  created: number;
  contacts_created: number;
  ids: string[];
}

export interface ImportOptions {
  dryRun?: boolean;
  /** the caller's transaction (Idempotency-Key keeps its record in the same one) */
  trx?: Trx;
  /** rows written so far, for a progress bar */
  onProgress?: (done: number, total: number) => void;
}

/** Thrown inside a dry run's transaction once everything is written, so that all of it is rolled back. */
class DryRunRollback extends Error {
  constructor(readonly result: ImportResult) {
    super('dry run');
  }
}

const validateBody = compileSchema(CreateTransactionBody, true);

/**
 * Bulk import and export of dues (PRODUCT part 12), usable without HTTP (routes, CLI, dashboard).
 *
 * Import: every row goes through the create rules of POST /v1/transactions (the request schema,
 * TransactionService.checkCreate, contactFor (contactsByName for a chunk's named contacts) and
 * insertMany's two halves, prepareMany and writePrepared, which create itself is made of: contact
 * found or created, totals, reminders, its own transaction.created event), so an import is
 * exactly what that many single creates would have been, written a chunk at a time (the totals
 * of every chunk added up and written once, after the last).
 *
 * Design (memory, fairness, all or nothing):
 * - The body is at most 5 MB and 10,000 rows; rows are parsed once into create bodies, never
 *   copied again. Checks that need no writing (schema, name and phone rules, invoice numbers
 *   repeated in the file or already used, in chunks of 500 per query) run first, outside any
 *   write transaction: a bad file is answered without taking the writer.
 * - The rows are then written in ONE database transaction (all or nothing: a row that fails there,
 *   e.g. an unknown contact_id, rolls everything back and is reported with its row number), in
 *   chunks of 500 with a turn of the event loop between chunks, so the process keeps answering
 *   other requests meanwhile: every row's contact first, then the dues, each chunk built while
 *   the one before is written (on PostgreSQL one statement per chunk, which the server runs
 *   while this process builds the next). On PostgreSQL the import locks only its own business (an advisory
 *   lock, so that two imports of one file cannot both pass the invoice check); other businesses'
 *   writes run beside it. SQLite has one writer: other writes queue behind the import's
 *   transaction, which is why its writes are kept short (see bench/README.md for the time taken).
 * - A dry run does all of this and rolls the transaction back: it answers exactly as the import
 *   would (ids, contacts created), and nothing is kept.
 */
export class BulkService {
  constructor(
    private readonly deps: {
      db: Db;
      transactions: TransactionService;
      idempotency: IdempotencyStore;
      publicBaseUrl: string;
    },
  ) {}

  /** The business's dues matching the list filters as CSV chunks (export.ts), read as they are consumed. */
  exportCsv(business: BusinessRow, filter: ExportFilter = {}): AsyncGenerator<string> {
    return exportCsv(this.deps, business, filter);
  }

  /**
   * An import in its own database transaction, once per Idempotency-Key (PRODUCT part 2, as on
   * create): the key is claimed, the dues written and the response stored in that one transaction.
   */
  importOnce(business: BusinessRow, source: ImportSource, idem: Idempotent<ImportResult>): Promise<Answer> {
    return this.deps.db
      .transaction()
      .execute((trx) =>
        this.deps.idempotency.once(trx, business.id, idem, () => this.importDues(business, source, { trx })),
      );
  }

  async importDues(business: BusinessRow, source: ImportSource, options: ImportOptions = {}): Promise<ImportResult> {
    if ('csv' in source && Buffer.byteLength(source.csv) > MAX_IMPORT_BYTES) {
      throw errors.invalid('csv', `an import is at most ${MAX_IMPORT_BYTES / 1024 / 1024} MB`);
    }
    const rows = 'csv' in source ? csvRows(source.csv) : jsonRows(source.rows);
    const failures: RowError[] = [];
    for (const [i, row] of rows.entries()) checkRow(this.deps.transactions, business, row, i + 1, failures);
    await this.checkInvoiceNumbers(options.trx ?? this.deps.db, business, rows, failures);
    rejectIfAny(failures);

    const write = (trx: Trx) => this.write(trx, business, rows, options);
    if (!options.dryRun) return options.trx ? write(options.trx) : this.deps.db.transaction().execute(write);
    try {
      await this.deps.db.transaction().execute(async (trx) => {
        throw new DryRunRollback(await write(trx));
      });
    } catch (error) {
      if (error instanceof DryRunRollback) return error.result;
      throw error;
    }
    throw new Error('unreachable: a dry run always rolls back');
  }

  private async write(
    trx: Trx,
    business: BusinessRow,
    rows: readonly ParsedRow[],
    options: ImportOptions,
  ): Promise<ImportResult> {
    await lockImports(trx, business.id);
    // Checked again under the lock: another import may have used a number since the first check.
    const failures: RowError[] = [];
    await this.checkInvoiceNumbers(trx, business, rows, failures);
    rejectIfAny(failures);

    const result: ImportResult = { created: 0, contacts_created: 0, ids: [] };
    await this.writeChunks(trx, business, rows, options, result);
    result.created = result.ids.length;
    return result;
  }

  /**
   * The rows in chunks of CHUNK, a turn of the event loop between two: first every row's contact
   * (contactsOf), then the dues, each chunk built (TransactionService.prepareMany) while the
   * database writes the chunk before it (writePrepared): on PostgreSQL a chunk's rows are one
   * statement, which the server runs while this process builds the next one. One chunk is written
   * at a time, in file order, and every write has ended before this returns or throws.
   */
  private async writeChunks(
    trx: Trx,
    business: BusinessRow,
    rows: readonly ParsedRow[],
    options: ImportOptions,
    result: ImportResult,
  ): Promise<void> {
    const { transactions } = this.deps;
    // Every row's contact locked (in id order) with its credit read under the lock, before the
    // first due is written: as a single create does (TransactionService.lockContacts).
    const contacts = await transactions.lockContacts(trx, business, await this.contactsOf(trx, business, rows, result));
    // The chunks' totals, written once after the last (fewer statements; on PostgreSQL the
    // business's totals row is then locked from the import's last statement only).
    const totals = transactions.deferTotals();
    // The dues written for contacts that held credit: settled from it once the totals are written.
    const written_: { id: string; contact_id: string }[] = [];
    // One budget for the whole import: its rows and every series' catch-up (at most 10,000 dues).
    const budget = transactions.dueBudget();
    let writing: Promise<void> | undefined;
    try {
      for (let start = 0; start < rows.length; start += CHUNK) {
        await nextTurn();
        const end = Math.min(start + CHUNK, rows.length);
        const prepared = transactions.prepareMany(
          business,
          rows.slice(start, end).map((row, i) => ({
            input: row.input as CreateTransactionInput,
            contact: contacts[start + i] as ContactRow,
          })),
        );
        await writing;
        writing = (async () => {
          const written = await transactions.writePrepared(trx, business, prepared, totals, budget);
          for (const due of written) result.ids.push(due.id);
          written_.push(...transactions.creditCandidates(prepared, written));
          options.onProgress?.(end, rows.length);
        })();
        // Awaited at the next chunk or below; until then its failure must not count as unhandled.
        writing.catch(() => {});
      }
      await writing;
      await totals.write(trx, business.id);
      if (written_.length > 0) await transactions.useCredit(trx, business, written_);
    } finally {
      // Failed elsewhere meanwhile: the transaction ends only once the chunk being written has.
      await writing?.catch(() => {});
    }
  }

  /**
   * Each row's contact, in file order and in chunks of CHUNK (a turn of the event loop between
   * two), as single creates would find or create them. Rows that name their contact wait and are
   * found or created together (one lookup, a few inserts: ContactService.findOrCreateMany) before
   * any row giving a contact_id, so each row sees its contact as the rows before it left it (a
   * phone filled...). Every contact is settled before the first due is written.
   */
  private async contactsOf(
    trx: Trx,
    business: BusinessRow,
    rows: readonly ParsedRow[],
    result: ImportResult,
  ): Promise<ContactRow[]> {
    const { transactions } = this.deps;
    const contacts: ContactRow[] = new Array(rows.length);
    const named: { at: number; name: string; phone: string | null }[] = [];
    const resolveNamed = async () => {
      if (named.length === 0) return;
      const found = await transactions.contactsByName(trx, business, named);
      for (const [n, { at }] of named.entries()) {
        const { contact, created } = found[n] as { contact: ContactRow; created: boolean };
        if (created) result.contacts_created++;
        contacts[at] = contact;
      }
      named.length = 0;
    };
    for (let i = 0; i < rows.length; i++) {
      if (i > 0 && i % CHUNK === 0) {
        await resolveNamed();
        await nextTurn();
      }
      const row = rows[i] as ParsedRow;
      const input = row.input as CreateTransactionInput;
      if (input.contact_id === undefined) {
        const checked = transactions.checkCreate(business, input);
        named.push({ at: i, name: checked.name as string, phone: checked.phone });
        continue;
      }
      await resolveNamed();
      try {
        contacts[i] = (await transactions.contactFor(trx, business, input)).contact;
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        // A refusal found while writing (an unknown contact_id): the whole import rolls back.
        throw new RowsError([{ row: i + 1, field: row.columnOf(error.field), message: error.message }]);
      }
    }
    await resolveNamed();
    return contacts;
  }

  /** Invoice numbers repeated within the file, or already on a due of the business: bad rows. */
  private async checkInvoiceNumbers(
    db: Executor,
    business: BusinessRow,
    rows: readonly ParsedRow[],
    failures: RowError[],
  ): Promise<void> {
    const firstRow = new Map<string, number>();
    rows.forEach((row, i) => {
      const invoice = (row.input as { invoice_number?: unknown }).invoice_number;
      if (typeof invoice !== 'string' || invoice === '') return;
      const first = firstRow.get(invoice);
      if (first === undefined) firstRow.set(invoice, i + 1);
      else
        failures.push({
          row: i + 1,
          field: 'invoice_number',
          message: `invoice_number ${invoice} repeats row ${first} of this file`,
        });
    });
    const numbers = [...firstRow.keys()];
    for (let start = 0; start < numbers.length; start += CHUNK) {
      for (const used of await existingInvoiceNumbers(db, business.id, numbers.slice(start, start + CHUNK))) {
        failures.push({
          row: firstRow.get(used) as number,
          field: 'invoice_number',
          message: `invoice_number ${used} already belongs to a due of this business`,
        });
      }
    }
  }
}

function rejectIfAny(failures: RowError[]): void {
  if (failures.length === 0) return;
  failures.sort((a, b) => a.row - b.row);
  throw new RowsError(failures);
}

interface ParsedRow {
  /** the row as a create body (not yet checked) */
  input: Record<string, unknown>;
  /** what is wrong with the row before any rule is applied to it */
  problem?: { field: string; message: string };
  /** the file's name for a field of the create body (a CSV's `amount` is the body's amount_paise) */
  columnOf(field: string | undefined): string;
}

const sameName = (field: string | undefined) => field ?? 'row';

function jsonRows(rows: unknown[]): ParsedRow[] {
  if (rows.length > MAX_IMPORT_ROWS) throw errors.invalid('rows', `an import takes at most ${MAX_IMPORT_ROWS} rows`);
  return rows.map((input) =>
    input !== null && typeof input === 'object' && !Array.isArray(input)
      ? { input: input as Record<string, unknown>, columnOf: sameName }
      : // Nothing after this reads a row that is not an object: it is a bad row like any other.
        { input: {}, problem: { field: 'row', message: 'each row must be a JSON object' }, columnOf: sameName },
  );
}

/** A CSV file as create bodies: the header names the columns, empty cells are absent fields. */
function csvRows(text: string): ParsedRow[] {
  let records: Record<string, string>[];
  try {
    records = parse(text, {
      bom: true,
      columns: (header: string[]) => header.map((h) => h.trim().toLowerCase()),
      skip_empty_lines: true,
      trim: true,
      to: MAX_IMPORT_ROWS + 1,
    }) as Record<string, string>[];
  } catch (error) {
    if (error instanceof CsvError) {
      const row = (error as CsvError & { records?: number }).records ?? 0;
      throw new RowsError([{ row: row + 1, field: 'csv', message: `the file is not valid CSV: ${error.message}` }]);
    }
    throw error;
  }
  if (records.length === 0) throw errors.invalid('csv', 'the file has no rows under its header');
  if (records.length > MAX_IMPORT_ROWS) throw errors.invalid('csv', `an import takes at most ${MAX_IMPORT_ROWS} rows`);
  const columns = Object.keys(records[0] as object);
  for (const needed of ['contact_name', 'due_date']) {
    if (!columns.includes(needed)) throw errors.invalid(needed, `the header has no ${needed} column`);
  }
  if (!columns.includes('amount') && !columns.includes('amount_paise')) {
    throw errors.invalid('amount', 'the header needs an amount (rupees) or an amount_paise column');
  }
  return records.map(csvRow);
}

function csvRow(record: Record<string, string>): ParsedRow {
  const input: Record<string, unknown> = {};
  for (const column of TEXT_COLUMNS) {
    const cell = record[column];
    if (cell) input[column] = unguardCell(cell);
  }
  let amountColumn = 'amount_paise';
  const rupees = record.amount;
  const paise = record.amount_paise;
  let problem: RowError['message'] | undefined;
  if (!record.contact_name) {
    // The CSV form names contacts only by name (an export's contact_id is another business's).
    return { input, problem: { field: 'contact_name', message: 'contact_name is required' }, columnOf: sameName };
  }
  if (rupees && paise) {
    problem = 'give only one of amount or amount_paise';
    amountColumn = 'amount';
  } else if (rupees) {
    amountColumn = 'amount';
    // Not a number: left as text, so that the schema names the column.
    input.amount_paise = rupeesToPaise(rupees) ?? rupees;
  } else if (paise) {
    input.amount_paise = /^\d+$/.test(paise) ? Number(paise) : paise;
  }
  if (record.due_date) input.due_date = normaliseDueDate(record.due_date);
  return {
    input,
    ...(problem !== undefined && { problem: { field: amountColumn, message: problem } }),
    columnOf: (field) => (field === 'amount_paise' ? amountColumn : sameName(field)),
  };
}

/** The checks of a create body that need no database: the request schema, then the name and phone rules. */
function checkRow(
  transactions: TransactionService,
  business: BusinessRow,
  row: ParsedRow,
  n: number,
  failures: RowError[],
): void {
  if (row.problem) {
    failures.push({ row: n, ...row.problem });
    return;
  }
  try {
    const input = row.input;
    if (input === null || typeof input !== 'object' || Array.isArray(input)) {
      throw errors.badRequest('each row must be a JSON object');
    }
    if (!validateBody(input)) throw validationError(validateBody.errors ?? [], 'body');
    transactions.checkCreate(business, input as CreateTransactionInput);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    const field = row.columnOf(error.field);
    const message =
      field !== error.field && error.field !== undefined ? error.message.replace(error.field, field) : error.message;
    failures.push({ row: n, field, message });
  }
}
