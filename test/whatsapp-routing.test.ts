import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeGraphApi } from './helpers/fake-whatsapp.js';
import { type Harness, startHarness, type TestBusiness } from './helpers/harness.js';
import { replyToWhatsApp } from './helpers/whatsapp-inbound.js';

/**
 * A buyer who is a contact of several businesses: each reply reaches the one business it is meant
 * for (the one whose message it answers, else the one that wrote to the phone last), never another.
 */

const APP_SECRET = 'routing-test-app-secret';
const signal = new AbortController().signal;
let graph: FakeGraphApi;
let h: Harness;

/** 12:00 in Kolkata on a day of June 2030. */
const at = (day: string, hour = 12) => new Date(`${day}T${String(hour).padStart(2, '0')}:00:00+05:30`).toISOString();

beforeAll(async () => {
  graph = new FakeGraphApi();
  const base = `${await graph.start()}/v21.0`;
  h = await startHarness({
    now: at('2030-06-03'),
    env: {
      CHAT_CHANNEL: 'whatsapp',
      WHATSAPP_APP_SECRET: APP_SECRET,
      WHATSAPP_API_BASE: base,
      WHATSAPP_PHONE_NUMBER_ID: '109876543210',
      WHATSAPP_TOKEN: 'routing-token',
    },
  });
});
afterAll(async () => {
  await h.close();
  await graph.close();
});

function freshPhone(): string {
  return `919${String(randomBytes(4).readUInt32BE() % 1e9).padStart(9, '0')}`;
}

async function dueFor(biz: TestBusiness, phone: string, dueDate = '2030-06-20') {
  const res = await biz.post('/v1/transactions', {
    amount_paise: 50_000,
    due_date: dueDate,
    contact_name: `Routed Buyer ${randomBytes(3).toString('hex')}`,
    contact_phone: phone,
  });
  expect(res.status, res.text).toBe(201);
  return res.body.data as { id: string; contact_id: string };
}

/** Reminds the due now; returns the wamid WhatsApp gave the message. */
async function remind(biz: TestBusiness, dueId: string): Promise<string> {
  const res = await biz.post(`/v1/transactions/${dueId}/remind`, {});
  expect(res.body.data, res.text).toMatchObject({ sent: true });
  const id = graph.requests.at(-1)?.messageId;
  expect(id).toBeDefined();
  return id as string;
}

async function repliesOf(biz: TestBusiness, contactId: string): Promise<string[]> {
  const res = await biz.get(`/v1/contacts/${contactId}/replies`);
  expect(res.status, res.text).toBe(200);
  return (res.body.data as { text: string }[]).map((r) => r.text);
}

async function promiseOf(biz: TestBusiness, dueId: string) {
  const res = await biz.get(`/v1/transactions/${dueId}`);
  expect(res.status).toBe(200);
  return res.body.data.promise as { date: string } | null;
}

