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
  },
  { $id: 'Summary' },
);
export type SummaryResponse = Static<typeof Summary>;
