import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Agent, request } from 'undici';
import { loadConfig } from '../src/config.js';
import { migrate, openStore } from '../src/db/store.js';
import { systemClock } from '../src/lib/clock.js';
import { createServices } from '../src/services.js';
import { createHttpSender } from '../src/webhooks/sender.js';
import { start, stop } from './lib.js';

/**
 * `npm run bench:webhooks` (issue 3): N outbox events fanned out and delivered by the real
 * dispatcher (SQLite, synchronous=FULL: every attempt recorded durably) to a local HTTPS
 * receiver, against a raw undici loop that signs and POSTs the same number of bodies to the same
 * receiver with the same concurrency, in the same run. Prints deliveries per second and the ratio
 * (target >= 0.5x). `--quick` for a small run, `--events N` to choose N.
 */
const quick = process.argv.includes('--quick');
const eventsArg = process.argv.indexOf('--events');
const EVENTS = eventsArg > 0 ? Number(process.argv[eventsArg + 1]) : quick ? 500 : 5000;
const CONCURRENCY = 64;
const WARMUP = 300;

async function main() {
  const receiverProcess = await start('bench/receiver.ts', [], {}, '"url"');
  const info = receiverProcess.readyOutput.split('\n')[0] ?? '';
  const { url, caPath } = JSON.parse(info) as { url: string; caPath: string };
  const ca = readFileSync(caPath, 'utf8');

  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-webhooks-'));
  const config = loadConfig({ DATA_DIR: dataDir, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
  const store = openStore(config);
  await migrate(store.db);
  const sender = createHttpSender({ timeoutMs: 10_000, allowPrivateNetworks: true, ca, connections: 16 });
  const services = createServices({ store, clock: systemClock, config, webhookSender: sender });
  try {
    const { business } = await services.businesses.create({ name: 'Webhook Bench', phone: '+91 90000 00009' });
    await services.webhooks.create(business, { url, events: ['transaction.created'] });
    const createEvents = (count: number) =>
      store.db.transaction().execute(async (trx) => {
        for (let i = 0; i < count; i++) {
          await services.transactions.create(
            business,
            { amount_paise: 1000 + i, due_date: '2026-12-31', contact_name: `Hook Buyer ${i % 200}` },
            trx,
          );
        }
      });
    const dispatch = async () => {
      let delivered = 0;
      await services.webhookDispatcher.run(new AbortController().signal, {
        concurrency: CONCURRENCY,
        onOutcome: (o) => {
          if (o === 'delivered') delivered++;
        },
      });
      return delivered;
    };
    // Warm-up (connections, TLS sessions, JIT), then the measured run.
    await createEvents(WARMUP);
    await dispatch();
    await createEvents(EVENTS);
    const dispatcherStarted = performance.now();
    const delivered = await dispatch();
    const dispatcherSeconds = (performance.now() - dispatcherStarted) / 1000;
    if (delivered !== EVENTS) throw new Error(`delivered ${delivered} of ${EVENTS}`);

    // The baseline: sign and POST the same bodies, same concurrency, no bookkeeping.
    const bodies = await store.db.selectFrom('webhook_deliveries').select('body').execute();
    const secret = 'a'.repeat(64);
    const agent = new Agent({ connections: 16, connect: { ca: [ca] } });
    let next = 0;
    let rawOk = 0;
    const raw = (count: number) =>
      Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < count) {
            const body = (bodies[next++ % bodies.length] as { body: string }).body;
            const res = await request(url, {
              dispatcher: agent,
              method: 'POST',
              headers: {
                'content-type': 'application/json',
                'x-service-signature': createHmac('sha256', secret).update(body).digest('hex'),
              },
              body,
            });
            await res.body.dump();
            if (res.statusCode === 200) rawOk++;
          }
        }),
      );
    await raw(WARMUP);
    next = 0;
    rawOk = 0;
    const rawStarted = performance.now();
    await raw(EVENTS);
    const rawSeconds = (performance.now() - rawStarted) / 1000;
    await agent.close();

    const dispatcherRate = EVENTS / dispatcherSeconds;
    const rawRate = rawOk / rawSeconds;
    const ratio = dispatcherRate / rawRate;
    console.log(`\nWebhook delivery, ${EVENTS} events, SQLite, ${os.cpus().length} CPUs, Node ${process.version}`);
    console.log(`dispatcher (fan-out + lease + send + durable record): ${dispatcherRate.toFixed(0)} deliveries/s`);
    console.log(`raw undici signed-POST loop:                          ${rawRate.toFixed(0)} requests/s`);
    console.log(`ratio ${ratio.toFixed(2)}x (target >= 0.5x) ${ratio >= 0.5 ? 'ok' : 'MISSED'}`);
    console.log(JSON.stringify({ events: EVENTS, dispatcherRate, rawRate, ratio: Number(ratio.toFixed(3)) }));
  } finally {
    await services.webhookSender.close();
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
    await stop(receiverProcess);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
