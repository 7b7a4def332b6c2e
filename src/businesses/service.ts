import { diff, recordAudit } from '../audit/record.js';
import type { Db, KeySource } from '../db/schema.js';
import { errors } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import { isTimeZone } from '../lib/dates.js';
import { uuidv7 } from '../lib/ids.js';
import { normalisePhone } from '../lib/phone.js';
import { DEFAULT_REMINDER_STEPS, parseReminderSteps, REMINDER_STEPS_RULE } from '../reminder-schedule/sequence.js';
import { insertUser } from '../users/repository.js';
import { AUDITED_USER_FIELDS } from '../users/service.js';
import { type ApiKeyCache, ApiKeys, type AuthenticatedKey } from './api-keys.js';
import { DataVersions } from './data-version.js';
import type { KeyListing } from './keys.js';
import { API_PLAN, PLANS, type Plan } from './plans.js';
import * as repo from './repository.js';

export type { ApiKeyCache, AuthenticatedKey } from './api-keys.js';

export interface CreateBusinessInput {
  name: string;
  phone: string;
  plan?: string;
  currency?: string;
  country?: string;
  language?: string;
  timezone?: string;
  /** the reminder sequence's offsets, e.g. "-3,0,7,30" (PRODUCT part 13) */
  reminderSteps?: string;
}

export interface UpdateBusinessInput {
  plan?: string;
  planExpiresAt?: string;
  remindersPaused?: boolean;
  reminderSteps?: string;
  upiId?: string | null;
  name?: string;
  language?: string;
}

const YEAR_MS = 365 * 24 * 60 * 60 * 1000;

/** The settings a change of which the audit log records (PRODUCT part 23), before and after. */
const AUDITED_SETTINGS = [
  'name',
  'language',
  'upi_id',
  'reminders_paused',
  'reminder_steps',
  'plan',
  'plan_expires_at',
] as const satisfies readonly (keyof repo.BusinessRow)[];

/** Stored as written canonically ("-3,0,7,30"); dues created from now on follow it. */
function checkReminderSteps(text: string): string {
  const steps = parseReminderSteps(text);
  if (steps === null) throw errors.invalid('reminder_steps', `reminder_steps must be ${REMINDER_STEPS_RULE}`);
  return steps.join(',');
}

function checkBusinessName(text: string): string {
  const name = text.trim();
  if (name.length < 2 || name.length > 120) throw errors.invalid('name', 'name must be 2-120 characters');
  return name;
}

function checkLanguage(language: string): string {
  if (!/^[a-z]{2,3}(-[A-Za-z]{2,4})?$/.test(language)) {
    throw errors.invalid('language', 'language must be a language code such as en or hi');
  }
  return language;
}

function checkPlan(plan: string): Plan {
  if (!(PLANS as readonly string[]).includes(plan)) {
    throw errors.invalid('plan', `plan must be one of: ${PLANS.join(', ')}`);
  }
  return plan as Plan;
}

/**
 * Businesses (PRODUCT part 1): created with their owner, totals and first key, read and changed.
 * Their API keys are ApiKeys' (api-keys.ts) and their data version DataVersions'
 * (data-version.ts); this service offers both.
 */
export class BusinessService {
  readonly #keys: ApiKeys;
  readonly #versions: DataVersions;

  constructor(
    private readonly deps: {
      db: Db;
      clock: Clock;
      apiKeys?: ApiKeyCache | undefined;
      /** db/store.ts Store.changeStamp (SQLite) */
      changeStamp?: (() => string) | undefined;
    },
  ) {
    this.#keys = new ApiKeys(deps);
    this.#versions = new DataVersions(deps);
  }

  /** data-version.ts: what a rendered response of the business is kept with. */
  dataVersion(businessId: string): Promise<number> {
    return this.#versions.read(businessId);
  }

  hasApiAccess(business: repo.BusinessRow): boolean {
    return business.plan === API_PLAN && Date.parse(business.plan_expires_at) > this.deps.clock.now().getTime();
  }

