import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/run.js';
import { migrate, openStore } from '../src/db/store.js';
import { verifyStore } from '../src/ops/verify/index.js';
import { type Harness, STORE, startHarness, type TestBusiness } from './helpers/harness.js';
import { seedLedger } from './helpers/ledger.js';
import { ROOT, runScript, storeEnv } from './helpers/processes.js';

const NOW = '2026-11-21T06:30:00.000Z';

let h: Harness;
let biz: TestBusiness;
let scratch: string;
beforeAll(async () => {
  h = await startHarness({ now: NOW });
  biz = await h.newBusiness();
  await seedLedger(h, biz);
  scratch = mkdtempSync(path.join(tmpdir(), 'receivables-ops-cli-'));
});
afterAll(async () => {
  await h.close();
  rmSync(scratch, { recursive: true, force: true });
});

async function cli(env: Record<string, string | undefined>, ...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, {
    env: { ...env, LOG_LEVEL: 'warn' },
    out: (line) => out.push(line),
    err: (line) => err.push(line),
  });
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

const here = (...args: string[]) => cli(storeEnv(h), ...args);

function oneJson(stdout: string) {
  const lines = stdout.trim().split('\n');
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0] as string);
}

describe('verify (CLI)', () => {
  it('exits 0 and prints one JSON object when every figure agrees', async () => {
    const res = await here('verify', '--json');
    expect(res.code, res.stderr).toBe(0);
    const report = oneJson(res.stdout);
    expect(report).toMatchObject({ ok: true, differences: [], differences_total: 0 });
    expect(report.checks.length).toBeGreaterThanOrEqual(7);
    const text = await here('verify');
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/business_totals: agrees/);
    expect(text.stdout).toMatch(/every figure agrees with the rows/);
  });

  it('exits 1 and names each difference when a kept figure is corrupted', async () => {
    const id = biz.business.id;
    const where = `business_id = '${id}'${STORE === 'postgres' ? ` and shard = (select min(shard) from business_totals where business_id = '${id}')` : ''}`;
    await sql.raw(`update business_totals set paid_paise = paid_paise + 500 where ${where}`).execute(h.store.db);
    try {
      const res = await here('verify', '--business', id, '--json');
      expect(res.code).toBe(1);
      const report = oneJson(res.stdout);
      expect(report.ok).toBe(false);
      expect(report.differences).toEqual([
        expect.objectContaining({ check: 'business_totals', business_id: id, field: 'paid_paise' }),
      ]);
      const text = await here('verify', '--business', id);
      expect(text.code).toBe(1);
      expect(text.stdout).toMatch(/business_totals: 1 difference/);
      expect(text.stdout).toMatch(new RegExp(`business ${id}, totals, paid_paise: kept \\d+, the rows say \\d+`));
      expect(text.stdout).toMatch(/does NOT agree/);
    } finally {
      await sql.raw(`update business_totals set paid_paise = paid_paise - 500 where ${where}`).execute(h.store.db);
    }
    expect((await here('verify', '--business', id)).code).toBe(0);
  });

  it('exits 2 for a business that does not exist or an option it does not take', async () => {
    const missing = await here('verify', '--business', '01959c4e-0000-7000-8000-000000000000', '--json');
    expect(missing.code).toBe(2);
    expect(oneJson(missing.stdout).error.message).toMatch(/not found/i);
    expect((await here('verify', '--business', 'nope')).code).toBe(2);
    const bad = await here('verify', '--out', 'x');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--out does not apply/);
  });
});

