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
 * receiver with the same concurrency, in the same run, over several alternating rounds. Prints
 * deliveries per second and the median round's ratio (target >= 0.5x). `--quick` for a small run,
 * `--events N` to choose N a round.
 */
const quick = process.argv.includes('--quick');
const eventsArg = process.argv.indexOf('--events');
const EVENTS = eventsArg > 0 ? Number(process.argv[eventsArg + 1]) : quick ? 500 : 5000;
const CONCURRENCY = 64;
const WARMUP = quick ? 300 : 2000;
/** Dispatcher and raw loop alternate (d-r, r-d, ...); the median round's ratio is reported. */
const ROUNDS = quick ? 1 : 5;

async function main() {
  const receiverProcess = await start('bench/receiver.ts', [], {}, '"url"');
  const info = receiverProcess.readyOutput.split('\n')[0] ?? '';
  const { url, caPath } = JSON.parse(info) as { url: string; caPath: string };
  const ca = readFileSync(caPath, 'utf8');

  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-webhooks-'));
  const config = loadConfig({ DATA_DIR: dataDir, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
  // As the worker runs it (bootstrap): WAL checkpoints on their own thread.
  const store = openStore(config, { backgroundCheckpoints: true });
  await migrate(store.db);
  const sender = createHttpSender({ timeoutMs: 10_000, allowPrivateNetworks: true, ca, connections: 16 });
  const services = createServices({ store, clock: systemClock, config, webhookSender: sender });
  try {
    const { business } = await services.businesses.create({ name: 'Webhook Bench', phone: '+91 90000 00009' });
    await services.webhooks.create(business, { url, events: ['transaction.created'] });
    const createEvents = (count: number) =>
      store.db.transaction().execute(async (trx) => {
        for (let i = 0; i < count; i++) {
          await services.transactions.createIn(trx, business, {
            amount_paise: 1000 + i,
            due_date: '2026-12-31',
            contact_name: `Hook Buyer ${i % 200}`,
          });
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
    // The baseline: sign and POST the same bodies, same concurrency, no bookkeeping.
    const secret = 'a'.repeat(64);
    const agent = new Agent({ connections: 16, connect: { ca: [ca] } });
    let bodies: string[] = [];
    const raw = async (count: number) => {
      let next = 0;
      let ok = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < count) {
            const body = bodies[next++ % bodies.length] as string;
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
            if (res.statusCode === 200) ok++;
          }
        }),
      );
      return ok;
    };
    const timed = async (work: () => Promise<number>) => {
      const started = performance.now();
      const done = await work();
      return { done, rate: done / ((performance.now() - started) / 1000) };
    };

    // Warm-up (connections, TLS sessions, JIT) of both sides, then rounds that alternate which
    // side goes first; the median round's ratio is reported (the machine is shared and noisy).
    await createEvents(WARMUP);
    await dispatch();
    bodies = (await store.db.selectFrom('webhook_deliveries').select('body').execute()).map((r) => r.body);
    await raw(WARMUP);
    const rounds: { dispatcher: number; raw: number; ratio: number }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      await createEvents(EVENTS);
      const runDispatcher = () => timed(dispatch);
      const runRaw = () => timed(() => raw(EVENTS));
      const [d, r] =
        round % 2 === 0
          ? [await runDispatcher(), await runRaw()]
          : await (async () => {
              const rr = await runRaw();
              return [await runDispatcher(), rr];
            })();
      if (d.done !== EVENTS) throw new Error(`delivered ${d.done} of ${EVENTS}`);
      if (r.done !== EVENTS) throw new Error(`the raw loop got ${r.done} answers of ${EVENTS}`);
      rounds.push({ dispatcher: d.rate, raw: r.rate, ratio: d.rate / r.rate });
    }
    await agent.close();

    const median = [...rounds].sort((a, b) => a.ratio - b.ratio)[Math.floor(rounds.length / 2)] as (typeof rounds)[0];
    console.log(
      `\nWebhook delivery, ${EVENTS} events a round, ${ROUNDS} rounds, SQLite, ${os.cpus().length} CPUs, Node ${process.version}`,
    );
    console.log(`dispatcher (fan-out + lease + send + durable record): ${median.dispatcher.toFixed(0)} deliveries/s`);
    console.log(`raw undici signed-POST loop:                          ${median.raw.toFixed(0)} requests/s`);
    console.log(
      `ratio ${median.ratio.toFixed(2)}x (target >= 0.5x) ${median.ratio >= 0.5 ? 'ok' : 'MISSED'}  rounds: ${rounds.map((r) => r.ratio.toFixed(3)).join(' ')}`,
    );
    console.log(
      JSON.stringify({
        events: EVENTS,
        rounds: rounds.map((r) => ({ ...r, ratio: Number(r.ratio.toFixed(3)) })),
        ratio: Number(median.ratio.toFixed(3)),
      }),
    );
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
