import { type Static, Type } from 'typebox';
import { DateString, Nullable, PageQuery, Timestamp, Uuid } from '../http/schemas.js';

const RiskFlag = Type.String({
  enum: ['low', 'medium', 'high'],
  description: 'derived from payment_score and overdue age',
});
const Name = Type.String({
  minLength: 2,
  maxLength: 120,
  description: '2-120 characters after trimming',
});
const PhoneInput = Type.String({
  minLength: 1,
  maxLength: 40,
  description: 'any format; normalised to digits',
});

export const Contact = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    phone: Nullable(Type.String({ description: 'normalised digits with country code' })),
    risk_flag: RiskFlag,
    created_at: Timestamp,
    updated_at: Timestamp,
    credit_paise: Type.Integer({ minimum: 0, description: 'money received and not yet used by a due (an advance)' }),
    balance_paise: Type.Integer({
      description: 'outstanding_paise - credit_paise: negative when the business owes the buyer',
    }),
    account_url: Nullable(Type.String({ description: "the buyer's account page: {PUBLIC_BASE_URL}/a/<token>" })),
    payment_reference: Nullable(
      Type.String({
        pattern: '^R[A-Z0-9]{6,8}$',
        description: "the account's short reference, carried in its UPI note and matched in bank statements",
      }),
    ),
    language: Nullable(
      Type.String({ enum: ['en', 'hi'], description: "the account page's language; null: the business's" }),
    ),
    assigned_to: Nullable(
      Type.String({
        format: 'uuid',
        description: 'the user (GET /v1/users) this buyer is assigned to; a collector sees and acts on these only',
      }),
    ),
  },
  { $id: 'Contact' },
);
export type ContactResponse = Static<typeof Contact>;

export const ContactWithBalances = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    phone: Nullable(Type.String()),
    risk_flag: RiskFlag,
    created_at: Timestamp,
    updated_at: Timestamp,
    payment_score: Type.Integer({
      minimum: 0,
      maximum: 100,
      description: 'PAYDEX-like, 0-100: how promptly the buyer pays (docs/api.md)',
    }),
    outstanding_paise: Type.Integer(),
    pending_count: Type.Integer(),
    overdue_count: Type.Integer(),
    total_transactions: Type.Integer(),
    reminders_paused: Type.Boolean({ description: 'true while reminders to this contact are paused' }),
    credit_paise: Type.Integer({ minimum: 0, description: 'money received and not yet used by a due (an advance)' }),
    balance_paise: Type.Integer({
      description: 'outstanding_paise - credit_paise: negative when the business owes the buyer',
    }),
    account_url: Nullable(Type.String({ description: "the buyer's account page: {PUBLIC_BASE_URL}/a/<token>" })),
    payment_reference: Nullable(
      Type.String({
        pattern: '^R[A-Z0-9]{6,8}$',
        description: "the account's short reference, carried in its UPI note and matched in bank statements",
      }),
    ),
    language: Nullable(
      Type.String({ enum: ['en', 'hi'], description: "the account page's language; null: the business's" }),
    ),
    assigned_to: Nullable(
      Type.String({
        format: 'uuid',
        description: 'the user (GET /v1/users) this buyer is assigned to; a collector sees and acts on these only',
      }),
    ),
  },
  { $id: 'ContactWithBalances' },
);
export type ContactWithBalancesResponse = Static<typeof ContactWithBalances>;

const LanguageInput = Nullable(
  Type.String({
    enum: ['en', 'hi'],
    description: "the buyer's account page language (en or hi); null: the business's",
  }),
);

export const CreateContactBody = Type.Object(
  { name: Name, phone: Type.Optional(PhoneInput), language: Type.Optional(LanguageInput) },
  { additionalProperties: false },
);
export type CreateContactInput = Static<typeof CreateContactBody>;

export const UpdateContactBody = Type.Object(
  {
    name: Type.Optional(Name),
    phone: Type.Optional(Nullable(PhoneInput)),
    reminders_paused: Type.Optional(
      Type.Boolean({ description: "holds automatic and manual reminders for every one of the contact's dues" }),
    ),
    language: Type.Optional(LanguageInput),
    assigned_to: Type.Optional(
      Nullable(
        Type.String({
          format: 'uuid',
          'x-lowercase': true,
          description: 'a user id of the business (GET /v1/users), or null for none',
        }),
      ),
    ),
  },
  { additionalProperties: false },
);
export type UpdateContactInput = Static<typeof UpdateContactBody>;

export const ListContactsQuery = Type.Object(
  {
    search: Type.Optional(
      Type.String({
        minLength: 2,
        maxLength: 120,
        description: 'name contains this text',
      }),
    ),
    phone: Type.Optional(
      Type.String({
        minLength: 6,
        maxLength: 40,
        description: 'phone ends with these digits (6 or more)',
      }),
    ),
    since: Type.Optional(
      Type.String({
        format: 'date-time',
        description:
          "contacts whose name, phone or reminder pause changed at or after this time, for incremental sync (a contact's balances follow from its dues: list those with since)",
      }),
    ),
    starting_after: Type.Optional({
      ...Uuid,
      description:
        'id of the last contact of the previous page: the page of contacts that follow it, same filters and sort (offset 0 or absent)',
    }),
    sort: Type.Optional(
      Type.String({
        enum: ['created_desc', 'balance_desc', 'name', 'oldest_due'],
        default: 'created_desc',
        description:
          'created_desc (newest first), balance_desc (largest balance first), name (A-Z), oldest_due (oldest open due first; contacts with nothing open last)',
      }),
    ),
    has_balance: Type.Optional(
      Type.String({ enum: ['true', 'false'], description: 'true: only contacts whose balance_paise is above 0' }),
    ),
    ...PageQuery,
  },
  { additionalProperties: false },
);
export type ListContactsInput = Static<typeof ListContactsQuery>;

export const BuyerReply = Type.Object(
  {
    id: Uuid,
    text: Type.String(),
    received_at: Timestamp,
    promise_date: Nullable({
      ...DateString,
      description: 'the date the reply promised payment by, recorded on transaction_id; null when unclear',
    }),
    transaction_id: Nullable(Uuid),
  },
  { description: "a buyer's chat reply" },
);

export const RepliesQuery = Type.Object(
  { limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })) },
  { additionalProperties: false },
);