describe('replies from a buyer of several businesses', () => {
  it("go to the business whose message they answer, and a promise holds only that business's reminders", async () => {
    h.clock.set(at('2030-06-03'));
    const phone = freshPhone();
    const [a, b] = [await h.newBusiness(), await h.newBusiness()];
    const dueA = await dueFor(a, phone);
    const dueB = await dueFor(b, phone);
    const wamidA = await remind(a, dueA.id);
    h.clock.advance(60_000);
    await remind(b, dueB.id);

    // B wrote last, but the reply answers A's message: A's alone.
    h.clock.advance(60_000);
    await replyToWhatsApp(h, APP_SECRET, phone, 'paisa 25/6 ko dunga', wamidA);
    expect(await repliesOf(a, dueA.contact_id)).toEqual(['paisa 25/6 ko dunga']);
    expect(await repliesOf(b, dueB.contact_id)).toEqual([]);
    expect((await promiseOf(a, dueA.id))?.date).toBe('2030-06-25');
    expect(await promiseOf(b, dueB.id)).toBeNull();

    // The 06-17 step: A's is held by the promise (past its next step: skipped), B's goes out.
    h.clock.set(at('2030-06-17', 10));
    for (const biz of [a, b]) await h.services.reminders.runDue(signal, { businessId: biz.business.id });
    const upcoming = async (biz: TestBusiness, id: string) =>
      (
        (await biz.get(`/v1/transactions/${id}`)).body.data.reminders as {
          template: string;
          status: string;
          reason: string;
        }[]
      )
        .filter((s) => s.template === 'reminder_upcoming')
        .at(-1);
    expect(await upcoming(a, dueA.id)).toMatchObject({ status: 'skipped', reason: 'promised' });
    expect(await upcoming(b, dueB.id)).toMatchObject({ status: 'sent', reason: null });
  });

  it('go to the business that messaged the phone last when they answer no message of ours', async () => {
    h.clock.set(at('2030-06-04'));
    const phone = freshPhone();
    const [a, b] = [await h.newBusiness(), await h.newBusiness()];
    const dueA = await dueFor(a, phone);
    const dueB = await dueFor(b, phone);
    await remind(a, dueA.id);
    h.clock.advance(60_000);
    await remind(b, dueB.id);
    await replyToWhatsApp(h, APP_SECRET, phone, 'UTR 412345678901 bheja');
    expect(await repliesOf(b, dueB.contact_id)).toEqual(['UTR 412345678901 bheja']);
    expect(await repliesOf(a, dueA.contact_id)).toEqual([]);

    h.clock.advance(25 * 60 * 60_000);
    await remind(a, dueA.id);
    await replyToWhatsApp(h, APP_SECRET, phone, 'ok ji');
    expect(await repliesOf(a, dueA.contact_id)).toEqual(['ok ji']);
    expect(await repliesOf(b, dueB.contact_id)).toEqual(['UTR 412345678901 bheja']);
  });

  it('reach no business when several have the phone and none wrote to it, and the only one otherwise', async () => {
    h.clock.set(at('2030-06-05'));
    const [a, b] = [await h.newBusiness(), await h.newBusiness()];
    const shared = freshPhone();
    const dueA = await dueFor(a, shared);
    const dueB = await dueFor(b, shared);
    await replyToWhatsApp(h, APP_SECRET, shared, 'kal dunga');
    expect(await repliesOf(a, dueA.contact_id)).toEqual([]);
    expect(await repliesOf(b, dueB.contact_id)).toEqual([]);
    expect(await promiseOf(a, dueA.id)).toBeNull();
    expect(await promiseOf(b, dueB.id)).toBeNull();

    const own = freshPhone();
    const dueOwn = await dueFor(a, own);
    await replyToWhatsApp(h, APP_SECRET, own, 'kal dunga');
    expect(await repliesOf(a, dueOwn.contact_id)).toEqual(['kal dunga']);
    expect((await promiseOf(a, dueOwn.id))?.date).toBe('2030-06-06');
  });

  it("ignores a context.id that names another phone's message", async () => {
    h.clock.set(at('2030-06-06'));
    const [a, b] = [await h.newBusiness(), await h.newBusiness()];
    const phone = freshPhone();
    const dueA = await dueFor(a, phone);
    const dueB = await dueFor(b, phone);
    const other = await dueFor(a, freshPhone());
    const wamidOther = await remind(a, other.id);
    await remind(b, dueB.id);
    await replyToWhatsApp(h, APP_SECRET, phone, 'theek hai', wamidOther);
    expect(await repliesOf(b, dueB.contact_id)).toEqual(['theek hai']);
    expect(await repliesOf(a, dueA.contact_id)).toEqual([]);
    expect(await repliesOf(a, other.contact_id)).toEqual([]);
  });

  it("takes a business owner's answer to another business's reminder as a reply, not a command", async () => {
    h.clock.set(at('2030-06-07'));
    const owner = await h.newBusiness();
    const ownerPhone = owner.business.phone as string;
    const seller = await h.newBusiness();
    const due = await dueFor(seller, ownerPhone);
    const wamid = await remind(seller, due.id);
    graph.requests.length = 0;
    await replyToWhatsApp(h, APP_SECRET, ownerPhone, 'dues', wamid);
    expect(await repliesOf(seller, due.contact_id)).toEqual(['dues']);
    expect(graph.requests).toEqual([]);
    // Not answering a buyer's message, it is the owner's command as before.
    await replyToWhatsApp(h, APP_SECRET, ownerPhone, 'dues');
    expect(graph.requests.map((r) => [r.body.to, r.body.type])).toEqual([[ownerPhone, 'text']]);
    expect(await repliesOf(seller, due.contact_id)).toEqual(['dues']);
  });
});
