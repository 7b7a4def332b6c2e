import { type Static, Type } from 'typebox';
import { Timestamp } from '../http/schemas.js';

import { PLANS } from './plans.js';

export { API_PLAN, PLANS, type Plan } from './plans.js';

export const Business = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    phone: Type.String({
      description: 'normalised digits with country code, no plus',
    }),
    plan: Type.String({ enum: [...PLANS] }),
    plan_expires_at: Timestamp,
    currency: Type.String({ description: 'ISO 4217 code' }),
    language: Type.String({ description: 'language code, e.g. en or hi' }),
    timezone: Type.String({ description: 'IANA time zone name' }),
    country: Type.String({ description: 'ISO 3166-1 alpha-2 code' }),
    created_at: Timestamp,
  },
  { $id: 'Business' },
);
export type BusinessResponse = Static<typeof Business>;
