import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/run.js';
import { newDue } from './helpers/dues.js';
import { type Harness, startHarness } from './helpers/harness.js';
import { storeEnv } from './helpers/processes.js';

/** Admin CLI `bank import` against the harness's store. */

let h: Harness;
let dir: string;
beforeAll(async () => {
  h = await startHarness();
  dir = mkdtempSync(path.join(tmpdir(), 'bank-cli-'));
});
afterAll(async () => {
  await h?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function cli(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, {
    env: { ...storeEnv(h), LOG_LEVEL: 'warn' },
    out: (line) => out.push(line),
    err: (line) => err.push(line),
    write: () => {},
  });
  return { code, out, stderr: err.join('\n') };
}

describe('admin CLI bank import', () => {
  it('uploads a statement, matches its credits, and skips them when run again', async () => {
    const biz = await h.newBusiness();
    const due = await newDue(biz, { contact_name: 'Cli Payer', amount_paise: 50_000, invoice_number: 'CLI-77' });
    const f = path.join(dir, 'statement.csv');
    writeFileSync(f, 'Date,Narration,Ref No.,Deposit\n01/11/2026,NEFT-CLI PAYER-CLI-77,N77,500.00\n');

    const res = await cli(['bank', 'import', '--business', biz.business.id, '--file', f, '--json']);
    expect(res.code, res.stderr).toBe(0);
    expect(JSON.parse(res.out[0] as string).data).toMatchObject({ lines: 1, credits: 1, matched: 1, duplicates: 0 });
    expect((await biz.get(`/v1/transactions/${due.id}`)).body.data.status).toBe('paid');

    const again = await cli(['bank', 'import', '--business', biz.business.id, '--file', f]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.out.join('\n')).toBe(
      'read 1 lines: 0 new credits (1 seen before); 0 matched, 0 suggested, 0 unmatched',
    );
  });

  it('refuses a bad statement and bad arguments', async () => {
    const biz = await h.newBusiness();
    const f = path.join(dir, 'bad.csv');
    writeFileSync(f, 'Date,Narration,Deposit\n99/99/2026,x,1\n');
    const bad = await cli(['bank', 'import', '--business', biz.business.id, '--file', f]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('line 2: "99/99/2026" is not a date');
    const missing = await cli(['bank', 'import', '--business', biz.business.id]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--file');
  });
});
