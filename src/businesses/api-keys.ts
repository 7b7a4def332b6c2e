import { type AuditChange, recordAudit } from '../audit/record.js';
import type { CacheNamespace } from '../cache/cache.js';
import type { Db, Executor, KeySource } from '../db/schema.js';
import { errors } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import { isUuid, randomToken, sha256Hex, uuidv7 } from '../lib/ids.js';
import { type KeyListing, KeyUseTracker, MAX_ACTIVE_KEYS } from './keys.js';
import * as repo from './repository.js';

export interface AuthenticatedKey {
  keyId: string;
  business: repo.BusinessRow;
}

const KEY_PREFIX = 'rk_live_';

/** API keys have 240 random bits, so a fast hash is enough to store them (no password stretching). */
export function hashApiKey(key: string): string {
  return sha256Hex(key);
}

function newApiKey(): string {
  return KEY_PREFIX + randomToken(30);
}

/** What the audit log keeps of a key (PRODUCT part 23): its prefix and where it came from, never the key or its hash. */
function keyIssued(row: { id: string; key_prefix: string; source: KeySource }): AuditChange {
  return {
    action: 'api_key.created',
    entity: 'api_key',
    entityId: row.id,
    changes: { prefix: [null, row.key_prefix], source: [null, row.source] },
  };
}

function keyRevoked(row: { id: string; key_prefix: string }, at: string): AuditChange {
  return {
    action: 'api_key.revoked',
    entity: 'api_key',
    entityId: row.id,
    changes: { prefix: [row.key_prefix, row.key_prefix], revoked_at: [null, at] },
  };
}

/**
 * The `apiKeys` cache namespace (cache/cache.ts) with what its version is made of: the store's
 * signal of other processes' commits (db/store.ts; absent, keys are read on every request).
 */
export interface ApiKeyCache {
  cache: CacheNamespace<AuthenticatedKey>;
  otherCommits: () => number;
}

/**
 * A business's API keys (PRODUCT part 16): issued from the CLI, the dashboard or chat, listed,
 * revoked, and each request's key authenticated (from the `apiKeys` cache while nothing changed).
 * BusinessService offers each of these methods.
 */
export class ApiKeys {
  /** Moved whenever this process writes a business or a key (its own commits do not move otherCommits). */
  #ownWrites = 0;
  readonly #uses = new KeyUseTracker();

  constructor(private readonly deps: { db: Db; clock: Clock; apiKeys?: ApiKeyCache | undefined }) {}

  /** A business of this process changed (its row is what an authenticated key carries): cached keys are read again. */
  changed(): void {
    this.#ownWrites++;
  }

  #keysVersion(): string | undefined {
    const keys = this.deps.apiKeys;
    return keys && `${keys.otherCommits()}:${this.#ownWrites}`;
  }

  /** A key of the business and its audit entry, in the caller's transaction (a new business's first key: `cli`). */
  async issueIn(trx: Executor, businessId: string, source: KeySource = 'cli'): Promise<string> {
    const apiKey = newApiKey();
    await recordAudit(trx, businessId, this.deps.clock.now(), [
      keyIssued(await this.storeKey(trx, businessId, apiKey, source)),
    ]);
    return apiKey;
  }

  /** Issues an additional key; existing keys keep working until revoked. */
  async issueKey(businessId: string, source: KeySource = 'cli'): Promise<string> {
    const apiKey = await this.deps.db.transaction().execute(async (trx) => {
      if (!(await repo.findBusiness(trx, businessId))) throw errors.notFound('business');
      return this.issueIn(trx, businessId, source);
    });
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
      return this.issueIn(trx, businessId, 'dashboard');
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
        await recordAudit(trx, businessId, at, [keyRevoked({ id: oldestChat.id, key_prefix: oldestChat.prefix }, at)]);
        revoked = { ...oldestChat, revoked_at: at };
      }
      const apiKey = await this.issueIn(trx, businessId, 'chat');
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
    const at = this.deps.clock.now().toISOString();
    const revoked = await this.deps.db.transaction().execute(async (trx) => {
      const row = await repo.revokeKeyById(trx, keyId, at, businessId);
      if (row) await recordAudit(trx, row.business_id, at, [keyRevoked(row, at)]);
      return row;
    });
    this.#ownWrites++;
    return revoked !== undefined;
  }

  async revokeKey(apiKey: string): Promise<boolean> {
    const at = this.deps.clock.now().toISOString();
    const revoked = await this.deps.db.transaction().execute(async (trx) => {
      const row = await repo.revokeKeyByHash(trx, hashApiKey(apiKey), at);
      if (row) await recordAudit(trx, row.business_id, at, [keyRevoked(row, at)]);
      return row;
    });
    this.#ownWrites++;
    return revoked !== undefined;
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

  private async storeKey(trx: Executor, businessId: string, apiKey: string, source: KeySource = 'cli') {
    const now = this.deps.clock.now();
    const row = {
      id: uuidv7(now.getTime()),
      business_id: businessId,
      key_hash: hashApiKey(apiKey),
      key_prefix: apiKey.slice(0, KEY_PREFIX.length + 4),
      created_at: now.toISOString(),
      source,
    };
    await repo.insertApiKey(trx, row);
    return row;
  }
}
