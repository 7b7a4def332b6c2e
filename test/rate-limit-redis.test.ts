import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../src/app.js';
import { ConfigError, loadConfig } from '../src/config.js';
import { createMetrics } from '../src/http/metrics.js';
import type { App } from '../src/http/types.js';
import { RedisRateLimitStore } from '../src/rate-limit/redis.js';
import { type Harness, startHarness } from './helpers/harness.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ env: { RATE_LIMIT_PER_MINUTE: '4' } });
});
afterAll(() => h.close());

/** A second API process in all but name: its own app and its own limiter, on the same store. */
async function apiProcess(redisUrl: string, onOpen: (e: unknown) => void = () => {}, timeoutMs?: number) {
  const rateLimits = new RedisRateLimitStore(redisUrl, h.clock, { onOpen }, timeoutMs ? { timeoutMs } : {});
  const app: App = await buildApp(
    { config: h.config, store: h.store, clock: h.clock, services: h.services, rateLimits, metrics: createMetrics() },
    pino({ level: 'silent' }),
  );
  return {
    app,
    rateLimits,
    async close() {
      await app.close();
      await rateLimits.close();
    },
  };
}

describe('rate limit shared through Redis (REDIS_URL)', () => {
  it('counts one budget across processes', async () => {
    // What is tested is the shared count, not the breaker: a generous bound on a hit, so that a
    // loaded machine answering slowly does not open the breaker and count per process; and both
    // connected first (until then a process counts alone).
    const opened: unknown[] = [];
    const a = await apiProcess(REDIS_URL, (e) => opened.push(e), 10_000);
    const b = await apiProcess(REDIS_URL, (e) => opened.push(e), 10_000);
    await vi.waitFor(() => expect([a.rateLimits.connected, b.rateLimits.connected]).toEqual([true, true]), {
      timeout: 10_000,
    });
    try {
      const biz = await h.newBusiness();
      const headers = { 'x-api-key': biz.apiKey };
      const statuses = [];
      for (const app of [a.app, b.app, a.app, b.app, a.app, b.app]) {
        const res = await app.inject({ method: 'GET', url: '/v1/me', headers });
        statuses.push(res.statusCode);
        if (res.statusCode === 429) expect(res.headers['retry-after']).toBe('60');
      }
      expect(opened).toEqual([]);
      expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
      const last = await b.app.inject({ method: 'GET', url: '/v1/me', headers });
      expect(Number(last.headers['ratelimit-reset'])).toBeGreaterThan(0);
      expect(last.headers['ratelimit-remaining']).toBe('0');
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('falls back to per-process counting when Redis is unreachable', async () => {
    const errors: unknown[] = [];
    const down = await apiProcess('redis://127.0.0.1:1', (e) => errors.push(e));
    try {
      const biz = await h.newBusiness();
      const statuses = [];
      for (let i = 0; i < 5; i++) {
        statuses.push(
          (await down.app.inject({ method: 'GET', url: '/v1/me', headers: { 'x-api-key': biz.apiKey } })).statusCode,
        );
      }
      expect(statuses).toEqual([200, 200, 200, 200, 429]);
      // the breaker opened once (on the refused connection), however many hits it counted locally
      await vi.waitFor(() => expect(errors.length).toBe(1), { timeout: 5000 });
      expect(errors.length).toBe(1);
    } finally {
      await down.close();
    }
  });
});

describe('REDIS_TIMEOUT_MS', () => {
  it('defaults to 250 ms and refuses a value that is not a whole number of milliseconds in range', () => {
    expect(loadConfig({}).redisTimeoutMs).toBe(250);
    expect(loadConfig({ REDIS_TIMEOUT_MS: '1500' }).redisTimeoutMs).toBe(1500);
    for (const bad of ['abc', '0', '1.5', '600000']) {
      expect(() => loadConfig({ REDIS_TIMEOUT_MS: bad })).toThrow(ConfigError);
      expect(() => loadConfig({ REDIS_TIMEOUT_MS: bad })).toThrow(/REDIS_TIMEOUT_MS/);
    }
  });
});
