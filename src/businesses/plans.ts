// Apart from schema.ts (TypeBox) so that the service, and the admin CLI with it, load no schema library.
export const PLANS = ['free', 'basic', 'business'] as const;
export type Plan = (typeof PLANS)[number];
/** Only this plan includes API access. */
export const API_PLAN: Plan = 'business';
