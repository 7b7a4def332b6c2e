import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEY_USE_RESOLUTION_MS } from '../src/businesses/keys.js';
import { runCli } from '../src/cli/run.js';
import { type Harness, startHarness } from './helpers/harness.js';
import { storeEnv } from './helpers/processes.js';

/** PRODUCT part 16: keys a business can see and revoke (the admin CLI and the service it uses). */

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ now: '2026-07-01T06:30:00.000Z' });
});
afterAll(() => h.close());

async function cli(...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, {
    env: { ...storeEnv(h), LOG_LEVEL: 'warn' },
    out: (line) => out.push(line),
    err: (line) => err.push(line),
  });
  return {
    code,
    json: args.includes('--json') ? JSON.parse(out[0] as string) : undefined,
    out,
    stderr: err.join('\n'),
  };
}

function me(apiKey: string) {
  return h.request('GET', '/v1/me', { headers: { 'x-api-key': apiKey } });
}

describe('key list', () => {
  it('lists every key of the business with id, prefix, dates and source, never the key', async () => {
    const biz = await h.newBusiness();
    const other = await h.newBusiness();
    const second = (await cli('key', 'issue', '--business', biz.business.id, '--json')).json.api_key as string;
    const res = await cli('key', 'list', '--business', biz.business.id, '--json');
    expect(res.code, res.stderr).toBe(0);
    expect(res.json).toEqual({
      keys: [
        {
          id: expect.stringMatching(/^[0-9a-f-]{36}$/),
          prefix: biz.apiKey.slice(0, 12),
          created_at: expect.any(String),
          last_used_at: null,
          revoked_at: null,
          source: 'cli',
        },
        expect.objectContaining({ prefix: second.slice(0, 12), source: 'cli', revoked_at: null }),
      ],
    });
    expect(JSON.stringify(res.json)).not.toContain(biz.apiKey);
    expect(JSON.stringify(res.json)).not.toContain(other.business.id);
  });

  it('records last_used_at when a key is used, at most one write a minute', async () => {
    const biz = await h.newBusiness();
    const used = async () => (await h.services.businesses.listKeys(biz.business.id))[0]?.last_used_at;
    expect(await used()).toBeNull();
    expect((await me(biz.apiKey)).status).toBe(200);
    const first = h.clock.now().toISOString();
    expect(await used()).toBe(first);
    h.clock.advance(KEY_USE_RESOLUTION_MS - 1000);
    expect((await me(biz.apiKey)).status).toBe(200);
    expect(await used()).toBe(first);
    h.clock.advance(1000);
    expect((await me(biz.apiKey)).status).toBe(200);
    expect(await used()).toBe(h.clock.now().toISOString());
  });

  it('answers exit 2 for an unknown business or a missing --business', async () => {
    expect((await cli('key', 'list', '--business', '00000000-0000-4000-8000-000000000000', '--json')).code).toBe(2);
    expect((await cli('key', 'list', '--json')).code).toBe(2);
  });
});

describe('key revoke --id', () => {
  it('revokes the key with that id: it stops working and shows revoked_at', async () => {
    const biz = await h.newBusiness();
    const [key] = (await cli('key', 'list', '--business', biz.business.id, '--json')).json.keys;
    const res = await cli('key', 'revoke', '--id', key.id, '--json');
    expect(res.code, res.stderr).toBe(0);
    expect(res.json).toEqual({ revoked: true });
    expect((await me(biz.apiKey)).status).toBe(401);
    const [after] = (await cli('key', 'list', '--business', biz.business.id, '--json')).json.keys;
    expect(Date.parse(after.revoked_at)).toBeGreaterThan(0);
  });

  it('answers exit 2 for an id that is unknown, already revoked or not a uuid, and for both or neither of --id/--key', async () => {
    const biz = await h.newBusiness();
    const [key] = (await cli('key', 'list', '--business', biz.business.id, '--json')).json.keys;
    expect((await cli('key', 'revoke', '--id', key.id)).code).toBe(0);
    for (const args of [
      ['--id', key.id],
      ['--id', '00000000-0000-4000-8000-000000000000'],
      ['--id', 'not-a-uuid'],
      ['--id', key.id, '--key', biz.apiKey],
      [],
    ]) {
      const res = await cli('key', 'revoke', ...args, '--json');
      expect(res.code, args.join(' ')).toBe(2);
      expect(res.json.error.message).toBeTypeOf('string');
    }
  });

  it('revokes within one business only through the service the dashboard uses', async () => {
    const biz = await h.newBusiness();
    const other = await h.newBusiness();
    const [key] = await h.services.businesses.listKeys(biz.business.id);
    expect(await h.services.businesses.revokeKeyById(key?.id as string, other.business.id)).toBe(false);
    expect((await me(biz.apiKey)).status).toBe(200);
    expect(await h.services.businesses.revokeKeyById(key?.id as string, biz.business.id)).toBe(true);
    expect((await me(biz.apiKey)).status).toBe(401);
  });
});

describe('keys issued over chat', () => {
  it('never leave more than 5 active, even when several are asked for at once', async () => {
    const biz = await h.newBusiness();
    const issued = await Promise.all(
      Array.from({ length: 8 }, () => h.services.businesses.issueChatKey(biz.business.id)),
    );
    expect(issued.every((i) => i.apiKey !== null)).toBe(true);
    const keys = await h.services.businesses.listKeys(biz.business.id);
    expect(keys).toHaveLength(9);
    const active = keys.filter((k) => k.revoked_at === null);
    expect(active).toHaveLength(5);
    // The CLI key stays; the newest four chat keys are the others.
    expect(active.map((k) => k.source)).toEqual(['cli', 'chat', 'chat', 'chat', 'chat']);
    expect(issued.filter((i) => i.apiKey !== null && i.revoked !== null)).toHaveLength(4);
  });
});
