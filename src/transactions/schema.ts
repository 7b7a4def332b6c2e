import { type Static, Type } from 'typebox';
import { DateString, MultilineText, Nullable, PageQuery, Timestamp, Uuid } from '../http/schemas.js';

export const PAYMENT_METHODS = ['upi', 'cash', 'bank_transfer', 'card', 'other'] as const;
/** Upper bound on a single due, so that totals stay exact in a 64-bit double (2^53). */
export const MAX_AMOUNT_PAISE = 1_000_000_000_000;

export const PAYMENT_SOURCES = ['api', 'claim', 'gateway', 'import', 'chat', 'dashboard', 'bank'] as const;
/** A payment's source: where its receipt came from, or `credit` when it was settled from the contact's credit. */
export const PAYMENT_ROW_SOURCES = [...PAYMENT_SOURCES, 'credit'] as const;

export const Recurrence = Type.Object(
  {
    interval: Type.String({ enum: ['weekly', 'monthly'] }),
    until: Type.Optional(
      Nullable({ ...DateString, description: 'last date a due of the series may take (inclusive); null: no end' }),
    ),
  },
  {
    additionalProperties: false,
    description:
      "The next due of the series is created once this one's date arrives: one week or one calendar month later (the 31st becomes the month's last day).",
  },
);

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
    recurrence: Nullable(
      Type.Object({ interval: Type.String({ enum: ['weekly', 'monthly'] }), until: Nullable(DateString) }),
    ),
    series_id: Nullable({ ...Uuid, description: 'id of the first due of its series; null when it does not repeat' }),
    reminders_paused: Type.Boolean({ description: "true when this due's automatic reminders are paused" }),
    promise: Nullable(
      Type.Object(
        {
          date: DateString,
          made_at: Timestamp,
          kept: Nullable(
            Type.Boolean({ description: 'paid by the end of the promised day (business time zone); null until then' }),
          ),
        },
        { description: "the buyer's latest promise to pay, read from a chat reply" },
      ),
    ),
    amount_paid_paise: Type.Integer({ minimum: 0, description: 'sum of the payments recorded' }),
    amount_adjusted_paise: Type.Integer({
      minimum: 0,
      description: 'sum of the adjustments (tds, discount, credit_note, write_off)',
    }),
    balance_paise: Type.Integer({
      minimum: 0,
      description: 'amount_paise - amount_paid_paise - amount_adjusted_paise: what is still owed',
    }),
    deleted_at: Nullable({
      ...Timestamp,
      description: 'set only on deleted dues, listed with since and include_deleted=true',
    }),
    reminder_count: Type.Integer(),
    pay_page_url: Type.String({ format: 'uri' }),
    payment_reference: Nullable(
      Type.String({
        pattern: '^R[A-Z0-9]{6,8}$',
        description: "the due's short reference, carried in the pay page's UPI note and matched in bank statements",
      }),
    ),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { $id: 'Transaction' },
);
export type TransactionResponse = Static<typeof Transaction>;

export const REMINDER_STEP_STATUSES = ['scheduled', 'sent', 'skipped', 'cancelled'] as const;

/** One step of a due's reminder sequence (PRODUCT part 13). */
export const ReminderStep = Type.Object(
  {
    template: Type.String(),
    scheduled_for: Timestamp,
    status: Type.String({ enum: [...REMINDER_STEP_STATUSES] }),
    reason: Nullable(
      Type.String({
        description:
          'why it is held back, skipped or cancelled: a part 6 protection, or paid, deleted, paused, promised',
      }),
    ),
    delivery: Nullable(
      Type.String({
        enum: ['sent', 'delivered', 'read', 'failed'],
        description:
          "the message's delivery as WhatsApp reported it; null until the first status, or when nothing went out",
      }),
    ),
  },
  { description: 'one step of the reminder sequence' },
);
export type ReminderStepResponse = Static<typeof ReminderStep>;

/** The single-due read: the due with the steps of its reminder sequence, oldest first. */
export const TransactionDetail = Type.Object(
  { ...Transaction.properties, reminders: Type.Array(ReminderStep) },
  { $id: 'TransactionDetail' },
);
export type TransactionDetailResponse = Static<typeof TransactionDetail>;

export const CreateTransactionBody = Type.Object(
  {
    amount_paise: Type.Integer({ minimum: 1, maximum: MAX_AMOUNT_PAISE }),
    due_date: DateString,
    contact_id: Type.Optional(Uuid),
    contact_name: Type.Optional(Type.String({ minLength: 2, maxLength: 120 })),
    contact_phone: Type.Optional(Type.String({ minLength: 1, maxLength: 40 })),
    notes: Type.Optional(MultilineText({ maxLength: 500 })),
    invoice_number: Type.Optional(Type.String({ maxLength: 60 })),
    recurrence: Type.Optional(Nullable(Recurrence)),
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

export const PatchTransactionBody = Type.Object(
  {
    amount_paise: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_AMOUNT_PAISE })),
    due_date: Type.Optional(DateString),
    notes: Type.Optional(Nullable(MultilineText({ maxLength: 500 }))),
    invoice_number: Type.Optional(Nullable(Type.String({ maxLength: 60 }))),
    recurrence: Type.Optional(Nullable(Recurrence)),
    reminders_paused: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type PatchTransactionInput = Static<typeof PatchTransactionBody>;

export const RecordPaymentBody = Type.Object(
  {
    amount_paise: Type.Integer({ minimum: 1, maximum: MAX_AMOUNT_PAISE }),
    utr: Type.Optional(Type.String({ minLength: 1, maxLength: 60 })),
    payment_method: Type.Optional(Type.String({ enum: [...PAYMENT_METHODS] })),
  },
  { additionalProperties: false },
);
export type RecordPaymentInput = Static<typeof RecordPaymentBody>;

export const Payment = Type.Object(
  {
    id: Uuid,
    transaction_id: Uuid,
    amount_paise: Type.Integer({ minimum: 1 }),
    utr: Nullable(Type.String()),
    payment_method: Type.String({ enum: [...PAYMENT_METHODS, 'api'] }),
    source: Type.String({ enum: [...PAYMENT_ROW_SOURCES] }),
    created_at: Timestamp,
  },
  { $id: 'Payment' },
);
export type PaymentResponse = Static<typeof Payment>;

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
    include_deleted: Type.Optional(
      Type.Boolean({
        description: 'with since: deleted dues changed since then are listed too, with deleted_at set',
      }),
    ),
    starting_after: Type.Optional({
      ...Uuid,
      description:
        'id of the last due of the previous page: the page of dues that follow it, same filters (offset 0 or absent)',
    }),
    ...PageQuery,
  },
  { additionalProperties: false },
);
export type ListTransactionsInput = Static<typeof ListTransactionsQuery>;
