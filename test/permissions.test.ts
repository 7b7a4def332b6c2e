import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { LogChannel } from '../src/channels/log.js';
import { CHAT_ACTIONS } from '../src/chat-commands/service.js';
import { ROUTE_ACTIONS } from '../src/dashboard/route-actions.js';
import type { Role } from '../src/db/schema.js';
import { ACTIONS, type Action, may } from '../src/users/permissions.js';
import { ROLES } from '../src/users/schema.js';
import { claimPayment, csrfOf, type DashboardClient } from './helpers/dashboard.js';
import { type Harness, startHarness, type TestBusiness, uniquePhone } from './helpers/harness.js';
import { addStaff, signInAsUser } from './helpers/staff.js';
import { sendWhatsAppMessage } from './helpers/whatsapp-inbound.js';

/**
 * PRODUCT part 23: what each role may do, tested from THE table (users/permissions.ts): for every
 * action and every role, the dashboard form (or page) and the chat command either work, or answer
 * 403 (a refusal over chat) with nothing changed. A collector's other buyers answer 404.
 */

const APP_SECRET = 'permissions-app-secret-0123456789';
const NOW = '2026-03-10T06:00:00.000Z'; // 11:30 in Kolkata: inside reminder hours
const TODAY = '2026-03-10';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ now: NOW, env: { WHATSAPP_APP_SECRET: APP_SECRET } });
});
afterAll(() => h?.close());
beforeEach(() => h.clock.set(NOW));

interface World {
  biz: TestBusiness;
  users: Record<Role, { id: string; phone: string }>;
  /** assigned to the collector */
  dueA: string;
  contactA: string;
  /** nobody's */
  dueB: string;
  contactB: string;
  claimA: string;
  /** a receipt from buyer A */
  receiptA: string;
}

async function world(): Promise<World> {
  const biz = await h.newBusiness();
  const users = { owner: { id: biz.business.id, phone: biz.business.phone } } as World['users'];
  for (const role of ['accountant', 'collector', 'viewer'] as const) users[role] = await addStaff(h, biz, role);
  const due = async (name: string) =>
    (
      await biz.post('/v1/transactions', {
        contact_name: name,
        contact_phone: uniquePhone(),
        amount_paise: 100_000,
        due_date: '2026-03-20',
      })
    ).body.data;
  const a = await due('Asha Stores');
  const b = await due('Bina Traders');
  await biz.patch(`/v1/contacts/${a.contact_id}`, { assigned_to: users.collector.id });
  await claimPayment(h, a.pay_page_url, 'UTR4455667788');
  const claimA = (await biz.get(`/v1/transactions/${a.id}/claims`)).body.data[0].id;
  // The receipt pays an older due of A's, so that due A itself has no payment (it can be deleted).
  const older = await biz.post('/v1/transactions', {
    contact_id: a.contact_id,
    amount_paise: 5_000,
    due_date: '2026-03-01',
  });
  const receipt = await biz.post(`/v1/contacts/${a.contact_id}/payments`, {
    amount_paise: 5_000,
    allocations: [{ transaction_id: older.body.data.id, amount_paise: 5_000 }],
  });
  return {
    biz,
    users,
    dueA: a.id,
    contactA: a.contact_id,
    dueB: b.id,
    contactB: b.contact_id,
    claimA,
    receiptA: receipt.body.data.receipt.id,
  };
}

