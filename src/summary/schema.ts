import { type Static, Type } from 'typebox';

const Bucket = Type.Object({ count: Type.Integer(), paise: Type.Integer() });

export const Summary = Type.Object(
  {
    currency: Type.String(),
    overdue: Bucket,
    pending: Bucket,
    paid: Bucket,
    paid_this_month_paise: Type.Integer(),
    total_outstanding_paise: Type.Integer(),
    contact_count: Type.Integer(),
    credit_paise: Type.Integer({
      minimum: 0,
      description: "the contacts' credit (money received that no due has used yet)",
    }),
  },
  { $id: 'Summary' },
);
export type SummaryResponse = Static<typeof Summary>;

export const Aging = Type.Object(
  {
    current: { ...Bucket, description: 'not yet past due' },
    d1_30: { ...Bucket, description: '1-30 days past due' },
    d31_60: { ...Bucket, description: '31-60 days past due' },
    d61_90: { ...Bucket, description: '61-90 days past due' },
    d90_plus: { ...Bucket, description: 'more than 90 days past due' },
  },
  { $id: 'Aging' },
);
export type AgingResponse = Static<typeof Aging>;
