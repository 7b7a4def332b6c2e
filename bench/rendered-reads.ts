import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import pino from 'pino';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { migrate, openStore } from '../src/db/store.js';
import { createMetrics } from '../src/http/metrics.js';
import { systemClock } from '../src/lib/clock.js';
import { MemoryRateLimitStore } from '../src/rate-limit/memory.js';
import { createServices } from '../src/services.js';
import { freePort, measure, start, stop } from './lib.js';

/**
 * Rendered list pages on PostgreSQL: one business with 100 dues, `GET /v1/transactions?limit=50`
 * with `--concurrency C` (10) at once; every answer is the rendered page, whose only statement is
 * the business's data version. A throw-away database on `--postgres URL` (default the local
 * server). Two ways, each printing the server's CPU time per request and requests/s:
 * - default: the server in a process of its own (`--serve`) on a socket, loaded by autocannon for
 *   `--seconds S` (5) after 2 s of warm-up; the CPU is the server process's (/proc);
 * - `--inject`: in-process through Fastify's inject (no sockets, no HTTP parsing), `--requests N`
 *   (5,000) after 500 of warm-up; the CPU is this process's.
 */
const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const REQUESTS = Number(arg('--requests') ?? 5000);
const CONCURRENCY = Number(arg('--concurrency') ?? 10);
const SERVER = arg('--postgres') ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const SECONDS = Number(arg('--seconds') ?? 5);
const PAGE = '/v1/transactions?limit=50';

/** Loads a `--serve` child over HTTP and measures its CPU per request. */
async function overHttp() {
  const port = await freePort();
  const child = await start('bench/rendered-reads.ts', ['--serve', String(port), '--postgres', SERVER], {}, 'ready ');
  try {
    const apiKey = (child.readyOutput.match(/ready (\S+)/) as RegExpMatchArray)[1] as string;
    const load = {
      url: `http://127.0.0.1:${port}${PAGE}`,
      headers: { 'x-api-key': apiKey },
      connections: CONCURRENCY,
      pid: child.pid,
    };
    await measure({ ...load, seconds: 2 });
    const { rps, cpuUs, errors } = await measure({ ...load, seconds: SECONDS });
    if (errors > 0) throw new Error(`${errors} requests failed`);
    process.stdout.write(
      `${JSON.stringify({ cpuUsPerRequest: Math.round(cpuUs), requestsPerSecond: Math.round(rps) })}\n`,
    );
  } finally {
    await stop(child);
  }
}

async function main() {
  if (!process.argv.includes('--inject') && !process.argv.includes('--serve')) return overHttp();
  const name = `bench_rendered_${process.pid}_${randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: SERVER });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(SERVER);
  url.pathname = `/${name}`;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-rendered-'));
  const config = loadConfig(
    { RATE_LIMIT_PER_MINUTE: '100000000', ENCRYPTION_KEY: randomBytes(32).toString('hex') },
    { dataDir, databaseUrl: url.toString() },
  );
  const store = openStore(config);
  try {
    await migrate(store.db);
    const services = createServices({ store, clock: systemClock, config });
    const app = await buildApp(
      {
        config,
        store,
        clock: systemClock,
        services,
        rateLimits: new MemoryRateLimitStore(systemClock),
        metrics: createMetrics(),
      },
      pino({ level: 'silent' }),
    );
    await app.ready();
    const { business, apiKey } = await services.businesses.create({ name: 'Rendered', phone: '+91 90000 00023' });
    for (let i = 0; i < 100; i++) {
      await services.transactions.create(business, {
        contact_name: `Buyer ${i % 10}`,
        amount_paise: 10_000 + i,
        due_date: '2030-01-01',
      } as never);
    }
    const serving = arg('--serve');
    if (serving !== undefined) {
      await app.listen({ port: Number(serving), host: '127.0.0.1' });
      process.stdout.write(`ready ${apiKey}\n`);
      await new Promise<void>((resolve) => process.once('SIGTERM', () => resolve()));
      await app.close();
      return;
    }
    const run = async (n: number) => {
      let next = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < n) {
            next++;
            const res = await app.inject({
              method: 'GET',
              url: '/v1/transactions?limit=50',
              headers: { 'x-api-key': apiKey },
            });
            if (res.statusCode !== 200) throw new Error(`answered ${res.statusCode}`);
          }
        }),
      );
    };
    await run(500);
    const cpu = process.cpuUsage();
    const start = performance.now();
    await run(REQUESTS);
    const seconds = (performance.now() - start) / 1000;
    const used = process.cpuUsage(cpu);
    process.stdout.write(
      `${JSON.stringify({ cpuUsPerRequest: Math.round((used.user + used.system) / REQUESTS), requestsPerSecond: Math.round(REQUESTS / seconds) })}\n`,
    );
    await app.close();
  } finally {
    await store.close();
    rmSync(dataDir, { recursive: true, force: true });
    await admin.query(`drop database ${name} with (force)`);
    await admin.end();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
