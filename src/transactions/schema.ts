import { type Static, Type } from 'typebox';
import { DateString, Nullable, PageQuery, Timestamp, Uuid } from '../http/schemas.js';

export const PAYMENT_METHODS = ['upi', 'cash', 'bank_transfer', 'card', 'other'] as const;
/** Upper bound on a single due, so that totals stay exact in a 64-bit double (2^53). */
export const MAX_AMOUNT_PAISE = 1_000_000_000_000;

export const Transaction = Type.Object(
  {
    id: Uuid,
    contact_id: Uuid,
    contact_name: Type.String(),
    contact_phone: Nullable(Type.String()),
    amount_paise: Type.Integer({ minimum: 1 }),
    currency: Type.String(),
    status: Type.String({
      enum: ['pending', 'overdue', 'paid'],
      description: 'overdue once the due date is before today in the business time zone',
    }),
    direction: Type.String({ enum: ['receivable'] }),
    due_date: Timestamp,
    paid_at: Nullable(Timestamp),
    utr: Nullable(Type.String()),
    payment_method: Nullable(Type.String({ enum: [...PAYMENT_METHODS, 'api'] })),
    invoice_number: Nullable(Type.String()),
    notes: Nullable(Type.String()),
    recurrence: Type.Null(),
    reminder_count: Type.Integer(),
    pay_page_url: Type.String({ format: 'uri' }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'Transaction' },
);
export type TransactionResponse = Static<typeof Transaction>;

export const CreateTransactionBody = Type.Object(
  {
    amount_paise: Type.Integer({ minimum: 1, maximum: MAX_AMOUNT_PAISE }),
    due_date: DateString,
    contact_id: Type.Optional(Uuid),
    contact_name: Type.Optional(Type.String({ minLength: 2, maxLength: 120 })),
    contact_phone: Type.Optional(Type.String({ minLength: 1, maxLength: 40 })),
    notes: Type.Optional(Type.String({ maxLength: 500 })),
    invoice_number: Type.Optional(Type.String({ maxLength: 60 })),
  },
  { additionalProperties: false },
);
export type CreateTransactionInput = Static<typeof CreateTransactionBody>;

export const MarkPaidBody = Type.Object(
  {
    utr: Type.Optional(Type.String({ minLength: 1, maxLength: 60 })),
    payment_method: Type.Optional(Type.String({ enum: [...PAYMENT_METHODS] })),
  },
  { additionalProperties: false },
);
export type MarkPaidInput = Static<typeof MarkPaidBody>;

export const TRANSACTION_STATUS_FILTERS = ['pending', 'overdue', 'outstanding', 'paid'] as const;
export type StatusFilter = (typeof TRANSACTION_STATUS_FILTERS)[number];

export const ListTransactionsQuery = Type.Object(
  {
    status: Type.Optional(Type.String({ enum: [...TRANSACTION_STATUS_FILTERS] })),
    contact_id: Type.Optional(Uuid),
    since: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'rows updated at or after this time',
      }),
    ),
    ...PageQuery,
  },
  { additionalProperties: false },
);
export type ListTransactionsInput = Static<typeof ListTransactionsQuery>;
