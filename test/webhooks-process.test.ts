import type { ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { once } from 'node:events';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, STORE, startHarness, type TestBusiness } from './helpers/harness.js';
import { type HttpsReceiver, startHttpsReceiver } from './helpers/https-receiver.js';
import { startScript, storeEnv } from './helpers/processes.js';

/**
 * Durability across real processes: `src/worker.ts` children (system clock) deliver to a local
 * HTTPS receiver trusted through NODE_EXTRA_CA_CERTS. A worker killed mid-delivery loses nothing;
 * SIGTERM finishes the attempt in flight; on PostgreSQL two workers share the queue and send each
 * event once.
 */

let receiver: HttpsReceiver;
let h: Harness;
const children: ChildProcess[] = [];

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  h = await startHarness({ config: { webhookAllowPrivateNetworks: true } });
});
afterEach(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await once(child, 'exit');
    }
  }
  receiver.requests.length = 0;
  receiver.respond(() => 200);
});
afterAll(async () => {
  await h?.close();
  await receiver?.close();
});

function startWorker(name: string): { child: ChildProcess; ready: Promise<void> } {
  const child = startScript('src/worker.ts', {
    ...storeEnv(h),
    NODE_EXTRA_CA_CERTS: receiver.caPath,
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    // the lease of a claimed delivery is this plus max(5 s, this): a killed worker's lease ends soon
    WEBHOOK_TIMEOUT_MS: '1000',
    LOG_LEVEL: 'info',
  });
  children.push(child);
  let output = '';
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('worker running')) resolve();
    });
    child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(`[${name}] ${chunk}`));
    child.on('exit', (code, signal) => reject(new Error(`${name} exited (${code ?? signal}) before it was ready`)));
  });
  return { child, ready };
}

async function setup(events = ['transaction.created']) {
  const biz = await h.newBusiness();
  const res = await biz.post('/v1/webhooks', { url: receiver.url, events });
  expect(res.status).toBe(201);
  return { biz, endpoint: res.body.data as { id: string; secret: string } };
}

async function createDue(biz: TestBusiness, name: string) {
  const res = await biz.post('/v1/transactions', { amount_paise: 2500, due_date: '2026-12-01', contact_name: name });
  expect(res.status).toBe(201);
}

async function waitForStatus(biz: TestBusiness, endpointId: string, status: string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [log] = (await biz.get(`/v1/webhooks/${endpointId}/deliveries`)).body.data;
    if (log?.status === status) return log;
    if (Date.now() > deadline) throw new Error(`delivery not ${status}: ${JSON.stringify(log)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('a worker process', () => {
  it('killed (SIGKILL) mid-delivery: after a restart the event still arrives', { timeout: 90_000 }, async () => {
    const { biz, endpoint } = await setup();
    receiver.respond('hang');
    await createDue(biz, 'Killed Mid Send');

    const first = startWorker('worker-1');
    await first.ready;
    const [inFlight] = await receiver.waitFor(1, 30_000);
    first.child.kill('SIGKILL');
    await once(first.child, 'exit');

    receiver.respond(() => 200);
    const second = startWorker('worker-2');
    await second.ready;
    const requests = await receiver.waitFor(2, 40_000);
    const again = requests[1];
    expect(again?.headers['x-service-event-id']).toBe(inFlight?.headers['x-service-event-id']);
    expect(again?.headers['x-service-delivery-id']).toBe(inFlight?.headers['x-service-delivery-id']);
    expect(again?.body).toBe(inFlight?.body);
    const signature = createHmac('sha256', endpoint.secret)
      .update(again?.body ?? '')
      .digest('hex');
    expect(again?.headers['x-service-signature']).toBe(signature);
    const log = await waitForStatus(biz, endpoint.id, 'delivered');
    expect(log.attempts).toBe(1);
  });

  it('asked to stop (SIGTERM) finishes the attempt in flight, records it and exits 0', {
    timeout: 60_000,
  }, async () => {
    const { biz, endpoint } = await setup();
    // answered well within WEBHOOK_TIMEOUT_MS (1000), but slowly enough to be in flight at SIGTERM
    receiver.respond(() => ({ status: 200, delayMs: 700 }));
    const worker = startWorker('worker-term');
    await worker.ready;
    await createDue(biz, 'Graceful Stop');
    await receiver.waitFor(1, 30_000);
    worker.child.kill('SIGTERM');
    const [code] = (await once(worker.child, 'exit')) as [number | null];
    expect(code).toBe(0);
    const [log] = (await biz.get(`/v1/webhooks/${endpoint.id}/deliveries`)).body.data;
    expect(log).toMatchObject({ status: 'delivered', attempts: 1, response_status: 200 });
  });
});

describe.skipIf(STORE !== 'postgres')('two worker processes on one PostgreSQL', () => {
  it('send each event to each endpoint exactly once', { timeout: 90_000 }, async () => {
    const EVENTS = 40;
    const { biz, endpoint } = await setup();
    receiver.respond(() => ({ status: 200, delayMs: 20 }));
    const workers = [startWorker('pg-worker-1'), startWorker('pg-worker-2')];
    await Promise.all(workers.map((w) => w.ready));
    await Promise.all(Array.from({ length: EVENTS }, (_, i) => createDue(biz, `Shared Queue ${i}`)));
    await receiver.waitFor(EVENTS, 40_000);
    // Stop both workers (SIGTERM: each finishes what it holds, then exits): a duplicate, if there
    // were one, has been sent by the time both have exited, and nothing can be sent after.
    await Promise.all(
      workers.map(async ({ child }) => {
        const exited = once(child, 'exit');
        child.kill('SIGTERM');
        await exited;
      }),
    );
    expect(receiver.requests).toHaveLength(EVENTS);
    expect(new Set(receiver.requests.map((r) => r.headers['x-service-event-id'])).size).toBe(EVENTS);
    const page = (await biz.get(`/v1/webhooks/${endpoint.id}/deliveries?limit=100`)).body;
    expect(page.total).toBe(EVENTS);
    expect(
      page.data.every((d: { status: string; attempts: number }) => d.status === 'delivered' && d.attempts === 1),
    ).toBe(true);
  });
});
