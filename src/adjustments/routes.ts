import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { Data, errorResponses, IdParams, ref } from '../http/schemas.js';
import type { App } from '../http/types.js';
import { presentTransaction } from '../transactions/presenter.js';
import { Transaction } from '../transactions/schema.js';
import { presentAdjustment } from './presenter.js';
import { Adjustment, CreateAdjustmentBody } from './schema.js';

export async function adjustmentRoutes(app: App) {
  const { adjustments, transactions } = app.deps.services;
  const { publicBaseUrl } = app.deps.config;
  const ctx = (request: FastifyRequest) => ({
    today: transactions.today(request.auth.business),
    publicBaseUrl,
    timezone: request.auth.business.timezone,
  });

  app.post(
    '/transactions/:id/adjustments',
    {
      schema: {
        operationId: 'createAdjustment',
        tags: ['Adjustments'],
        summary: 'Lower a due without money received (TDS, discount, credit note, write-off)',
        description:
          "At most the due's balance (else 400, amount_paise). A paid due: 409; a deleted one: 404. A due it closes is paid (transaction.paid); otherwise transaction.updated. Never counted in paid_this_month_paise.",
        params: IdParams,
        body: CreateAdjustmentBody,
        response: {
          201: Data(Type.Object({ adjustment: ref(Adjustment), transaction: ref(Transaction) })),
          ...errorResponses(404, 409),
        },
      },
    },
    async (request, reply) => {
      const r = await adjustments.create(request.auth.business, request.params.id, request.body);
      return reply.code(201).send({
        data: {
          adjustment: presentAdjustment(r.adjustment),
          transaction: presentTransaction(r.transaction, ctx(request)),
        },
      });
    },
  );

  app.get(
    '/transactions/:id/adjustments',
    {
      schema: {
        operationId: 'listTransactionAdjustments',
        tags: ['Adjustments'],
        summary: "A due's adjustments, oldest first",
        params: IdParams,
        response: { 200: Data(Type.Array(ref(Adjustment))), ...errorResponses(404) },
      },
    },
    async (request) => ({
      data: (await adjustments.list(request.auth.business, request.params.id)).map(presentAdjustment),
    }),
  );
}

export const adjustmentSchemas = [Adjustment];
