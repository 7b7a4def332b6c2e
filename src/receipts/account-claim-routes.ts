import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { presentAccountClaim } from '../claims/presenter.js';
import { AccountClaim, ClaimParams, ConfirmAccountClaimBody, EmptyBody } from '../claims/schema.js';
import { presentContactWithBalances } from '../contacts/presenter.js';
import { ContactWithBalances } from '../contacts/schema.js';
import { absentBodyIsEmptyObject } from '../http/body.js';
import { Data, errorResponses, IdParams, ref } from '../http/schemas.js';
import type { App } from '../http/types.js';
import { presentTransaction } from '../transactions/presenter.js';
import { Transaction } from '../transactions/schema.js';
import { presentReceipt } from './presenter.js';
import { Receipt } from './schema.js';

/**
 * The account page's "I have paid" claims (an amount and a reference for the buyer's whole
 * account), for the business to confirm or reject like a due's claims.
 */
export async function accountClaimRoutes(app: App) {
  const { claims, transactions } = app.deps.services;
  const { publicBaseUrl } = app.deps.config;
  const ctx = (request: FastifyRequest) => ({
    today: transactions.today(request.auth.business),
    publicBaseUrl,
    timezone: request.auth.business.timezone,
  });

  app.get(
    '/contacts/:id/claims',
    {
      schema: {
        operationId: 'listContactClaims',
        tags: ['Claims'],
        summary: "A contact's account claims, oldest first",
        description:
          '"I have paid" claims made on the buyer\'s account page, with the amount the buyer entered: pending until the business confirms or rejects them.',
        params: IdParams,
        response: { 200: Data(Type.Array(ref(AccountClaim))), ...errorResponses(404) },
      },
    },
    async (request) => ({
      data: (await claims.list(request.auth.business, { contactId: request.params.id })).map(presentAccountClaim),
    }),
  );

  app.post(
    '/contacts/:id/claims/:claimId/confirm',
    {
      preValidation: absentBodyIsEmptyObject,
      schema: {
        operationId: 'confirmContactClaim',
        tags: ['Claims'],
        summary: 'Confirm an account claim: record its receipt',
        description:
          "Records a receipt of amount_paise (default: the amount the buyer entered) with source claim, payment_method upi and utr = the claim reference, allocated to the contact's open dues oldest first; what is left becomes the contact's credit. Each due it touches gets a payment and the usual events. A decided claim: 409.",
        params: ClaimParams,
        body: ConfirmAccountClaimBody,
        response: {
          200: Data(
            Type.Object({
              claim: ref(AccountClaim),
              receipt: ref(Receipt),
              transactions: Type.Array(ref(Transaction)),
              contact: ref(ContactWithBalances),
            }),
          ),
          ...errorResponses(404, 409),
        },
      },
    },
    async (request) => {
      const { id, claimId } = request.params;
      const done = await claims.confirmAccount(request.auth.business, id, claimId, request.body);
      return {
        data: {
          claim: presentAccountClaim(done.claim),
          receipt: presentReceipt(done.receipt, done.allocations),
          transactions: done.transactions.map((t) => presentTransaction(t, ctx(request))),
          contact: presentContactWithBalances(done.contact, done.standing, publicBaseUrl),
        },
      };
    },
  );

  app.post(
    '/contacts/:id/claims/:claimId/reject',
    {
      preValidation: absentBodyIsEmptyObject,
      schema: {
        operationId: 'rejectContactClaim',
        tags: ['Claims'],
        summary: 'Reject an account claim',
        description: 'Marks the claim rejected; nothing else changes. A decided claim: 409.',
        params: ClaimParams,
        body: EmptyBody,
        response: { 200: Data(ref(AccountClaim)), ...errorResponses(404, 409) },
      },
    },
    async (request) => ({
      data: presentAccountClaim(
        await claims.reject(request.auth.business, { contactId: request.params.id }, request.params.claimId),
      ),
    }),
  );
}

export const accountClaimSchemas = [AccountClaim];
