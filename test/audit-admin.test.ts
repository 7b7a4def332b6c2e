import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { auditLog, OPENING_ACTIONS } from './helpers/audit.js';
import { signInByLink } from './helpers/dashboard.js';
import { type Harness, startHarness, type TestBusiness, uniquePhone } from './helpers/harness.js';
import { addStaff, cli } from './helpers/staff.js';
import { sendWhatsAppMessage } from './helpers/whatsapp-inbound.js';

/**
 * PRODUCT part 23: the audit entries of changes to who may act and to the owner's settings: API
 * keys issued and revoked (dashboard, CLI, chat), staff added and removed (dashboard, CLI), the
 * business's settings (dashboard, CLI). Each entry is written with its change; a key or its hash
 * is never in an entry; a refused change writes none.
 */

const START = '2026-11-21T06:30:00.000Z';
const APP_SECRET = 'audit-admin-app-secret';
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ now: START, env: { WHATSAPP_APP_SECRET: APP_SECRET } });
});
afterAll(() => h?.close());
beforeEach(() => h.clock.set(START));

const OWNER = (biz: TestBusiness) => ({ type: 'user', id: biz.business.id, name: biz.business.name });
const SYSTEM = { type: 'system', id: null, name: null };

async function keyRows(biz: TestBusiness) {
  return h.store.db
    .selectFrom('api_keys')
    .select(['id', 'key_hash', 'key_prefix'])
    .where('business_id', '=', biz.business.id)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** No key, and no key's hash, appears anywhere in the business's log. */
async function expectNoSecrets(biz: TestBusiness, keys: string[]) {
  const text = JSON.stringify(await auditLog(biz, '?limit=200'));
  for (const row of await keyRows(biz)) expect(text).not.toContain(row.key_hash);
  for (const key of keys) expect(text).not.toContain(key);
}

describe('API keys', () => {
  it('a key issued and revoked on the dashboard: two entries by the owner, with prefix and source, never the key', async () => {
    const biz = await h.newBusiness();
    const owner = await signInByLink(h, biz.business.id);
    const issued = await owner.submit('/dashboard/developers', '/dashboard/developers/keys');
    expect(issued.status, issued.text).toBe(200);
    const newKey = /rk_live_[A-Za-z0-9_-]{32,}/.exec(issued.text)?.[0] as string;
    expect(newKey).toBeDefined();
    const row = (await keyRows(biz)).find((k) => k.key_prefix === newKey.slice(0, 12));
    expect(row).toBeDefined();
    const id = row?.id as string;

    h.clock.advance(60_000);
    const revoked = await owner.submit('/dashboard/developers', `/dashboard/developers/keys/${id}/revoke`);
    expect(revoked.status, revoked.text).toBe(303);

    const entries = await auditLog(biz, `?entity=api_key&entity_id=${id}`);
    expect(entries.map((e) => e.action)).toEqual(['api_key.revoked', 'api_key.created']);
    expect(entries[1]).toMatchObject({
      at: START,
      actor: OWNER(biz),
      entity: 'api_key',
      entity_id: id,
      changes: { prefix: [null, newKey.slice(0, 12)], source: [null, 'dashboard'] },
      request_id: expect.any(String),
    });
    expect(entries[0]).toMatchObject({
      at: '2026-11-21T06:31:00.000Z',
      actor: OWNER(biz),
      changes: { prefix: [newKey.slice(0, 12), newKey.slice(0, 12)], revoked_at: [null, '2026-11-21T06:31:00.000Z'] },
    });
    await expectNoSecrets(biz, [newKey, biz.apiKey]);
  });

  it("another business's key is 404 on the dashboard, stays active, and no entry is written", async () => {
    const biz = await h.newBusiness();
    const other = await h.newBusiness();
    const [otherKey] = await keyRows(other);
    const owner = await signInByLink(h, biz.business.id);
    const res = await owner.submit('/dashboard/developers', `/dashboard/developers/keys/${otherKey?.id}/revoke`);
    expect(res.status).toBe(404);
    expect((await auditLog(biz)).map((e) => e.action)).toEqual([...OPENING_ACTIONS]);
    expect((await auditLog(other)).map((e) => e.action)).toEqual([...OPENING_ACTIONS]);
    expect((await other.get('/v1/me')).status).toBe(200);
  });

  it('the CLI issues and revokes (by id and by key) as the system, outside any request', async () => {
    const biz = await h.newBusiness();
    const issued = await cli(h, 'key', 'issue', '--business', biz.business.id, '--json');
    expect(issued.code, issued.stderr).toBe(0);
    const key = issued.json.api_key as string;
    const row = (await keyRows(biz)).find((k) => k.key_prefix === key.slice(0, 12));
    expect((await cli(h, 'key', 'revoke', '--id', row?.id as string, '--json')).code).toBe(0);
    expect((await cli(h, 'key', 'revoke', '--key', biz.apiKey, '--json')).code).toBe(0);
    // nothing more to revoke: refused, and no entry
    expect((await cli(h, 'key', 'revoke', '--key', biz.apiKey, '--json')).code).toBe(2);

    const [first] = await keyRows(biz);
    const entries = (
      await h.store.db
        .selectFrom('audit_log')
        .select(['action', 'entity_id', 'actor_type', 'actor_id', 'actor_name', 'request_id', 'changes'])
        .where('business_id', '=', biz.business.id)
        .orderBy('id')
        .execute()
    ).map((e) => ({ ...e, changes: JSON.parse(e.changes) }));
    const system = { actor_type: 'system', actor_id: null, actor_name: null, request_id: null };
    expect(entries).toEqual([
      // the business's own beginning: its owner and first key
      { ...system, action: 'user.added', entity_id: biz.business.id, changes: expect.any(Object) },
      {
        ...system,
        action: 'api_key.created',
        entity_id: first?.id,
        changes: { prefix: [null, biz.apiKey.slice(0, 12)], source: [null, 'cli'] },
      },
      {
        ...system,
        action: 'api_key.created',
        entity_id: row?.id,
        changes: { prefix: [null, key.slice(0, 12)], source: [null, 'cli'] },
      },
      {
        ...system,
        action: 'api_key.revoked',
        entity_id: row?.id,
        changes: { prefix: [key.slice(0, 12), key.slice(0, 12)], revoked_at: [null, expect.any(String)] },
      },
      {
        ...system,
        action: 'api_key.revoked',
        entity_id: first?.id,
        changes: {
          prefix: [biz.apiKey.slice(0, 12), biz.apiKey.slice(0, 12)],
          revoked_at: [null, expect.any(String)],
        },
      },
    ]);
    expect(JSON.stringify(entries)).not.toContain(first?.key_hash);
    expect(JSON.stringify(entries)).not.toContain(key);
  });

  it('a key asked for over chat, and the oldest chat key it revokes, are entries by the owner over chat', async () => {
    const biz = await h.newBusiness();
    // four chat keys and the first: the fifth active key; the next one revokes the oldest chat key
    for (let i = 0; i < 4; i++) await h.services.businesses.issueChatKey(biz.business.id);
    const oldestChat = (await keyRows(biz))[1];
    const before = (await auditLog(biz)).length;
    await sendWhatsAppMessage(h, APP_SECRET, biz.business.phone, 'API KEY');

    const entries = await auditLog(biz);
    expect(entries).toHaveLength(before + 2);
    const newest = (await keyRows(biz)).at(-1);
    const chat = { type: 'chat', id: biz.business.id, name: biz.business.name };
    expect(entries[0]).toMatchObject({
      action: 'api_key.created',
      entity_id: newest?.id,
      actor: chat,
      changes: { prefix: [null, newest?.key_prefix], source: [null, 'chat'] },
    });
    expect(entries[1]).toMatchObject({
      action: 'api_key.revoked',
      entity_id: oldestChat?.id,
      actor: chat,
      changes: { revoked_at: [null, START] },
    });
    await expectNoSecrets(biz, [biz.apiKey]);
  });
});

describe('users', () => {
  it('the owner adds and removes staff on the dashboard: user.added, user.removed, and each buyer it unassigns', async () => {
    const biz = await h.newBusiness();
    const owner = await signInByLink(h, biz.business.id);
    const phone = uniquePhone();
    const added = await owner.submit('/dashboard/users', '/dashboard/users', {
      name: 'Ravi Munim',
      phone,
      role: 'collector',
    });
    expect(added.status, added.text).toBe(303);
    const user = (await h.services.users.list(biz.business.id)).find((u) => u.name === 'Ravi Munim');
    expect(user).toBeDefined();
    const id = user?.id as string;
    const contact = (await biz.post('/v1/contacts', { name: 'Assigned Stores' })).body.data.id as string;
    expect((await biz.patch(`/v1/contacts/${contact}`, { assigned_to: id })).status).toBe(200);

    h.clock.advance(60_000);
    const removed = await owner.submit('/dashboard/users', `/dashboard/users/${id}/remove`);
    expect(removed.status, removed.text).toBe(303);

    const entries = await auditLog(biz, `?entity=user&entity_id=${id}`);
    expect(entries.map((e) => e.action)).toEqual(['user.removed', 'user.added']);
    expect(entries[1]).toMatchObject({
      at: START,
      actor: OWNER(biz),
      changes: { name: [null, 'Ravi Munim'], phone: [null, user?.phone], role: [null, 'collector'] },
      request_id: expect.any(String),
    });
    expect(entries[0]).toMatchObject({
      at: '2026-11-21T06:31:00.000Z',
      actor: OWNER(biz),
      changes: { name: ['Ravi Munim', null], phone: [user?.phone, null], role: ['collector', null] },
    });
    const [unassigned] = await auditLog(biz, `?entity=contact&entity_id=${contact}`);
    expect(unassigned).toMatchObject({
      action: 'contact.updated',
      actor: OWNER(biz),
      changes: { assigned_to: [id, null] },
      request_id: entries[0]?.request_id,
    });
  });

  it('a refused add (bad role, a phone already a user) or removal (the owner, another business) writes no entry', async () => {
    const biz = await h.newBusiness();
    const other = await h.newBusiness();
    const otherStaff = await addStaff(h, other, 'viewer');
    const owner = await signInByLink(h, biz.business.id);
    const before = await auditLog(biz);

    const badRole = await owner.submit('/dashboard/users', '/dashboard/users', {
      name: 'Boss',
      phone: uniquePhone(),
      role: 'boss',
    });
    expect(badRole.status).toBe(400);
    const taken = await owner.submit('/dashboard/users', '/dashboard/users', {
      name: 'Owner Again',
      phone: biz.business.phone,
      role: 'viewer',
    });
    expect(taken.status).toBe(409);
    expect((await owner.submit('/dashboard/users', `/dashboard/users/${biz.business.id}/remove`)).status).toBe(409);
    expect((await owner.submit('/dashboard/users', `/dashboard/users/${otherStaff.id}/remove`)).status).toBe(404);

    expect(await auditLog(biz)).toEqual(before);
    expect((await auditLog(other)).map((e) => e.action)).toEqual(['user.added', ...OPENING_ACTIONS]);
    expect((await h.services.users.list(other.business.id)).map((u) => u.id)).toContain(otherStaff.id);
  });

  it('`user add` and `user remove` on the CLI are entries by the system', async () => {
    const biz = await h.newBusiness();
    const phone = uniquePhone();
    const added = await cli(
      h,
      ...['user', 'add', '--business', biz.business.id, '--name', 'Asha CA', '--phone', phone, '--role', 'viewer'],
      '--json',
    );
    expect(added.code, added.stderr).toBe(0);
    const id = added.json.user.id as string;
    h.clock.advance(1000);
    const removed = await cli(h, 'user', 'remove', '--business', biz.business.id, '--user', id, '--json');
    expect(removed.code, removed.stderr).toBe(0);

    const entries = await auditLog(biz, `?entity=user&entity_id=${id}`);
    expect(entries).toMatchObject([
      { action: 'user.removed', actor: SYSTEM, request_id: null, changes: { role: ['viewer', null] } },
      {
        action: 'user.added',
        actor: SYSTEM,
        request_id: null,
        changes: { name: [null, 'Asha CA'], phone: [null, added.json.user.phone], role: [null, 'viewer'] },
      },
    ]);
  });
});

describe('settings', () => {
  it("the dashboard's settings form: one entry with each setting that changed, before and after; an unchanged form writes none", async () => {
    const biz = await h.newBusiness({ name: 'Sharma Traders' });
    const owner = await signInByLink(h, biz.business.id);
    const form = { name: 'Sharma & Sons', language: 'hi', upi_id: 'sharma@okbank', reminder_steps: '0,7' };
    const saved = await owner.submit('/dashboard/settings', '/dashboard/settings', form);
    expect(saved.status, saved.text).toBe(303);
    const again = await owner.submit('/dashboard/settings', '/dashboard/settings', form);
    expect(again.status, again.text).toBe(303);

    const entries = await auditLog(biz, '?entity=business');
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      action: 'business.updated',
      entity: 'business',
      entity_id: biz.business.id,
      actor: OWNER(biz),
      request_id: expect.any(String),
    });
    expect(entries[0]?.changes).toEqual({
      name: ['Sharma Traders', 'Sharma & Sons'],
      language: ['en', 'hi'],
      upi_id: [null, 'sharma@okbank'],
      reminder_steps: ['-3,0,7,30', '0,7'],
    });
  });

  it('a refused settings form (bad UPI id, bad steps) changes nothing and writes no entry', async () => {
    const biz = await h.newBusiness();
    const owner = await signInByLink(h, biz.business.id);
    const badUpi = await owner.submit('/dashboard/settings', '/dashboard/settings', { upi_id: 'not a upi' });
    expect(badUpi.status).toBe(400);
    const badSteps = await owner.submit('/dashboard/settings', '/dashboard/settings', { reminder_steps: '9,1' });
    expect(badSteps.status).toBe(400);
    expect((await auditLog(biz)).map((e) => e.action)).toEqual([...OPENING_ACTIONS]);
    expect((await biz.get('/v1/me')).body.data.upi_id ?? null).toBeNull();
  });

  it('`business set` on the CLI: an entry by the system', async () => {
    const biz = await h.newBusiness();
    const res = await cli(
      h,
      ...['business', 'set', '--business', biz.business.id, '--reminders-paused', 'true', '--upi-id', 'shop@okaxis'],
      '--json',
    );
    expect(res.code, res.stderr).toBe(0);
    const entries = await auditLog(biz, `?entity=business&entity_id=${biz.business.id}`);
    expect(entries).toMatchObject([
      {
        action: 'business.updated',
        actor: SYSTEM,
        request_id: null,
        changes: { reminders_paused: [0, 1], upi_id: [null, 'shop@okaxis'] },
      },
    ]);
  });
});

