import { type Static, Type } from 'typebox';
import { Nullable, PageQuery, Timestamp } from '../http/schemas.js';

export const UnappliedPayment = Type.Object(
  {
    gateway_payment_id: Type.String({ description: "the gateway's payment id (Razorpay: pay_…)" }),
    transaction_id: Nullable(
      Type.String({ format: 'uuid', description: 'the due whose link was paid; null for an account link' }),
    ),
    contact_id: Nullable(
      Type.String({
        format: 'uuid',
        description: 'the buyer whose account link ("Pay online" on the account page) was paid; null for a due\'s link',
      }),
    ),
    received_paise: Type.Integer({ description: 'what the gateway reported as paid' }),
    unapplied_paise: Type.Integer({ description: 'the part of it no due took' }),
    reason: Type.String({
      enum: ['settled', 'deleted', 'over_balance', 'currency', 'unknown_link', 'link_amount'],
      description:
        'the due was already settled, was deleted, or owed less than was paid; or the payment does not match the link this service created for the due or the account: another currency than the business’s (received_paise is then in that currency’s minor unit), a link it did not create for that due or account, or another link amount',
    }),
    payment_id: Nullable(Type.String({ format: 'uuid', description: 'the payment recorded for the applied part' })),
    payment_method: Type.String(),
    created_at: Timestamp,
  },
  { $id: 'UnappliedPayment' },
);
export type UnappliedPaymentResponse = Static<typeof UnappliedPayment>;

export const ListPaymentsQuery = Type.Object(
  {
    unapplied: Type.Boolean({
      description: 'must be true: lists money received that no due took (a due’s payments are under the due)',
    }),
    ...PageQuery,
  },
  { additionalProperties: false },
);
