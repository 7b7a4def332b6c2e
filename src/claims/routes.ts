import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { absentBodyIsEmptyObject } from '../http/body.js';
import { Data, errorResponses, IdParams, ref } from '../http/schemas.js';
import type { App } from '../http/types.js';
import { presentPayment, presentTransaction } from '../transactions/presenter.js';
import { Payment, Transaction } from '../transactions/schema.js';
import { presentClaim } from './presenter.js';
import { Claim, ClaimParams, ConfirmClaimBody, EmptyBody } from './schema.js';

/** The pay page's "I have paid" claims, for the business to confirm or reject (PRODUCT part 11). */
export async function claimRoutes(app: App) {
  const { claims, transactions } = app.deps.services;
  const { publicBaseUrl } = app.deps.config;
  const ctx = (request: FastifyRequest) => ({
    today: transactions.today(request.auth.business),
    publicBaseUrl,
    timezone: request.auth.business.timezone,
  });

  app.get(
    '/transactions/:id/claims',
    {
      schema: {
        operationId: 'listTransactionClaims',
        tags: ['Claims'],
        summary: "A due's payment claims, oldest first",
        description: '"I have paid" claims made on the pay page: pending until the business confirms or rejects them.',
        params: IdParams,
        response: { 200: Data(Type.Array(ref(Claim))), ...errorResponses(404) },
      },
    },
    async (request) => ({
      data: (await claims.list(request.auth.business, { transactionId: request.params.id })).map(presentClaim),
    }),
  );

  app.post(
    '/transactions/:id/claims/:claimId/confirm',
    {
      preValidation: absentBodyIsEmptyObject,
      schema: {
        operationId: 'confirmClaim',
        tags: ['Claims'],
        summary: 'Confirm a claim: record its payment',
        description:
          'Records a payment with source claim, payment_method upi and utr = the claim reference, of amount_paise (default: the balance). Emits payment.received, and transaction.paid when it settles the due (transaction.updated otherwise). A decided claim or a paid due: 409; more than the balance: 400 (amount_paise).',
        params: ClaimParams,
        body: ConfirmClaimBody,
        response: {
          200: Data(
            Type.Object({
              claim: ref(Claim),
              payment: ref(Payment),
              transaction: ref(Transaction),
            }),
          ),
          ...errorResponses(404, 409),
        },
      },
    },
    async (request) => {
      const { id, claimId } = request.params;
      const done = await claims.confirm(request.auth.business, id, claimId, request.body);
      return {
        data: {
          claim: presentClaim(done.claim),
          payment: presentPayment(done.payment),
          transaction: presentTransaction(done.transaction, ctx(request)),
        },
      };
    },
  );

  app.post(
    '/transactions/:id/claims/:claimId/reject',
    {
      preValidation: absentBodyIsEmptyObject,
      schema: {
        operationId: 'rejectClaim',
        tags: ['Claims'],
        summary: 'Reject a claim',
        description: 'Marks the claim rejected; nothing else changes. A decided claim: 409.',
        params: ClaimParams,
        body: EmptyBody,
        response: { 200: Data(ref(Claim)), ...errorResponses(404, 409) },
      },
    },
    async (request) => ({
      data: presentClaim(
        await claims.reject(request.auth.business, { transactionId: request.params.id }, request.params.claimId),
      ),
    }),
  );
}

export const claimSchemas = [Claim];