describe('the Activity page', () => {
  it('shows keys, staff and settings changes in the owner’s words, in English and in Hindi', async () => {
    const biz = await h.newBusiness({ name: 'Verma Stores' });
    const owner = await signInByLink(h, biz.business.id);
    expect((await owner.submit('/dashboard/developers', '/dashboard/developers/keys')).status).toBe(200);
    const staff = await owner.submit('/dashboard/users', '/dashboard/users', {
      name: 'Kiran Collector',
      phone: uniquePhone(),
      role: 'collector',
    });
    expect(staff.status).toBe(303);
    const saved = await owner.submit('/dashboard/settings', '/dashboard/settings', {
      name: 'Verma Stores',
      language: 'en',
      upi_id: 'verma@okbank',
    });
    expect(saved.status).toBe(303);

    const page = await owner.get('/dashboard/audit');
    expect(page.status, page.text).toBe(200);
    const items = page.text.split('<li><span>').slice(1);
    // and the business's beginning: its first key and its owner, by the system
    expect(items).toHaveLength(5);
    expect(items[0]).toContain('Settings changed');
    expect(items[0]).toMatch(/UPI id: — → verma@okbank/);
    expect(items[1]).toContain('Staff member added');
    expect(items[1]).toContain('Role: — → Collector');
    expect(items[1]).toContain('Name: — → Kiran Collector');
    expect(items[2]).toContain('API key created');
    expect(items[2]).toContain('Recorded: — → on the dashboard');
    expect(items[2]).toMatch(/Key: — → <code>rk_live_/);
    for (const item of items.slice(0, 3)) expect(item).toContain('by Verma Stores');
    expect(items[3]).toContain('API key created');
    expect(items[3]).toContain('Recorded: — → on the command line');
    expect(items[4]).toContain('Staff member added');
    expect(items[4]).toContain('Role: — → Owner');
    for (const item of items.slice(3)) expect(item).toContain('by the system');

    const hindi = await owner.submit('/dashboard/settings', '/dashboard/settings', {
      name: 'Verma Stores',
      language: 'hi',
      upi_id: 'verma@okbank',
    });
    expect(hindi.status).toBe(303);
    const hi = await owner.get('/dashboard/audit');
    const hiItems = hi.text.split('<li><span>').slice(1);
    expect(hiItems[0]).toContain('भाषा: en → hi');
    expect(hiItems[2]).toContain('काम: — → वसूली वाले');
    expect(hiItems[3]).toContain('कहाँ से दर्ज: — → डैशबोर्ड पर');
  });
});
