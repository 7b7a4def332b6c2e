import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogChannel } from '../src/channels/log.js';
import { SIGN_IN_TEMPLATE } from '../src/dashboard/auth.js';
import { csrfOf, DashboardClient, lastCode, signInByLink } from './helpers/dashboard.js';
import { type Harness, startHarness, type TestBusiness } from './helpers/harness.js';

/** Sign-in codes and dashboard keys under concurrent requests: limits hold, nothing answers 500. */

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ now: '2026-03-10T06:00:00.000Z' });
});
afterAll(() => h?.close());

let addresses = 0;
/** A sign-in form client from an address of its own (the per-address limit is not what is tested). */
async function loginForm(biz: TestBusiness) {
  const client = new DashboardClient(h);
  const csrf = csrfOf((await client.get('/dashboard/login')).text);
  const remoteAddress = `10.9.${Math.floor(++addresses / 250)}.${addresses % 250}`;
  const cookie = [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const post = async (fields: Record<string, string>) => {
    const res = await h.app.inject({
      method: 'POST',
      url: '/dashboard/login',
      remoteAddress,
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ _csrf: csrf, phone: biz.business.phone, ...fields }).toString(),
    });
    return {
      status: res.statusCode,
      text: res.body,
      signedIn: /dashboard_session=[^;]/.test(String(res.headers['set-cookie'] ?? '')),
    };
  };
  return {
    send: () => post({ action: 'send' }),
    verify: (code: string) => post({ action: 'verify', code }),
  };
}

function codesSentTo(phone: string): number {
  return (h.services.channel as LogChannel).messages.filter(
    (m) => m.to === phone && m.kind === 'template' && m.template === SIGN_IN_TEMPLATE,
  ).length;
}

const wrongFor = (code: string, i: number) => {
  const wrong = String((Number(code) + 1 + i) % 1_000_000).padStart(6, '0');
  return wrong;
};

describe('POST /dashboard/login under concurrent requests', () => {
  it('compares a code at most 5 times: the right code after 60 concurrent wrong guesses is refused', async () => {
    for (let round = 0; round < 3; round++) {
      const biz = await h.newBusiness();
      const form = await loginForm(biz);
      expect((await form.send()).status).toBe(200);
      const code = lastCode(h, biz.business.phone);
      // The right code rides at the end of the burst: it must find the code's tries already spent.
      const burst = await Promise.all([
        ...Array.from({ length: 60 }, (_, i) => form.verify(wrongFor(code, i))),
        form.verify(code),
      ]);
      expect(burst.map((r) => r.status).filter((s) => s !== 400)).toEqual([]);
      expect(burst.filter((r) => r.signedIn)).toEqual([]);
      const after = await form.verify(code);
      expect(after.status).toBe(400);
      expect(after.signedIn).toBe(false);
    }
  });

  it('still signs in with the right code among fewer than 5 tries', async () => {
    const biz = await h.newBusiness();
    const form = await loginForm(biz);
    await form.send();
    const code = lastCode(h, biz.business.phone);
    const burst = await Promise.all([form.verify(wrongFor(code, 0)), form.verify(wrongFor(code, 1))]);
    expect(burst.map((r) => r.status)).toEqual([400, 400]);
    const right = await form.verify(code);
    expect(right.status).toBe(303);
    expect(right.signedIn).toBe(true);
  });

  it('sends at most 5 codes an hour to a phone, however many requests arrive at once', async () => {
    const biz = await h.newBusiness();
    const form = await loginForm(biz);
    const burst = await Promise.all(Array.from({ length: 12 }, () => form.send()));
    expect(codesSentTo(biz.business.phone)).toBe(5);
    expect(burst.filter((r) => r.status === 200)).toHaveLength(5);
    expect(burst.filter((r) => r.status === 429)).toHaveLength(7);
  });

  it('answers 200 concurrent guesses against several live codes with 400, never 500', async () => {
    const biz = await h.newBusiness();
    const form = await loginForm(biz);
    for (let i = 0; i < 5; i++) expect((await form.send()).status).toBe(200);
    const code = lastCode(h, biz.business.phone);
    const burst = await Promise.all(Array.from({ length: 200 }, (_, i) => form.verify(wrongFor(code, i))));
    expect(burst.map((r) => r.status).filter((s) => s !== 400)).toEqual([]);
  });
});

describe('POST /dashboard/developers/keys', () => {
  it('counts towards the 5 active keys: the sixth is refused with a message to revoke one', async () => {
    const biz = await h.newBusiness(); // its first key is active already
    const client = await signInByLink(h, biz.business.id);
    for (let i = 0; i < 4; i++) {
      expect((await client.submit('/dashboard/developers', '/dashboard/developers/keys')).status).toBe(200);
    }
    const sixth = await client.submit('/dashboard/developers', '/dashboard/developers/keys');
    expect(sixth.status).toBe(409);
    expect(sixth.text).toContain('Revoke one to issue a new key');
    expect(sixth.text).not.toMatch(/<code class="key">rk_live_/);
    const active = (await h.services.businesses.listKeys(biz.business.id)).filter((k) => k.revoked_at === null);
    expect(active).toHaveLength(5);
  });

  it('holds the limit under concurrent requests', async () => {
    const biz = await h.newBusiness();
    const client = await signInByLink(h, biz.business.id);
    const page = await client.get('/dashboard/developers');
    const csrf = csrfOf(page.text);
    const burst = await Promise.all(
      Array.from({ length: 8 }, () => client.request('POST', '/dashboard/developers/keys', { _csrf: csrf })),
    );
    expect(burst.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 409, 409, 409, 409]);
    const active = (await h.services.businesses.listKeys(biz.business.id)).filter((k) => k.revoked_at === null);
    expect(active).toHaveLength(5);
  });
});
