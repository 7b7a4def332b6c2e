import type { GatewayPaymentTable } from '../db/schema.js';
import { errors } from '../errors.js';
import { errorResponses, Page, ref } from '../http/schemas.js';
import type { App } from '../http/types.js';
import { ListPaymentsQuery, UnappliedPayment, type UnappliedPaymentResponse } from './schema.js';

function presentUnapplied(row: GatewayPaymentTable): UnappliedPaymentResponse {
  return {
    gateway_payment_id: row.gateway_payment_id,
    transaction_id: row.transaction_id,
    contact_id: row.contact_id,
    received_paise: Number(row.amount_paise),
    unapplied_paise: Number(row.unapplied_paise),
    reason: (row.unapplied_reason ?? 'over_balance') as UnappliedPaymentResponse['reason'],
    payment_id: row.payment_id,
    payment_method: row.payment_method,
    created_at: row.created_at,
  };
}

/** Money received through the gateway that no due took (PRODUCT part 11): kept and shown, never lost. */
export async function unappliedPaymentRoutes(app: App) {
  app.get(
    '/payments',
    {
      schema: {
        operationId: 'listUnappliedPayments',
        tags: ['Payments'],
        summary: 'Unapplied payments (unapplied=true)',
        description:
          'Money the gateway reported for a due that was already settled or deleted, or above its balance: newest first. Only unapplied=true is supported; the payments of a due are at /v1/transactions/{id}/payments.',
        querystring: ListPaymentsQuery,
        response: { 200: Page(ref(UnappliedPayment)), ...errorResponses() },
      },
    },
    async (request) => {
      const { unapplied, limit = 50, offset = 0 } = request.query;
      if (!unapplied) {
        throw errors.invalid('unapplied', 'unapplied must be true (the payments of a due are under the due)');
      }
      const found = await app.deps.services.moneyIn.listUnapplied(request.auth.business, { limit, offset });
      return {
        data: found.rows.map(presentUnapplied),
        total: found.total,
        limit,
        offset,
        hasMore: offset + found.rows.length < found.total,
      };
    },
  );
}

export const unappliedPaymentSchemas = [UnappliedPayment];
