import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { migrations } from '../src/db/migrations/index.js';
import { openStore } from '../src/db/store.js';
import { type Harness, STORE, startHarness, TEST_ENCRYPTION_KEY } from './helpers/harness.js';
import { startScript, storeEnv } from './helpers/processes.js';
import { freePort } from './helpers/throwaway-servers.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

/** A PostgreSQL database with nothing in it (the harness's come migrated, from a template). */
async function emptyDatabase(): Promise<string> {
  // under the run's prefix, so that the run's teardown drops it
  const name = `${inject('pgTemplate').replace(/_template$/, '')}_fresh_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: inject('pgAdminUrl') });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(inject('pgAdminUrl'));
  url.pathname = `/${name}`;
  return url.toString();
}

function waitForExit(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

async function waitForReady(base: string, child: ChildProcess, logs: string[]) {
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`server exited early:\n${logs.join('')}`);
    try {
      const res = await fetch(`${base}/readyz`);
      if (res.ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`server did not become ready:\n${logs.join('')}`);
}

/** Starts `npm start`'s entry point on a free port, collecting its output; does not wait for it. */
async function spawnServer(env: Record<string, string | undefined>) {
  const port = await freePort();
  const logs: string[] = [];
  const stdout: string[] = [];
  const child = startScript('src/server.ts', { ...env, PORT: String(port) });
  child.stdout?.on('data', (d) => {
    logs.push(String(d));
    stdout.push(String(d));
  });
  child.stderr?.on('data', (d) => logs.push(String(d)));
  return { child, logs, stdout, base: `http://127.0.0.1:${port}` };
}

describe('the server process (npm start)', () => {
  it('serves over real HTTP with JSON logs and exits 0 on SIGTERM', async () => {
    const { child, logs, stdout, base } = await spawnServer({
      ...storeEnv(h),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      LOG_REQUESTS: 'true',
    });
    await waitForReady(base, child, logs);

    const biz = await h.newBusiness();
    const created = await fetch(`${base}/v1/transactions`, {
      method: 'POST',
      headers: { 'x-api-key': biz.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ amount_paise: 100, due_date: '2030-01-01', contact_name: 'Over The Wire' }),
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('x-request-id')).toBeTruthy();
    expect(created.headers.get('ratelimit-limit')).toBe('30');
    // The write is visible through the harness's own connection to the same store.
    expect((await biz.get('/v1/transactions')).body.total).toBe(1);

    // Logs are JSON lines on stdout (stderr has the start-up lines for people), with the request
    // id, and never carry the API key.
    const lines = stdout.join('').split('\n').filter(Boolean);
    const parsed = lines.map((l) => JSON.parse(l));
    expect(parsed.some((l) => l.reqId === created.headers.get('x-request-id'))).toBe(true);
    expect(logs.join('')).not.toContain(biz.apiKey);

    const exited = waitForExit(child);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(logs.join('')).toMatch(/shut down cleanly/);
  }, 90_000);

  it('starts two processes at once on a fresh store: both migrate-and-serve, each migration runs once', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'receivables-fresh-'));
    const databaseUrl = STORE === 'postgres' ? await emptyDatabase() : undefined;
    const env = {
      DATA_DIR: dataDir,
      DATABASE_URL: databaseUrl ?? '',
      ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      WORKERS: 'off',
      HOST: '127.0.0.1',
    };
    const started = await Promise.all([0, 1].map(() => spawnServer(env)));
    try {
      for (const s of started) await waitForReady(s.base, s.child, s.logs);
      const store = openStore({ dataDir, databaseUrl, pgPoolMax: 1 });
      try {
        const names = (
          await store.db
            .selectFrom('kysely_migration' as never)
            .select('name' as never)
            .execute()
        ).map((r) => (r as { name: string }).name);
        expect(names.sort()).toEqual(Object.keys(migrations).sort());
      } finally {
        await store.close();
      }
    } finally {
      for (const s of started) {
        const exited = waitForExit(s.child);
        s.child.kill('SIGTERM');
        await exited;
      }
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);

  it('killed (SIGKILL) amid concurrent writes: every write it answered is there after a restart, with its totals and event', async () => {
    const biz = await h.newBusiness();
    const env = { ...storeEnv(h), HOST: '127.0.0.1', WORKERS: 'off', RATE_LIMIT_PER_MINUTE: '1000000' };
    const start = async () => {
      const server = await spawnServer(env);
      await waitForReady(server.base, server.child, server.logs);
      return server;
    };
    const call = (base: string, method: string, url: string, body?: unknown) =>
      fetch(`${base}${url}`, {
        method,
        headers: { 'x-api-key': biz.apiKey, 'content-type': 'application/json' },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });

    const first = await start();
    const answered: string[] = [];
    let enoughAnswered: () => void = () => {};
    const enough = new Promise<void>((resolve) => {
      enoughAnswered = resolve;
    });
    // 16 writers, each creating dues (and, the first time, its contact) until the server dies
    const writers = Array.from({ length: 16 }, async (_, w) => {
      for (let i = 0; ; i++) {
        let res: Response;
        try {
          res = await call(first.base, 'POST', '/v1/transactions', {
            amount_paise: 100 + i,
            due_date: '2030-01-01',
            contact_name: `Crash Buyer ${w}`,
          });
        } catch {
          return; // the connection died with the server: this write was never answered
        }
        expect(res.status).toBe(201);
        answered.push(((await res.json()) as { data: { id: string } }).data.id);
        if (answered.length === 150) enoughAnswered();
      }
    });
    // Killed once 150 writes are answered; should every writer stop first, that fails here.
    await Promise.race([
      enough,
      Promise.all(writers).then(() => {
        throw new Error(`the writers stopped after ${answered.length} answers, before the kill`);
      }),
    ]);
    const exited = waitForExit(first.child);
    first.child.kill('SIGKILL');
    await exited;
    await Promise.all(writers);

    const second = await start();
    try {
      const stored = new Set<string>();
      for (let offset = 0; ; offset += 100) {
        const page = (await (await call(second.base, 'GET', `/v1/transactions?limit=100&offset=${offset}`)).json()) as {
          data: { id: string }[];
          total: number;
        };
        for (const due of page.data) stored.add(due.id);
        if (offset + 100 >= page.total) break;
      }
      // every answered write survived (some unanswered ones may have committed too)
      expect(answered.filter((id) => !stored.has(id))).toEqual([]);
      expect(stored.size).toBeGreaterThanOrEqual(answered.length);
      // the running totals moved in the same transactions as the dues they count
      const summary = (await (await call(second.base, 'GET', '/v1/summary')).json()) as {
        data: { pending: { count: number }; overdue: { count: number }; contact_count: number };
      };
      expect(summary.data.pending.count + summary.data.overdue.count).toBe(stored.size);
      expect(summary.data.contact_count).toBe(16);
      // and so did each due's outbox event
      const events = await h.store.db
        .selectFrom('events')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('business_id', '=', biz.business.id)
        .where('type', '=', 'transaction.created')
        .executeTakeFirstOrThrow();
      expect(Number(events.n)).toBe(stored.size);
    } finally {
      const exited = waitForExit(second.child);
      second.child.kill('SIGTERM');
      await exited;
    }
  }, 120_000);

  it('refuses to start on a bad configuration, naming the variable', async () => {
    const logs: string[] = [];
    const child = startScript('src/server.ts', { ...storeEnv(h), PORT: 'eighty' });
    child.stderr?.on('data', (d) => logs.push(String(d)));
    expect(await waitForExit(child)).toBe(1);
    expect(logs.join('')).toMatch(/PORT must be a whole number/);
  }, 60_000);
});
