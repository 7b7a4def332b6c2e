import { type Static, type TSchema, Type } from 'typebox';
import { DateString, Nullable, Timestamp, Uuid } from '../http/schemas.js';

/**
 * The earlier response shape (SPEC part 9): flat single resources, camelCase fields. Each schema
 * serialises the responses and documents them in the OpenAPI document under its own tag.
 */
export const LEGACY_TAG = 'Legacy (earlier shape)';

const PlusPhone = Nullable(
  Type.String({ description: 'digits with country code and a leading +; null when there is no phone' }),
);

export const LegacyTransaction = Type.Object(
  {
    id: Uuid,
    contactName: Type.String(),
    contactPhone: PlusPhone,
    amountPaise: Type.Integer({ minimum: 1 }),
    dueDate: DateString,
    status: Type.String({
      enum: ['pending', 'overdue', 'paid'],
      description: 'overdue once the due date is before today in the business time zone',
    }),
    paidAt: Nullable(Timestamp),
    createdAt: Timestamp,
    paymentRef: Nullable(Type.String({ description: 'the payment reference (utr) given when it was paid' })),
    reminderCount: Type.Integer(),
    claimCount: Type.Integer({ description: '"I have paid" claims made on the pay page' }),
  },
  { $id: 'LegacyTransaction' },
);
export type LegacyTransactionResponse = Static<typeof LegacyTransaction>;

export const LegacyContact = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    phone: PlusPhone,
    outstandingPaise: Type.Integer(),
    paymentScore: Type.Integer({ minimum: 0, maximum: 100 }),
    totalTransactions: Type.Integer(),
    createdAt: Timestamp,
  },
  { $id: 'LegacyContact' },
);
export type LegacyContactResponse = Static<typeof LegacyContact>;

const Bucket = Type.Object({ count: Type.Integer(), paise: Type.Integer() });

export const LegacySummary = Type.Object(
  {
    overdue: Bucket,
    pending: Bucket,
    paid: Bucket,
    totalOutstandingPaise: Type.Integer({ description: 'pending + overdue' }),
    contactCount: Type.Integer(),
    currencyCode: Type.String(),
  },
  { $id: 'LegacySummary' },
);
export type LegacySummaryResponse = Static<typeof LegacySummary>;

export const LegacyError = Type.Object(
  { error: Type.String({ description: 'what went wrong' }) },
  { $id: 'LegacyError', description: 'Error body of the earlier shape' },
);

export const legacySchemas = [LegacyTransaction, LegacyContact, LegacySummary, LegacyError];

export function LegacyPage<T extends TSchema>(item: T) {
  return Type.Object({
    data: Type.Array(item),
    total: Type.Integer(),
    limit: Type.Integer(),
    offset: Type.Integer(),
  });
}

const errorRef = Type.Unsafe<Static<typeof LegacyError>>({ $ref: 'LegacyError#' });

/** SPEC part 9 lists 401, 403, 404 and 429 for this shape; 500 can always happen. */
export function legacyErrorResponses(...statuses: number[]) {
  const all = new Set([401, 403, 429, 500, ...statuses]);
  return Object.fromEntries([...all].sort().map((s) => [s, errorRef])) as Record<number, typeof errorRef>;
}

/*
 * Query and path schemas below document the parameters only: this shape never answers 400 to a
 * query, so its scope does not validate them (legacy/plugin.ts) and legacy/query.ts ignores or
 * clamps what is invalid.
 */

const IGNORED = 'anything else is ignored';

const PageParams = {
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 200, default: 50, description: 'clamped to 1-200; not a number: 50' }),
  ),
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0, description: 'negative: 0; not a number: 0' })),
};

export const LegacyTransactionsQuery = Type.Object({
  status: Type.Optional(Type.String({ enum: ['pending', 'overdue', 'paid'], description: IGNORED })),
  contact_id: Type.Optional(Type.String({ format: 'uuid', description: `a contact id; ${IGNORED}` })),
  startDate: Type.Optional(Type.String({ format: 'date', description: `due on or after this date; ${IGNORED}` })),
  endDate: Type.Optional(Type.String({ format: 'date', description: `due on or before this date; ${IGNORED}` })),
  search: Type.Optional(
    Type.String({ description: "fuzzy match on the contact's name: every word, one typo per word tolerated" }),
  ),
  ...PageParams,
});

export const LegacyContactsQuery = Type.Object({
  search: Type.Optional(
    Type.String({ description: 'fuzzy match on the name: every word, one typo per word tolerated' }),
  ),
  ...PageParams,
});

export const LegacyIdParams = Type.Object({
  id: Type.String({ format: 'uuid', description: 'anything that is not an id of the business: 404' }),
});
