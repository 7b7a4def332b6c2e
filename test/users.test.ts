import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { auditLog } from './helpers/audit.js';
import { DashboardClient, signInByLink } from './helpers/dashboard.js';
import { type Harness, startHarness, uniquePhone } from './helpers/harness.js';
import { addStaff, cli, signInAsUser, signInWithPhone } from './helpers/staff.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

describe('GET /v1/users', () => {
  it('lists the owner (the business phone) and the staff, and no other business’s users', async () => {
    const biz = await h.newBusiness();
    const other = await h.newBusiness();
    await addStaff(h, other, 'viewer');
    const collector = await addStaff(h, biz, 'collector', 'Munim Ji');
    const res = await biz.get('/v1/users');
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      {
        id: biz.business.id,
        name: biz.business.name,
        phone: biz.business.phone,
        role: 'owner',
        created_at: biz.business.created_at,
      },
      { id: collector.id, name: 'Munim Ji', phone: collector.phone, role: 'collector', created_at: expect.any(String) },
    ]);
  });

  it('answers 401 without a key', async () => {
    expect((await h.request('GET', '/v1/users')).status).toBe(401);
  });
});

describe('user add / user remove (admin CLI)', () => {
  it('adds a staff user with --json, listed by the API', async () => {
    const biz = await h.newBusiness();
    const phone = uniquePhone();
    const res = await cli(
      h,
      'user',
      'add',
      '--business',
      biz.business.id,
      '--name',
      'Asha',
      '--phone',
      phone,
      '--role',
      'accountant',
      '--json',
    );
    expect(res.code, res.stderr).toBe(0);
    expect(res.json.user).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Asha',
      phone: phone.replace(/\D/g, ''),
      role: 'accountant',
      created_at: expect.any(String),
    });
    const listed = await biz.get('/v1/users');
    expect(listed.body.data.map((u: { id: string }) => u.id)).toContain(res.json.user.id);
  });

  it.each([
    [['--role', 'owner'], 'role'],
    [['--role', 'boss'], 'role'],
    [['--phone', '12'], 'phone'],
    [['--name', 'A'], 'name'],
  ])('refuses %j: exit 2 naming the field, nothing added', async (override, field) => {
    const biz = await h.newBusiness();
    const options: Record<string, string> = { '--name': 'Asha', '--phone': uniquePhone(), '--role': 'viewer' };
    options[override[0] as string] = override[1] as string;
    const res = await cli(h, 'user', 'add', '--business', biz.business.id, ...Object.entries(options).flat());
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(field);
    expect((await biz.get('/v1/users')).body.data).toHaveLength(1);
  });

  it('refuses a phone that is already a user of the business (the owner’s too)', async () => {
    const biz = await h.newBusiness();
    const res = await cli(
      h,
      'user',
      'add',
      '--business',
      biz.business.id,
      '--name',
      'Asha',
      '--phone',
      biz.business.phone,
      '--role',
      'viewer',
    );
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('phone');
  });

  it('removes a staff user: their sessions end and their buyers are unassigned', async () => {
    const biz = await h.newBusiness();
    const staff = await addStaff(h, biz, 'collector');
    const contact = (await biz.post('/v1/contacts', { name: 'Ravi Kumar' })).body.data;
    await biz.patch(`/v1/contacts/${contact.id}`, { assigned_to: staff.id });
    const session = await signInWithPhone(h, staff.phone);
    expect((await session.get('/dashboard/contacts')).status).toBe(200);

    const res = await cli(h, 'user', 'remove', '--business', biz.business.id, '--user', staff.id, '--json');
    expect(res.code, res.stderr).toBe(0);
    expect(res.json).toEqual({ removed: true });
    const after = await session.get('/dashboard/contacts');
    expect(after.status).toBe(303);
    expect(after.location).toBe('/dashboard/login');
    expect((await biz.get('/v1/users')).body.data).toHaveLength(1);
    expect((await biz.get(`/v1/contacts/${contact.id}`)).body.data.assigned_to).toBeNull();
  });

  it("moves an unassigned buyer's updated_at forward, never back to the remover's clock", async () => {
    const biz = await h.newBusiness();
    const staff = await addStaff(h, biz, 'collector');
    const contact = (await biz.post('/v1/contacts', { name: 'Sunita Devi' })).body.data;
    // The API's clock runs a year ahead of the CLI's (the real one).
    const before = h.clock.now().toISOString();
    h.clock.set('2027-11-27T00:00:00.000Z');
    onTestFinished(() => h.clock.set(before));
    const assigned = (await biz.patch(`/v1/contacts/${contact.id}`, { assigned_to: staff.id })).body.data;
    expect(assigned.updated_at).toBe('2027-11-27T00:00:00.000Z');
    const res = await cli(h, 'user', 'remove', '--business', biz.business.id, '--user', staff.id, '--json');
    expect(res.code, res.stderr).toBe(0);
    const after = (await biz.get(`/v1/contacts/${contact.id}`)).body.data;
    expect(after.assigned_to).toBeNull();
    expect(after.updated_at).toBe('2027-11-27T00:00:00.001Z');
  });

  it('refuses to remove the owner, an unknown user and another business’s user', async () => {
    const biz = await h.newBusiness();
    const other = await h.newBusiness();
    const theirs = await addStaff(h, other, 'viewer');
    for (const user of [biz.business.id, theirs.id, '0190a0a0-0000-7000-8000-000000000000', 'nope']) {
      const res = await cli(h, 'user', 'remove', '--business', biz.business.id, '--user', user);
      expect(res.code, user).toBe(2);
    }
    expect((await other.get('/v1/users')).body.data).toHaveLength(2);
  });
});

