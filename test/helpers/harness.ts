import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { InjectOptions } from 'fastify';
import pg from 'pg';
import { pino } from 'pino';
import { inject } from 'vitest';
import { buildApp } from '../../src/app.js';
import type { BusinessRow } from '../../src/businesses/repository.js';
import type { CreateBusinessInput } from '../../src/businesses/service.js';
import { type Config, loadConfig } from '../../src/config.js';
import type { StorageSeams } from '../../src/db/sqlite/open.js';
import type { ReadHold } from '../../src/db/sqlite/read-pool.js';
import { migrate, openStore, type Store } from '../../src/db/store.js';
import { createMetrics } from '../../src/http/metrics.js';
import type { App } from '../../src/http/types.js';
import { ManualClock } from '../../src/lib/clock.js';
import type { PaymentsGateway } from '../../src/payments-gateway/port.js';
import { MemoryRateLimitStore } from '../../src/rate-limit/memory.js';
import { createServices, type Services } from '../../src/services.js';
import type { WebhookSender } from '../../src/webhooks/sender.js';
import { watchResponses } from './openapi-check.js';

export const STORE = (process.env.TEST_STORE ?? 'sqlite') as 'sqlite' | 'postgres';

/** PRODUCT part 16: PostgreSQL needs ENCRYPTION_KEY; every process of a test shares this one. */
export const TEST_ENCRYPTION_KEY = 'a1'.repeat(32);

/**
 * A private PostgreSQL database, copied from the run's migrated template (fast: no migrations),
 * dropped with the run.
 */
