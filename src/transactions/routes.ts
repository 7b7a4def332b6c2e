import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { absentBodyIsEmptyObject } from '../http/body.js';
import { Data, errorResponses, IdParams, Page, ref } from '../http/schemas.js';
import type { App } from '../http/types.js';
import { presentTransaction } from './presenter.js';
import { CreateTransactionBody, ListTransactionsQuery, MarkPaidBody, Transaction } from './schema.js';

export async function transactionRoutes(app: App) {
  const { transactions, businesses } = app.deps.services;
  const { publicBaseUrl } = app.deps.config;
  const ctx = (request: FastifyRequest) => ({
    today: transactions.today(request.auth.business),
    publicBaseUrl,
  });

  app.get(
    '/transactions',
    {
      schema: {
        tags: ['Transactions'],
        summary: 'List dues, newest due date first',
        description:
          'status: pending (not yet past due), overdue (past due and unpaid), outstanding (both), paid. since: rows updated at or after this instant, for incremental sync. Ordered by due_date, then created_at, then id, all descending.',
        querystring: ListTransactionsQuery,
        response: { 200: Page(ref(Transaction)), ...errorResponses() },
      },
    },
    async (request, reply) => {
      const { business } = request.auth;
      const today = transactions.today(business);
      const page = async () => {
        const found = await transactions.list(business, request.query, {}, today);
        const c = { today, publicBaseUrl };
        return {
          data: found.rows.map((r) => presentTransaction(r, c)),
          total: found.total,
          limit: found.limit,
          offset: found.offset,
          hasMore: found.offset + found.rows.length < found.total,
        };
      };
      // Incremental syncs (since) hardly ever ask for the same page twice: not kept.
      if (request.query.since !== undefined) return page();
      return app.rendered.send(
        reply,
        'transactions',
        [business.id, today, request.query],
        () => businesses.dataVersion(business.id),
        page,
      );
    },
  );

  app.post(
    '/transactions',
    {
      schema: {
        tags: ['Transactions'],
        summary: 'Create a due',
        description:
          'Give exactly one of contact_id or contact_name. A contact named contact_name is reused (case-insensitive) or created. contact_phone fills in a contact without a phone; it never replaces a different one. Supports Idempotency-Key (24 hours).',
        headers: Type.Object({
          'idempotency-key': Type.Optional(Type.String({ maxLength: 255 })),
        }),
        body: CreateTransactionBody,
        response: {
          201: Type.Object({
            data: ref(Transaction),
            contact_created: Type.Boolean(),
          }),
          ...errorResponses(409, 422),
        },
      },
    },
    async (request, reply) =>
      app.idempotency.execute(request, reply, 'transactions.create', async (trx) => {
        const result = await transactions.create(request.auth.business, request.body, trx);
        return {
          status: 201,
          body: {
            data: presentTransaction(result.transaction, ctx(request)),
            contact_created: result.contactCreated,
          },
        };
      }),
  );

  app.get(
    '/transactions/:id',
    {
      schema: {
        tags: ['Transactions'],
        summary: 'One due',
        params: IdParams,
        response: { 200: Data(ref(Transaction)), ...errorResponses(404) },
      },
    },
    async (request) => ({
      data: presentTransaction(await transactions.get(request.auth.business, request.params.id), ctx(request)),
    }),
  );

  app.post(
    '/transactions/:id/mark-paid',
    {
      preValidation: absentBodyIsEmptyObject,
      schema: {
        tags: ['Transactions'],
        summary: 'Mark a due paid',
        description: 'Emits transaction.paid. payment_method defaults to api. A paid due answers 409.',
        params: IdParams,
        body: MarkPaidBody,
        response: { 200: Data(ref(Transaction)), ...errorResponses(404, 409) },
      },
    },
    async (request) => ({
      data: presentTransaction(
        await transactions.markPaid(request.auth.business, request.params.id, request.body),
        ctx(request),
      ),
    }),
  );
}

export const transactionSchemas = [Transaction];