describe('staff sign-in', () => {
  it('sends the code to the staff user’s own phone and signs them in as themselves', async () => {
    const biz = await h.newBusiness();
    const staff = await addStaff(h, biz, 'accountant', 'Asha Accountant');
    const client = await signInWithPhone(h, staff.phone);
    const home = await client.get('/dashboard');
    expect(home.status).toBe(200);
    expect(home.text).toContain(biz.business.name);
    expect(home.text).toContain('Asha Accountant');
  });

  it('login-link --user signs in that user; an unknown or other business’s user is refused', async () => {
    const biz = await h.newBusiness();
    const other = await h.newBusiness();
    const staff = await addStaff(h, biz, 'viewer', 'Vinod Viewer');
    const res = await cli(h, 'login-link', '--business', biz.business.id, '--user', staff.id, '--json');
    expect(res.code, res.stderr).toBe(0);
    const client = new DashboardClient(h);
    expect((await client.get(new URL(res.json.url).pathname)).status).toBe(303);
    expect((await client.get('/dashboard')).text).toContain('Vinod Viewer');

    const theirs = await addStaff(h, other, 'viewer');
    for (const user of [theirs.id, '0190a0a0-0000-7000-8000-000000000000']) {
      const refused = await cli(h, 'login-link', '--business', biz.business.id, '--user', user);
      expect(refused.code, user).toBe(2);
      expect(refused.stderr).toContain('user');
    }
  });

  it('without --user the link signs in the owner', async () => {
    const biz = await h.newBusiness();
    await addStaff(h, biz, 'viewer', 'Vinod Viewer');
    const client = await signInAsUser(h, biz.business.id, biz.business.id);
    expect((await client.get('/dashboard')).text).not.toContain('Vinod Viewer');
  });
});

