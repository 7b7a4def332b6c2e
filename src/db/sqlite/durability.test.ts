import { mkdtempSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Durability, type FileSync, fileSync } from './durability.js';
import { heldSync } from './held-sync.js';

describe('fileSync', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'file-sync-'));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** How many of this process's descriptors are open on `file` (Linux: /proc/self/fd). */
  const descriptorsOn = (file: string) =>
    readdirSync('/proc/self/fd').filter((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`) === file;
      } catch {
        return false; // closed meanwhile (the directory's own descriptor)
      }
    }).length;
  const syncOnce = (sync: FileSync) =>
    new Promise<void>((resolve, reject) => sync.sync((e) => (e ? reject(e) : resolve())));

  it('fdatasyncs the file, opened at the first sync (it may not exist before) and kept open', async () => {
    const file = path.join(dir, 'wal');
    const sync = fileSync(file);
    // SQLite creates its WAL lazily: making the FileSync opens nothing
    writeFileSync(file, 'frames');
    expect(descriptorsOn(file)).toBe(0);
    await syncOnce(sync);
    expect(descriptorsOn(file)).toBe(1);
    await syncOnce(sync);
    expect(descriptorsOn(file)).toBe(1);
    sync.close();
    expect(descriptorsOn(file)).toBe(0);
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

  it('on a failed sync tells every waiter unavailable and syncs nothing more until recovered', async () => {
    const wal = heldSync();
    const changes: (string | null)[] = [];
    const d = new Durability(wal, (failure) => changes.push(failure ? failure.message : null));
    const waiting = d.whenDurable(d.committed());
    wal.complete(new Error('EIO'));
    await expect(waiting).rejects.toMatchObject({ code: 'unavailable', message: expect.stringMatching(/EIO/) });
    expect(d.failure?.code).toBe('unavailable');
    // nothing becomes durable while failing: reads do not wait, commits are refused
    expect(d.whenDurable()).toBeNull();
    const refused = new Promise<void>((resolve, reject) => d.notify(d.committed(), resolve, reject));
    await expect(refused).rejects.toMatchObject({ code: 'unavailable' });
    expect(wal.running).toBe(0);

    // told once that writes stopped, however many fail meanwhile
    d.fail(new Error('ENOSPC'));
    expect(changes).toEqual([expect.stringMatching(/EIO/)]);

    d.recovered();
    expect(d.failure).toBeNull();
    expect(changes).toEqual([expect.stringMatching(/EIO/), null]);
    const next = d.whenDurable(d.committed());
    expect(wal.running).toBe(1);
    wal.complete();
    await expect(next).resolves.toBeUndefined();
  });
});