/** Everything an action could change, read through the API (key usage times left out). */
async function snapshot(w: World) {
  const read = async (url: string) => {
    const res = await w.biz.get(url);
    return { status: res.status, body: res.body };
  };
  const keys = (await h.services.businesses.listKeys(w.biz.business.id)).map(({ last_used_at: _, ...k }) => k);
  return {
    dueA: await read(`/v1/transactions/${w.dueA}`),
    dueB: await read(`/v1/transactions/${w.dueB}`),
    claims: await read(`/v1/transactions/${w.dueA}/claims`),
    receipts: await read(`/v1/contacts/${w.contactA}/payments`),
    bank: await read('/v1/bank-credits'),
    dues: await read('/v1/transactions?limit=200'),
    contacts: await read('/v1/contacts?limit=200'),
    // /v1/me leaves out the settings (UPI id, reminder steps): the row itself
    business: await h.store.db
      .selectFrom('businesses')
      .selectAll()
      .where('id', '=', w.biz.business.id)
      .executeTakeFirst(),
    webhooks: await read('/v1/webhooks'),
    users: await read('/v1/users'),
    keys,
  };
}

type Request = { method: 'GET' | 'POST'; url: string; form?: Record<string, string> };
const once = () => randomBytes(12).toString('base64url');

/** One dashboard request per action of the table, on the collector's own buyer where it names one. */
const DASHBOARD: Record<Action, (w: World) => Request> = {
  'dues.read': (w) => ({ method: 'GET', url: `/dashboard/dues/${w.dueA}` }),
  'summary.read': () => ({ method: 'GET', url: '/dashboard' }),
  'dues.create': () => ({
    method: 'POST',
    url: '/dashboard/dues',
    form: { contact_name: 'Asha Stores', amount: '250', due_date: TODAY, once: once() },
  }),
  'dues.edit': (w) => ({
    method: 'POST',
    url: `/dashboard/dues/${w.dueA}/edit`,
    form: { amount: '2000', due_date: '2026-03-20' },
  }),
  'dues.delete': (w) => ({ method: 'POST', url: `/dashboard/dues/${w.dueA}/delete` }),
  'payments.record': (w) => ({
    method: 'POST',
    url: `/dashboard/dues/${w.dueA}/payments`,
    form: { amount: '100', once: once() },
  }),
  'payments.reverse': (w) => ({
    method: 'POST',
    url: `/dashboard/contacts/${w.contactA}/payments/${w.receiptA}/reverse`,
    form: { reason: 'cheque bounced' },
  }),
  'reminders.send': (w) => ({ method: 'POST', url: `/dashboard/dues/${w.dueA}/remind` }),
  'claims.decide': (w) => ({ method: 'POST', url: `/dashboard/dues/${w.dueA}/claims/${w.claimA}/reject` }),
  'contacts.read': (w) => ({ method: 'GET', url: `/dashboard/contacts/${w.contactA}` }),
  'contacts.edit': (w) => ({
    method: 'POST',
    url: `/dashboard/contacts/${w.contactA}/reminders`,
    form: { reminders_paused: 'true' },
  }),
  'contacts.assign': (w) => ({
    method: 'POST',
    url: `/dashboard/contacts/${w.contactB}/assign`,
    form: { assigned_to: w.users.collector.id },
  }),
  'contacts.merge': (w) => ({
    method: 'POST',
    url: `/dashboard/contacts/${w.contactA}/merge`,
    form: { merge_id: w.contactB },
  }),
  import: () => ({
    method: 'POST',
    url: '/dashboard/import',
    form: { csv: 'contact_name,amount,due_date\nZed Mart,500,2026-03-25\n', action: 'import', once: once() },
  }),
  export: () => ({ method: 'GET', url: '/dashboard/export' }),
  'bank.read': () => ({ method: 'GET', url: '/dashboard/bank' }),
  'bank.manage': () => ({
    method: 'POST',
    url: '/dashboard/bank',
    form: {
      statement:
        'Statement of account\n\nDate,Narration,Ref No.,Withdrawal,Deposit,Balance\n09/03/2026,"UPI/CR/123456789012/SOMEONE",,,"777.00",\n',
    },
  }),
  'settings.read': () => ({ method: 'GET', url: '/dashboard/settings' }),
  'settings.edit': () => ({ method: 'POST', url: '/dashboard/settings', form: { upi_id: 'shop@okbank' } }),
  'developers.read': () => ({ method: 'GET', url: '/dashboard/developers' }),
  'keys.manage': () => ({ method: 'POST', url: '/dashboard/developers/keys' }),
  'webhooks.manage': () => ({
    method: 'POST',
    url: '/dashboard/developers/webhooks',
    form: { url: 'https://erp.example.com/hooks' },
  }),
  'users.read': () => ({ method: 'GET', url: '/dashboard/users' }),
  'users.manage': () => ({
    method: 'POST',
    url: '/dashboard/users',
    form: { name: 'New Helper', phone: uniquePhone(), role: 'viewer' },
  }),
};

