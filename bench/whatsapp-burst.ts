import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { sql } from 'kysely';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { migrate, openStore } from '../src/db/store.js';
import { systemClock } from '../src/lib/clock.js';
import { createServices } from '../src/services.js';
import { freePort, start, stop } from './lib.js';

/**
 * The 10:00 burst (WhatsApp in production): `--businesses` businesses (default 1,000) whose
 * `--steps` reminder steps (default 10,000; `--businesses 10000 --steps 100000` for the full size)
 * all fall due at the same moment, sent through a fake Cloud API that takes at most `--rate`
 * messages a second (default 80, as WhatsApp does: more in any one second is refused with 130429).
 * The API process answers list reads at a steady `--api-rate` a second (default 200): 15 s before
 * the burst, then 20 s windows from the burst's start and every 4 minutes until the last step left;
 * the p99 of the worst window is compared with the p99 before. SQLite: one process (API and workers); PostgreSQL: an API process and two worker
 * processes sharing the pace. `--store sqlite|postgres|both` (default both).
 *
 * Prints per store: seconds to seed, seconds to send every step, messages/s, the most the fake saw in
 * any one second, how many it refused, recipients messaged twice, every step's status in the store at
 * the end (all `sent`: none skipped), the API's p99 before and in each window during the burst, and
 * the load average (1 minute) at the end of each window.
 */

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const BUSINESSES = Number(arg('--businesses') ?? 1000);
const STEPS = Number(arg('--steps') ?? 10_000);
const RATE = Number(arg('--rate') ?? 80);
const STORES = (arg('--store') ?? 'both') === 'both' ? ['sqlite', 'postgres'] : [arg('--store') as string];
/** Seconds of list reads before the burst, and in each window during it. */
const BEFORE_S = 15;
const DURING_S = 20;
/** A window of reads starts this long after the last one ended, until every step left. */
const DURING_EVERY_MS = 4 * 60_000;
/** Requests a second the API answers before and during the burst. */
const API_RATE = Number(arg('--api-rate') ?? 200);
/** Businesses seeded at once. */
const SEED_CONCURRENCY = 8;
/** The fake's answer takes this long: a network round trip. */
const ANSWER_MS = 15;