describe.skipIf(STORE !== 'sqlite')('backup and restore (CLI, SQLite)', () => {
  it('backup --out writes a copy and prints one JSON object; --out is required', async () => {
    const out = path.join(scratch, 'cli.db');
    const res = await here('backup', '--out', out, '--json');
    expect(res.code, res.stderr).toBe(0);
    expect(oneJson(res.stdout)).toEqual({ backup: { file: out, bytes: expect.any(Number) } });
    const missing = await here('backup', '--json');
    expect(missing.code).toBe(2);
    expect(oneJson(missing.stdout).error.message).toBe('--out is required');
    const noFolder = await here('backup', '--out', path.join(scratch, 'nowhere', 'x.db'));
    expect(noFolder.code).toBe(1);
    expect(noFolder.stderr).toMatch(/does not exist/);
  });

  it('a backup that fails part-way (a full disk) exits 1 naming the folder, leaves no file, keeps the earlier one, harms nothing', async () => {
    const dir = mkdtempSync(path.join(scratch, 'full-'));
    const out = path.join(dir, 'nightly.db');
    expect((await here('backup', '--out', out)).code).toBe(0);
    const earlier = readFileSync(out);
    // The kernel refuses the process's writes past half the backup's size (RLIMIT_FSIZE), as a
    // disk that fills up part-way does.
    const limitKiB = Math.floor(earlier.length / 2048);
    expect(limitKiB).toBeGreaterThan(32);
    const res = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      execFile(
        'bash',
        [
          '-c',
          `ulimit -f ${limitKiB} && exec "$0" --import tsx src/cli.ts backup --out "$1" --json`,
          process.execPath,
          out,
        ],
        { cwd: ROOT, env: { ...process.env, ...storeEnv(h), LOG_LEVEL: 'warn' }, timeout: 60_000 },
        (error, stdout, stderr) =>
          resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
      );
    });
    expect(res.code, res.stderr).toBe(1);
    const message = `backup failed while writing into ${dir}: `;
    expect(res.stderr).toContain(`error: ${message}`);
    expect(oneJson(res.stdout).error.message).toMatch(
      /Nothing was written to .*nightly\.db \(no partial file is left\)/,
    );
    // No other file in the folder, and the earlier backup at --out whole, byte for byte.
    expect(readdirSync(dir)).toEqual(['nightly.db']);
    expect(readFileSync(out).equals(earlier)).toBe(true);
    // The store goes on taking writes, and every kept figure agrees with its rows.
    expect(
      (
        await biz.post('/v1/transactions', {
          amount_paise: 4_200,
          due_date: '2026-12-01',
          contact_name: 'After Full Disk',
        })
      ).status,
    ).toBe(201);
    const verified = await here('verify', '--json');
    expect(verified.code, verified.stdout).toBe(0);
  });

  it('restore refuses while the server has the store open, changing nothing', async () => {
    const out = path.join(scratch, 'for-restore.db');
    expect((await here('backup', '--out', out)).code).toBe(0);
    const res = await here('restore', '--from', out, '--json');
    expect(res.code).toBe(1);
    expect(oneJson(res.stdout).error.message).toMatch(/is in use/);
    expect((await biz.get('/v1/summary')).status).toBe(200);
  });

  it('restore puts a backup in place of a stopped store, which then verifies', async () => {
    const out = path.join(scratch, 'to-restore.db');
    expect((await here('backup', '--out', out)).code).toBe(0);
    const dataDir = path.join(scratch, 'stopped-store');
    const env = { DATA_DIR: dataDir, DATABASE_URL: '' };
    const res = await cli(env, 'restore', '--from', out, '--json');
    expect(res.code, res.stderr).toBe(0);
    expect(oneJson(res.stdout)).toEqual({
      restored: { file: path.join(dataDir, 'receivables.db'), replaced: null, schema: expect.any(String) },
    });
    const verified = await cli(env, 'verify', '--json');
    expect(verified.code, verified.stdout).toBe(0);
    expect(oneJson(verified.stdout).businesses).toBeGreaterThan(0);
    expect((await cli(env, 'restore', '--from', path.join(scratch, 'absent.db'))).code).toBe(1);
  });

  it('backup as its own process, while this process writes, holds every write acknowledged before it began', async () => {
    const writer = await h.newBusiness();
    const acked: string[] = [];
    let stop = false;
    const loop = (async () => {
      for (let i = 0; !stop && i < 20_000; i++) {
        const res = await writer.post('/v1/transactions', {
          amount_paise: 1_000 + i,
          due_date: '2026-12-10',
          contact_name: 'Process Writer',
        });
        expect(res.status).toBe(201);
        acked.push(res.body.data.id);
      }
    })();
    const out = path.join(scratch, 'process.db');
    let before: string[] = [];
    try {
      while (acked.length < 20) await new Promise((r) => setImmediate(r));
      before = [...acked];
      const res = await runScript('src/cli.ts', ['backup', '--out', out, '--json'], storeEnv(h));
      expect(res.code, res.stderr).toBe(0);
      expect(oneJson(res.stdout).backup.file).toBe(out);
    } finally {
      stop = true;
      await loop;
    }
    const dataDir = path.join(scratch, 'process-restored');
    expect((await cli({ DATA_DIR: dataDir, DATABASE_URL: '' }, 'restore', '--from', out)).code).toBe(0);
    const store = openStore({ dataDir, databaseUrl: undefined, pgPoolMax: 1 });
    try {
      await migrate(store.db);
      const ids = new Set(
        (
          await store.db.selectFrom('transactions').select('id').where('business_id', '=', writer.business.id).execute()
        ).map((r) => r.id),
      );
      expect(before.filter((id) => !ids.has(id))).toEqual([]);
      expect((await verifyStore(store.db)).ok).toBe(true);
    } finally {
      await store.close();
    }
  });
});

describe.skipIf(STORE !== 'postgres')('backup and restore (CLI, PostgreSQL)', () => {
  it('backup exits 1 and says to use pg_dump; restore says to use pg_restore', async () => {
    const backup = await here('backup', '--out', path.join(scratch, 'x.db'), '--json');
    expect(backup.code).toBe(1);
    expect(oneJson(backup.stdout).error.message).toMatch(/PostgreSQL: back it up with pg_dump/);
    const restore = await here('restore', '--from', path.join(scratch, 'x.db'));
    expect(restore.code).toBe(1);
    expect(restore.stderr).toMatch(/pg_restore/);
  });
});
