import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OUTBOX_CHANNEL } from '../src/outbox/signal.js';
import {
  createBusinessWithKey,
  createContact,
  metricValue,
  type ServerProcess,
  startLoad,
  startServerProcess,
} from './helpers/fault-server.js';
import { STORE, TEST_ENCRYPTION_KEY } from './helpers/harness.js';
import { type HttpsReceiver, startHttpsReceiver } from './helpers/https-receiver.js';
import { startThrowawayPostgres, type ThrowawayPostgres, waitUntil } from './helpers/throwaway-servers.js';

/**
 * Issue 25: the real server (`npm start`, workers in process) on a PostgreSQL cluster of its own,
 * under a steady stream of creates, while that cluster is restarted (fast: sessions end with
 * 57P01) and crashed (immediate: recovery at the next start). The process stays up, answers only
 * 201 or 503 + Retry-After (never 500, never a refused connection), /readyz follows the store,
 * the outage is logged and counted once, writes and LISTEN come back by themselves, and every
 * acknowledged write is in the database with its webhook event delivered, one delivery each.
 */
describe.skipIf(STORE !== 'postgres')('the API when PostgreSQL goes away', () => {
  let cluster: ThrowawayPostgres;
  let receiver: HttpsReceiver;
  let server: ServerProcess | undefined;
  let worker: ServerProcess | undefined;
  let dataDir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    cluster = await startThrowawayPostgres();
    const admin = new pg.Client({ connectionString: cluster.url() });
    await admin.connect();
    await admin.query('create database receivables');
    await admin.end();
    receiver = await startHttpsReceiver();
    dataDir = mkdtempSync(path.join(tmpdir(), 'fault-pg-server-'));
    env = {
      DATABASE_URL: cluster.url('receivables'),
      ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      DATA_DIR: dataDir,
      REDIS_URL: '',
      WORKERS: 'true',
      LOG_LEVEL: 'info',
      RATE_LIMIT_PER_MINUTE: '100000000',
      NODE_EXTRA_CA_CERTS: receiver.caPath,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_TIMEOUT_MS: '1000',
    };
  }, 120_000);

  afterAll(async () => {
    await server?.kill();
    await worker?.kill();
    await receiver?.close();
    await cluster?.destroy();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  /** Reads the throw-away database directly (not through the API under test). */
  async function query<T extends pg.QueryResultRow>(text: string, values: unknown[] = []): Promise<T[]> {
    const client = new pg.Client({ connectionString: cluster.url('receivables') });
    await client.connect();
    try {
      return (await client.query<T>(text, values)).rows;
    } finally {
      await client.end();
    }
  }

  /** Until both dispatchers (the server's, the worker's) LISTEN on the outbox channel. */
  function bothListening() {
    return waitUntil('both dispatchers to LISTEN', async () => {
      const rows = await query<{ n: number }>(
        "select count(*)::int as n from pg_stat_activity where query = $1 and datname = 'receivables'",
        [`LISTEN ${OUTBOX_CHANNEL}`],
      );
      return (rows[0]?.n ?? 0) >= 2 ? true : undefined;
    });
  }

  it('restarted and crashed mid-traffic: 503s only, recovery, nothing lost or doubled', {
    timeout: 240_000,
  }, async () => {
    server = await startServerProcess(env);
    // beside the in-process workers, `npm run worker`: the two share the webhook queue
    worker = await startServerProcess(env, 'src/worker.ts');
    const processes = [server, worker];
    const alive = () => {
      for (const p of processes) p.assertAlive();
    };
    const { base } = server;
    const apiKey = await createBusinessWithKey(env);
    const hook = await fetch(`${base}/v1/webhooks`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ url: receiver.url, events: ['contact.created'] }),
    });
    expect(hook.status).toBe(201);

    const load = startLoad(base, apiKey);
    try {
      for (const mode of ['fast', 'immediate'] as const) {
        const before = load.acknowledged().length;
        await waitUntil('20 more acknowledged writes', async () => {
          alive();
          return load.acknowledged().length >= before + 20 ? true : undefined;
        });
        // Both processes' LISTEN back in place first (after the first outage it returns with
        // back-off): the stop then ends a connection the worker holds, so it notices the outage
        // whether or not one of its jobs happens to query during it.
        await bothListening();
        await cluster.stop(mode);
        const unavailableBefore = load.count(503);
        await waitUntil(`503s from the API after a ${mode} stop`, async () => {
          alive();
          return load.count(503) >= unavailableBefore + 5 ? true : undefined;
        });
        const ready = await fetch(`${base}/readyz`);
        expect(ready.status).toBe(503);
        expect(ready.headers.get('retry-after')).toMatch(/^\d+$/);
        expect((await fetch(`${base}/healthz`)).status).toBe(200);
        expect(await metricValue(base, 'store_up')).toBe(0);
        const legacy = await fetch(`${base}/legacy/v1/contacts`, { headers: { 'x-api-key': apiKey } });
        expect(legacy.status).toBe(503);
        expect(legacy.headers.get('retry-after')).toMatch(/^\d+$/);
        expect(await legacy.json()).toEqual({ error: expect.any(String) });
        alive();

        await cluster.start();
        const atRestart = load.acknowledged().length;
        await waitUntil(`writes acknowledged again after the ${mode} restart`, async () => {
          alive();
          return load.acknowledged().length > atRestart + 5 ? true : undefined;
        });
        expect((await fetch(`${base}/readyz`)).status).toBe(200);
      }
    } finally {
      await load.stop();
    }

    alive();
    // Only created or "unavailable, retry": no 500, no refused or reset connection.
    const unexpected = load.answers.filter((a) => a.status !== 201 && a.status !== 503);
    expect(unexpected).toEqual([]);
    const unavailable = load.answers.filter((a) => a.status === 503);
    expect(unavailable.length).toBeGreaterThanOrEqual(10);
    expect(unavailable.every((a) => a.code === 'unavailable' && /^\d+$/.test(a.retryAfter ?? ''))).toBe(true);

    // Every acknowledged write is there (a 503 may still have committed: then it is there too).
    const acknowledged = load.acknowledged();
    const stored = new Set(
      (await query<{ id: string }>('select id from contacts where id = any($1)', [acknowledged])).map((r) => r.id),
    );
    expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);

    // A request answered 503 is safe to retry with its Idempotency-Key: it either runs now or
    // replays what had committed; either way each name ends up exactly once.
    for (const failed of unavailable) {
      const retried = await createContact(base, apiKey, failed.name, failed.key);
      expect(retried.status, JSON.stringify(retried)).toBe(201);
    }
    const names = await query<{ name: string; n: number }>(
      'select name, count(*)::int as n from contacts group by name',
    );
    expect(names.filter((r) => r.n !== 1)).toEqual([]);
    expect(names.length).toBe(load.answers.length);

    // One outage each, logged once with its cause and counted once, however many requests met it.
    await waitUntil('store_up back to 1', async () => ((await metricValue(base, 'store_up')) === 1 ? true : undefined));
    expect(await metricValue(base, 'store_outages_total')).toBe(2);
    const down = server.logged('database unreachable: requests answer 503 until it is back');
    expect(down).toHaveLength(2);
    expect(down.every((entry) => entry.err !== undefined)).toBe(true);
    const back = server.logged('database reachable again');
    expect(back).toHaveLength(2);
    expect(back.every((entry) => typeof entry.downForMs === 'number')).toBe(true);
    expect(server.logged('request failed')).toEqual([]);
    // the worker process lived through both outages too, and noticed each once
    await waitUntil('the worker to see the database back', async () =>
      worker?.logged('database reachable again').length === 2 ? true : undefined,
    ).catch((error: Error) => {
      // what the worker did see of the outages, to tell a missed outage from a slow recovery
      const seen = worker
        ?.output()
        .split('\n')
        .filter((line) => /database|LISTEN/.test(line));
      throw new Error(`${error.message}; the worker logged:\n${seen?.join('\n')}`);
    });
    expect(worker.logged('database unreachable: requests answer 503 until it is back')).toHaveLength(2);
    // a job's run of failures is logged when it starts, not per attempt: at most once per job and outage
    for (const p of processes) {
      const perJob = new Map<unknown, number>();
      for (const entry of p.logged('background job failed; retrying with back-off')) {
        perJob.set(entry.job, (perJob.get(entry.job) ?? 0) + 1);
      }
      expect([...perJob.values()].every((n) => n <= 2)).toBe(true);
    }

    // LISTEN is back on the new server, in both processes.
    await bothListening();

    // Every contact (acknowledged or not) has its event, and each event one delivery, delivered.
    const events = await query<{ id: string }>("select id from events where type = 'contact.created'");
    const contacts = await query<{ n: number }>('select count(*)::int as n from contacts');
    expect(events.length).toBe(contacts[0]?.n);
    await waitUntil(
      'every event delivered to the receiver',
      async () => {
        const received = new Set(receiver.requests.map((r) => r.headers['x-service-event-id']));
        return events.every((e) => received.has(e.id)) ? true : undefined;
      },
      60_000,
    );
    // outcomes are recorded a moment after the answer (webhooks/dispatcher.ts batches them)
    const deliveries = await waitUntil('every delivery recorded as delivered', async () => {
      const rows = await query<{ event_id: string; n: number; delivered: number }>(
        "select event_id, count(*)::int as n, count(*) filter (where status = 'delivered')::int as delivered from webhook_deliveries group by event_id",
      );
      return rows.every((d) => d.delivered > 0) ? rows : undefined;
    });
    expect(deliveries.length).toBe(events.length);
    expect(deliveries.filter((d) => d.n !== 1 || d.delivered !== 1)).toEqual([]);
    // A request received twice can only be a retry of the same delivery (receivers de-duplicate).
    const deliveryOf = new Map<unknown, unknown>();
    for (const r of receiver.requests) {
      const eventId = r.headers['x-service-event-id'];
      if (deliveryOf.has(eventId)) expect(r.headers['x-service-delivery-id']).toBe(deliveryOf.get(eventId));
      deliveryOf.set(eventId, r.headers['x-service-delivery-id']);
    }
  });

  it('asked to stop (SIGTERM) while the database is down, the server and the worker exit 0', {
    timeout: 120_000,
  }, async () => {
    if (!cluster.running) await cluster.start();
    if (!server || server.child.exitCode !== null) server = await startServerProcess(env);
    if (!worker || worker.child.exitCode !== null) worker = await startServerProcess(env, 'src/worker.ts');
    const running = [server, worker];
    await cluster.stop('immediate');
    const base = server.base;
    await waitUntil('/readyz to answer 503', async () =>
      (await fetch(`${base}/readyz`)).status === 503 ? true : undefined,
    );
    const codes = await Promise.all(
      running.map(async (p) => {
        const exited = once(p.child, 'exit');
        p.child.kill('SIGTERM');
        // their own grace period (30 s) exits 1 when shutdown hangs; this bound only reports it
        const [code] = (await Promise.race([
          exited,
          new Promise((_, reject) =>
            setTimeout(() => reject(new Error(`no exit after SIGTERM:\n${p.output()}`)), 60_000),
          ),
        ])) as [number | null];
        return code;
      }),
    );
    expect(codes).toEqual([0, 0]);
    await cluster.start();
  });
});
