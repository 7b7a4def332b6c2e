import { execFile } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/run.js';
import { type Harness, STORE, startHarness, uniquePhone } from './helpers/harness.js';
import { ROOT, runScript, storeEnv } from './helpers/processes.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

/** The CLI in-process (fast); the contract tests at the end run it as a real process. */
async function cli(...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, {
    env: { ...storeEnv(h), LOG_LEVEL: 'warn' },
    out: (line) => out.push(line),
    err: (line) => err.push(line),
  });
  return { code, stdout: out.map((l) => `${l}\n`).join(''), stderr: err.join('\n') };
}

/**
 * GET /v1/me with the key. After a change made by the CLI (another process): SQLite sees it on the
 * next request; PostgreSQL's key cache once the change's NOTIFY arrives (milliseconds: db/store.ts
 * keyChanges), so there the request is repeated until it answers `status`, for at most 5 s.
 */
async function me(apiKey: string, status?: number) {
  const deadline = Date.now() + 5000;
  for (;;) {
    const res = await h.request('GET', '/v1/me', { headers: { 'x-api-key': apiKey } });
    if (status === undefined || res.status === status || STORE === 'sqlite' || Date.now() > deadline) return res;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function singleJson(stdout: string) {
  const lines = stdout.trim().split('\n');
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0] as string);
}

