import type { FastifyBaseLogger } from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMetrics } from '../http/metrics.js';
import { errorBackoffMs, startWorkers } from './runner.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('the job runner during an outage', () => {
  it('backs off 250 ms doubling to 5 s', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 50].map(errorBackoffMs)).toEqual([250, 500, 1000, 2000, 4000, 5000, 5000, 5000]);
  });

  it('logs a run of failures once, retries with back-off and logs the recovery once', async () => {
    vi.useFakeTimers();
    const logger = { error: vi.fn(), info: vi.fn() } as unknown as FastifyBaseLogger;
    const metrics = createMetrics();
    let calls = 0;
    const job = {
      name: 'flaky',
      idleMs: 60_000,
      runOnce: vi.fn(async () => {
        calls++;
        if (calls <= 3) throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
        return 0;
      }),
    };
    const workers = startWorkers([job], { logger, metrics });
    await vi.advanceTimersByTimeAsync(0);
    expect(calls).toBe(1);
    await vi.advanceTimersByTimeAsync(250);
    expect(calls).toBe(2);
    await vi.advanceTimersByTimeAsync(499);
    expect(calls).toBe(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls).toBe(3);
    await vi.advanceTimersByTimeAsync(1000);
    expect(calls).toBe(4);
    expect(logger.error).toHaveBeenCalledTimes(1);
    expect(logger.info).toHaveBeenCalledTimes(1);
    expect(logger.info).toHaveBeenCalledWith({ job: 'flaky', failures: 3 }, 'background job running again');
    expect((await metrics.jobErrors.get()).values[0]?.value).toBe(3);
    const stopped = workers.stop();
    await vi.advanceTimersByTimeAsync(0);
    await stopped;
  });
});
