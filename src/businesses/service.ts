import type { CacheNamespace } from '../cache/cache.js';
import type { Db, KeySource } from '../db/schema.js';
import { errors } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import { isTimeZone } from '../lib/dates.js';
import { isUuid, randomToken, sha256Hex, uuidv7 } from '../lib/ids.js';
import { normalisePhone } from '../lib/phone.js';
import { TurnBatch } from '../lib/turn-batch.js';
import { DEFAULT_REMINDER_STEPS, parseReminderSteps, REMINDER_STEPS_RULE } from '../reminder-schedule/sequence.js';
import { insertUser } from '../users/repository.js';
import { type KeyListing, KeyUseTracker, MAX_ACTIVE_KEYS } from './keys.js';
import { API_PLAN, PLANS, type Plan } from './plans.js';
import * as repo from './repository.js';

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

export interface AuthenticatedKey {
  keyId: string;
  business: repo.BusinessRow;
}

const KEY_PREFIX = 'rk_live_';
const YEAR_MS = 365 * 24 * 60 * 60 * 1000;

/** API keys have 240 random bits, so a fast hash is enough to store them (no password stretching). */
export function hashApiKey(key: string): string {
  return sha256Hex(key);
}

function newApiKey(): string {
  return KEY_PREFIX + randomToken(30);
}

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
 * The `apiKeys` cache namespace (cache/cache.ts) with what its version is made of: the store's
 * signal of other processes' commits (db/store.ts; absent, keys are read on every request).
 */
export interface ApiKeyCache {
  cache: CacheNamespace<AuthenticatedKey>;
  otherCommits: () => number;
}

/** Businesses whose data version is kept (dataVersion); past that the lot is dropped and read again. */
const VERSIONS_KEPT = 10_000;

export class BusinessService {
  /** Moved whenever this process writes a business or a key (its own commits do not move otherCommits). */
  #ownWrites = 0;
  /** Data versions read, with the store's change stamp they were read under (dataVersion). */
  readonly #versions = new Map<string, { stamp: string; version: number }>();
  /** Without a change stamp (PostgreSQL): the versions asked for in one turn, read by one statement. */
  readonly #versionReads = new TurnBatch<string, number>((ids) => repo.readDataVersions(this.deps.db, ids));
  readonly #uses = new KeyUseTracker();

  constructor(
    private readonly deps: {
      db: Db;
      clock: Clock;
      apiKeys?: ApiKeyCache | undefined;
      /** db/store.ts Store.changeStamp (SQLite) */
      changeStamp?: (() => string) | undefined;
    },
  ) {}

