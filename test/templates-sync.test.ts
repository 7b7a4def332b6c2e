import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/run.js';
import { FakeGraphApi } from './helpers/fake-whatsapp.js';

/**
 * `templates sync` against a fake Graph API: the templates of docs/whatsapp-templates.json that the
 * WhatsApp Business Account lacks are created, the others left alone.
 */

const WABA = '1029384756';
let graph: FakeGraphApi;
let base: string;
const dataDir = mkdtempSync(path.join(tmpdir(), 'templates-sync-'));
const catalogue = (
  JSON.parse(readFileSync(path.join(import.meta.dirname, '../docs/whatsapp-templates.json'), 'utf8')) as {
    templates: { name: string; language: string; category: string; body: string; footer: string }[];
  }
).templates;

beforeAll(async () => {
  graph = new FakeGraphApi();
  base = `${await graph.start()}/v21.0`;
});
afterAll(() => graph.close());
beforeEach(() => {
  graph.requests.length = 0;
  graph.templates.length = 0;
  graph.refuseTemplates.clear();
  graph.mode = 'ok';
});

async function sync(args: string[] = [], env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(['templates', 'sync', ...args], {
    env: {
      DATA_DIR: dataDir,
      WHATSAPP_API_BASE: base,
      WHATSAPP_TOKEN: 'sync-token',
      WHATSAPP_BUSINESS_ACCOUNT_ID: WABA,
      ...env,
    },
    out: (line) => out.push(line),
    err: (line) => err.push(line),
  });
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

describe('templates sync', () => {
  it('creates the templates the account lacks, in the Graph API shape, and leaves the others', async () => {
    graph.templates.push(
      { name: 'reminder_upcoming', language: 'hi', status: 'APPROVED', category: 'UTILITY' },
      { name: 'reminder_final', language: 'en', status: 'REJECTED', category: 'UTILITY' },
      { name: 'someone_elses', language: 'en', status: 'APPROVED', category: 'MARKETING' },
    );
    const res = await sync(['--json']);
    expect(res.code, res.stderr).toBe(0);
    const outcomes = JSON.parse(res.stdout).data as {
      name: string;
      language: string;
      outcome: string;
      status: string;
    }[];
    expect(outcomes).toHaveLength(catalogue.length);
    expect(outcomes.filter((o) => o.outcome === 'exists')).toEqual([
      { name: 'reminder_upcoming', language: 'hi', outcome: 'exists', status: 'APPROVED', error: null },
      { name: 'reminder_final', language: 'en', outcome: 'exists', status: 'REJECTED', error: null },
    ]);
    expect(outcomes.filter((o) => o.outcome === 'created')).toHaveLength(catalogue.length - 2);

    // Listed through every page (two a page), then one POST per missing template.
    const gets = graph.requests.filter((r) => r.method === 'GET');
    expect(gets.map((r) => new URL(r.url, 'http://x').searchParams.get('after'))).toEqual([null, '2']);
    expect(gets[0]?.url).toMatch(new RegExp(`^/v21.0/${WABA}/message_templates\\?`));
    const posts = graph.requests.filter((r) => r.method === 'POST');
    expect(posts).toHaveLength(catalogue.length - 2);
    for (const post of posts) {
      expect(post.url).toBe(`/v21.0/${WABA}/message_templates`);
      expect(post.headers.authorization).toBe('Bearer sync-token');
    }
    const upcoming = posts.find((p) => p.body.name === 'reminder_upcoming' && p.body.language === 'en')?.body;
    const entry = catalogue.find((t) => t.name === 'reminder_upcoming' && t.language === 'en');
    expect(upcoming).toEqual({
      name: 'reminder_upcoming',
      language: 'en',
      category: 'UTILITY',
      components: [
        {
          type: 'BODY',
          text: entry?.body,
          example: {
            body_text: [
              ['Ravi Kumar', 'Sharma Textiles', '₹1,23,450.00', '5 Mar 2026', 'https://pay.example.com/pay/Xy3abc'],
            ],
          },
        },
        { type: 'FOOTER', text: 'Reply STOP to stop reminders' },
      ],
    });
    const code = posts.find((p) => p.body.name === 'dashboard_sign_in_code' && p.body.language === 'hi')?.body;
    expect(code).toEqual({
      name: 'dashboard_sign_in_code',
      language: 'hi',
      category: 'AUTHENTICATION',
      components: [
        { type: 'BODY', add_security_recommendation: true },
        { type: 'FOOTER', code_expiration_minutes: 10 },
        { type: 'BUTTONS', buttons: [{ type: 'OTP', otp_type: 'COPY_CODE' }] },
      ],
    });

    // Run again: everything exists, nothing is created.
    graph.requests.length = 0;
    const again = await sync();
    expect(again.code).toBe(0);
    expect(again.stdout.split('\n')).toHaveLength(catalogue.length);
    expect(again.stdout).toContain('reminder_due_today (hi): exists [PENDING]');
    expect(graph.requests.filter((r) => r.method === 'POST')).toEqual([]);
  });

  it('--dry-run lists what it would create and creates nothing', async () => {
    const res = await sync(['--dry-run']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain('reminder_overdue_week (en): would create');
    expect(graph.requests.filter((r) => r.method === 'POST')).toEqual([]);
    expect(graph.templates).toEqual([]);
  });

  it('goes on past a template Meta refuses, then exits 1 naming it', async () => {
    graph.refuseTemplates.add('reminder_final');
    const res = await sync();
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(
      'reminder_final (en): failed: the Graph API refused (HTTP 400): reminder_final: body not allowed',
    );
    expect(res.stderr).toContain('2 template(s) could not be created');
    expect(graph.templates).toHaveLength(catalogue.length - 2);
  });

  it('exits 1 and creates nothing when the Graph API fails', async () => {
    graph.mode = 'fail';
    const res = await sync();
    expect(res.code).toBe(1);
    expect(res.stderr).toContain('the Graph API refused (HTTP 500): Service unavailable');
    expect(graph.requests.filter((r) => r.method === 'POST')).toEqual([]);
  });

  it('exits 2 naming what is missing: the account id or the token; and refuses other options', async () => {
    const noAccount = await sync([], { WHATSAPP_BUSINESS_ACCOUNT_ID: '' });
    expect(noAccount.code).toBe(2);
    expect(noAccount.stderr).toContain('templates sync needs WHATSAPP_BUSINESS_ACCOUNT_ID');
    const noToken = await sync([], { WHATSAPP_TOKEN: '' });
    expect(noToken.code).toBe(2);
    expect(noToken.stderr).toContain('templates sync needs WHATSAPP_TOKEN');
    expect((await sync(['--business', 'x'])).code).toBe(2);
    expect(graph.requests).toEqual([]);
  });
});
