import { createCipheriv, createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/run.js';
import { ConfigError, loadConfig } from '../src/config.js';
import { migrate, openStore } from '../src/db/store.js';
import { keyId, SecretBox } from '../src/webhooks/secret-box.js';
import { createHttpSender } from '../src/webhooks/sender.js';
import { type Harness, STORE, startHarness } from './helpers/harness.js';
import { type HttpsReceiver, startHttpsReceiver } from './helpers/https-receiver.js';
import { storeEnv } from './helpers/processes.js';

/** PRODUCT part 16: secrets kept apart from the data. */

const KEY_A = Buffer.from('0a'.repeat(32), 'hex');
const KEY_B = Buffer.from('0b'.repeat(32), 'hex');

describe('ENCRYPTION_KEY', () => {
  it('is required with DATABASE_URL: the service refuses to start without it', () => {
    expect(() => loadConfig({ DATABASE_URL: 'postgres://db.example.test/receivables' })).toThrow(ConfigError);
    expect(() => loadConfig({ DATABASE_URL: 'postgres://db.example.test/receivables' })).toThrow(/ENCRYPTION_KEY/);
    expect(
      loadConfig({ DATABASE_URL: 'postgres://db.example.test/x', ENCRYPTION_KEY: '0a'.repeat(32) }).encryptionKeys,
    ).toEqual(['0a'.repeat(32)]);
    expect(loadConfig({}).encryptionKeys).toEqual([]);
  });

  it('takes ENCRYPTION_KEYS=old,new for rotation, refusing a bad item or both variables', () => {
    expect(loadConfig({ ENCRYPTION_KEYS: `${'0A'.repeat(32)}, ${'0b'.repeat(32)}` }).encryptionKeys).toEqual([
      '0a'.repeat(32),
      '0b'.repeat(32),
    ]);
    expect(() => loadConfig({ ENCRYPTION_KEYS: `${'0a'.repeat(32)},short` })).toThrow(/ENCRYPTION_KEYS item 2/);
    expect(() => loadConfig({ ENCRYPTION_KEYS: '0a'.repeat(32), ENCRYPTION_KEY: '0b'.repeat(32) })).toThrow(/not both/);
  });
});

describe('sealed secrets', () => {
  it('carry the key id and open only for their endpoint', () => {
    const box = new SecretBox([KEY_A]);
    const sealed = box.seal('s3cret', 'endpoint-1');
    expect(sealed.split('.').slice(0, 2)).toEqual(['v2', keyId(KEY_A)]);
    expect(box.open(sealed, 'endpoint-1')).toBe('s3cret');
    expect(() => new SecretBox([KEY_A]).open(sealed, 'endpoint-2')).toThrow();
  });

  it('still open in the earlier v1 form (no key id, no associated data)', () => {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', KEY_A, iv);
    const ct = Buffer.concat([cipher.update('legacy', 'utf8'), cipher.final()]);
    const v1 = ['v1', ...[iv, cipher.getAuthTag(), ct].map((p) => p.toString('base64url'))].join('.');
    const box = new SecretBox([KEY_B], [KEY_A]);
    expect(box.open(v1, 'any-endpoint')).toBe('legacy');
    expect(box.needsReseal(v1)).toBe(true);
    expect(() => new SecretBox([KEY_B]).open(v1, 'any-endpoint')).toThrow();
  });

  it('rotate: old,new opens what the old key sealed and seals with the new one', () => {
    const old = new SecretBox([KEY_A]).seal('before', 'e');
    const rotated = new SecretBox([KEY_A, KEY_B]);
    expect(rotated.open(old, 'e')).toBe('before');
    expect(rotated.needsReseal(old)).toBe(true);
    const fresh = rotated.seal('after', 'e');
    expect(fresh.split('.')[1]).toBe(keyId(KEY_B));
    expect(rotated.needsReseal(fresh)).toBe(false);
    expect(new SecretBox([KEY_B]).open(fresh, 'e')).toBe('after');
    expect(() => new SecretBox([KEY_B]).open(old, 'e')).toThrow(/not configured/);
  });
});

describe('webhook secrets over HTTP', () => {
  let h: Harness;
  let receiver: HttpsReceiver;
  beforeAll(async () => {
    receiver = await startHttpsReceiver();
    h = await startHarness({
      env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' },
      webhookSender: createHttpSender({ timeoutMs: 5000, allowPrivateNetworks: true, ca: receiver.ca }),
    });
  });
  afterAll(async () => {
    await h.close();
    await receiver.close();
  });

  it('stores a v2 sealed secret bound to its endpoint: copied onto another endpoint it does not sign', async () => {
    const biz = await h.newBusiness();
    const a = await biz.post('/v1/webhooks', { url: receiver.url, events: ['transaction.created'] });
    const b = await biz.post('/v1/webhooks', { url: receiver.url, events: ['transaction.created'] });
    expect([a.status, b.status]).toEqual([201, 201]);
    const sealedOf = async (id: string) =>
      (
        await h.store.db
          .selectFrom('webhook_endpoints')
          .select('secret_sealed')
          .where('id', '=', id)
          .executeTakeFirstOrThrow()
      ).secret_sealed;
    const sealedA = await sealedOf(a.body.data.id);
    expect(sealedA).toMatch(/^v2\.[0-9a-f]{8}\./);
    expect((await biz.post(`/v1/webhooks/${b.body.data.id}/test`)).body.data.delivered).toBe(true);
    await h.store.db
      .updateTable('webhook_endpoints')
      .set({ secret_sealed: sealedA })
      .where('id', '=', b.body.data.id)
      .execute();
    const moved = await biz.post(`/v1/webhooks/${b.body.data.id}/test`);
    expect(moved.status).toBe(200);
    expect(moved.body.data.delivered).toBe(false);
  });
});

describe('secrets reseal (admin CLI)', () => {
  let h: Harness;
  let receiver: HttpsReceiver;
  beforeAll(async () => {
    receiver = await startHttpsReceiver();
    h = await startHarness({
      env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' },
      webhookSender: createHttpSender({ timeoutMs: 5000, allowPrivateNetworks: true, ca: receiver.ca }),
    });
  });
  afterAll(async () => {
    await h.close();
    await receiver.close();
  });

  /** A secret as the earlier version sealed it: v1, no key id, no associated data. */
  function sealV1(key: Buffer, plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v1', ...[iv, cipher.getAuthTag(), ct].map((p) => p.toString('base64url'))].join('.');
  }

  it('re-seals earlier secrets with the current key, bound to their endpoint, and forgets a key kept in the database', async () => {
    const biz = await h.newBusiness();
    const hook = await biz.post('/v1/webhooks', { url: receiver.url, events: ['transaction.created'] });
    expect(hook.status).toBe(201);
    const id = hook.body.data.id as string;
    // Upgrading: on PostgreSQL the earlier version kept its key in app_settings; on SQLite in a file.
    let oldKey: Buffer;
    if (STORE === 'postgres') {
      oldKey = randomBytes(32);
      await h.store.db
        .insertInto('app_settings')
        .values({ name: 'webhook_secret_key', value: oldKey.toString('hex') })
        .execute();
    } else {
      oldKey = Buffer.from(readFileSync(path.join(h.dataDir, 'encryption.key'), 'utf8').trim(), 'hex');
    }
    // mid-rotation too: the previous secret, still in force, was sealed the earlier way as well
    const previous = 'c3'.repeat(32);
    await h.store.db
      .updateTable('webhook_endpoints')
      .set({
        secret_sealed: sealV1(oldKey, hook.body.data.secret),
        previous_secret_sealed: sealV1(oldKey, previous),
        previous_secret_expires_at: new Date(h.clock.now().getTime() + 3_600_000).toISOString(),
      })
      .where('id', '=', id)
      .execute();

    const out: string[] = [];
    const code = await runCli(['secrets', 'reseal', '--json'], {
      env: { ...storeEnv(h), LOG_LEVEL: 'warn' },
      out: (line) => out.push(line),
      err: (line) => out.push(`ERR ${line}`),
    });
    expect(code, out.join('\n')).toBe(0);
    expect(JSON.parse(out[0] as string)).toEqual({ resealed: 1, database_key_removed: STORE === 'postgres' });
    const row = await h.store.db
      .selectFrom('webhook_endpoints')
      .select(['secret_sealed', 'previous_secret_sealed'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.secret_sealed).toMatch(/^v2\./);
    expect(row.previous_secret_sealed).toMatch(/^v2\./);
    const settings = await h.store.db
      .selectFrom('app_settings')
      .select('name')
      .where('name', '=', 'webhook_secret_key')
      .execute();
    expect(settings).toEqual([]);
    // The secret itself is unchanged: deliveries are signed as before.
    const test = await biz.post(`/v1/webhooks/${id}/test`);
    expect(test.body.data.delivered).toBe(true);
    const [received] = await receiver.waitFor(1);
    // X-Service-Signature keeps the previous secret's during the overlap; both sign webhook-signature
    expect(received?.headers['x-service-signature']).toBe(
      createHmac('sha256', previous)
        .update(received?.body ?? '', 'utf8')
        .digest('hex'),
    );
    const signed = `${received?.headers['webhook-id']}.${received?.headers['webhook-timestamp']}.${received?.body}`;
    const v1 = (secret: string) =>
      `v1,${createHmac('sha256', Buffer.from(secret, 'hex')).update(signed, 'utf8').digest('base64')}`;
    expect(String(received?.headers['webhook-signature']).split(' ')).toEqual([
      v1(hook.body.data.secret),
      v1(previous),
    ]);
  });
});

describe('the SQLite data folder', () => {
  it('is created 0700 with its files 0600', async () => {
    const parent = mkdtempSync(path.join(tmpdir(), 'receivables-perm-'));
    const dataDir = path.join(parent, 'data');
    const store = openStore({ dataDir, databaseUrl: undefined, pgPoolMax: 1 });
    try {
      await migrate(store.db);
      await store.db.insertInto('app_settings').values({ name: 'perm-test', value: 'x' }).execute();
      expect(statSync(dataDir).mode & 0o777).toBe(0o700);
      for (const name of ['receivables.db', 'receivables.db-wal', 'receivables.db-shm']) {
        expect(statSync(path.join(dataDir, name)).mode & 0o777, name).toBe(0o600);
      }
    } finally {
      await store.close();
      rmSync(parent, { recursive: true, force: true });
    }
  });
});