export async function createTestDatabase(): Promise<string> {
  const name = `${inject('pgTemplate').replace(/_template$/, '')}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: inject('pgAdminUrl') });
  await admin.connect();
  try {
    // Copies from one template are serialised by PostgreSQL; retry if another copy holds it.
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.query(`create database ${name} template ${inject('pgTemplate')}`);
        break;
      } catch (error) {
        if (attempt >= 20 || !/being accessed by other users/.test((error as Error).message)) throw error;
        await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
      }
    }
  } finally {
    await admin.end();
  }
  const url = new URL(inject('pgAdminUrl'));
  url.pathname = `/${name}`;
  return url.toString();
}

/** A store of one's own: a fresh SQLite file, or a fresh PostgreSQL database. */
export async function openTestStore(
  sqlite?: StorageSeams,
  reads: { readThreads?: number; readsPerBusiness?: number; readHold?: ReadHold } = {},
): Promise<{ store: Store; dataDir: string; databaseUrl: string | undefined }> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'receivables-test-'));
  const databaseUrl = STORE === 'postgres' ? await createTestDatabase() : undefined;
  const { readHold, ...readConfig } = reads;
  const store = openStore(
    { dataDir, databaseUrl, pgPoolMax: 5, ...readConfig },
    { ...(sqlite && { sqlite }), ...(readHold && { readHold }) },
  );
  if (STORE === 'sqlite') await migrate(store.db);
  return { store, dataDir, databaseUrl };
}

export interface Response<T = any> {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: T;
  text: string;
}

export interface CallOptions {
  body?: unknown;
  headers?: Record<string, string>;
  /** raw payload instead of JSON (for malformed-body tests) */
  payload?: string | Buffer;
}

export interface TestBusiness {
  business: BusinessRow;
  apiKey: string;
  get<T = any>(url: string, options?: CallOptions): Promise<Response<T>>;
  post<T = any>(url: string, body?: unknown, options?: CallOptions): Promise<Response<T>>;
  patch<T = any>(url: string, body?: unknown, options?: CallOptions): Promise<Response<T>>;
  delete<T = any>(url: string, options?: CallOptions): Promise<Response<T>>;
}

export interface Harness {
  app: App;
  store: Store;
  clock: ManualClock;
  config: Config;
  services: Services;
  dataDir: string;
  databaseUrl: string | undefined;
  /** Calls the app over its HTTP interface (light-my-request: no socket, same code path). */
  request<T = any>(method: InjectOptions['method'], url: string, options?: CallOptions): Promise<Response<T>>;
  /** Runs `fn` without checking responses against /openapi.json (see openapi-check.ts: `unchecked`). */
  uncheckedResponses<T>(fn: () => Promise<T>): Promise<T>;
  /** A new business with its own API key: tests own their data and never share ids. */
  newBusiness(input?: Partial<CreateBusinessInput>): Promise<TestBusiness>;
  close(): Promise<void>;
}

let phoneCounter = 0;
/** A valid Indian mobile number that no other test business uses. */
export function uniquePhone(): string {
  phoneCounter = (phoneCounter + 1) % 100_000;
  const tail = `${process.pid % 1000}`.padStart(3, '0') + `${phoneCounter}`.padStart(5, '0');
  return `+91 9${tail}${(randomBytes(1)[0] as number) % 10}`;
}

export async function startHarness(
  options: {
    env?: Record<string, string>;
    config?: Partial<Config>;
    now?: string;
    /** the webhooks' HTTPS client, e.g. one that trusts a test receiver's certificate */
    webhookSender?: WebhookSender;
    /** SQLite storage fault seams (db/sqlite/open.ts), for the fault tests */
    sqlite?: StorageSeams;
    /** SQLite read threads for the lists (db/sqlite/read-pool.ts; off unless given), the per-business bound, the hold seam */
    reads?: { readThreads?: number; readsPerBusiness?: number; readHold?: ReadHold };
    /** the payments gateway port (default: the adapter PAYMENTS_GATEWAY in env names) */
    gateway?: PaymentsGateway;
    /** a store the test opened and prepared itself (e.g. migrated from an old schema); closed with the harness */
    store?: { store: Store; dataDir: string; databaseUrl: string | undefined };
  } = {},
): Promise<Harness> {
  const { store, dataDir, databaseUrl } = options.store ?? (await openTestStore(options.sqlite, options.reads));
  const clock = new ManualClock(options.now ?? new Date());
  const config = loadConfig(
    {
      RATE_LIMIT_PER_MINUTE: '1000000',
      AUTH_FAILURES_PER_MINUTE: '1000000',
      PUBLIC_BASE_URL: 'https://pay.example.test',
      ...(databaseUrl && { ENCRYPTION_KEY: TEST_ENCRYPTION_KEY }),
      ...options.env,
    },
    { dataDir, databaseUrl, ...options.config },
  );
  const services = createServices({
    store,
    clock,
    config,
    ...(options.webhookSender && { webhookSender: options.webhookSender }),
    ...(options.gateway && { gateway: options.gateway }),
  });
  const metrics = createMetrics();
  const rateLimits = new MemoryRateLimitStore(clock);
  const app = await buildApp({ config, store, clock, services, rateLimits, metrics }, pino({ level: 'silent' }));
  // Every response is checked against /openapi.json: a mismatch fails the call that got it.
  const responses = watchResponses(app);
  await app.ready();

  async function request<T>(method: InjectOptions['method'], url: string, o: CallOptions = {}): Promise<Response<T>> {
    const headers: Record<string, string> = { ...o.headers };
    let payload: string | Buffer | undefined = o.payload;
    if (payload === undefined && o.body !== undefined) {
      payload = JSON.stringify(o.body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await app.inject({ method, url, headers, ...(payload !== undefined && { payload }) });
    const problems = responses.take(res.headers['x-request-id']);
    if (problems.length > 0) throw new Error(`response differs from /openapi.json:\n${problems.join('\n')}`);
    let body: unknown;
    try {
      body = res.body === '' ? undefined : JSON.parse(res.body);
    } catch {
      body = undefined;
    }
    return { status: res.statusCode, headers: res.headers, body: body as T, text: res.body };
  }

  return {
    app,
    store,
    clock,
    config,
    services,
    dataDir,
    databaseUrl,
    request,
    uncheckedResponses: (fn) => responses.unchecked(fn),
    async newBusiness(input = {}) {
      const { business, apiKey } = await services.businesses.create({
        name: `Test Traders ${randomBytes(3).toString('hex')}`,
        phone: uniquePhone(),
        ...input,
      });
      const withKey = (o: CallOptions = {}) => ({ ...o, headers: { 'x-api-key': apiKey, ...o.headers } });
      return {
        business,
        apiKey,
        get: (url, o) => request('GET', url, withKey(o)),
        post: (url, body, o) => request('POST', url, withKey({ ...o, body })),
        patch: (url, body, o) => request('PATCH', url, withKey({ ...o, body })),
        delete: (url, o) => request('DELETE', url, withKey(o)),
      };
    },
    async close() {
      await app.close();
      const unchecked = responses.remaining();
      await services.webhookSender.close();
      await rateLimits.close();
      await store.close();
      // Retried (bounded, by Node) on ENOTEMPTY: a connection another part of the test opened on the
      // same folder (the in-process CLI) may still be removing its -wal/-shm files as this runs.
      rmSync(dataDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
      if (unchecked.length > 0) throw new Error(`responses differ from /openapi.json:\n${unchecked.join('\n')}`);
    },
  };
}
