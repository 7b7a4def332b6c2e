import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Durability, fileSync } from './durability.js';
import { heldSync } from './held-sync.js';

describe('fileSync', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'file-sync-'));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('fdatasyncs the file, opened at the first sync and kept open', async () => {
    const file = path.join(dir, 'wal');
    writeFileSync(file, 'frames');
    const sync = fileSync(file);
    for (let i = 0; i < 2; i++)
      await new Promise<void>((resolve, reject) => sync.sync((e) => (e ? reject(e) : resolve())));
    sync.close();
  });

  it('reports a file it cannot open', async () => {
    const sync = fileSync(path.join(dir, 'missing-wal'));
    const error = await new Promise<Error | null>((resolve) => sync.sync(resolve));
    expect(error?.message).toMatch(/ENOENT/);
  });
});

describe('Durability', () => {
  it('needs no wait for commits already durable, and no sync when nothing was committed', () => {
    const wal = heldSync();
    const d = new Durability(wal);
    expect(d.whenDurable()).toBeNull();
    expect(wal.running).toBe(0);
  });

  it('releases each waiter with the first sync that started after its commit; later commits share the next', async () => {
    const wal = heldSync();
    const d = new Durability(wal);
    const released: number[] = [];
    const wait = (n: number) =>
      d.notify(
        n,
        () => released.push(n),
        () => {},
      );
    wait(d.committed());
    expect(wal.running).toBe(1);
    // two more commits while that sync runs: no second sync yet
    wait(d.committed());
    wait(d.committed());
    expect(wal.running).toBe(1);
    wal.complete();
    expect(released).toEqual([1]);
    // one sync for both, started as soon as the first finished
    expect(wal.running).toBe(1);
    wal.complete();
    expect(released).toEqual([1, 2, 3]);
    expect(d.syncs).toBe(2);
    expect(d.whenDurable()).toBeNull();
  });

  it('treats a failed sync as final: waiters and every later wait fail, no sync is tried again', async () => {
    const wal = heldSync();
    const d = new Durability(wal);
    const waiting = d.whenDurable(d.committed());
    wal.complete(new Error('EIO'));
    await expect(waiting).rejects.toThrow(/could not make its writes durable \(EIO\)/);
    expect(d.failure?.message).toMatch(/restart the process/);
    await expect(d.whenDurable()).rejects.toThrow(/EIO/);
    d.committed();
    await expect(d.whenDurable()).rejects.toThrow(/EIO/);
    expect(wal.running).toBe(0);
  });
});
