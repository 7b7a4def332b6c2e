import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/run.js';
import { type Harness, startHarness } from './helpers/harness.js';
import { runScript, storeEnv } from './helpers/processes.js';

/** Admin CLI `import` and `export` (PRODUCT part 12) against the harness's store. */

let h: Harness;
let dir: string;
beforeAll(async () => {
  h = await startHarness();
  dir = mkdtempSync(path.join(tmpdir(), 'bulk-cli-'));
});
afterAll(async () => {
  await h?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function cli(args: string[], opts: { tty?: boolean } = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const written: string[] = [];
  const progress: string[] = [];
  const code = await runCli(args, {
    env: { ...storeEnv(h), LOG_LEVEL: 'warn' },
    out: (line) => out.push(line),
    err: (line) => err.push(line),
    write: (chunk) => {
      written.push(chunk);
    },
    ...(opts.tty && { progress: (text: string) => progress.push(text) }),
  });
  return { code, out, stderr: err.join('\n'), csv: written.join(''), progress };
}

function file(name: string, text: string): string {
  const p = path.join(dir, name);
  writeFileSync(p, text);
  return p;
}

const CSV =
  'contact_name,amount,due_date,invoice_number\nCli Buyer,"1,500.25",15/12/2026,C-1\nCli Other,99,2026-12-16,C-2\n';

describe('admin CLI import and export', () => {
  it('import --json creates the dues, shows a progress bar on a terminal, and a re-run is refused', async () => {
    const biz = await h.newBusiness();
    const f = file('dues.csv', CSV);
    const dry = await cli(['import', '--business', biz.business.id, '--file', f, '--dry-run', '--json']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(JSON.parse(dry.out[0] as string).data).toMatchObject({ created: 2, contacts_created: 2 });
    expect((await biz.get('/v1/transactions')).body.total).toBe(0);

    const res = await cli(['import', '--business', biz.business.id, '--file', f, '--json'], { tty: true });
    expect(res.code, res.stderr).toBe(0);
    expect(res.out).toHaveLength(1);
    expect(JSON.parse(res.out[0] as string).data).toMatchObject({ created: 2, contacts_created: 2 });
    expect(res.progress.at(-1)).toBe(`[${'#'.repeat(30)}] 2/2 rows`);
    const list = (await biz.get('/v1/transactions')).body.data;
    expect(list.map((t: { amount_paise: number }) => t.amount_paise).sort()).toEqual([150_025, 9900]);

    const again = await cli(['import', '--business', biz.business.id, '--file', f, '--json']);
    expect(again.code).toBe(2);
    expect(JSON.parse(again.out[0] as string).error.rows).toEqual([
      { row: 1, field: 'invoice_number', message: expect.any(String) },
      { row: 2, field: 'invoice_number', message: expect.any(String) },
    ]);
    const human = await cli(['import', '--business', biz.business.id, '--file', f]);
    expect(human.code).toBe(2);
    expect(human.stderr).toContain('row 1, invoice_number');
  });

  it('import refuses bad arguments with exit code 2', async () => {
    const biz = await h.newBusiness();
    expect((await cli(['import', '--file', file('x.csv', CSV)])).code).toBe(2);
    expect((await cli(['import', '--business', biz.business.id])).code).toBe(2);
    expect((await cli(['import', '--business', biz.business.id, '--file', path.join(dir, 'missing.csv')])).code).toBe(
      2,
    );
    expect((await cli(['import', '--business', biz.business.id, '--file', file('bad.json', '{')])).code).toBe(2);
    expect((await cli(['export', '--business', biz.business.id, '--status', 'nope'])).code).toBe(2);
  });

  it('export writes the CSV of the business (with --status) to the output', async () => {
    const biz = await h.newBusiness();
    expect((await cli(['import', '--business', biz.business.id, '--file', file('e.csv', CSV)])).code).toBe(0);
    const all = await cli(['export', '--business', biz.business.id]);
    expect(all.code, all.stderr).toBe(0);
    const rows = parse(all.csv, { columns: true }) as Record<string, string>[];
    expect(rows.map((r) => r.invoice_number).sort()).toEqual(['C-1', 'C-2']);
    const paid = await cli(['export', '--business', biz.business.id, '--status', 'paid']);
    expect(parse(paid.csv, { columns: true })).toEqual([]);
  });

  it('export to a file from a real process, imported back by a real process', async () => {
    const biz = await h.newBusiness();
    expect((await cli(['import', '--business', biz.business.id, '--file', file('p.csv', CSV)])).code).toBe(0);
    const exported = await runScript('src/cli.ts', ['export', '--business', biz.business.id], storeEnv(h));
    expect(exported.code, exported.stderr).toBe(0);
    const out = file('exported.csv', exported.stdout);
    expect(readFileSync(out, 'utf8').split('\r\n')[0]).toMatch(/^id,contact_id,contact_name,/);
    const fresh = await h.newBusiness();
    const imported = await runScript(
      'src/cli.ts',
      ['import', '--business', fresh.business.id, '--file', out, '--json'],
      storeEnv(h),
    );
    expect(imported.code, imported.stderr).toBe(0);
    expect(JSON.parse(imported.stdout).data.created).toBe(2);
    // two processes started through tsx on a shared machine
  }, 150_000);
});
