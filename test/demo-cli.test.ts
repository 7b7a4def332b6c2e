import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/run.js';
import { type Harness, startHarness } from './helpers/harness.js';
import { startServerProcess, storeEnv } from './helpers/processes.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

async function cli(env: Record<string, string>, ...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, {
    env: { ...storeEnv(h), LOG_LEVEL: 'warn', ...env },
    out: (l) => out.push(l),
    err: (l) => err.push(l),
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const INDIAN_NAMES =
  /^(Ravi Kumar|Priya Sharma|Amit Patel|Sunita Devi|Rajesh Gupta|Meena Iyer|Arjun Reddy|Kavita Singh|Mohammed Iqbal|Lakshmi Narayanan|Harpreet Kaur|Suresh Yadav)$/;

describe('cli demo', () => {
  it("creates a business full of realistic data, with exact totals, a key and a sign-in link that works on the server's port", {
    timeout: 120_000,
  }, async () => {
    const { child, base } = await startServerProcess({
      ...storeEnv(h),
      WORKERS: 'off',
      PUBLIC_BASE_URL: '',
      RATE_LIMIT_PER_MINUTE: '100000',
    });
    try {
      const port = new URL(base).port;
      const res = await cli({ PORT: port, PUBLIC_BASE_URL: '' }, 'demo', '--json');
      expect(res.code, res.err).toBe(0);
      const demo = JSON.parse(res.out);
      expect(demo).toMatchObject({ buyers: 12, dues: 60, receipts: 2, promise: true, pending_claims: 1 });
      expect(demo.bank_credits).toEqual({ matched: 2, suggested: 1, unmatched: 1 });
      expect(demo.login_url).toMatch(new RegExp(`^http://localhost:${port}/dashboard/login/[\\w-]+$`));

      // The key works against the running server.
      const api = async (path: string) => {
        const r = await fetch(`${base}${path}`, { headers: { 'x-api-key': demo.api_key } });
        expect(r.status, path).toBe(200);
        return r.json() as Promise<any>;
      };
      const contacts = await api('/v1/contacts?limit=50');
      expect(contacts.total).toBe(12);
      for (const c of contacts.data) expect(c.name).toMatch(INDIAN_NAMES);

      const dues: any[] = [];
      for (let offset = 0; offset < 60; offset += 50)
        dues.push(...(await api(`/v1/transactions?limit=50&offset=${offset}`)).data);
      expect(dues).toHaveLength(60);
      const today = new Date().toISOString().slice(0, 10);
      const dates = dues.map((d) => d.due_date as string).sort();
      expect(Date.parse(today) - Date.parse(dates[0] as string)).toBeGreaterThan(80 * 86_400_000);
      const partPaid = dues.filter((d) => d.amount_paid_paise > 0 && d.status !== 'paid');
      expect(partPaid.length).toBeGreaterThan(3);
      expect(dues.filter((d) => d.status === 'overdue').length).toBeGreaterThan(3);
      expect(dues.filter((d) => d.status === 'paid').length).toBeGreaterThan(10);
      expect(dues.filter((d) => d.promise !== null)).toHaveLength(1);

      // The totals are exact: the summary is the sum of the dues.
      const summary = (await api('/v1/summary')).data;
      const outstanding = dues.reduce((sum, d) => sum + d.balance_paise, 0);
      expect(summary.total_outstanding_paise).toBe(outstanding);
      expect(summary.contact_count).toBe(12);

      // One "I have paid" claim waits for the business.
      let pending = 0;
      for (const d of dues.filter((x) => x.status !== 'paid')) {
        const claims = await api(`/v1/transactions/${d.id}/claims`);
        pending += claims.data.filter((c: { status: string }) => c.status === 'pending').length;
      }
      expect(pending).toBe(1);

      // Two buyers paid into their accounts: receipts spread over their dues.
      const received: { amount_paise: number; allocations: unknown[] }[] = [];
      for (const c of contacts.data) received.push(...(await api(`/v1/contacts/${c.id}/payments`)).data);
      const intoAccounts = received.filter((r) => r.amount_paise === 2_500_000 || r.amount_paise === 4_000_000);
      expect(intoAccounts).toHaveLength(2);
      for (const r of intoAccounts) expect(r.allocations.length).toBeGreaterThan(0);

      // The bank statement's credits, as the business sees them.
      expect((await api('/v1/bank-credits?status=matched')).data).toHaveLength(2);
      expect((await api('/v1/bank-credits?status=suggested')).data).toHaveLength(1);

      // Every kept figure agrees with the rows.
      const verified = await cli({}, 'verify', '--business', demo.business.id, '--json');
      expect(verified.code, verified.out).toBe(0);

      // The sign-in link opens the dashboard on the server's own port.
      const login = await fetch(demo.login_url.replace('localhost', '127.0.0.1'), { redirect: 'manual' });
      expect(login.status).toBe(303);
      expect(login.headers.get('location')).toBe('/dashboard');
      expect(login.headers.get('set-cookie')).toContain('dashboard_session=');
    } finally {
      child.kill('SIGTERM');
    }
  });

  it('refuses a channel that would really send to the made-up phones (exit 2)', async () => {
    const res = await cli(
      {
        CHAT_CHANNEL: 'whatsapp',
        WHATSAPP_PHONE_NUMBER_ID: '1',
        WHATSAPP_TOKEN: 't',
        WHATSAPP_APP_SECRET: 's',
      },
      'demo',
      '--json',
    );
    expect(res.code).toBe(2);
    expect(JSON.parse(res.out).error.message).toMatch(/CHAT_CHANNEL=log/);
  });
});