  async create(input: CreateBusinessInput): Promise<{ business: repo.BusinessRow; apiKey: string }> {
    const name = checkBusinessName(input.name ?? '');
    const country = (input.country ?? 'IN').toUpperCase();
    if (!/^[A-Z]{2}$/.test(country)) throw errors.invalid('country', 'country must be a two-letter country code');
    const phone = normalisePhone(input.phone ?? '', country);
    if (!phone) throw errors.invalid('phone', 'phone is not a valid phone number');
    const currency = (input.currency ?? 'INR').toUpperCase();
    if (!/^[A-Z]{3}$/.test(currency)) throw errors.invalid('currency', 'currency must be a three-letter code');
    const language = checkLanguage(input.language ?? 'en');
    const timezone = input.timezone ?? 'Asia/Kolkata';
    if (!isTimeZone(timezone)) throw errors.invalid('timezone', 'timezone must be an IANA time zone name');
    const plan = checkPlan(input.plan ?? API_PLAN);

    const now = this.deps.clock.now();
    const business: repo.BusinessRow = {
      id: uuidv7(now.getTime()),
      name,
      phone,
      plan,
      plan_expires_at: new Date(now.getTime() + YEAR_MS).toISOString(),
      currency,
      language,
      timezone,
      country,
      upi_id: null,
      reminders_paused: 0,
      reminder_steps: checkReminderSteps(input.reminderSteps ?? DEFAULT_REMINDER_STEPS),
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    };
    const apiKey = await this.deps.db.transaction().execute(async (trx) => {
      await repo.insertBusiness(trx, business);
      // The owner is the business's first user, with the business's own id and phone.
      const owner = {
        id: business.id,
        business_id: business.id,
        name: business.name,
        phone: business.phone,
        role: 'owner' as const,
        created_at: business.created_at,
      };
      await insertUser(trx, owner);
      await repo.insertTotals(trx, business.id);
      // Who may act begins the audit log: the owner, then the first key (PRODUCT part 23).
      await recordAudit(trx, business.id, now, [
        { action: 'user.added', entity: 'user', entityId: owner.id, changes: diff(null, owner, AUDITED_USER_FIELDS) },
      ]);
      return this.#keys.issueIn(trx, business.id);
    });
    return { business, apiKey };
  }

  async get(id: string): Promise<repo.BusinessRow> {
    const business = await repo.findBusiness(this.deps.db, id);
    if (!business) throw errors.notFound('business');
    return business;
  }

  async update(id: string, input: UpdateBusinessInput): Promise<repo.BusinessRow> {
    const patch: Parameters<typeof repo.updateBusiness>[2] = {};
    if (input.plan !== undefined) patch.plan = checkPlan(input.plan);
    if (input.planExpiresAt !== undefined) {
      const at = Date.parse(input.planExpiresAt);
      if (Number.isNaN(at)) throw errors.invalid('plan_expires_at', 'plan_expires_at must be an ISO 8601 timestamp');
      patch.plan_expires_at = new Date(at).toISOString();
    }
    if (input.name !== undefined) patch.name = checkBusinessName(input.name);
    if (input.language !== undefined) patch.language = checkLanguage(input.language);
    if (input.remindersPaused !== undefined) patch.reminders_paused = input.remindersPaused ? 1 : 0;
    if (input.reminderSteps !== undefined) patch.reminder_steps = checkReminderSteps(input.reminderSteps);
    if (input.upiId !== undefined) {
      if (input.upiId !== null && !/^[a-zA-Z0-9._-]{2,256}@[a-zA-Z][a-zA-Z0-9.-]{1,63}$/.test(input.upiId)) {
        throw errors.invalid('upi_id', 'upi_id must be a UPI id such as shop@okbank');
      }
      patch.upi_id = input.upiId;
    }
    const now = this.deps.clock.now().toISOString();
    patch.updated_at = now;
    // The change and its audit entry (each setting that changed, before and after) commit together.
    const updated = await this.deps.db.transaction().execute(async (trx) => {
      const before = await repo.findBusinessLocked(trx, id);
      if (!before) return undefined;
      const after = await repo.updateBusiness(trx, id, patch);
      const changes = diff(before, after, AUDITED_SETTINGS);
      if (after && Object.keys(changes).length > 0) {
        await recordAudit(trx, id, now, [{ action: 'business.updated', entity: 'business', entityId: id, changes }]);
      }
      return after;
    });
    this.#keys.changed();
    if (!updated) throw errors.notFound('business');
    return updated;
  }
  /** A business's API keys (api-keys.ts), each method as ApiKeys offers it. */
  issueKey(businessId: string, source?: KeySource): Promise<string> {
    return this.#keys.issueKey(businessId, source);
  }

  issueDashboardKey(businessId: string): Promise<string> {
    return this.#keys.issueDashboardKey(businessId);
  }

  issueChatKey(businessId: string) {
    return this.#keys.issueChatKey(businessId);
  }

  listKeys(businessId: string): Promise<KeyListing[]> {
    return this.#keys.listKeys(businessId);
  }

  revokeKeyById(keyId: string, businessId?: string): Promise<boolean> {
    return this.#keys.revokeKeyById(keyId, businessId);
  }

  revokeKey(apiKey: string): Promise<boolean> {
    return this.#keys.revokeKey(apiKey);
  }

  authenticate(apiKey: string): Promise<AuthenticatedKey | null> {
    return this.#keys.authenticate(apiKey);
  }
}
