import type { BusinessRow } from './repository.js';
import type { BusinessResponse } from './schema.js';

export function presentBusiness(row: BusinessRow): BusinessResponse {
  return {
    id: row.id,
    name: row.name,
    phone: row.phone,
    plan: row.plan,
    plan_expires_at: row.plan_expires_at,
    currency: row.currency,
    language: row.language,
    timezone: row.timezone,
    country: row.country,
    created_at: row.created_at,
  };
}

/** What the admin CLI prints: the API fields plus the operator-only settings. */
export function presentBusinessForOperator(row: BusinessRow) {
  return {
    ...presentBusiness(row),
    upi_id: row.upi_id,
    reminders_paused: row.reminders_paused === 1,
    reminder_steps: row.reminder_steps,
  };
}
