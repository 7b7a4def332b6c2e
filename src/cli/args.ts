import type { parseArgs } from 'node:util';
import { isUuid } from '../lib/ids.js';

/** A bad argument: a clear message, the usage, exit code 2. */
export class UsageError extends Error {}

/**
 * Every option any command takes (parsed strictly before the command is loaded, so that an
 * unknown option fails at once); each command says which of them apply to it (allowOnly).
 */
export const OPTIONS = {
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  name: { type: 'string' },
  phone: { type: 'string' },
  plan: { type: 'string' },
  currency: { type: 'string' },
  country: { type: 'string' },
  language: { type: 'string' },
  timezone: { type: 'string' },
  business: { type: 'string' },
  'plan-expires-at': { type: 'string' },
  'reminders-paused': { type: 'string' },
  'reminder-steps': { type: 'string' },
  'upi-id': { type: 'string' },
  key: { type: 'string' },
  file: { type: 'string' },
  'dry-run': { type: 'boolean' },
  status: { type: 'string' },
  id: { type: 'string' },
  limit: { type: 'string' },
  out: { type: 'string' },
  from: { type: 'string' },
  contact: { type: 'string' },
  keep: { type: 'string' },
  merge: { type: 'string' },
  user: { type: 'string' },
  role: { type: 'string' },
} as const;

export type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

export function required(values: Values, name: keyof Values): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

export function allowOnly(values: Values, allowed: string[]) {
  for (const key of Object.keys(values)) {
    if (key !== 'json' && key !== 'help' && !allowed.includes(key)) {
      throw new UsageError(`--${key} does not apply to this command`);
    }
  }
}

/** The options whose value is a row's id, and what that row is called in a message. */
const ID_OPTIONS = {
  business: 'business',
  contact: 'contact',
  keep: 'contact',
  merge: 'contact',
  user: 'user',
  id: 'API key',
} as const;

/**
 * Every id option of every command is checked here, before the command opens the store: a value
 * that is no id names no row (PostgreSQL would refuse it in the query with its own words).
 */
export function checkIds(values: Values) {
  for (const [name, what] of Object.entries(ID_OPTIONS)) {
    const value = values[name as keyof typeof ID_OPTIONS];
    if (typeof value === 'string' && value !== '' && !isUuid(value)) {
      throw new UsageError(`no ${what} "${value}": --${name} takes a ${what} id (as printed when it was created)`);
    }
  }
}