/** Posts a form with the CSRF token of a page every role may open. */
async function send(client: DashboardClient, req: Request) {
  if (req.method === 'GET') return client.get(req.url);
  const csrf = csrfOf((await client.get('/dashboard/contacts')).text);
  return client.request('POST', req.url, { _csrf: csrf, ...req.form });
}

function ruleFor(req: Request) {
  const path = req.url.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, (id) => id);
  return Object.entries(ROUTE_ACTIONS).find(([key]) => {
    const [method, pattern] = key.split(' ') as [string, string];
    const re = new RegExp(`^${pattern.replace(/:[A-Za-z]+/g, '[^/]+')}$`);
    return method === req.method && re.test(path);
  })?.[1];
}

describe('the table', () => {
  it('has a dashboard case for every action, and every route names an action of the table', () => {
    expect(Object.keys(DASHBOARD).sort()).toEqual([...ACTIONS].sort());
    for (const [route, rule] of Object.entries(ROUTE_ACTIONS)) {
      expect(rule.action === 'signed-in' || ACTIONS.includes(rule.action), route).toBe(true);
    }
  });
});

describe.each(ACTIONS)('dashboard: %s', (action) => {
  it.each(ROLES)('as %s: allowed by the table, or 403 with nothing changed', async (role) => {
    const w = await world();
    const client = await signInAsUser(h, w.biz.business.id, w.users[role].id);
    const req = DASHBOARD[action](w);
    expect(ruleFor(req)?.action).toBe(action);
    const before = await snapshot(w);
    const res = await send(client, req);
    const after = await snapshot(w);
    if (may(role, action)) {
      expect(res.status, res.text).toBeLessThan(400);
      if (req.method === 'POST') expect(after, 'the action changed something').not.toEqual(before);
      else expect(res.status).toBe(200);
    } else {
      const fallback = ruleFor(req)?.fallback;
      if (req.method === 'GET' && fallback) {
        expect(res.status).toBe(303);
        expect(res.location).toBe(fallback);
      } else {
        expect(res.status, res.text).toBe(403);
        expect(res.text).toContain('Your role does not allow this');
      }
      expect(after).toEqual(before);
    }
  });
});

/** One chat command per command that takes an action, about the collector's own buyer. */
const CHAT: Record<string, string> = {
  add: 'add Asha Stores 250',
  paid: 'paid Asha Stores 100',
  dues: 'dues',
  overdue: 'overdue',
  remind: 'remind Asha Stores',
  statement: 'statement Asha Stores',
};

function lastReply(phone: string): string {
  const digits = phone.replace(/\D/g, '');
  const last = (h.services.channel as LogChannel).messages.filter((m) => m.to === digits && m.kind === 'text').at(-1);
  return last?.kind === 'text' ? last.text : '';
}

describe.each(Object.entries(CHAT_ACTIONS).filter(([, action]) => action !== null))('chat: %s', (kind, action) => {
  it.each(ROLES)('as %s: allowed by the table, or refused with nothing changed', async (role) => {
    const w = await world();
    const before = await snapshot(w);
    const phone = w.users[role].phone.replace(/\D/g, '');
    await sendWhatsAppMessage(h, APP_SECRET, phone, CHAT[kind] as string);
    const reply = lastReply(phone);
    const after = await snapshot(w);
    if (may(role, action as Action)) {
      expect(reply).not.toContain('does not allow');
      expect(reply).not.toContain('Nothing was changed');
      if (['add', 'paid', 'remind'].includes(kind)) expect(after).not.toEqual(before);
    } else {
      expect(reply).toBe(`Your role (${role}) does not allow this. Nothing was changed.`);
      expect(after).toEqual(before);
    }
  });
});

