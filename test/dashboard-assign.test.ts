import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DashboardClient, signInByLink } from './helpers/dashboard.js';
import { type Harness, startHarness, type TestBusiness } from './helpers/harness.js';
import { addStaff, type Staff, signInAsUser } from './helpers/staff.js';

/**
 * PRODUCT part 23: the owner (or the accountant) assigns a buyer to a user from the buyer's page,
 * "Assigned to", without JavaScript; the contacts list shows whom each buyer is assigned to. Who
 * else is refused (403) is tested from the table in permissions.test.ts.
 */

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ now: '2026-03-10T06:00:00.000Z' });
});
afterAll(() => h?.close());

interface Shop {
  biz: TestBusiness;
  owner: DashboardClient;
  collector: Staff;
  contactId: string;
}

async function shop(language: 'en' | 'hi' = 'en'): Promise<Shop> {
  const biz = await h.newBusiness({ language });
  const collector = await addStaff(h, biz, 'collector', language === 'hi' ? 'रमेश वसूली' : 'Ramesh Collector');
  const due = await biz.post('/v1/transactions', {
    contact_name: 'Ravi Kumar',
    amount_paise: 450_000,
    due_date: '2026-03-20',
  });
  expect(due.status, JSON.stringify(due.body)).toBe(201);
  return { biz, owner: await signInByLink(h, biz.business.id), collector, contactId: due.body.data.contact_id };
}

const assignedTo = async (s: Shop) => (await s.biz.get(`/v1/contacts/${s.contactId}`)).body.data.assigned_to;

function assign(client: DashboardClient, contactId: string, value: string) {
  const page = `/dashboard/contacts/${contactId}`;
  return client.submit(page, `${page}/assign`, { assigned_to: value });
}

describe("the buyer page's Assigned to", () => {
  it('assigns the buyer to a collector, shown on the page and the list, and back to nobody', async () => {
    const s = await shop();
    const page = await s.owner.get(`/dashboard/contacts/${s.contactId}`);
    expect(page.text).toContain('<label for="assign-to">Assigned to</label>');
    expect(page.text).toContain(`<option value="${s.collector.id}">Ramesh Collector</option>`);
    expect(page.text).toContain('<option value="" selected>Nobody</option>');

    const res = await assign(s.owner, s.contactId, s.collector.id);
    expect(res.status, res.text).toBe(303);
    expect(res.location).toBe(`/dashboard/contacts/${s.contactId}?ok=assigned`);
    expect(await assignedTo(s)).toBe(s.collector.id);

    const after = await s.owner.get(res.location as string);
    expect(after.text).toContain('Saved: the buyer is assigned.');
    expect(after.text).toContain('Assigned to Ramesh Collector');
    expect(after.text).toContain(`<option value="${s.collector.id}" selected>Ramesh Collector</option>`);
    const list = await s.owner.get('/dashboard/contacts');
    expect(list.text).toMatch(/Ravi Kumar<\/a><br><span class="muted">[^<]*Assigned to Ramesh Collector/);

    // The collector now has the buyer.
    const theirs = await signInAsUser(h, s.biz.business.id, s.collector.id);
    expect((await theirs.get('/dashboard/contacts')).text).toContain('Ravi Kumar');
    expect((await theirs.get(`/dashboard/contacts/${s.contactId}`)).status).toBe(200);

    const back = await assign(s.owner, s.contactId, '');
    expect(back.status, back.text).toBe(303);
    expect(await assignedTo(s)).toBeNull();
    expect((await s.owner.get('/dashboard/contacts')).text).not.toContain('Assigned to');
    expect((await theirs.get(`/dashboard/contacts/${s.contactId}`)).status).toBe(404);
  });

  it('an accountant assigns too', async () => {
    const s = await shop();
    const accountant = await addStaff(h, s.biz, 'accountant');
    const client = await signInAsUser(h, s.biz.business.id, accountant.id);
    expect((await assign(client, s.contactId, s.collector.id)).status).toBe(303);
    expect(await assignedTo(s)).toBe(s.collector.id);
  });

  it('refuses what is not a user of the business (400 naming assigned_to), nothing changed', async () => {
    const s = await shop();
    const other = await h.newBusiness();
    const theirs = await addStaff(h, other, 'collector');
    for (const value of ['not-a-uuid', '00000000-0000-4000-8000-000000000000', theirs.id, other.business.id]) {
      const res = await assign(s.owner, s.contactId, value);
      expect(res.status, value).toBe(400);
      expect(res.text, value).toContain('assigned_to is not the id of a user of this business');
      // the form opens again on its refusal
      expect(res.text).toContain('<details class="card fold" id="assign" open>');
      expect(await assignedTo(s), value).toBeNull();
    }
  });

  it("another business's buyer answers 404, nothing changed", async () => {
    const s = await shop();
    const other = await shop();
    const res = await s.owner.submit(
      `/dashboard/contacts/${s.contactId}`,
      `/dashboard/contacts/${other.contactId}/assign`,
      { assigned_to: s.collector.id },
    );
    expect(res.status).toBe(404);
    expect(await assignedTo(other)).toBeNull();
  });

  it('refuses a form without its CSRF token (403), nothing changed', async () => {
    const s = await shop();
    const res = await s.owner.request('POST', `/dashboard/contacts/${s.contactId}/assign`, {
      assigned_to: s.collector.id,
    });
    expect(res.status).toBe(403);
    expect(await assignedTo(s)).toBeNull();
  });

  it('speaks Hindi on a Hindi business', async () => {
    const s = await shop('hi');
    expect((await assign(s.owner, s.contactId, s.collector.id)).status).toBe(303);
    const page = await s.owner.get(`/dashboard/contacts/${s.contactId}?ok=assigned`);
    expect(page.text).toContain('<label for="assign-to">किसके ज़िम्मे</label>');
    expect(page.text).toContain('<option value="">किसी के नहीं</option>');
    expect(page.text).toContain('रमेश वसूली के ज़िम्मे');
    expect(page.text).toContain('सहेज लिया: ग्राहक सौंप दिया गया।');
    expect((await s.owner.get('/dashboard/contacts')).text).toContain('रमेश वसूली के ज़िम्मे');
    const refused = await assign(s.owner, s.contactId, 'nobody-at-all');
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('सूची में से व्यक्ति चुनें।');
  });
});
