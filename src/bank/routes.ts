import { Type } from 'typebox';
import { errors } from '../errors.js';
import { absentBodyIsEmptyObject } from '../http/body.js';
import { Data, errorResponses, IdParams, ref } from '../http/schemas.js';
import type { App } from '../http/types.js';
import { documentedBodyCompiler } from '../http/validation.js';
import { ApplyBody, BankCredit, type BankCreditResponse, ListBankCreditsQuery, StatementResult } from './schema.js';
import type { BankCreditStatus, BankCreditView } from './service.js';

/** 5 MB: a 20,000-line statement with long narrations. */
const STATEMENT_BODY_LIMIT = 5 * 1024 * 1024;

export const bankSchemas = [StatementResult, BankCredit];

function present(row: BankCreditView): BankCreditResponse {
  return {
    id: row.id,
    date: row.date,
    amount_paise: Number(row.amount_paise),
    reference: row.reference,
    narration: row.narration,
    status: row.status,
    matched_by: row.matched_by,
    transaction_id: row.transaction_id,
    contact_id: row.contact_id,
    receipt_id: row.receipt_id,
    suggestions: row.suggestions,
  };
}

/** Bank statements uploaded as CSV, and the review queue of their credits. */
export async function bankRoutes(app: App) {
  const { bank } = app.deps.services;
  app.addContentTypeParser('text/csv', { parseAs: 'string' }, (_request, body, done) => done(null, body));

  app.post(
    '/bank-statements',
    {
      bodyLimit: STATEMENT_BODY_LIMIT,
      // The handler refuses a body that is not text/csv; its lines are checked by the upload.
      validatorCompiler: documentedBodyCompiler,
      schema: {
        operationId: 'uploadBankStatement',
        tags: ['Bank statements'],
        summary: 'Upload a bank statement (CSV) and match its credits to dues',
        description:
          'text/csv as exported by net banking, up to 5 MB and 20,000 lines. The header row is found among the first 30 lines by its column names. Each credit line is recorded once (a line already seen is a duplicate); credits are matched by claim, payment reference, invoice number or a payer seen before, else suggested. All or nothing. A file with no header or a bad line: 400 naming the line.',
        body: {
          content: { 'text/csv': { schema: Type.String({ description: 'the statement as net banking exports it' }) } },
        },
        response: { 201: Data(ref(StatementResult)), ...errorResponses(413) },
      },
    },
    async (request, reply) => {
      if (typeof request.body !== 'string') throw errors.badRequest('the body must be text/csv');
      const result = await bank.upload(request.auth.business, request.body);
      return reply.code(201).send({ data: result });
    },
  );

  app.get(
    '/bank-credits',
    {
      schema: {
        operationId: 'listBankCredits',
        tags: ['Bank statements'],
        summary: 'Bank credits, newest first',
        querystring: ListBankCreditsQuery,
        response: {
          200: Type.Object({
            data: Type.Array(ref(BankCredit)),
            limit: Type.Integer(),
            offset: Type.Integer(),
            hasMore: Type.Boolean(),
          }),
          ...errorResponses(),
        },
      },
    },
    async (request) => {
      const q = request.query;
      const page = await bank.list(request.auth.business, {
        ...(q.status !== undefined && { status: q.status as BankCreditStatus }),
        ...(q.limit !== undefined && { limit: q.limit }),
        ...(q.offset !== undefined && { offset: q.offset }),
      });
      return { data: page.items.map(present), limit: page.limit, offset: page.offset, hasMore: page.hasMore };
    },
  );

  app.post(
    '/bank-credits/:id/apply',
    {
      schema: {
        operationId: 'applyBankCredit',
        tags: ['Bank statements'],
        summary: 'Apply a bank credit to a due or a contact',
        description:
          "{transaction_id}: a receipt allocated to that due first, the rest to the contact's other open dues oldest first, then credit. {contact_id}: a receipt on the contact. The payer in the narration is remembered for later statements. A matched or ignored credit: 409.",
        params: IdParams,
        body: ApplyBody,
        response: { 200: Data(ref(BankCredit)), ...errorResponses(404, 409) },
      },
    },
    async (request) => {
      const { transaction_id, contact_id } = request.body;
      if ((transaction_id === undefined) === (contact_id === undefined)) {
        throw errors.invalid('transaction_id', 'give exactly one of transaction_id and contact_id');
      }
      const row = await bank.apply(request.auth.business, request.params.id, {
        transactionId: transaction_id,
        contactId: contact_id,
      });
      return { data: present(row) };
    },
  );

  app.post(
    '/bank-credits/:id/ignore',
    {
      preValidation: absentBodyIsEmptyObject,
      schema: {
        operationId: 'ignoreBankCredit',
        tags: ['Bank statements'],
        summary: 'Ignore a bank credit (not a buyer’s payment)',
        description: 'A matched or ignored credit: 409.',
        params: IdParams,
        body: Type.Object({}, { additionalProperties: false, description: 'no fields; the body may be left out' }),
        response: { 200: Data(ref(BankCredit)), ...errorResponses(404, 409) },
      },
    },
    async (request) => ({ data: present(await bank.ignore(request.auth.business, request.params.id)) }),
  );
}