/** The fake Cloud API: answers like Meta, refuses past `RATE` in any one second, records every arrival. */
class PacedGraphApi {
  readonly arrivals: number[] = [];
  readonly recipients = new Map<string, number>();
  refused = 0;
  #window: number[] = [];
  #server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const now = Date.now();
      this.#window = this.#window.filter((t) => t > now - 1000);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { to: string };
      setTimeout(() => {
        if (this.#window.length >= RATE) {
          this.refused++;
          res.writeHead(429, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: { code: 130429, message: 'Rate limit hit' } }));
          return;
        }
        this.#window.push(now);
        this.arrivals.push(now);
        this.recipients.set(body.to, (this.recipients.get(body.to) ?? 0) + 1);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            messaging_product: 'whatsapp',
            messages: [{ id: `wamid.${randomBytes(8).toString('hex')}` }],
          }),
        );
      }, ANSWER_MS);
    });
  });

  async start(): Promise<string> {
    this.#server.listen(0, '127.0.0.1');
    await once(this.#server, 'listening');
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/v21.0`;
  }

  close() {
    this.#server.closeAllConnections();
    return new Promise((resolve) => this.#server.close(resolve));
  }

  /** The most arrivals in any one-second window. */
  peakPerSecond(): number {
    let peak = 0;
    let from = 0;
    for (let to = 0; to < this.arrivals.length; to++) {
      while ((this.arrivals[to] as number) - (this.arrivals[from] as number) >= 1000) from++;
      peak = Math.max(peak, to - from + 1);
    }
    return peak;
  }
}

/** A time zone where it is about noon now, so that quiet hours hold nothing back. */
function noonZone(): string {
  let offset = 12 - new Date().getUTCHours();
  if (offset < -12) offset += 24;
  if (offset > 14) offset -= 24;
  return offset >= 0 ? `Etc/GMT-${offset}` : `Etc/GMT+${-offset}`;
}

async function freshPostgres(): Promise<{ url: string; drop: () => Promise<void> }> {
  const admin = 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `receivables_bench_burst_${randomBytes(4).toString('hex')}`;
  const client = new pg.Client({ connectionString: admin });
  await client.connect();
  await client.query(`create database ${name}`);
  await client.end();
  return {
    url: `postgres://postgres@127.0.0.1:5432/${name}`,
    async drop() {
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

/** Businesses, their dues and each due's first step, all due at `at`; returns one business's API key. */
async function seed(env: Record<string, string>, at: Date): Promise<string> {
  const config = loadConfig(env);
  const store = openStore(config);
  await migrate(store.db);
  const services = createServices({ store, clock: systemClock, config });
  const timezone = noonZone();
  const perBusiness = Math.ceil(STEPS / BUSINESSES);
  const needed = Math.min(BUSINESSES, Math.ceil(STEPS / perBusiness));
  const dueDate = new Date(Date.now() + 40 * 86_400_000).toISOString().slice(0, 10);
  let apiKey = '';
  let next = 0;
  let made = 0;
  // A few businesses at once: on PostgreSQL each waits on round trips that the others fill.
  const seeder = async () => {
    for (let b = next++; b < needed; b = next++) {
      const created = await services.businesses.create({
        name: `Burst Business ${b}`,
        phone: `+91 7${String(b).padStart(9, '0')}`,
        timezone,
      });
      if (b === 0) apiKey = created.apiKey;
      const first = b * perBusiness;
      const rows = Array.from({ length: Math.min(perBusiness, STEPS - first) }, (_, i) => ({
        contact_name: `Buyer ${b}-${i}`,
        contact_phone: `+91 9${String(first + i).padStart(9, '0')}`,
        amount_paise: 10_000 + i,
        due_date: dueDate,
      }));
      await services.bulk.importDues(created.business, { rows });
      made += rows.length;
      if (b % 500 === 0) process.stderr.write(`  seeded ${made}/${STEPS} steps\n`);
    }
  };
  try {
    await Promise.all(Array.from({ length: SEED_CONCURRENCY }, seeder));
    // Each due's first step falls due at `at`; the rest of each sequence is out of the way.
    await store.db
      .updateTable('reminders')
      .set({ status: 'cancelled', reason: 'bench' })
      .where('template', '!=', 'reminder_upcoming')
      .where('status', '=', 'scheduled')
      .execute();
    await store.db
      .updateTable('reminders')
      .set({ scheduled_for: at.toISOString() })
      .where('status', '=', 'scheduled')
      .execute();
    const { count } = await store.db
      .selectFrom('reminders')
      .select(sql<number>`count(*)`.as('count'))
      .where('status', '=', 'scheduled')
      .executeTakeFirstOrThrow();
    if (Number(count) !== STEPS) throw new Error(`seeded ${count} steps, wanted ${STEPS}`);
    return apiKey;
  } finally {
    await store.close();
  }
}

/** How many of the seeded steps ended in each status (the bench's reminders are the store's only ones). */
async function statuses(env: Record<string, string>): Promise<Record<string, number>> {
  const store = openStore(loadConfig(env));
  try {
    const rows = await store.db
      .selectFrom('reminders')
      .select(['status', sql<number>`count(*)`.as('count')])
      .where((eb) => eb.or([eb('reason', 'is', null), eb('reason', '!=', 'bench')]))
      .groupBy('status')
      .execute();
    return Object.fromEntries(rows.map((r) => [r.status, Number(r.count)]));
  } finally {
    await store.close();
  }
}

async function p99(url: string, apiKey: string, seconds: number) {
  const result = await autocannon({
    url: `${url}/v1/transactions?limit=20`,
    headers: { 'x-api-key': apiKey },
    connections: 4,
    // A steady load, as the API sees in use: saturating it would measure the machine's spare CPU.
    overallRate: API_RATE,
    duration: seconds,
  });
  if (result.non2xx + result.errors > 0)
    throw new Error(`API answered ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { p99: result.latency.p99, p50: result.latency.p50, rps: Math.round(result.requests.average) };
}

async function runStore(kind: string) {
  const graph = new PacedGraphApi();
  const apiBase = await graph.start();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-burst-'));
  const postgres = kind === 'postgres' ? await freshPostgres() : undefined;
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    DATABASE_URL: postgres?.url ?? '',
    ...(postgres && { ENCRYPTION_KEY: randomBytes(32).toString('hex') }),
    CHAT_CHANNEL: 'whatsapp',
    WHATSAPP_API_BASE: apiBase,
    WHATSAPP_PHONE_NUMBER_ID: '109876543210',
    WHATSAPP_TOKEN: 'bench-token',
    WHATSAPP_APP_SECRET: 'bench-secret',
    WHATSAPP_MESSAGES_PER_SECOND: String(RATE),
    RATE_LIMIT_PER_MINUTE: '100000000',
    AUTH_FAILURES_PER_MINUTE: '100000000',
    LOG_LEVEL: 'info',
  };
  const children = [];
  try {
    process.stderr.write(`${kind}: seeding ${BUSINESSES} businesses, ${STEPS} steps\n`);
    // Out of the way until the processes are up and the "before" reads ran (seeding the full size
    // takes longer than any fixed delay would allow); moved to now below.
    const seedStarted = Date.now();
    const apiKey = await seed(env, new Date(seedStarted + 86_400_000));
    const seedSeconds = Math.round((Date.now() - seedStarted) / 1000);
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const separateWorkers = kind === 'postgres';
    children.push(
      await start(
        'src/server.ts',
        [],
        { ...env, PORT: String(port), WORKERS: separateWorkers ? 'off' : 'on' },
        'API ready',
      ),
    );
    if (separateWorkers) {
      for (let i = 0; i < 2; i++) children.push(await start('src/worker.ts', [], env, 'worker running'));
    }
    const before = await p99(url, apiKey, BEFORE_S);
    // Move the burst to now (the processes are up): the workers find every step due at once.
    const store = openStore(loadConfig(env));
    const t0 = Date.now();
    await store.db
      .updateTable('reminders')
      .set({ scheduled_for: new Date(t0).toISOString() })
      .where('status', '=', 'scheduled')
      .execute();
    await store.close();
    // The API is read during the burst's start (the backlog is claimed) and again every few minutes
    // until the last step left: the worst window is compared with before.
    const deadline = t0 + (STEPS / RATE) * 3000 + 120_000;
    const during: Awaited<ReturnType<typeof p99>>[] = [];
    const loads: number[] = [];
    let nextWindow = t0;
    while (graph.arrivals.length < STEPS && Date.now() < deadline) {
      if (Date.now() >= nextWindow) {
        during.push(await p99(url, apiKey, DURING_S));
        loads.push(Math.round((os.loadavg()[0] as number) * 10) / 10);
        nextWindow = Date.now() + DURING_EVERY_MS;
      } else await new Promise((r) => setTimeout(r, 500));
    }
    const worst = during.reduce((a, b) => (b.p99 > a.p99 ? b : a));
    const sentInStore = await statuses(env);
    const first = graph.arrivals[0] ?? t0;
    // A step the fake refused waits for its retry (a minute or more): the time to 99% shows the pace.
    const at99 = graph.arrivals[Math.ceil(STEPS * 0.99) - 1] ?? graph.arrivals.at(-1) ?? t0;
    const seconds = ((graph.arrivals.at(-1) ?? t0) - first) / 1000;
    const twice = [...graph.recipients.values()].filter((n) => n > 1).length;
    return {
      store: kind,
      steps: STEPS,
      businesses: BUSINESSES,
      seedSeconds,
      sent: graph.arrivals.length,
      distinctRecipients: graph.recipients.size,
      // every seeded step's status in the store at the end: all 'sent' when none was skipped
      reminders: sentInStore,
      // the worker's idle pause when the steps came due
      firstAfterSeconds: Math.round((first - t0) / 100) / 10,
      seconds: Math.round(seconds * 10) / 10,
      secondsTo99: Math.round(((at99 - first) / 1000) * 10) / 10,
      messagesPerSecond: Math.round((Math.ceil(STEPS * 0.99) / Math.max((at99 - first) / 1000, 0.001)) * 10) / 10,
      peakInOneSecond: graph.peakPerSecond(),
      refusedByRate: graph.refused,
      sentTwice: twice,
      apiBefore: before,
      apiDuringWorst: worst,
      apiDuringP99s: during.map((d) => d.p99),
      loadAverages: loads,
      p99Ratio: Math.round((worst.p99 / Math.max(before.p99, 1)) * 100) / 100,
    };
  } finally {
    for (const child of children.reverse()) await stop(child);
    await graph.close();
    await postgres?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main() {
  for (const kind of STORES) process.stdout.write(`${JSON.stringify(await runStore(kind))}\n`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
