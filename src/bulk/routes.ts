import { Readable } from 'node:stream';
import { Type } from 'typebox';
import { errors } from '../errors.js';
import { idempotencyKeyOf, sendAnswer } from '../http/idempotency.js';
import { errorResponses, Uuid } from '../http/schemas.js';
import type { App } from '../http/types.js';
import { documentedBodyCompiler } from '../http/validation.js';
import { CreateTransactionBody, TRANSACTION_STATUS_FILTERS } from '../transactions/schema.js';
import { type ImportSource, MAX_IMPORT_BYTES } from './service.js';

/** PRODUCT part 12: an import body is at most 5 MB (the rest of the API keeps its 64 KB). */
const IMPORT_BODY_LIMIT = MAX_IMPORT_BYTES;

const ImportQuery = Type.Object(
  {
    dry_run: Type.Optional(Type.Boolean({ description: 'validate and answer as the import would, creating nothing' })),
  },
  { additionalProperties: false },
);

const ExportQuery = Type.Object(
  {
    status: Type.Optional(Type.String({ enum: [...TRANSACTION_STATUS_FILTERS] })),
    contact_id: Type.Optional(Uuid),
    since: Type.Optional(Type.String({ format: 'date-time', description: 'rows updated at or after this time' })),
    include_deleted: Type.Optional(Type.Boolean({ description: 'with since: deleted dues changed since then too' })),
  },
  { additionalProperties: false },
);

/** A refused import's 400: the error envelope, plus every bad row when rows are at fault. */
const ImportError = Type.Object({
  error: Type.Object({
    code: Type.String(),
    message: Type.String(),
    field: Type.Optional(Type.String()),
    rows: Type.Optional(
      Type.Array(Type.Object({ row: Type.Integer({ minimum: 1 }), field: Type.String(), message: Type.String() })),
    ),
  }),
});

/** The JSON form of an import: `{rows: [create bodies]}`; each row is checked by the import (named by row). */
function jsonSource(body: unknown): ImportSource {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw errors.badRequest('the body must be text/csv or a JSON object {rows: [...]}');
  }
  for (const key of Object.keys(body)) if (key !== 'rows') throw errors.invalid(key, `${key} is not a known field`);
  const rows = (body as { rows?: unknown }).rows;
  if (!Array.isArray(rows)) throw errors.invalid('rows', 'rows must be an array of transaction bodies');
  if (rows.length === 0) throw errors.invalid('rows', 'rows must have at least 1 item(s)');
  return { rows };
}

export async function bulkRoutes(app: App) {
  const { bulk } = app.deps.services;
  // CSV bodies arrive as text; only this plugin's routes read them.
  app.addContentTypeParser('text/csv', { parseAs: 'string' }, (_request, body, done) => done(null, body));

  app.post(
    '/transactions/import',
    {
      bodyLimit: IMPORT_BODY_LIMIT,
      // The import checks every row itself and names the bad ones by row (see ImportError).
      validatorCompiler: documentedBodyCompiler,
      schema: {
        operationId: 'importTransactions',
        tags: ['Transactions'],
        summary: 'Import dues from CSV or JSON, all or nothing',
        description:
          'text/csv with a header row (contact_name, contact_phone, amount in rupees such as 1,23,450.50 or amount_paise, due_date as YYYY-MM-DD, DD/MM/YYYY or DD-MM-YYYY, invoice_number, notes; other columns are ignored) or JSON {rows: [create bodies]}; up to 10,000 rows and 5 MB. Any bad row: 400 with error.rows [{row, field, message}] (rows from 1, header excluded), nothing created. An invoice_number already used by a due of the business is a bad row, so a re-run creates nothing twice. dry_run=true answers as the import would and creates nothing. Each row emits transaction.created as a single create would. Supports Idempotency-Key (24 hours).',
        querystring: ImportQuery,
        body: {
          content: {
            'text/csv': {
              schema: Type.String({
                description: 'a header row, then one due a row',
                examples: [
                  'contact_name,contact_phone,amount,due_date,invoice_number\r\nRavi Traders,98765 43210,"1,250.00",2026-12-15,INV-101\r\n',
                ],
              }),
            },
            'application/json': {
              schema: Type.Object(
                { rows: Type.Array(CreateTransactionBody, { minItems: 1, maxItems: 10_000 }) },
                {
                  additionalProperties: false,
                  examples: [
                    { rows: [{ contact_name: 'Ravi Traders', amount_paise: 125_000, due_date: '2026-12-15' }] },
                  ],
                },
              ),
            },
          },
        },
        headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String({ maxLength: 255 })) }),
        response: {
          201: Type.Object({
            data: Type.Object({
              created: Type.Integer(),
              contacts_created: Type.Integer(),
              ids: Type.Array(Uuid),
            }),
          }),
          ...errorResponses(409, 422),
          400: ImportError,
        },
      },
    },
    async (request, reply) => {
      const { business } = request.auth;
      const body: unknown = request.body;
      const source: ImportSource = typeof body === 'string' ? { csv: body } : jsonSource(body);
      if (request.query.dry_run === true) {
        return reply.code(201).send({ data: await bulk.importDues(business, source, { dryRun: true }) });
      }
      return sendAnswer(
        reply,
        await bulk.importOnce(business, source, {
          idempotencyKey: idempotencyKeyOf(request, 'transactions.import'),
          respond: (result) => ({ status: 201, body: { data: result } }),
        }),
      );
    },
  );

  app.get(
    '/transactions/export',
    {
      schema: {
        operationId: 'exportTransactions',
        tags: ['Transactions'],
        summary: 'Export dues as CSV (streamed)',
        description:
          'Every due matching the list filters as text/csv: a header row, then every column of the Transaction (amounts in paise) in the list order. A cell starting with =, +, -, @ (or tab, CR) is written with a leading apostrophe so that a spreadsheet shows it as text. The file imports back as it is.',
        querystring: ExportQuery,
        response: {
          200: {
            description: 'The dues as CSV (UTF-8, CRLF line ends), streamed',
            headers: {
              'Content-Disposition': Type.String({ description: 'attachment; filename="transactions.csv"' }),
            },
            content: { 'text/csv': { schema: Type.String({ description: 'a header row, then one row per due' }) } },
          },
          ...errorResponses(),
        },
      },
    },
    async (request, reply) => {
      const chunks = bulk.exportCsv(request.auth.business, request.query);
      // The first chunk (header and first batch) is read before answering: a failing store is a 503.
      // A byte stream with a 64 KB mark: the next batch is read only once the socket has taken this one.
      const first = await chunks.next();
      async function* all() {
        if (!first.done) yield first.value;
        yield* chunks;
      }
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', 'attachment; filename="transactions.csv"')
        .send(Readable.from(all(), { objectMode: false, highWaterMark: 64 * 1024 }) as never);
    },
  );
}
