import { type Static, Type } from 'typebox';
import { Nullable, Timestamp, Uuid } from '../http/schemas.js';

export const CLAIM_STATUSES = ['pending', 'confirmed', 'rejected'] as const;

export const Claim = Type.Object(
  {
    id: Uuid,
    reference: Nullable(Type.String({ description: 'what the buyer entered (a UTR or a note)' })),
    status: Type.String({ enum: [...CLAIM_STATUSES] }),
    created_at: Timestamp,
    decided_at: Nullable(Timestamp),
  },
  { $id: 'Claim' },
);
export type ClaimResponse = Static<typeof Claim>;

export const AccountClaim = Type.Object(
  {
    id: Uuid,
    contact_id: Uuid,
    amount_paise: Type.Integer({ minimum: 1, description: 'what the buyer says they paid' }),
    reference: Nullable(Type.String({ description: 'what the buyer entered (a UTR or a note)' })),
    status: Type.String({ enum: [...CLAIM_STATUSES] }),
    created_at: Timestamp,
    decided_at: Nullable(Timestamp),
  },
  { $id: 'AccountClaim' },
);
export type AccountClaimResponse = Static<typeof AccountClaim>;

export const ClaimParams = Type.Object({ id: Uuid, claimId: Uuid }, { additionalProperties: false });

export const ConfirmClaimBody = Type.Object(
  {
    amount_paise: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 9_007_199_254_740_991, description: 'default: the balance' }),
    ),
  },
  { additionalProperties: false },
);
export type ConfirmClaimInput = Static<typeof ConfirmClaimBody>;

export const ConfirmAccountClaimBody = Type.Object(
  {
    amount_paise: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 9_007_199_254_740_991,
        description: 'default: the amount the buyer entered',
      }),
    ),
  },
  { additionalProperties: false },
);

export const EmptyBody = Type.Object({}, { additionalProperties: false });
