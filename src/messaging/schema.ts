import { type Static, Type } from 'typebox';

export const UsageQuery = Type.Object(
  {
    month: Type.Optional(
      Type.String({
        pattern: '^\\d{4}-(0[1-9]|1[0-2])$',
        description: 'YYYY-MM in the business time zone; this month when omitted',
      }),
    ),
  },
  { additionalProperties: false },
);
export type UsageQueryInput = Static<typeof UsageQuery>;

const CategoryUsage = Type.Object({
  count: Type.Integer({ minimum: 0, description: 'messages reported in this pricing category' }),
  cost_paise: Type.Number({ minimum: 0, description: 'their cost from the price table, in paise (fractions kept)' }),
});

export const Usage = Type.Object(
  {
    month: Type.String({ description: 'YYYY-MM' }),
    messages: Type.Integer({ minimum: 0, description: 'messages sent for the business in the month' }),
    cost_paise: Type.Number({ minimum: 0 }),
    categories: Type.Object({
      utility: CategoryUsage,
      marketing: CategoryUsage,
      authentication: CategoryUsage,
      service: CategoryUsage,
    }),
    unpriced: Type.Integer({
      minimum: 0,
      description: 'messages whose pricing category no status has reported yet (or an unknown one): no cost',
    }),
  },
  { $id: 'MessagingUsage' },
);
export type UsageResponse = Static<typeof Usage>;
