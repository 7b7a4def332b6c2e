import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StorePace } from '../src/messaging/pace.js';
import { FakeGraphApi } from './helpers/fake-whatsapp.js';
import { type Harness, startHarness, type TestBusiness } from './helpers/harness.js';

/**
 * WHATSAPP_MESSAGES_PER_SECOND: one pace for every business and every process sending through the
 * number, kept in the store; the 10:00 burst leaves at that pace, late but never skipped.
 */

const RATE = 5;
const signal = new AbortController().signal;
let graph: FakeGraphApi;
let h: Harness;

const at = (day: string, hour = 12) => new Date(`${day}T${String(hour).padStart(2, '0')}:00:00+05:30`).toISOString();

beforeAll(async () => {
  graph = new FakeGraphApi();
  const base = `${await graph.start()}/v21.0`;
  h = await startHarness({
    now: at('2030-09-01'),
    env: {
      CHAT_CHANNEL: 'whatsapp',
      WHATSAPP_APP_SECRET: 'pace-test-app-secret',
      WHATSAPP_API_BASE: base,
      WHATSAPP_PHONE_NUMBER_ID: '109876543210',
      WHATSAPP_TOKEN: 'pace-token',
      WHATSAPP_MESSAGES_PER_SECOND: String(RATE),
    },
  });
});
afterAll(async () => {
  await h.close();
  await graph.close();
});

describe('the shared pace', () => {
  it('is one bucket for every process on the store: what one takes, the others do not get', async () => {
    h.clock.set(at('2030-09-01'));
    // Two processes' paces: nothing in common but the store.
    const one = new StorePace({ db: h.store.db, clock: h.clock, perSecond: 80 });
    const two = new StorePace({ db: h.store.db, clock: h.clock, perSecond: 80 });
    // The bucket holds a fifth of the rate and refills at the rest, less 5%: 16 now, 60 a second.
    const [a, b] = await Promise.all([one.take(60), two.take(60)]);
    expect(a.granted + b.granted).toBe(16);
    expect(await one.take(1)).toEqual({ granted: 0, waitMs: 17 });
    h.clock.advance(50);
    expect((await two.take(100)).granted).toBe(3);
    // A send that does not wait is charged even from an empty bucket; the debt is waited out.
    await one.charge(4);
    h.clock.advance(100);
    expect(await two.take(10)).toEqual({ granted: 2, waitMs: 17 });
    await one.refund(3);
    expect((await two.take(10)).granted).toBe(3);
    // However long it was idle, no one-second window gets more than the rate.
    h.clock.advance(60_000);
    let inOneSecond = 0;
    for (let ms = 0; ms < 1000; ms += 10) {
      inOneSecond += (await (ms % 20 === 0 ? one : two).take(100)).granted;
      h.clock.advance(10);
    }
    expect(inOneSecond).toBeLessThanOrEqual(76);
    expect(inOneSecond).toBeGreaterThanOrEqual(75);
  });
});

describe('the 10:00 burst', () => {
  async function dueWithStepAt10(biz: TestBusiness, dueDate = '2030-09-10') {
    const res = await biz.post('/v1/transactions', {
      amount_paise: 10_000,
      due_date: dueDate,
      contact_name: `Burst Buyer ${randomBytes(3).toString('hex')}`,
      contact_phone: `919${String(randomBytes(4).readUInt32BE() % 1e9).padStart(9, '0')}`,
    });
    expect(res.status, res.text).toBe(201);
    return res.body.data as { id: string };
  }

  it('sends every business step at the pace, the held ones late, none skipped', async () => {
    h.clock.set(at('2030-09-01'));
    const businesses = await Promise.all(Array.from({ length: 12 }, () => h.newBusiness()));
    const dues = [];
    for (const biz of businesses) dues.push({ biz, due: await dueWithStepAt10(biz) });
    // 10:00 on 09-07: twelve businesses' first steps fall due at once.
    h.clock.set(at('2030-09-07', 10));
    h.clock.advance(1000);
    graph.requests.length = 0;
    const sentPerSecond: number[] = [];
    for (let second = 0; second < 5; second++) {
      let sent = 0;
      // The scheduler runs as often as it likes (twice every 125 ms here): the pace caps what leaves.
      for (let run = 0; run < 16; run++) {
        sent += (await h.services.reminders.runDueBatch(signal, { limit: 20 })).outcomes.filter(
          (o) => o === 'sent',
        ).length;
        if (run % 2 === 1) h.clock.advance(125);
      }
      sentPerSecond.push(sent);
    }
    // A bucket of 1 refilled at 3 a second (RATE 5, less the margin): never more than 5 in a second,
    // every step sent within 5 seconds.
    expect(sentPerSecond).toEqual([3, 3, 2, 3, 1]);
    expect(graph.requests).toHaveLength(12);
    for (const { biz, due } of dues) {
      const steps = (await biz.get(`/v1/transactions/${due.id}`)).body.data.reminders as { status: string }[];
      expect(steps[0]?.status).toBe('sent');
    }
  });

  it('lets a reminder a person asks for go at once, and the burst waits out what it used', async () => {
    h.clock.set(at('2030-09-01'));
    const businesses = await Promise.all(Array.from({ length: 10 }, () => h.newBusiness()));
    for (const biz of businesses) await dueWithStepAt10(biz);
    const asker = await h.newBusiness();
    const asked = await dueWithStepAt10(asker, '2030-10-10');
    // Later than the burst above: the pace's time never goes back.
    h.clock.set(at('2030-09-07', 11));
    const sent = async () =>
      (await h.services.reminders.runDueBatch(signal, { limit: 20 })).outcomes.filter((o) => o === 'sent').length;
    expect(await sent()).toBe(1);
    expect(await sent()).toBe(0);
    // The bucket is empty, but the owner's reminder from the API goes now.
    graph.requests.length = 0;
    expect((await asker.post(`/v1/transactions/${asked.id}/remind`, {})).body.data.sent).toBe(true);
    expect(graph.requests).toHaveLength(1);
    // The burst waits out the token it used (3 tokens a second at RATE 5): it is repaid first.
    h.clock.advance(400);
    expect(await sent()).toBe(0);
    h.clock.advance(400);
    expect(await sent()).toBe(1);
  });
});
