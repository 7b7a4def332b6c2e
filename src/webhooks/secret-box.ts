import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { linkSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Db } from '../db/schema.js';

const LEGACY_VERSION = 'v1';
const VERSION = 'v2';
/** How many opened secrets a SecretBox keeps (cleared all at once when full). */
const OPENED_KEPT = 1024;

/** A key's id in the sealed form: the start of its SHA-256, so no one has to name keys. */
export function keyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

/**
 * Seals webhook signing secrets at rest with AES-256-GCM (PRODUCT parts 5 and 16): a copy of the
 * database alone does not reveal them. The sealed form is `v2.<key id>.<iv>.<tag>.<ciphertext>`
 * (base64url), with the endpoint's id as associated data, so a sealed secret copied onto another
 * endpoint does not open. Several keys rotate: the last seals, every one opens what it sealed.
 * The earlier `v1.<iv>.<tag>.<ciphertext>` (no key id, no associated data) still opens.
 */
export class SecretBox {
  readonly #sealing: { id: string; key: Buffer };
  readonly #byId = new Map<string, Buffer>();
  readonly #all: Buffer[];

  /** False when the sealing key is one generated into a file (SQLite without ENCRYPTION_KEY). */
  readonly sealsWithConfiguredKey: boolean;

  /** `keys`: the sealing key last; `openOnly`: keys kept only to open older secrets. */
  constructor(keys: Buffer[], openOnly: Buffer[] = [], configured = true) {
    this.sealsWithConfiguredKey = configured;
    const all = [...keys, ...openOnly];
    if (keys.length === 0 || all.some((k) => k.length !== 32)) throw new Error('the encryption key must be 32 bytes');
    for (const key of all) this.#byId.set(keyId(key), key);
    const sealing = keys[keys.length - 1] as Buffer;
    this.#sealing = { id: keyId(sealing), key: sealing };
    this.#all = all;
  }

  seal(plain: string, endpointId: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#sealing.key, iv);
    cipher.setAAD(Buffer.from(endpointId, 'utf8'));
    const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [VERSION, this.#sealing.id, ...[iv, cipher.getAuthTag(), ct].map((part) => part.toString('base64url'))].join(
      '.',
    );
  }

  /**
   * Opens a sealed secret of an endpoint. The dispatcher opens the same few endpoints' secrets for
   * every delivery, so recent openings are kept (in this process's memory only, where the secret
   * is held while signing anyway); a rotated secret is a different sealed string.
   */
  open(sealed: string, endpointId: string): string {
    const cacheKey = `${endpointId}|${sealed}`;
    let plain = this.#opened.get(cacheKey);
    if (plain === undefined) {
      plain = this.#open(sealed, endpointId);
      if (this.#opened.size >= OPENED_KEPT) this.#opened.clear();
      this.#opened.set(cacheKey, plain);
    }
    return plain;
  }

  /** True when the secret was sealed before key ids (v1) or with a key other than the sealing one. */
  needsReseal(sealed: string): boolean {
    const [version, id] = sealed.split('.');
    return version !== VERSION || id !== this.#sealing.id;
  }

  readonly #opened = new Map<string, string>();

  #open(sealed: string, endpointId: string): string {
    const parts = sealed.split('.');
    if (parts[0] === LEGACY_VERSION && parts.length === 4) {
      const [, iv, tag, ct] = parts as [string, string, string, string];
      for (const key of this.#all) {
        try {
          return decrypt(key, iv, tag, ct, undefined);
        } catch {
          // another key of the rotation may have sealed it
        }
      }
      throw new Error('sealed secret does not open with any configured key');
    }
    if (parts[0] !== VERSION || parts.length !== 5) throw new Error('unknown sealed secret format');
    const [, id, iv, tag, ct] = parts as [string, string, string, string, string];
    const key = this.#byId.get(id);
    if (!key) throw new Error(`sealed secret needs key ${id}, which is not configured (ENCRYPTION_KEYS)`);
    return decrypt(key, iv, tag, ct, endpointId);
  }
}

function decrypt(key: Buffer, iv: string, tag: string, ct: string, aad: string | undefined): string {
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  if (aad !== undefined) decipher.setAAD(Buffer.from(aad, 'utf8'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
}

const KEY_FILE = 'encryption.key';
const KEY_SETTING = 'webhook_secret_key';

/**
 * The keys (PRODUCT part 16). ENCRYPTION_KEYS / ENCRYPTION_KEY when set (config.ts; required on
 * PostgreSQL, so a backup of the database never carries the key that opens its secrets). On
 * SQLite without one, a key is generated once and kept in a file beside the database (0600).
 * A key an earlier version generated into PostgreSQL's settings still opens the secrets it sealed
 * (open-only), until they are sealed again with the configured key.
 */
export async function resolveSecretKeys(opts: {
  encryptionKeys: readonly string[];
  db: Db;
  /** the store is a database server (Store.server): its backups leave this machine */
  serverStore: boolean;
  dataDir: string;
}): Promise<{ keys: Buffer[]; openOnly: Buffer[]; configured: boolean }> {
  if (opts.encryptionKeys.length > 0) {
    const keys = opts.encryptionKeys.map((k) => Buffer.from(k, 'hex'));
    const legacy = opts.serverStore ? await legacyDatabaseKey(opts.db) : undefined;
    return { keys, openOnly: legacy ? [legacy] : [], configured: true };
  }
  if (opts.serverStore) throw new Error('ENCRYPTION_KEY is required on PostgreSQL');
  const file = path.join(opts.dataDir, KEY_FILE);
  // Written whole to a private temporary file, then linked into place: a process starting at the
  // same moment either wins the link or reads the winner's complete key, never half a file.
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
  writeFileSync(tmp, randomBytes(32).toString('hex'), { mode: 0o600 });
  try {
    linkSync(tmp, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    unlinkSync(tmp);
  }
  return { keys: [Buffer.from(readFileSync(file, 'utf8').trim(), 'hex')], openOnly: [], configured: false };
}

/**
 * Deletes the key an earlier version generated into PostgreSQL's settings, once no secret needs it
 * (the box seals with a configured key). True when it was there and is gone.
 */
export async function forgetDatabaseKey(db: Db, box: SecretBox): Promise<boolean> {
  if (!box.sealsWithConfiguredKey) return false;
  const result = await db.deleteFrom('app_settings').where('name', '=', KEY_SETTING).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

async function legacyDatabaseKey(db: Db): Promise<Buffer | undefined> {
  const row = await db.selectFrom('app_settings').select('value').where('name', '=', KEY_SETTING).executeTakeFirst();
  return row ? Buffer.from(row.value, 'hex') : undefined;
}

/** The SecretBox, resolved once on first use (resolving may touch the store); retried if that fails. */
export function lazySecretBox(opts: Parameters<typeof resolveSecretKeys>[0]): () => Promise<SecretBox> {
  let box: Promise<SecretBox> | undefined;
  return () => {
    box ??= resolveSecretKeys(opts).then(
      ({ keys, openOnly, configured }) => new SecretBox(keys, openOnly, configured),
      (error: unknown) => {
        box = undefined;
        throw error;
      },
    );
    return box;
  };
}