describe("changing a staff member's role on the dashboard", () => {
  it("applies from the staff member's next request, is audited, and the page says so", async () => {
    const biz = await h.newBusiness();
    const staff = await addStaff(h, biz, 'viewer', 'Vinod Viewer');
    const their = await signInAsUser(h, biz.business.id, staff.id);
    const due = await biz.post('/v1/transactions', {
      contact_name: 'Role Buyer',
      amount_paise: 5_000,
      due_date: '2030-01-01',
    });
    expect(due.status).toBe(201);
    const pay = () =>
      their.submit(`/dashboard/dues/${due.body.data.id}`, `/dashboard/dues/${due.body.data.id}/payments`, {
        amount: '10',
      });
    expect((await pay()).status).toBe(403);

    const owner = await signInByLink(h, biz.business.id);
    const page = await owner.get('/dashboard/users');
    expect(page.text).toContain('<h2>Change a role</h2>');
    expect(page.text).toContain(`<option value="${staff.id}">Vinod Viewer (Viewer)</option>`);
    expect(page.text).not.toContain(`<option value="${biz.business.id}">`);
    const changed = await owner.submit('/dashboard/users', '/dashboard/users/role', {
      user_id: staff.id,
      role: 'accountant',
    });
    expect(changed.status, changed.text).toBe(303);
    expect(changed.location).toBe('/dashboard/users?ok=user_role_changed');
    expect((await owner.get(changed.location as string)).text).toContain('Role changed.');
    expect((await biz.get('/v1/users')).body.data.find((u: { id: string }) => u.id === staff.id).role).toBe(
      'accountant',
    );
    // The same session, its next request: an accountant records money.
    expect((await pay()).status).toBe(303);

    const [entry] = await auditLog(biz, `?entity=user&entity_id=${staff.id}`);
    expect(entry).toMatchObject({
      action: 'user.updated',
      actor: { type: 'user', id: biz.business.id },
      changes: { role: ['viewer', 'accountant'] },
    });
    // The same role again changes nothing and writes no entry.
    const before = await auditLog(biz);
    const same = await owner.submit('/dashboard/users', '/dashboard/users/role', {
      user_id: staff.id,
      role: 'accountant',
    });
    expect(same.status).toBe(303);
    expect(await auditLog(biz)).toEqual(before);
  });

  it("refuses the owner's role, a role that is not a staff role, another business's user and a non-owner (nothing changed)", async () => {
    const biz = await h.newBusiness();
    const other = await h.newBusiness();
    const staff = await addStaff(h, biz, 'collector');
    const theirs = await addStaff(h, other, 'viewer');
    const owner = await signInByLink(h, biz.business.id);
    const before = await auditLog(biz);
    const cases: [Record<string, string>, number, string][] = [
      [{ user_id: biz.business.id, role: 'viewer' }, 409, 'the owner&#39;s role cannot be changed'],
      [{ user_id: staff.id, role: 'owner' }, 400, 'role must be one of accountant, collector, viewer'],
      [{ user_id: staff.id, role: '' }, 400, 'role must be one of'],
      [{ user_id: theirs.id, role: 'accountant' }, 404, ''],
      [{ user_id: 'not-an-id', role: 'accountant' }, 404, ''],
    ];
    for (const [fields, status, words] of cases) {
      const res = await owner.submit('/dashboard/users', '/dashboard/users/role', fields);
      expect(res.status, JSON.stringify(fields)).toBe(status);
      expect(res.text).toContain(words);
    }
    const accountant = await signInAsUser(h, biz.business.id, (await addStaff(h, biz, 'accountant')).id);
    const refused = await accountant.submit('/dashboard', '/dashboard/users/role', {
      user_id: staff.id,
      role: 'viewer',
    });
    expect(refused.status).toBe(403);
    const roles = (await biz.get('/v1/users')).body.data.map((u: { role: string }) => u.role);
    expect(roles).toEqual(['owner', 'collector', 'accountant']);
    expect((await other.get('/v1/users')).body.data.map((u: { role: string }) => u.role)).toEqual(['owner', 'viewer']);
    expect((await auditLog(biz)).filter((e) => e.action === 'user.updated')).toEqual([]);
    expect((await auditLog(biz)).length).toBe(before.length + 1);
  });
});

describe('PATCH /v1/contacts/{id} assigned_to', () => {
  it('assigns a buyer to a user and back to none; every contact read shows it', async () => {
    const biz = await h.newBusiness();
    const staff = await addStaff(h, biz, 'collector');
    const contact = (await biz.post('/v1/contacts', { name: 'Ravi Kumar' })).body.data;
    expect(contact.assigned_to).toBeNull();
    const patched = await biz.patch(`/v1/contacts/${contact.id}`, { assigned_to: staff.id.toUpperCase() });
    expect(patched.status).toBe(200);
    expect(patched.body.data.assigned_to).toBe(staff.id);
    expect((await biz.get(`/v1/contacts/${contact.id}`)).body.data.assigned_to).toBe(staff.id);
    expect((await biz.get('/v1/contacts')).body.data[0].assigned_to).toBe(staff.id);
    const cleared = await biz.patch(`/v1/contacts/${contact.id}`, { assigned_to: null });
    expect(cleared.body.data.assigned_to).toBeNull();
  });

  it('answers 400 naming assigned_to for an unknown user, another business’s user or a non-uuid; nothing changed', async () => {
    const biz = await h.newBusiness();
    const other = await h.newBusiness();
    const theirs = await addStaff(h, other, 'collector');
    const contact = (await biz.post('/v1/contacts', { name: 'Ravi Kumar' })).body.data;
    for (const value of [theirs.id, '0190a0a0-0000-7000-8000-000000000000', 'nobody', 5]) {
      const res = await biz.patch(`/v1/contacts/${contact.id}`, { assigned_to: value, name: 'Changed Name' });
      expect(res.status, String(value)).toBe(400);
      expect(res.body.error.field).toBe('assigned_to');
    }
    const read = (await biz.get(`/v1/contacts/${contact.id}`)).body.data;
    expect(read.assigned_to).toBeNull();
    expect(read.name).toBe('Ravi Kumar');
  });
});