describe('a collector and the buyers not assigned to them', () => {
  const scoped = Object.entries(ROUTE_ACTIONS).filter(
    ([, rule]) =>
      (rule.scope === 'due' || rule.scope === 'contact') &&
      rule.action !== 'signed-in' &&
      may('collector', rule.action),
  );

  it.each(scoped)('%s on another buyer answers 404, nothing changed', async (route) => {
    const w = await world();
    const client = await signInAsUser(h, w.biz.business.id, w.users.collector.id);
    const [method, pattern] = route.split(' ') as ['GET' | 'POST', string];
    const url = pattern.replace(':id', pattern.startsWith('/dashboard/dues') ? w.dueB : w.contactB);
    const before = await snapshot(w);
    const res = await send(client, { method, url, form: { amount: '100', once: once() } });
    expect(res.status, res.text).toBe(404);
    expect(await snapshot(w)).toEqual(before);
  });

  it('lists only their buyers, and the dues of one of them', async () => {
    const w = await world();
    const client = await signInAsUser(h, w.biz.business.id, w.users.collector.id);
    const list = await client.get('/dashboard/contacts');
    expect(list.text).toContain('Asha Stores');
    expect(list.text).not.toContain('Bina Traders');
    const home = await client.get('/dashboard');
    expect(home.status).toBe(303);
    expect(home.location).toBe('/dashboard/contacts');
    const all = await client.get('/dashboard/dues');
    expect(all.location).toBe('/dashboard/contacts');
    expect((await client.get(`/dashboard/dues?contact=${w.contactA}`)).status).toBe(200);
    expect((await client.get(`/dashboard/dues?contact=${w.contactB}`)).status).toBe(404);
  });

  it('cannot add a due to another buyer or a new one (403), from the dashboard or over chat', async () => {
    const w = await world();
    const client = await signInAsUser(h, w.biz.business.id, w.users.collector.id);
    const before = await snapshot(w);
    for (const name of ['Bina Traders', 'Brand New Buyer']) {
      const res = await send(client, {
        method: 'POST',
        url: '/dashboard/dues',
        form: { contact_name: name, amount: '250', due_date: TODAY, once: once() },
      });
      expect(res.status, name).toBe(403);
    }
    const phone = w.users.collector.phone.replace(/\D/g, '');
    await sendWhatsAppMessage(h, APP_SECRET, phone, 'paid Bina Traders 100');
    expect(lastReply(phone)).toBe('"Bina Traders" is not one of your buyers. Nothing was changed.');
    await sendWhatsAppMessage(h, APP_SECRET, phone, 'add Brand New Buyer 100');
    expect(lastReply(phone)).toContain('No contact is named');
    expect(await snapshot(w)).toEqual(before);
  });
});

describe('the navigation', () => {
  it('shows each role the sections it may open', async () => {
    const w = await world();
    const viewer = await signInAsUser(h, w.biz.business.id, w.users.viewer.id);
    const page = (await viewer.get('/dashboard/contacts')).text;
    expect(page).toContain('href="/dashboard/settings"');
    expect(page).not.toContain('href="/dashboard/import"');
    const collector = await signInAsUser(h, w.biz.business.id, w.users.collector.id);
    const theirs = (await collector.get(`/dashboard/dues/${w.dueA}`)).text;
    expect(theirs).not.toContain('href="/dashboard/settings"');
    expect(theirs).not.toContain(`/dashboard/dues/${w.dueA}/delete`);
    expect(theirs).not.toContain(`/dashboard/dues/${w.dueA}/edit`);
    expect(theirs).toContain(`/dashboard/dues/${w.dueA}/payments`);
  });
});
