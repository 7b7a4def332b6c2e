import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from './helpers/harness.js';
import { startScript, storeEnv } from './helpers/processes.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
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

describe('the server process (npm start)', () => {
  it('serves over real HTTP with JSON logs and exits 0 on SIGTERM', async () => {
    const port = await freePort();
    const logs: string[] = [];
    const child = startScript('src/server.ts', {
      ...storeEnv(h),
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      LOG_REQUESTS: 'true',
    });
    child.stdout?.on('data', (d) => logs.push(String(d)));
    child.stderr?.on('data', (d) => logs.push(String(d)));
    const base = `http://127.0.0.1:${port}`;
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

    // Logs are JSON lines, with the request id, and never carry the API key.
    const lines = logs.join('').split('\n').filter(Boolean);
    const parsed = lines.map((l) => JSON.parse(l));
    expect(parsed.some((l) => l.reqId === created.headers.get('x-request-id'))).toBe(true);
    expect(logs.join('')).not.toContain(biz.apiKey);

    const exited = waitForExit(child);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(logs.join('')).toMatch(/shut down cleanly/);
  }, 90_000);

  it('refuses to start on a bad configuration, naming the variable', async () => {
    const logs: string[] = [];
    const child = startScript('src/server.ts', { ...storeEnv(h), PORT: 'eighty' });
    child.stderr?.on('data', (d) => logs.push(String(d)));
    expect(await waitForExit(child)).toBe(1);
    expect(logs.join('')).toMatch(/PORT must be a whole number/);
  }, 60_000);
});