describe('admin CLI', () => {
  it('business create --json prints one JSON object with the business and a working key', async () => {
    const res = await cli('business', 'create', '--name', 'CLI Traders', '--phone', '98765 12121', '--json');
    expect(res.code, res.stderr).toBe(0);
    const out = singleJson(res.stdout);
    expect(out).toEqual({
      business: {
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        name: 'CLI Traders',
        phone: '919876512121',
        plan: 'business',
        plan_expires_at: expect.any(String),
        currency: 'INR',
        language: 'en',
        timezone: 'Asia/Kolkata',
        country: 'IN',
        created_at: expect.any(String),
        upi_id: null,
        reminders_paused: false,
        reminder_steps: '-3,0,7,30',
      },
      api_key: expect.stringMatching(/^rk_live_[A-Za-z0-9_-]{32,}$/),
    });
    const res2 = await me(out.api_key);
    expect(res2.status).toBe(200);
    expect(res2.body.data).toEqual(
      Object.fromEntries(
        Object.entries(out.business).filter(([k]) => !['upi_id', 'reminders_paused', 'reminder_steps'].includes(k)),
      ),
    );
  });

  it('takes every business option', async () => {
    const res = await cli(
      'business',
      'create',
      '--name',
      'Global Co',
      '--phone',
      '+1 415 555 0177',
      '--plan',
      'basic',
      '--currency',
      'usd',
      '--country',
      'US',
      '--language',
      'hi',
      '--timezone',
      'America/New_York',
      '--json',
    );
    expect(res.code, res.stderr).toBe(0);
    expect(singleJson(res.stdout).business).toMatchObject({
      plan: 'basic',
      currency: 'USD',
      country: 'US',
      language: 'hi',
      timezone: 'America/New_York',
      phone: '14155550177',
    });
    expect((await me(singleJson(res.stdout).api_key, 403)).status).toBe(403);
  });

  it('prints for people without --json', async () => {
    const res = await cli('business', 'create', '--name', 'Plain Output', '--phone', uniquePhone());
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/created business Plain Output/);
    expect(res.stdout).toMatch(/rk_live_/);
  });

  it('exits 2 with a clear message on bad arguments', async () => {
    const cases: [string[], RegExp][] = [
      [['business', 'create', '--name', 'No Phone'], /--phone is required/],
      [['business', 'create', '--name', 'Bad Plan', '--phone', uniquePhone(), '--plan', 'gold'], /plan must be one of/],
      [['business', 'create', '--name', 'Bad Zone', '--phone', uniquePhone(), '--timezone', 'Mars/Base'], /timezone/],
      [['business', 'create', '--name', 'Bad Phone', '--phone', '12'], /phone/],
      [['business', 'create', '--name', 'X', '--phone', uniquePhone(), '--colour', 'red'], /colour/],
      [['business', 'delete'], /unknown command/],
      [[], /command is required/],
      [['key', 'issue'], /--business is required/],
      [['key', 'issue', '--business', '00000000-0000-4000-8000-000000000000'], /business not found/],
      [['key', 'revoke', '--key', 'rk_live_nope'], /no active API key/],
      [['business', 'set', '--business', '00000000-0000-4000-8000-000000000000', '--plan', 'free'], /not found/],
    ];
    for (const [args, message] of cases) {
      const res = await cli(...args, '--json');
      expect(res.code, args.join(' ')).toBe(2);
      expect(res.stderr, args.join(' ')).toMatch(message);
      expect(singleJson(res.stdout).error.message).toMatch(message);
    }
  });

  it('names a value that is no id and exits 2, on every command that takes one, before touching the store', async () => {
    const created = singleJson(
      (await cli('business', 'create', '--name', 'Id Checks', '--phone', uniquePhone(), '--json')).stdout,
    );
    const id = created.business.id as string;
    const cases: [string[], string][] = [
      [['key', 'list', '--business', 'nope'], 'no business "nope"'],
      [['key', 'issue', '--business', 'nope'], 'no business "nope"'],
      [['key', 'revoke', '--id', 'nope'], 'no API key "nope"'],
      [['business', 'set', '--business', 'nope', '--plan', 'free'], 'no business "nope"'],
      [['business', 'export', '--business', 'nope', '--out', 'never-written'], 'no business "nope"'],
      [['import', '--business', "x' or 1=1", '--file', 'never-read.csv'], `no business "x' or 1=1"`],
      [['bank', 'import', '--business', 'nope', '--file', 'never-read.csv'], 'no business "nope"'],
      [['export', '--business', '12345'], 'no business "12345"'],
      [['contact', 'erase', '--business', id, '--contact', 'nope'], 'no contact "nope"'],
      [['verify', '--business', 'nope'], 'no business "nope"'],
      [['login-link', '--business', 'nope'], 'no business "nope"'],
      [['chat', '--business', 'nope', 'add Ravi 500'], 'no business "nope"'],
      [['messages', '--business', 'nope'], 'no business "nope"'],
      [
        ['user', 'add', '--business', 'nope', '--name', 'Asha', '--phone', uniquePhone(), '--role', 'viewer'],
        'no business "nope"',
      ],
      [['user', 'remove', '--business', id, '--user', 'nope'], 'no user "nope"'],
      [['login-link', '--business', id, '--user', 'nope'], 'no user "nope"'],
    ];
    for (const [args, message] of cases) {
      const res = await cli(...args, '--json');
      expect(res.code, args.join(' ')).toBe(2);
      expect(res.stderr, args.join(' ')).toContain(`error: ${message}`);
      expect(singleJson(res.stdout).error.message, args.join(' ')).toContain(message);
    }
    // Nothing changed: the business still has its one key, its plan, no contacts.
    const keys = singleJson((await cli('key', 'list', '--business', id, '--json')).stdout).keys;
    expect(keys).toHaveLength(1);
    expect(keys[0].revoked_at).toBeNull();
    expect((await me(created.api_key, 200)).body.data.plan).toBe('business');
  });

  it('issues and revokes keys', async () => {
    const created = singleJson(
      (await cli('business', 'create', '--name', 'Key Owner', '--phone', uniquePhone(), '--json')).stdout,
    );
    const issued = await cli('key', 'issue', '--business', created.business.id, '--json');
    expect(issued.code, issued.stderr).toBe(0);
    const { api_key } = singleJson(issued.stdout);
    expect(api_key).not.toBe(created.api_key);
    expect((await me(api_key, 200)).status).toBe(200);
    const revoked = await cli('key', 'revoke', '--key', created.api_key, '--json');
    expect(revoked.code).toBe(0);
    expect(singleJson(revoked.stdout)).toEqual({ revoked: true });
    expect((await me(created.api_key, 401)).status).toBe(401);
    expect((await me(api_key, 200)).status).toBe(200);
    expect((await cli('key', 'revoke', '--key', created.api_key, '--json')).code).toBe(2);
  });

  it('business set changes plan, expiry, reminders pause and UPI id', async () => {
    const created = singleJson(
      (await cli('business', 'create', '--name', 'Settable', '--phone', uniquePhone(), '--json')).stdout,
    );
    const id = created.business.id;
    const free = await cli('business', 'set', '--business', id, '--plan', 'free', '--json');
    expect(singleJson(free.stdout).business.plan).toBe('free');
    expect((await me(created.api_key, 403)).status).toBe(403);
    await cli('business', 'set', '--business', id, '--plan', 'business', '--json');
    expect((await me(created.api_key, 200)).status).toBe(200);
    const expired = await cli(
      'business',
      'set',
      '--business',
      id,
      '--plan-expires-at',
      '2020-01-01T00:00:00Z',
      '--json',
    );
    expect(singleJson(expired.stdout).business.plan_expires_at).toBe('2020-01-01T00:00:00.000Z');
    expect((await me(created.api_key, 403)).status).toBe(403);
    const more = await cli(
      'business',
      'set',
      '--business',
      id,
      '--reminders-paused',
      'true',
      '--upi-id',
      'shop@okaxis',
      '--plan-expires-at',
      '2099-01-01T00:00:00Z',
      '--reminder-steps',
      '-5,0,14, 45',
      '--json',
    );
    expect(more.code, more.stderr).toBe(0);
    expect(singleJson(more.stdout).business).toMatchObject({
      reminders_paused: true,
      upi_id: 'shop@okaxis',
      reminder_steps: '-5,0,14,45',
    });
    expect((await me(created.api_key, 200)).status).toBe(200);
    for (const args of [
      ['--reminders-paused', 'maybe'],
      ['--upi-id', 'not a vpa'],
      ['--plan-expires-at', 'soon'],
      ['--reminder-steps', '0,-3'],
      ['--reminder-steps', '-3,x'],
      ['--reminder-steps', ''],
      [],
    ]) {
      const bad = await cli('business', 'set', '--business', id, ...args, '--json');
      expect(bad.code, args.join(' ')).toBe(2);
    }
  });

  it('exits 2 as a process on bad arguments', async () => {
    const res = await runScript('src/cli.ts', ['business', 'create', '--json'], storeEnv(h));
    expect(res.code).toBe(2);
    expect(singleJson(res.stdout).error.message).toMatch(/--name is required/);
  }, 60_000);

  it('runs as `npm run -s cli -- ... --json` with exactly one JSON object on stdout', async () => {
    const out = await new Promise<{ code: number; stdout: string }>((resolve) => {
      execFile(
        'npm',
        ['run', '-s', 'cli', '--', 'business', 'create', '--name', 'Npm Run', '--phone', uniquePhone(), '--json'],
        { cwd: ROOT, env: { ...process.env, ...storeEnv(h) } },
        (error, stdout) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout }),
      );
    });
    expect(out.code).toBe(0);
    expect(singleJson(out.stdout).business.name).toBe('Npm Run');
  }, 60_000);
});
