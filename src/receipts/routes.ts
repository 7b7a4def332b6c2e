import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { presentContactWithBalances } from '../contacts/presenter.js';
import { ContactWithBalances } from '../contacts/schema.js';
import { idempotencyKeyOf, sendAnswer } from '../http/idempotency.js';
import { Data, errorResponses, IdParams, Page, ref } from '../http/schemas.js';
import type { App } from '../http/types.js';
import { presentTransaction } from '../transactions/presenter.js';
import { Transaction } from '../transactions/schema.js';
import { presentReceipt } from './presenter.js';
import { ListReceiptsQuery, Receipt, RecordReceiptBody, ReverseBody } from './schema.js';

/** A buyer's account: receipts against the contact, read and reversed. */
export async function receiptRoutes(app: App) {
  const { receipts, transactions } = app.deps.services;
  const { publicBaseUrl } = app.deps.config;
  const ctx = (request: FastifyRequest) => ({
    today: transactions.today(request.auth.business),
    publicBaseUrl,
    timezone: request.auth.business.timezone,
  });

  app.post(
    '/contacts/:id/payments',
    {
      schema: {
        operationId: 'createReceipt',
        tags: ['Receipts'],
        summary: 'Record money received from a buyer (a receipt)',
        description:
          "The listed allocations first, then the contact's open dues oldest first (due date, then creation); what is left becomes the contact's credit. Each due touched gets a payment and the usual events. A bad allocation: 400 (allocations). Supports Idempotency-Key (24 hours).",
        params: IdParams,
        headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String({ maxLength: 255 })) }),
        body: RecordReceiptBody,
        response: {
          201: Data(
            Type.Object({
              receipt: ref(Receipt),
              transactions: Type.Array(ref(Transaction)),
              contact: ref(ContactWithBalances),
            }),
          ),
          ...errorResponses(404, 422),
        },
      },
    },
    async (request, reply) => {
      const { business } = request.auth;
      const { id } = request.params;
      const b = request.body;
      const answer = await receipts.record(
        business,
        id,
        {
          amountPaise: b.amount_paise,
          utr: b.utr,
          paymentMethod: b.payment_method,
          receivedOn: b.received_on,
          allocations: b.allocations?.map((a) => ({ transactionId: a.transaction_id, amountPaise: a.amount_paise })),
          source: 'api',
        },
        {
          idempotencyKey: idempotencyKeyOf(request, `contacts.payments:${id}`),
          respond: (r) => ({
            status: 201,
            body: {
              data: {
                receipt: presentReceipt(r.receipt, r.allocations),
                transactions: r.transactions.map((t) => presentTransaction(t, ctx(request))),
                contact: presentContactWithBalances(r.contact, r.standing, publicBaseUrl),
              },
            },
          }),
        },
      );
      return sendAnswer(reply, answer);
    },
  );

  app.get(
    '/contacts/:id/payments',
    {
      schema: {
        operationId: 'listContactReceipts',
        tags: ['Receipts'],
        summary: "A contact's receipts, newest first",
        description: 'Reversed receipts stay listed, with reversed_at set.',
        params: IdParams,
        querystring: ListReceiptsQuery,
        response: { 200: Page(ref(Receipt)), ...errorResponses(404) },
      },
    },
    async (request) => {
      const page = await receipts.list(request.auth.business, request.params.id, request.query);
      return {
        data: page.items.map((i) => presentReceipt(i.receipt, i.allocations)),
        total: page.total,
        limit: page.limit,
        offset: page.offset,
        hasMore: page.hasMore,
      };
    },
  );

  app.get(
    '/payments/:id',
    {
      schema: {
        operationId: 'getReceipt',
        tags: ['Receipts'],
        summary: 'One receipt with its allocations',
        params: IdParams,
        response: { 200: Data(ref(Receipt)), ...errorResponses(404) },
      },
    },
    async (request) => {
      const { receipt, allocations } = await receipts.get(request.auth.business, request.params.id);
      return { data: presentReceipt(receipt, allocations) };
    },
  );

  app.post(
    '/payments/:id/reverse',
    {
      schema: {
        operationId: 'reverseReceipt',
        tags: ['Receipts'],
        summary: 'Reverse a receipt (entered by mistake, a bounced cheque)',
        description:
          'Its payments and credit are taken back in one transaction; each due it touched reopens; transaction.updated per due. Reversed already: 409. Its credit used by a later due: 409 naming that due.',
        params: IdParams,
        body: ReverseBody,
        response: { 200: Data(ref(Receipt)), ...errorResponses(404, 409) },
      },
    },
    async (request) => {
      const { receipt, allocations } = await receipts.reverse(
        request.auth.business,
        request.params.id,
        request.body.reason,
      );
      return { data: presentReceipt(receipt, allocations) };
    },
  );
}

export const receiptSchemas = [Receipt];
