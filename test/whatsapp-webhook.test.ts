import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogChannel } from '../src/channels/log.js';
import { type CallOptions, type Harness, startHarness, type TestBusiness } from './helpers/harness.js';
import { whatsappMessagePayload, whatsappSignature, whatsappStatusPayload } from './helpers/whatsapp-inbound.js';

const APP_SECRET = 'test-app-secret-0123456789';
const VERIFY_TOKEN = 'verify-me-please';
const PATH = '/channels/whatsapp/webhook';

let h: Harness;
let channel: LogChannel;
beforeAll(async () => {
  h = await startHarness({
    now: '2026-07-01T06:30:00.000Z', // 12:00 in Kolkata
    env: { WHATSAPP_APP_SECRET: APP_SECRET, WHATSAPP_VERIFY_TOKEN: VERIFY_TOKEN },
  });
  channel = h.services.channel as LogChannel;
});
afterAll(() => h.close());

/** A phone no other test uses (the opt-out is per phone, across the whole database). */
function randomPhoneDigits(): string {
  return `916${String(randomBytes(4).readUInt32BE() % 1e9).padStart(9, '0')}`;
}

const sign = (raw: string, secret = APP_SECRET) => whatsappSignature(raw, secret);
const messagePayload = (from: string, text: string, id?: string) =>
  whatsappMessagePayload(from, text, { name: 'Someone', ...(id !== undefined && { id }) });
const statusPayload = whatsappStatusPayload;

async function post(payload: unknown, options: { signature?: string | null; raw?: string } = {}) {
  const raw = options.raw ?? JSON.stringify(payload);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  const signature = options.signature === undefined ? sign(raw) : options.signature;
  if (signature !== null) headers['x-hub-signature-256'] = signature;
  const call: CallOptions = { payload: raw, headers };
  return h.request('POST', PATH, call);
}

async function newDue(biz: TestBusiness, phoneDigits: string | null) {
  const res = await biz.post('/v1/transactions', {
    amount_paise: 10_000,
    due_date: '2026-07-20',
    contact_name: `Buyer ${randomBytes(3).toString('hex')}`,
    ...(phoneDigits && { contact_phone: `+${phoneDigits}` }),
  });
  expect(res.status, res.text).toBe(201);
  return res.body.data;
}

async function remind(biz: TestBusiness, id: string) {
  return (await biz.post(`/v1/transactions/${id}/remind`, {})).body.data;
}

async function isOptedOut(phone: string) {
  const row = await h.store.db
    .selectFrom('chat_opt_outs')
    .select('phone')
    .where('phone', '=', phone)
    .executeTakeFirst();
  return row !== undefined;
}

async function keyCount(businessId: string) {
  const rows = await h.store.db.selectFrom('api_keys').select('id').where('business_id', '=', businessId).execute();
  return rows.length;
}

describe('GET /channels/whatsapp/webhook (verification handshake)', () => {
  it('answers the challenge as text when the verify token matches', async () => {
    const res = await h.request(
      'GET',
      `${PATH}?hub.mode=subscribe&hub.verify_token=${VERIFY_TOKEN}&hub.challenge=1158201444`,
    );
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.text).toBe('1158201444');
  });

  it('answers 403 for a wrong token, a wrong mode or missing parameters', async () => {
    for (const query of [
      `hub.mode=subscribe&hub.verify_token=wrong&hub.challenge=1`,
      `hub.mode=unsubscribe&hub.verify_token=${VERIFY_TOKEN}&hub.challenge=1`,
      `hub.mode=subscribe&hub.challenge=1`,
      `hub.mode=subscribe&hub.verify_token=${VERIFY_TOKEN}`,
      '',
    ]) {
      const res = await h.request('GET', `${PATH}?${query}`);
      expect(res.status, query).toBe(403);
      expect(res.body.error.code).toBe('forbidden');
      expect(res.text).not.toContain(VERIFY_TOKEN);
    }
  });

  it('answers 403 to everyone when WHATSAPP_VERIFY_TOKEN is not configured', async () => {
    const bare = await startHarness();
    try {
      const res = await bare.request('GET', `${PATH}?hub.mode=subscribe&hub.verify_token=&hub.challenge=1`);
      expect(res.status).toBe(403);
    } finally {
      await bare.close();
    }
  });
});

