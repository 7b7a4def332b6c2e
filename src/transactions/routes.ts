import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { absentBodyIsEmptyObject } from '../http/body.js';
import { idempotencyKeyOf, sendAnswer } from '../http/idempotency.js';
import { Data, errorResponses, IdParams, Page, ref } from '../http/schemas.js';
import type { App } from '../http/types.js';
import { presentPayment, presentTransaction } from './presenter.js';
import {
  CreateTransactionBody,
  ListTransactionsQuery,
  MarkPaidBody,
  PatchTransactionBody,
  Payment,
  RecordPaymentBody,
  Transaction,
  TransactionDetail,
} from './schema.js';

export async function transactionRoutes(app: App) {
  const { transactions, businesses } = app.deps.services;
  const { publicBaseUrl } = app.deps.config;
  const ctx = (request: FastifyRequest) => ({
    today: transactions.today(request.auth.business),
    publicBaseUrl,
    timezone: request.auth.business.timezone,
  });

  app.get(
    '/transactions',
    {
      schema: {
        operationId: 'listTransactions',
        tags: ['Transactions'],
        summary: 'List dues, newest due date first',
        description:
          'status: pending (not yet past due), overdue (past due and unpaid), outstanding (both), paid. since: rows updated at or after this instant, for incremental sync; with include_deleted=true it also returns the dues deleted since then (deleted_at set). Ordered by due_date, then created_at, then id, all descending. starting_after: the id of the last due of the previous page gives the dues that follow it (a cursor; offset must then be 0 or absent); a walk by cursor stays fast at any depth, where a deep offset costs more.',
        querystring: ListTransactionsQuery,
        response: { 200: Page(ref(Transaction)), ...errorResponses() },
      },
    },
    async (request, reply) => {
      const { business } = request.auth;
      const today = transactions.today(business);
      const page = async () => {
        const found = await transactions.list(business, request.query, {}, today);
        const c = { today, publicBaseUrl, timezone: business.timezone };
        return {
          data: found.rows.map((r) => presentTransaction(r, c)),
          total: found.total,
          limit: found.limit,
          offset: found.offset,
          hasMore: found.hasMore,
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
        operationId: 'createTransaction',
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
      sendAnswer(
        reply,
        await transactions.create(request.auth.business, request.body, {
          idempotencyKey: idempotencyKeyOf(request, 'transactions.create'),
          respond: (result) => ({
            status: 201,
            body: {
              data: presentTransaction(result.transaction, ctx(request)),
              contact_created: result.contactCreated,
            },
          }),
        }),
      ),
  );

  app.get(
    '/transactions/:id',
    {
      schema: {
        operationId: 'getTransaction',
        tags: ['Transactions'],
        summary: 'One due',
        description: 'The due with `reminders`: the steps of its reminder sequence, oldest first.',
        params: IdParams,
        response: { 200: Data(ref(TransactionDetail)), ...errorResponses(404) },
      },
    },
    async (request) => {
      const { due, reminders } = await transactions.getWithReminders(request.auth.business, request.params.id);
      return { data: { ...presentTransaction(due, ctx(request)), reminders } };
    },
  );

  app.post(
    '/transactions/:id/mark-paid',
    {
      preValidation: absentBodyIsEmptyObject,
      schema: {
        operationId: 'markTransactionPaid',
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

  app.patch(
    '/transactions/:id',
    {
      schema: {
        operationId: 'updateTransaction',
        tags: ['Transactions'],
        summary: 'Change a due',
        description:
          'Any of amount_paise, due_date, notes, invoice_number, recurrence (null ends the series here), reminders_paused. Emits transaction.updated when a stored value changes; a PATCH that changes nothing emits nothing. A paid or deleted due: 409; amount_paise below what was already paid: 409.',
        params: IdParams,
        body: PatchTransactionBody,
        response: { 200: Data(ref(Transaction)), ...errorResponses(404, 409) },
      },
    },
    async (request) => ({
      data: presentTransaction(
        await transactions.update(request.auth.business, request.params.id, request.body),
        ctx(request),
      ),
    }),
  );

  app.delete(
    '/transactions/:id',
    {
      schema: {
        operationId: 'deleteTransaction',
        tags: ['Transactions'],
        summary: 'Delete a due without payments',
        description:
          'Soft delete: the due leaves every read, its reminders are cancelled, its pay page answers 410, transaction.deleted is emitted. A due with any payment: 409; unknown or already deleted: 404.',
        params: IdParams,
        response: { 200: Type.Object({ deleted: Type.Literal(true) }), ...errorResponses(404, 409) },
      },
    },
    async (request) => {
      await transactions.remove(request.auth.business, request.params.id);
      return { deleted: true as const };
    },
  );

  app.post(
    '/transactions/:id/payments',
    {
      schema: {
        operationId: 'createTransactionPayment',
        tags: ['Transactions'],
        summary: 'Record a payment (part or all of the balance)',
        description:
          'payment_method defaults to api. More than the balance: 400 (amount_paise). A paid or deleted due: 409. A part payment emits transaction.updated; the payment that settles the due emits transaction.paid. Supports Idempotency-Key (24 hours).',
        params: IdParams,
        headers: Type.Object({
          'idempotency-key': Type.Optional(Type.String({ maxLength: 255 })),
        }),
        body: RecordPaymentBody,
        response: {
          201: Data(Type.Object({ payment: ref(Payment), transaction: ref(Transaction) })),
          ...errorResponses(404, 409, 422),
        },
      },
    },
    async (request, reply) => {
      const { business } = request.auth;
      const { id } = request.params;
      const { amount_paise, utr, payment_method } = request.body;
      const answer = await transactions.recordPayment(
        business,
        id,
        { amountPaise: amount_paise, utr, paymentMethod: payment_method, source: 'api' },
        {
          // Keys are scoped to the due: the same key on two dues is two payments.
          idempotencyKey: idempotencyKeyOf(request, `transactions.payments:${id}`),
          respond: (recorded) => ({
            status: 201,
            body: {
              data: {
                payment: presentPayment(recorded.payment),
                transaction: presentTransaction(recorded.transaction, ctx(request)),
              },
            },
          }),
        },
      );
      return sendAnswer(reply, answer);
    },
  );

  app.get(
    '/transactions/:id/payments',
    {
      schema: {
        operationId: 'listTransactionPayments',
        tags: ['Transactions'],
        summary: "A due's payments, oldest first",
        params: IdParams,
        response: { 200: Data(Type.Array(ref(Payment))), ...errorResponses(404) },
      },
    },
    async (request) => ({
      data: (await transactions.listPayments(request.auth.business, request.params.id)).map(presentPayment),
    }),
  );
}

export const transactionSchemas = [Transaction, TransactionDetail, Payment];
