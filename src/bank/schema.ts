import { type Static, Type } from 'typebox';
import { DateString, Nullable, PageQuery, Uuid } from '../http/schemas.js';

export const BANK_CREDIT_STATUSES = ['matched', 'suggested', 'unmatched', 'ignored'] as const;

export const StatementResult = Type.Object(
  {
    statement_id: Uuid,
    lines: Type.Integer({ minimum: 0, description: 'transaction lines read (credits and debits)' }),
    credits: Type.Integer({ minimum: 0, description: 'credit lines recorded now' }),
    duplicates: Type.Integer({ minimum: 0, description: 'credit lines seen in an earlier upload, skipped' }),
    matched: Type.Integer({ minimum: 0 }),
    suggested: Type.Integer({ minimum: 0 }),
    unmatched: Type.Integer({ minimum: 0 }),
  },
  { $id: 'BankStatementResult', additionalProperties: false },
);

export const BankCredit = Type.Object(
  {
    id: Uuid,
    date: DateString,
    amount_paise: Type.Integer({ minimum: 1 }),
    reference: Nullable(Type.String()),
    narration: Type.String(),
    status: Type.String({ enum: [...BANK_CREDIT_STATUSES] }),
    matched_by: Nullable(
      Type.String({
        enum: ['claim', 'reference', 'invoice_number', 'payer', 'owner'],
        description: 'owner: applied by the business',
      }),
    ),
    transaction_id: Nullable(Uuid),
    contact_id: Nullable(Uuid),
    receipt_id: Nullable(Uuid),
    suggestions: Type.Array(
      Type.Object(
        {
          transaction_id: Nullable(Uuid),
          contact_id: Nullable(Uuid),
          reason: Type.String({
            enum: ['amount', 'name', 'contact_balance'],
            description:
              "amount: an open due's balance equals it; name: the contact's name is in the narration; contact_balance: the contact's balance equals it",
          }),
        },
        { additionalProperties: false },
      ),
      { maxItems: 3 },
    ),
  },
  { $id: 'BankCredit', additionalProperties: false },
);
export type BankCreditResponse = Static<typeof BankCredit>;

export const ListBankCreditsQuery = Type.Object(
  { status: Type.Optional(Type.String({ enum: [...BANK_CREDIT_STATUSES] })), ...PageQuery },
  { additionalProperties: false },
);

export const ApplyBody = Type.Object(
  {
    transaction_id: Type.Optional(Uuid),
    contact_id: Type.Optional(Uuid),
  },
  { additionalProperties: false, description: 'exactly one of transaction_id and contact_id' },
);
