import { type Static, Type } from 'typebox';
import { Timestamp, Uuid } from '../http/schemas.js';

export const ROLES = ['owner', 'accountant', 'collector', 'viewer'] as const;
/** The roles the owner may give staff (a business has one owner: its registered phone). */
export const STAFF_ROLES = ['accountant', 'collector', 'viewer'] as const;

export const User = Type.Object(
  {
    id: Uuid,
    name: Type.String(),
    phone: Type.String({ description: 'normalised digits with country code; the user signs in with a code sent here' }),
    role: Type.String({
      enum: [...ROLES],
      description:
        'owner: everything; accountant: everything but users, keys and webhooks; collector: the buyers assigned to them only (receipts, reminders, new dues); viewer: reads everything, changes nothing',
    }),
    created_at: Timestamp,
  },
  { $id: 'User' },
);
export type UserResponse = Static<typeof User>;

export const userSchemas = [User];
