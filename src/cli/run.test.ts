import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.js';
import { openStore, pendingMigrations } from '../db/store.js';
import { COMMANDS } from './commands/index.js';
import { runCli } from './run.js';

const dir = mkdtempSync(path.join(tmpdir(), 'cli-run-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function cli(...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, { env: { DATA_DIR: dir }, out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

async function pending(): Promise<number> {
  const store = openStore(loadConfig({ DATA_DIR: dir }));
  try {
    return await pendingMigrations(store.db);
  } finally {
    await store.close();
  }
}

describe('admin CLI start-up', () => {
  it('lists every command of the table in --help', async () => {
    const res = await cli('--help');
    expect(res.code).toBe(0);
    for (const name of Object.keys(COMMANDS)) expect(res.err).toContain(`  ${name}`);
  });

  it('loads every command of the table', async () => {
    for (const entry of Object.values(COMMANDS)) {
      expect(typeof (await entry.load()).default.run).toBe('function');
    }
  });

  it('a command that only reads runs no migration: on a store never migrated it says so', async () => {
    expect(await pending()).toBeGreaterThan(0);
    const res = await cli('key', 'list', '--business', '00000000-0000-7000-8000-000000000000', '--json');
    expect(res.code).toBe(1);
    expect(JSON.parse(res.out).error.message).toMatch(/not up to date.*npm start/);
    expect(await pending()).toBeGreaterThan(0);
  });

  it('a command that writes migrates first; reads then answer', async () => {
    const created = await cli('business', 'create', '--name', 'Start Up', '--phone', '9876543210', '--json');
    expect(created.code, created.err).toBe(0);
    expect(await pending()).toBe(0);
    const id = JSON.parse(created.out).business.id;
    const listed = await cli('key', 'list', '--business', id, '--json');
    expect(listed.code, listed.err).toBe(0);
    expect(JSON.parse(listed.out).keys).toHaveLength(1);
  });

  it('refuses words after a command that takes none', async () => {
    const res = await cli('key', 'list', 'extra', '--business', 'x');
    expect(res.code).toBe(2);
    expect(res.err).toContain('unknown command "key list extra"');
  });
});
