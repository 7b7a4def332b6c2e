import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../src/cli/run.js';
import { csrfOf, DashboardClient, lastCode } from './helpers/dashboard.js';
import { type Harness, startHarness, uniquePhone } from './helpers/harness.js';
import { storeEnv } from './helpers/processes.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ now: '2026-03-10T06:30:00.000Z' });
});
afterAll(() => h.close());

async function cli(...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, {
    env: { ...storeEnv(h), LOG_LEVEL: 'warn', PUBLIC_BASE_URL: 'https://pay.example.test' },
    out: (l) => out.push(l),
    err: (l) => err.push(l),
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('cli chat', () => {
  it("sends the text as the owner's message through the inbound path and prints the reply", async () => {
    const biz = await h.newBusiness({ name: 'Chat Traders' });
    const res = await cli('chat', '--business', biz.business.id, 'add Ravi 500', '--json');
    expect(res.code, res.err).toBe(0);
    expect(JSON.parse(res.out).reply).toMatch(/^Added ₹500\.00 for Ravi \(new contact\)/);

    // The due exists, as the API sees it.
    const dues = await biz.get('/v1/transactions');
    expect(dues.body.total).toBe(1);
    expect(dues.body.data[0]).toMatchObject({ amount_paise: 50_000, contact_name: 'Ravi' });

    // Words after the command make the text too; the answer is printed for people without --json.
    const asked = await cli('chat', '--business', biz.business.id, 'dues');
    expect(asked.code, asked.err).toBe(0);
    expect(asked.out).toContain('₹500.00');
  });

  it('refuses a missing text or business (exit 2), and a business that does not exist', async () => {
    const biz = await h.newBusiness();
    expect((await cli('chat', '--business', biz.business.id)).code).toBe(2);
    expect((await cli('chat', 'add Ravi 500')).code).toBe(2);
    const unknown = await cli('chat', '--business', '01959c4e-0000-7000-8000-000000000000', 'dues', '--json');
    expect(unknown.code).toBe(2);
    expect(JSON.parse(unknown.out).error.message).toMatch(/business/);
    expect((await biz.get('/v1/transactions')).body.total).toBe(0);
  });
});

describe('cli messages', () => {
  it('prints the last messages the log channel sent for the business: chat replies, sign-in codes, reminders', async () => {
    const biz = await h.newBusiness({ name: 'Message Traders' });
    const other = await h.newBusiness({ name: 'Other Traders' });
    expect((await cli('chat', '--business', biz.business.id, 'add Meena 250')).code).toBe(0);
    expect((await cli('chat', '--business', other.business.id, 'add Kiran 999')).code).toBe(0);

    // A sign-in code, sent by the server (another "process": the harness's app).
    const client = new DashboardClient(h);
    const login = await client.get('/dashboard/login');
    const csrf = csrfOf(login.text);
    const sent = await client.request('POST', '/dashboard/login', {
      _csrf: csrf,
      phone: biz.business.phone,
      action: 'send',
    });
    expect(sent.status, sent.text).toBe(200);
    const code = lastCode(h, biz.business.phone);

    // A reminder to a buyer, sent on the business's behalf.
    const buyer = uniquePhone();
    const due = await biz.post('/v1/transactions', {
      amount_paise: 12_345_000,
      due_date: '2026-03-15',
      contact_name: 'Ravi Kumar',
      contact_phone: buyer,
    });
    expect(due.status, due.text).toBe(201);
    expect((await biz.post(`/v1/transactions/${due.body.data.id}/remind`, {})).status).toBe(200);

    const res = await cli('messages', '--business', biz.business.id, '--json');
    expect(res.code, res.err).toBe(0);
    const messages = JSON.parse(res.out).messages as { to: string; template: string | null; text: string }[];
    expect(messages).toHaveLength(3);
    expect(messages[0]?.text).toMatch(/^Added ₹250\.00 for Meena/);
    expect(messages[1]).toMatchObject({ to: biz.business.phone, template: 'dashboard_sign_in_code' });
    expect(messages[1]?.text).toContain(code);
    expect(messages[2]).toMatchObject({ to: due.body.data.contact_phone, template: 'reminder_upcoming' });
    expect(messages[2]?.text).toContain('Ravi Kumar');
    expect(messages.some((m) => m.text.includes('Kiran'))).toBe(false);

    const last = await cli('messages', '--business', biz.business.id, '--limit', '1');
    expect(last.code, last.err).toBe(0);
    expect(last.out).toContain('reminder_upcoming');
    expect(last.out).not.toContain('Meena');
  });

  it('refuses a bad --limit, an unknown business, and a channel other than log', async () => {
    const biz = await h.newBusiness();
    expect((await cli('messages', '--business', biz.business.id, '--limit', '0')).code).toBe(2);
    expect((await cli('messages', '--business', '01959c4e-0000-7000-8000-000000000000')).code).toBe(2);
    const out: string[] = [];
    const code = await runCli(['messages', '--business', biz.business.id, '--json'], {
      env: {
        ...storeEnv(h),
        CHAT_CHANNEL: 'whatsapp',
        WHATSAPP_PHONE_NUMBER_ID: '1',
        WHATSAPP_TOKEN: 't',
        WHATSAPP_APP_SECRET: 's',
      },
      out: (l) => out.push(l),
      err: () => {},
    });
    expect(code).toBe(2);
    expect(JSON.parse(out.join('')).error.message).toMatch(/CHAT_CHANNEL=log/);
  });
});