describe('POST /channels/whatsapp/webhook', () => {
  it('opts every contact with the phone out on STOP, across businesses, and back in on START', async () => {
    const phone = randomPhoneDigits();
    const shopA = await h.newBusiness();
    const shopB = await h.newBusiness();
    const dueA = await newDue(shopA, phone);
    const dueB = await newDue(shopB, phone);
    const other = await newDue(shopA, randomPhoneDigits());

    const stop = await post(messagePayload(phone, 'STOP'));
    expect(stop.status, stop.text).toBe(200);
    expect(stop.body).toEqual({ received: true });
    expect(await remind(shopA, dueA.id)).toMatchObject({ sent: false, reason: 'opted_out' });
    expect(await remind(shopB, dueB.id)).toMatchObject({ sent: false, reason: 'opted_out' });
    expect(await remind(shopA, other.id)).toMatchObject({ sent: true });
    // A contact added later with that phone is opted out too.
    const later = await newDue(shopB, phone);
    expect(await remind(shopB, later.id)).toMatchObject({ sent: false, reason: 'opted_out' });

    expect((await post(messagePayload(phone, '  start '))).status).toBe(200);
    expect(await remind(shopA, dueA.id)).toMatchObject({ sent: true });
    expect(await remind(shopB, dueB.id)).toMatchObject({ sent: true });
  });

  it('answers 401 and changes nothing when the signature is missing or wrong', async () => {
    const phone = randomPhoneDigits();
    const payload = messagePayload(phone, 'STOP');
    const raw = JSON.stringify(payload);
    const cases: [string, { signature?: string | null; raw?: string }][] = [
      ['missing', { signature: null }],
      ['wrong secret', { signature: sign(raw, 'not-the-secret') }],
      ['another body', { signature: sign(JSON.stringify(messagePayload(phone, 'START'))) }],
      ['no prefix', { signature: sign(raw).slice('sha256='.length) }],
      ['garbage', { signature: 'sha256=zz' }],
      // The same JSON re-serialised with other whitespace is other bytes.
      ['re-serialised', { raw: JSON.stringify(payload, null, 2), signature: sign(raw) }],
    ];
    for (const [name, options] of cases) {
      const res = await post(payload, options);
      expect(res.status, name).toBe(401);
      expect(res.body.error.code, name).toBe('unauthorized');
    }
    // Without the right content type as well: the signature is checked first.
    const plain = await h.request('POST', PATH, { payload: raw, headers: { 'content-type': 'text/plain' } });
    expect(plain.status).toBe(401);
    expect(await isOptedOut(phone)).toBe(false);
  });

  it('verifies the signature over the raw bytes, whatever the formatting', async () => {
    const phone = randomPhoneDigits();
    const raw = JSON.stringify(messagePayload(phone, 'STOP'), null, 2);
    const res = await post(undefined, { raw, signature: sign(raw) });
    expect(res.status, res.text).toBe(200);
    expect(await isOptedOut(phone)).toBe(true);
  });

  it('answers 400 to a signed body that is not JSON', async () => {
    const raw = '{"entry": [';
    const res = await post(undefined, { raw, signature: sign(raw) });
    expect(res.status).toBe(400);
  });

  it('rejects every POST when WHATSAPP_APP_SECRET is not configured', async () => {
    const bare = await startHarness();
    try {
      const raw = JSON.stringify(messagePayload(randomPhoneDigits(), 'STOP'));
      const res = await bare.request('POST', PATH, {
        payload: raw,
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': sign(raw) },
      });
      expect(res.status).toBe(401);
    } finally {
      await bare.close();
    }
  });

  it('issues a new API key to a business that asks from its registered phone, and replies with it', async () => {
    const phone = randomPhoneDigits();
    const biz = await h.newBusiness({ phone: `+${phone}`, name: 'Kapoor Electricals' });
    expect(await keyCount(biz.business.id)).toBe(1);
    const before = channel.messages.length;

    const messageId = `wamid.${randomBytes(8).toString('hex')}`;
    const res = await post(messagePayload(phone, 'api key', messageId));
    expect(res.status, res.text).toBe(200);
    expect(await keyCount(biz.business.id)).toBe(2);
    const replies = channel.messages.slice(before).filter((m) => m.to === phone);
    expect(replies).toHaveLength(1);
    const reply = replies[0];
    expect(reply?.kind).toBe('text');
    const key = reply?.kind === 'text' ? /rk_live_\S+/.exec(reply.text)?.[0] : undefined;
    expect(key).toBeDefined();
    expect(reply?.kind === 'text' && reply.text).toContain('Kapoor Electricals');

    const me = await h.request('GET', '/v1/me', { headers: { 'x-api-key': key as string } });
    expect(me.status).toBe(200);
    expect(me.body.data.id).toBe(biz.business.id);
    // The old key keeps working.
    expect((await biz.get('/v1/me')).status).toBe(200);

    // Meta retrying the same delivery does not issue a second key.
    expect((await post(messagePayload(phone, 'api key', messageId))).status).toBe(200);
    expect(await keyCount(biz.business.id)).toBe(2);
    expect(channel.messages.slice(before).filter((m) => m.to === phone)).toHaveLength(1);
  });

  it('issues nothing to an unknown phone or to a business without API access', async () => {
    const stranger = randomPhoneDigits();
    const before = channel.messages.length;
    expect((await post(messagePayload(stranger, 'API KEY'))).status).toBe(200);
    expect(channel.messages.slice(before)).toEqual([]);

    const phone = randomPhoneDigits();
    const basic = await h.newBusiness({ phone: `+${phone}`, plan: 'basic' });
    expect((await post(messagePayload(phone, 'API KEY'))).status).toBe(200);
    expect(await keyCount(basic.business.id)).toBe(1);
    const replies = channel.messages.slice(before).filter((m) => m.to === phone);
    expect(replies).toHaveLength(1);
    expect(replies[0]?.kind === 'text' && replies[0].text).not.toMatch(/rk_live_/);

    // A contact (not the business) writing from some phone gets nothing either.
    const shop = await h.newBusiness();
    const contactPhone = randomPhoneDigits();
    await newDue(shop, contactPhone);
    expect((await post(messagePayload(contactPhone, 'API KEY'))).status).toBe(200);
    expect(await keyCount(shop.business.id)).toBe(1);
    expect(channel.messages.slice(before).filter((m) => m.to === contactPhone)).toEqual([]);
  });

  it('ignores other messages and payload shapes it does not know', async () => {
    const phone = randomPhoneDigits();
    expect((await post(messagePayload(phone, 'please stop calling me'))).status).toBe(200);
    expect(await isOptedOut(phone)).toBe(false);
    for (const payload of [
      {},
      { entry: 'x' },
      { entry: [{ changes: [{ value: { messages: [{ type: 'image' }] } }] }] },
    ]) {
      expect((await post(payload)).status).toBe(200);
    }
  });

  it('records delivery statuses on the reminder, only moving forward', async () => {
    const biz = await h.newBusiness();
    const due = await newDue(biz, randomPhoneDigits());
    expect(await remind(biz, due.id)).toMatchObject({ sent: true });
    const reminder = await h.store.db
      .selectFrom('reminders')
      .selectAll()
      .where('transaction_id', '=', due.id)
      .where('status', '=', 'sent')
      .executeTakeFirstOrThrow();
    const messageId = reminder.provider_message_id as string;
    const delivery = async () =>
      (
        await h.store.db
          .selectFrom('reminders')
          .select(['delivery_status', 'reason'])
          .where('id', '=', reminder.id)
          .executeTakeFirstOrThrow()
      ).delivery_status;

    expect((await post(statusPayload([{ id: messageId, status: 'sent' }]))).status).toBe(200);
    expect(await delivery()).toBe('sent');
    // "read" can arrive before "delivered": the later "delivered" does not move it back.
    await post(statusPayload([{ id: messageId, status: 'read' }]));
    await post(statusPayload([{ id: messageId, status: 'delivered' }]));
    expect(await delivery()).toBe('read');
    // Statuses of unknown messages are ignored; a bad signature changes nothing.
    expect((await post(statusPayload([{ id: 'wamid.unknown', status: 'delivered' }]))).status).toBe(200);
    const raw = JSON.stringify(statusPayload([{ id: messageId, status: 'failed' }]));
    expect((await post(undefined, { raw, signature: sign(raw, 'wrong') })).status).toBe(401);
    expect(await delivery()).toBe('read');

    const second = await newDue(biz, randomPhoneDigits());
    expect(await remind(biz, second.id)).toMatchObject({ sent: true });
    const secondId = (
      await h.store.db
        .selectFrom('reminders')
        .select('provider_message_id')
        .where('transaction_id', '=', second.id)
        .where('status', '=', 'sent')
        .executeTakeFirstOrThrow()
    ).provider_message_id as string;
    await post(
      statusPayload([{ id: secondId, status: 'failed', errors: [{ code: 131026, title: 'Message undeliverable' }] }]),
    );
    const failed = await h.store.db
      .selectFrom('reminders')
      .select(['status', 'delivery_status', 'reason'])
      .where('provider_message_id', '=', secondId)
      .executeTakeFirstOrThrow();
    expect(failed).toEqual({
      status: 'sent',
      delivery_status: 'failed',
      reason: 'delivery_failed: Message undeliverable',
    });
  });
});
