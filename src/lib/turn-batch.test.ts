import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { TurnBatch } from './turn-batch.js';

function counting(values: Record<string, number>) {
  const loads: string[][] = [];
  const batch = new TurnBatch<string, number>(async (keys) => {
    loads.push(keys);
    return new Map(keys.filter((k) => k in values).map((k) => [k, values[k] as number]));
  });
  return { loads, batch };
}

describe('TurnBatch', () => {
  it('answers the keys asked for in one turn, from separate callbacks, with one load', async () => {
    const { loads, batch } = counting({ a: 1, b: 2 });
    // Two I/O callbacks of one turn stand in for two requests: each asks from its own callback.
    const asked: Promise<number>[] = [];
    await new Promise<void>((resolve) => {
      setImmediate(() => asked.push(batch.read('a'), batch.read('b')));
      setImmediate(() => {
        asked.push(batch.read('a'));
        resolve();
      });
    });
    expect(await Promise.all(asked)).toEqual([1, 2, 1]);
    expect(loads).toEqual([['a', 'b']]);
  });

  it('keeps nothing: a key asked for again in a later turn is loaded again', async () => {
    const values = { a: 1 };
    const { loads, batch } = counting(values);
    expect(await batch.read('a')).toBe(1);
    values.a = 5;
    await nextTurn();
    expect(await batch.read('a')).toBe(5);
    expect(loads).toEqual([['a'], ['a']]);
  });

  it('fails every key of a batch whose load fails, and a key the load left out', async () => {
    const failing = new TurnBatch<string, number>(async () => {
      throw new Error('store down');
    });
    const results = await Promise.allSettled([failing.read('a'), failing.read('b')]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    const { batch } = counting({ a: 1 });
    const [a, missing] = await Promise.allSettled([batch.read('a'), batch.read('zz')]);
    expect(a).toEqual({ status: 'fulfilled', value: 1 });
    expect(missing.status).toBe('rejected');
  });
});
