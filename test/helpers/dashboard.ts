import { expect } from 'vitest';
import type { LogChannel } from '../../src/channels/log.js';
import { DashboardAuth, SIGN_IN_TEMPLATE } from '../../src/dashboard/auth.js';
import { MemoryRateLimitStore } from '../../src/rate-limit/memory.js';
import type { Harness, TestBusiness } from './harness.js';

export interface Page {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  text: string;
  location: string | undefined;
}

/** A browser without JavaScript over light-my-request: keeps cookies, posts urlencoded forms. */
export class DashboardClient {
  readonly cookies = new Map<string, string>();
  constructor(private readonly h: Harness) {}

  async request(
    method: 'GET' | 'POST',
    url: string,
    form?: Record<string, string>,
    raw?: { payload: Buffer; contentType: string },
  ): Promise<Page> {
    const headers: Record<string, string> = {};
    if (this.cookies.size > 0) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    if (form) headers['content-type'] = 'application/x-www-form-urlencoded';
    if (raw) headers['content-type'] = raw.contentType;
    const res = await this.h.app.inject({
      method,
      url,
      headers,
      ...(form && { payload: new URLSearchParams(form).toString() }),
      ...(raw && { payload: raw.payload }),
    });
    const setCookie = res.headers['set-cookie'];
    for (const line of Array.isArray(setCookie) ? setCookie : setCookie ? [setCookie] : []) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const location = res.headers.location;
    return { status: res.statusCode, headers: res.headers, text: res.body, location: location as string | undefined };
  }

  get(url: string) {
    return this.request('GET', url);
  }

  /** Posts a file form (multipart/form-data) as a browser does: `files` maps a field to [file name, text]. */
  async upload(url: string, fields: Record<string, string>, files: Record<string, [string, string]>): Promise<Page> {
    const data = new FormData();
    for (const [k, v] of Object.entries(fields)) data.append(k, v);
    for (const [k, [name, text]] of Object.entries(files)) data.append(k, new Blob([text], { type: 'text/csv' }), name);
    const encoded = new Request('http://localhost/', { method: 'POST', body: data });
    const payload = Buffer.from(await encoded.arrayBuffer());
    return this.request('POST', url, undefined, {
      payload,
      contentType: encoded.headers.get('content-type') as string,
    });
  }

  /** Posts a form with the CSRF token of the page it was on (as a browser would). */
  async submit(pageUrl: string, action: string, fields: Record<string, string> = {}): Promise<Page> {
    const page = await this.get(pageUrl);
    expect(page.status, page.text).toBe(200);
    return this.request('POST', action, { _csrf: csrfOf(page.text), ...fields });
  }
}

export function csrfOf(html: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(html);
  if (!match?.[1]) throw new Error('no CSRF token on the page');
  return match[1];
}

/** The last sign-in code the log channel recorded for this phone (the authentication template's). */
export function lastCode(h: Harness, phone: string): string {
  const last = (h.services.channel as LogChannel).messages
    .filter((m) => m.to === phone && m.kind === 'template' && m.template === SIGN_IN_TEMPLATE)
    .at(-1);
  const code = last?.kind === 'template' ? last.parameters[0] : undefined;
  if (!code) throw new Error(`no sign-in code was sent to ${phone}`);
  // the copy-code button carries the same code
  if (last?.kind === 'template' && last.copyCode !== code) throw new Error('the copy-code button holds another code');
  return code;
}

/** Signs in by the code sent over the chat channel (the `log` channel in tests). */
export async function signInByCode(h: Harness, biz: TestBusiness): Promise<DashboardClient> {
  const client = new DashboardClient(h);
  const login = await client.get('/dashboard/login');
  const csrf = csrfOf(login.text);
  const sent = await client.request('POST', '/dashboard/login', {
    _csrf: csrf,
    phone: biz.business.phone,
    action: 'send',
  });
  expect(sent.status, sent.text).toBe(200);
  const done = await client.request('POST', '/dashboard/login', {
    _csrf: csrf,
    phone: biz.business.phone,
    code: lastCode(h, biz.business.phone),
    action: 'verify',
  });
  expect(done.status, done.text).toBe(303);
  expect(done.location).toBe('/dashboard');
  return client;
}

/** The admin CLI's link, made by the same service the CLI uses. */
export function loginLink(h: Harness, businessId: string, userId?: string): Promise<string> {
  return new DashboardAuth({
    db: h.store.db,
    clock: h.clock,
    channel: h.services.channel,
    rateLimits: new MemoryRateLimitStore(h.clock),
    publicBaseUrl: h.config.publicBaseUrl,
  }).createLink(businessId, userId);
}

export async function signInByLink(h: Harness, businessId: string): Promise<DashboardClient> {
  const client = new DashboardClient(h);
  const res = await client.get(new URL(await loginLink(h, businessId)).pathname);
  expect(res.status, res.text).toBe(303);
  return client;
}

/** The buyer's "I have paid" on the pay page (PRODUCT part 11), as its form posts it. */
export async function claimPayment(h: Harness, payPageUrl: string, reference: string): Promise<void> {
  const res = await h.app.inject({
    method: 'POST',
    url: `${new URL(payPageUrl).pathname}/claim`,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ reference }).toString(),
  });
  expect(res.statusCode, res.body).toBe(303);
}
