import { type Static, Type } from 'typebox';
import { Nullable, Timestamp, Uuid } from '../http/schemas.js';
import { MAX_AMOUNT_PAISE } from '../transactions/schema.js';

export const ADJUSTMENT_KINDS = ['tds', 'discount', 'credit_note', 'write_off'] as const;

export const CreateAdjustmentBody = Type.Object(
  {
    kind: Type.String({ enum: [...ADJUSTMENT_KINDS] }),
    amount_paise: Type.Integer({ minimum: 1, maximum: MAX_AMOUNT_PAISE, description: "at most the due's balance" }),
    reason: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    reference: Type.Optional(Type.String({ minLength: 1, maxLength: 60 })),
  },
  { additionalProperties: false },
);
export type CreateAdjustmentInput = Static<typeof CreateAdjustmentBody>;

export const Adjustment = Type.Object(
  {
    id: Uuid,
    transaction_id: Uuid,
    kind: Type.String({ enum: [...ADJUSTMENT_KINDS] }),
    amount_paise: Type.Integer({ minimum: 1 }),
    reason: Nullable(Type.String()),
    reference: Nullable(Type.String()),
    created_at: Timestamp,
  },
  { $id: 'Adjustment', additionalProperties: false },
);
export type AdjustmentResponse = Static<typeof Adjustment>;