  #keysVersion(): string | undefined {
    const keys = this.deps.apiKeys;
    return keys && `${keys.otherCommits()}:${this.#ownWrites}`;
  }

  /**
   * See repo.readDataVersion: what a rendered response of the business is kept with. Where the
   * store has a change stamp (SQLite), a version read while the stamp stood is answered again
   * without a statement until anything commits: a rendered read then costs no query of its own.
   * The stamp is taken before the read, so a commit racing the read only makes the next one read.
   */
  async dataVersion(businessId: string): Promise<number> {
    const stampOf = this.deps.changeStamp;
    if (!stampOf) return this.#versionReads.read(businessId);
    const stamp = stampOf();
    const known = this.#versions.get(businessId);
    if (known?.stamp === stamp) return known.version;
    const version = await repo.readDataVersion(this.deps.db, businessId);
    if (this.#versions.size >= VERSIONS_KEPT) this.#versions.clear();
    this.#versions.set(businessId, { stamp, version });
    return version;
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
    const apiKey = newApiKey();
    await this.deps.db.transaction().execute(async (trx) => {
      await repo.insertBusiness(trx, business);
      // The owner is the business's first user, with the business's own id and phone.
      await insertUser(trx, {
        id: business.id,
        business_id: business.id,
        name: business.name,
        phone: business.phone,
        role: 'owner',
        created_at: business.created_at,
      });
      await repo.insertTotals(trx, business.id);
      await this.storeKey(trx, business.id, apiKey);
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
    patch.updated_at = this.deps.clock.now().toISOString();
    const updated = await repo.updateBusiness(this.deps.db, id, patch);
    this.#ownWrites++;
    if (!updated) throw errors.notFound('business');
    return updated;
  }

  /** Issues an additional key; existing keys keep working until revoked. */
  async issueKey(businessId: string, source: KeySource = 'cli'): Promise<string> {
    await this.get(businessId);
    const apiKey = newApiKey();
    await this.storeKey(this.deps.db, businessId, apiKey, source);
    this.#ownWrites++;
    return apiKey;
  }

  /**
   * A key asked for on the dashboard (PRODUCT part 26): it counts towards the MAX_ACTIVE_KEYS
   * active keys, checked under the business's row lock so that concurrent requests cannot pass it
   * together; the sixth is refused (409) until one is revoked.
   */
  async issueDashboardKey(businessId: string): Promise<string> {
    const apiKey = await this.deps.db.transaction().execute(async (trx) => {
      if (!(await repo.lockBusiness(trx, businessId))) throw errors.notFound('business');
      const active = (await repo.listKeys(trx, businessId)).filter((k) => k.revoked_at === null);
      if (active.length >= MAX_ACTIVE_KEYS) {
        throw errors.conflict(`at most ${MAX_ACTIVE_KEYS} API keys can be active; revoke one to issue another`);
      }
      const key = newApiKey();
      await this.storeKey(trx, businessId, key, 'dashboard');
      return key;
    });
    this.#ownWrites++;
    return apiKey;
  }

  /**
   * A key asked for over chat (PRODUCT part 16): at most MAX_ACTIVE_KEYS unrevoked keys, so a 6th
   * revokes the oldest chat-issued key (the caller says so); when every active key came from
   * elsewhere, none is issued. One database transaction.
   */
  async issueChatKey(
    businessId: string,
  ): Promise<{ apiKey: string; revoked: KeyListing | null } | { apiKey: null; activeKeys: number }> {
    const result = await this.deps.db.transaction().execute(async (trx) => {
      if (!(await repo.lockBusiness(trx, businessId))) throw errors.notFound('business');
      const active = (await repo.listKeys(trx, businessId)).filter((k) => k.revoked_at === null);
      let revoked: KeyListing | null = null;
      if (active.length >= MAX_ACTIVE_KEYS) {
        const oldestChat = active.find((k) => k.source === 'chat');
        if (!oldestChat) return { apiKey: null, activeKeys: active.length } as const;
        const at = this.deps.clock.now().toISOString();
        await repo.revokeKeyById(trx, oldestChat.id, at, businessId);
        revoked = { ...oldestChat, revoked_at: at };
      }
      const apiKey = newApiKey();
      await this.storeKey(trx, businessId, apiKey, 'chat');
      return { apiKey, revoked };
    });
    this.#ownWrites++;
    return result;
  }

  /** Every key of the business, oldest first, revoked ones too (PRODUCT part 16). */
  listKeys(businessId: string): Promise<KeyListing[]> {
    return repo.listKeys(this.deps.db, businessId);
  }

  /**
   * Revokes a key by its id: within one business when `businessId` is given (the dashboard), any
   * business's for the operator's CLI. False when no unrevoked key has that id.
   */
  async revokeKeyById(keyId: string, businessId?: string): Promise<boolean> {
    if (!isUuid(keyId)) return false;
    const revoked = await repo.revokeKeyById(this.deps.db, keyId, this.deps.clock.now().toISOString(), businessId);
    this.#ownWrites++;
    return revoked !== undefined;
  }

  async revokeKey(apiKey: string): Promise<boolean> {
    const result = await repo.revokeKeyByHash(this.deps.db, hashApiKey(apiKey), this.deps.clock.now().toISOString());
    this.#ownWrites++;
    return Number(result.numUpdatedRows) > 0;
  }

  /** Writes `last_used_at` when it is a minute old in this process (KeyUseTracker): cheap enough for every request. */
  async #recordUse(keyId: string): Promise<void> {
    const now = this.deps.clock.now();
    if (!this.#uses.due(keyId, now.getTime())) return;
    try {
      await repo.recordKeyUse(this.deps.db, keyId, now.toISOString());
    } catch {
      // Bookkeeping only: the request is answered all the same and the key's next use retries
      // (an outage or a full disk shows on the request's own reads and writes).
      this.#uses.forget(keyId);
    }
  }

  async authenticate(apiKey: string): Promise<AuthenticatedKey | null> {
    if (!apiKey.startsWith(KEY_PREFIX) || apiKey.length > 200) return null;
    const cache = this.deps.apiKeys?.cache;
    // Read before the key: a key read after a change is kept with a version that is already stale.
    const version = this.#keysVersion();
    if (cache && version !== undefined) {
      const cached = cache.get(apiKey, version);
      if (cached) {
        await this.#recordUse(cached.keyId);
        return cached;
      }
    }
    const row = await repo.findActiveKey(this.deps.db, hashApiKey(apiKey));
    if (!row) return null;
    const { key_id, ...business } = row;
    // Shared by every request with this key while cached: frozen so no handler can alter it.
    const found: AuthenticatedKey = Object.freeze({ keyId: key_id, business: Object.freeze(business) });
    if (cache && version !== undefined) cache.set(apiKey, version, found);
    await this.#recordUse(key_id);
    return found;
  }

  private async storeKey(
    db: Parameters<typeof repo.insertApiKey>[0],
    businessId: string,
    apiKey: string,
    source: KeySource = 'cli',
  ) {
    const now = this.deps.clock.now();
    await repo.insertApiKey(db, {
      id: uuidv7(now.getTime()),
      business_id: businessId,
      key_hash: hashApiKey(apiKey),
      key_prefix: apiKey.slice(0, KEY_PREFIX.length + 4),
      created_at: now.toISOString(),
      source,
    });
  }
}
