import { expect } from 'vitest';
import { runCli } from '../../src/cli/run.js';
import type { Role } from '../../src/db/schema.js';
import { csrfOf, DashboardClient, lastCode, loginLink } from './dashboard.js';
import { type Harness, type TestBusiness, uniquePhone } from './harness.js';
import { storeEnv } from './processes.js';

/** The admin CLI in-process against the harness's store. */
export async function cli(h: Harness, ...args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(args, {
    env: { ...storeEnv(h), LOG_LEVEL: 'warn', PUBLIC_BASE_URL: h.config.publicBaseUrl },
    out: (line) => out.push(line),
    err: (line) => err.push(line),
  });
  const text = out.join('\n');
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { code, stdout: text, stderr: err.join('\n'), json };
}

export interface Staff {
  id: string;
  name: string;
  phone: string;
  role: Role;
}

/** A staff user of the business, added by the service the CLI and the dashboard use. */
export async function addStaff(h: Harness, biz: TestBusiness, role: Role, name = `Staff ${role}`): Promise<Staff> {
  const phone = uniquePhone();
  const user = await h.services.users.add(biz.business.id, { name, phone, role });
  return { id: user.id, name: user.name, phone: user.phone, role: user.role };
}

/** Signs in with the code sent to this phone (one business: the phone is a user of one). */
export async function signInWithPhone(h: Harness, phone: string): Promise<DashboardClient> {
  const client = new DashboardClient(h);
  const csrf = csrfOf((await client.get('/dashboard/login')).text);
  const sent = await client.request('POST', '/dashboard/login', { _csrf: csrf, phone, action: 'send' });
  expect(sent.status, sent.text).toBe(200);
  const done = await client.request('POST', '/dashboard/login', {
    _csrf: csrf,
    phone,
    code: lastCode(h, phone),
    action: 'verify',
  });
  expect(done.status, done.text).toBe(303);
  return client;
}

/** Signs in as one user by the admin CLI's one-time link. */
export async function signInAsUser(h: Harness, businessId: string, userId: string): Promise<DashboardClient> {
  const client = new DashboardClient(h);
  const res = await client.get(new URL(await loginLink(h, businessId, userId)).pathname);
  expect(res.status, res.text).toBe(303);
  return client;
}
