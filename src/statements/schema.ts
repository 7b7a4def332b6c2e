import { Type } from 'typebox';
import { DateString, Nullable, Uuid } from '../http/schemas.js';

const Bucket = Type.Object({ count: Type.Integer(), paise: Type.Integer() });

export const StatementQuery = Type.Object(
  {
    from: Type.Optional({ ...DateString, description: 'first date (business time zone); default 90 days before to' }),
    to: Type.Optional({ ...DateString, description: 'last date; default today' }),
  },
  { additionalProperties: false },
);

export const Statement = Type.Object(
  {
    contact: Type.Object({ id: Uuid, name: Type.String() }),
    from: DateString,
    to: DateString,
    opening_balance_paise: Type.Integer(),
    closing_balance_paise: Type.Integer(),
    entries: Type.Array(
      Type.Object({
        date: DateString,
        kind: Type.String({ enum: ['due', 'payment', 'adjustment', 'reversal'] }),
        transaction_id: Nullable(Uuid),
        receipt_id: Nullable(Uuid),
        description: Type.String(),
        debit_paise: Type.Integer({ minimum: 0 }),
        credit_paise: Type.Integer({ minimum: 0 }),
        balance_paise: Type.Integer({ description: 'the running balance after this entry' }),
      }),
    ),
    aging: Type.Object({ current: Bucket, d1_30: Bucket, d31_60: Bucket, d61_90: Bucket, d90_plus: Bucket }),
  },
  { $id: 'Statement' },
);
