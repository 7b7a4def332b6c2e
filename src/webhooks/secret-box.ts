import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { linkSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Db } from '../db/schema.js';

const VERSION = 'v1';
/** How many opened secrets a SecretBox keeps (cleared all at once when full). */
const OPENED_KEPT = 1024;

/**
 * Seals webhook signing secrets at rest with AES-256-GCM (PRODUCT part 5): a copy of the database
 * alone does not reveal them. The sealed form is `v1.<iv>.<tag>.<ciphertext>` (base64url).
 */
export class SecretBox {
  readonly #key: Buffer;
  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('the encryption key must be 32 bytes');
    this.#key = key;
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [VERSION, ...[iv, cipher.getAuthTag(), ct].map((part) => part.toString('base64url'))].join('.');
  }

  /**
   * Opens a sealed secret. The dispatcher opens the same few endpoints' secrets for every
   * delivery, so recent openings are kept (in this process's memory only, where the secret is
   * held while signing anyway); a rotated secret is a different sealed string.
   */
  open(sealed: string): string {
    let plain = this.#opened.get(sealed);
    if (plain === undefined) {
      plain = this.#open(sealed);
      if (this.#opened.size >= OPENED_KEPT) this.#opened.clear();
      this.#opened.set(sealed, plain);
    }
    return plain;
  }

  readonly #opened = new Map<string, string>();

  #open(sealed: string): string {
    const [version, iv, tag, ct] = sealed.split('.');
    if (version !== VERSION || !iv || !tag || ct === undefined) throw new Error('unknown sealed secret format');
    const decipher = createDecipheriv('aes-256-gcm', this.#key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
  }
}

const KEY_FILE = 'encryption.key';
const KEY_SETTING = 'webhook_secret_key';

/**
 * The key: ENCRYPTION_KEY (64 hex chars) when set. Otherwise one is generated once and kept
 * where every process of the deployment finds it: a file beside the SQLite database (0600), or,
 * on PostgreSQL, a settings row (so that several processes agree without configuration; set
 * ENCRYPTION_KEY to keep the key out of the database entirely).
 */
export async function resolveSecretKey(opts: {
  encryptionKey: string | undefined;
  db: Db;
  storeKind: 'sqlite' | 'postgres';
  dataDir: string;
}): Promise<Buffer> {
  if (opts.encryptionKey) return Buffer.from(opts.encryptionKey, 'hex');
  if (opts.storeKind === 'sqlite') {
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
    return Buffer.from(readFileSync(file, 'utf8').trim(), 'hex');
  }
  await opts.db
    .insertInto('app_settings')
    .values({ name: KEY_SETTING, value: randomBytes(32).toString('hex') })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const row = await opts.db
    .selectFrom('app_settings')
    .select('value')
    .where('name', '=', KEY_SETTING)
    .executeTakeFirstOrThrow();
  return Buffer.from(row.value, 'hex');
}

/** The SecretBox, resolved once on first use (resolving may touch the store); retried if that fails. */
export function lazySecretBox(opts: Parameters<typeof resolveSecretKey>[0]): () => Promise<SecretBox> {
  let box: Promise<SecretBox> | undefined;
  return () => {
    box ??= resolveSecretKey(opts).then(
      (key) => new SecretBox(key),
      (error: unknown) => {
        box = undefined;
        throw error;
      },
    );
    return box;
  };
}
