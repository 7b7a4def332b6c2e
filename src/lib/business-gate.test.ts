import { describe, expect, it } from 'vitest';
import { AppError } from '../errors.js';
import { BusinessGate } from './business-gate.js';

/** A read that runs until `release` is called. */
function held() {
  let release!: () => void;
  const done = new Promise<void>((resolve) => {
    release = resolve;
  });
  return { release, done };
}

describe('BusinessGate', () => {
  it("runs at most perBusiness of one business's reads at once, the rest in arrival order", async () => {
    const gate = new BusinessGate(2, 10);
    const reads = [held(), held(), held(), held()];
    const started: number[] = [];
    const runs = reads.map((r, i) =>
      gate.run('a', async () => {
        started.push(i);
        await r.done;
        return i;
      }),
    );
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    expect(gate.running('a')).toBe(2);
    reads[1]?.release();
    await runs[1];
    expect(started).toEqual([0, 1, 2]);
    reads[0]?.release();
    await runs[0];
    expect(started).toEqual([0, 1, 2, 3]);
    reads[2]?.release();
    reads[3]?.release();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3]);
    expect(gate.running('a')).toBe(0);
  });

  it("never makes another business wait for one business's reads", async () => {
    const gate = new BusinessGate(1, 10);
    const a = held();
    const runningA = gate.run('a', () => a.done);
    const queuedA = gate.run('a', async () => 'a2');
    expect(await gate.run('b', async () => 'b')).toBe('b');
    a.release();
    await runningA;
    expect(await queuedA).toBe('a2');
  });

  it('answers 429 with Retry-After once the queue of a business is full, and frees the slot on failure', async () => {
    const gate = new BusinessGate(1, 1);
    const a = held();
    const running = gate.run('a', () => a.done);
    const queued = gate.run('a', async () => 'queued');
    const refused = await gate.run('a', async () => 'never').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ code: 'rate_limited', headers: { 'retry-after': '1' } });
    a.release();
    await running;
    expect(await queued).toBe('queued');
    await expect(
      gate.run('a', async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(gate.running('a')).toBe(0);
    expect(await gate.run('a', async () => 'after')).toBe('after');
  });
});
