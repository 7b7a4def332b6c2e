import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsOf, newDue } from './helpers/dues.js';
import { type FakeRazorpay, razorpayEnv, startFakeRazorpay } from './helpers/fake-razorpay.js';
import { type Harness, startHarness } from './helpers/harness.js';
import { startServerProcess, storeEnv } from './helpers/processes.js';

/**
 * The gateway webhook across real server processes sharing one store (PRODUCT part 11): the same
 * payment_link.paid arriving at two processes at once records one payment.
 */

let fake: FakeRazorpay;
let h: Harness;
const children: ChildProcess[] = [];

beforeAll(async () => {
  fake = await startFakeRazorpay();
  h = await startHarness();
});
afterAll(async () => {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
  }
  await h?.close();
  await fake?.close();
});

describe('the Razorpay webhook at two processes', () => {
  it('records each payment once when both processes receive it at the same moment', async () => {
    const env = { ...storeEnv(h), ...razorpayEnv(fake), WORKERS: 'off', LOG_LEVEL: 'warn' };
    const [a, b] = await Promise.all([startServerProcess(env), startServerProcess(env)]);
    if (!a || !b) throw new Error('servers did not start');
    children.push(a.child, b.child);

    const biz = await h.newBusiness();
    const due = await newDue(biz, { amount_paise: 9000, contact_phone: '+91 98765 43210' });
    // The server's own wiring (PAYMENTS_GATEWAY from the environment) makes the link.
    const online = await fetch(`${a.base}${new URL(due.pay_page_url).pathname}/online`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
      redirect: 'manual',
    });
    expect(online.status).toBe(303);
    const link = fake.links.find((l) => l.short_url === online.headers.get('location'));
    if (!link) throw new Error('no link was created');

    for (const [round, paymentId] of ['pay_TwoProcs0001', 'pay_TwoProcs0002', 'pay_TwoProcs0003'].entries()) {
      const webhook = fake.paidWebhook(link, { id: paymentId, amount: 3000 });
      const answers = await Promise.all([a.base, b.base, a.base, b.base].map((base) => fake.deliver(base, webhook)));
      expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200]);
      const payments = (await biz.get(`/v1/transactions/${due.id}/payments`)).body.data;
      expect(payments.map((p: { utr: string }) => p.utr)).toHaveLength(round + 1);
    }
    const read = (await biz.get(`/v1/transactions/${due.id}`)).body.data;
    expect(read).toMatchObject({ status: 'paid', amount_paid_paise: 9000, balance_paise: 0 });
    expect(await eventsOf(h, biz.business.id, 'payment.received')).toHaveLength(3);
    expect(await eventsOf(h, biz.business.id, 'transaction.paid')).toHaveLength(1);
    // The gateway's secrets never reach the logs.
    const logs = [...a.logs, ...b.logs].join('');
    expect(logs).not.toContain(fake.keySecret);
    expect(logs).not.toContain(fake.webhookSecret);
  }, 90_000);
});
