import { afterEach, describe, expect, it, vi } from 'vitest';
import { StoreHealth } from './health.js';

const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });

afterEach(() => {
  vi.useRealTimers();
});

describe('StoreHealth', () => {
  it('makes one outage of many failures and ends it on success', () => {
    const downs: unknown[] = [];
    let ups = 0;
    const health = new StoreHealth({ onDown: (cause) => downs.push(cause), onUp: () => ups++ });
    expect(health.up).toBe(true);
    expect(health.failed(refused)).toBe(true);
    expect(health.failed(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(health.failed(refused)).toBe(true);
    expect(health.up).toBe(false);
    expect(downs).toEqual([refused]);
    health.succeeded();
    health.succeeded();
    expect(health.up).toBe(true);
    expect(ups).toBe(1);
    health.failed(refused);
    expect(downs).toHaveLength(2);
    health.stop();
  });

  it('ignores errors that are not about reaching the store', () => {
    const health = new StoreHealth({ onDown: () => expect.fail('not an outage') });
    expect(health.failed(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBe(false);
    expect(health.up).toBe(true);
  });

  it('probes with back-off while down and notices the return without traffic', async () => {
    vi.useFakeTimers();
    let answers = false;
    const probe = vi.fn(async () => {
      if (!answers) throw refused;
    });
    const health = new StoreHealth();
    health.setProbe(probe);
    health.failed(refused);
    await vi.advanceTimersByTimeAsync(250);
    expect(probe).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(499);
    expect(probe).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(probe).toHaveBeenCalledTimes(2);
    answers = true;
    await vi.advanceTimersByTimeAsync(1000);
    expect(probe).toHaveBeenCalledTimes(3);
    expect(health.up).toBe(true);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(probe).toHaveBeenCalledTimes(3);
    health.stop();
  });
});
