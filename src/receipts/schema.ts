import { type Static, Type } from 'typebox';
import { DateString, Nullable, PageQuery, Timestamp, Uuid } from '../http/schemas.js';
import { MAX_AMOUNT_PAISE, PAYMENT_METHODS, PAYMENT_SOURCES } from '../transactions/schema.js';

const AllocationItem = Type.Object(
  {
    transaction_id: Uuid,
    amount_paise: Type.Integer({ minimum: 1, maximum: MAX_AMOUNT_PAISE }),
  },
  { additionalProperties: false },
);

export const RecordReceiptBody = Type.Object(
  {
    amount_paise: Type.Integer({ minimum: 1, maximum: MAX_AMOUNT_PAISE }),
    utr: Type.Optional(Type.String({ minLength: 1, maxLength: 60 })),
    payment_method: Type.Optional(Type.String({ enum: [...PAYMENT_METHODS] })),
    received_on: Type.Optional({ ...DateString, description: "default: today in the business's time zone" }),
    allocations: Type.Optional(
      Type.Array(AllocationItem, {
        maxItems: 500,
        description:
          'applied first; each within its due’s balance, the due the contact’s own and open, the sum within amount_paise',
      }),
    ),
  },
  { additionalProperties: false },
);
export type RecordReceiptInput = Static<typeof RecordReceiptBody>;

export const Receipt = Type.Object(
  {
    id: Uuid,
    contact_id: Uuid,
    amount_paise: Type.Integer({ minimum: 1 }),
    applied_paise: Type.Integer({ minimum: 0, description: 'what its allocations took' }),
    credit_paise: Type.Integer({ minimum: 0, description: "what is left of it as the contact's credit" }),
    utr: Nullable(Type.String()),
    payment_method: Type.String({ enum: [...PAYMENT_METHODS, 'api'] }),
    source: Type.String({ enum: [...PAYMENT_SOURCES] }),
    received_on: DateString,
    created_at: Timestamp,
    reversed_at: Nullable(Timestamp),
    allocations: Type.Array(
      Type.Object(
        { transaction_id: Uuid, amount_paise: Type.Integer({ minimum: 1 }) },
        { additionalProperties: false },
      ),
    ),
  },
  { $id: 'Receipt', additionalProperties: false },
);
export type ReceiptResponse = Static<typeof Receipt>;

export const ReverseBody = Type.Object(
  { reason: Type.String({ minLength: 1, maxLength: 200 }) },
  { additionalProperties: false },
);

export const ListReceiptsQuery = Type.Object(
  {
    starting_after: Type.Optional({
      ...Uuid,
      description: 'id of the last receipt of the previous page (offset 0 or absent)',
    }),
    ...PageQuery,
  },
  { additionalProperties: false },
);
export type ListReceiptsInput = Static<typeof ListReceiptsQuery>;
