import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness, type TestBusiness } from './helpers/harness.js';
import { cli } from './helpers/staff.js';

/**
 * POST /v1/transactions with a contact_id the process has created dues for before. On PostgreSQL
 * such a create keeps the contact it read and writes the due in one statement that checks the
 * contact is unchanged (transactions/create.ts createAlone); a contact merged away, erased or
 * renamed since (here by the admin CLI, i.e. another process, or by the API) must be read again:
 * the due never carries a name the contact no longer has, nor a contact that is gone.
 */
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.close());

async function dueFor(biz: TestBusiness, contactId: string) {
  const res = await biz.post('/v1/transactions', {
    amount_paise: 1_000,
    due_date: '2030-01-01',
    contact_id: contactId,
  });
  expect(res.status, res.text).toBe(201);
  return res.body.data as { contact_id: string; contact_name: string; contact_phone: string | null };
}

/** A contact with two dues created by its id: the second one served from what the first read. */
async function knownContact(biz: TestBusiness, name: string, phone: string) {
  const contact = (await biz.post('/v1/contacts', { name, phone })).body.data as { id: string };
  await dueFor(biz, contact.id);
  await dueFor(biz, contact.id);
  return contact.id;
}

describe('POST /v1/transactions for a contact that changed since its last create', () => {
  it('answers 422 naming contact_id for a contact merged into another since, and writes nothing', async () => {
    const biz = await h.newBusiness();
    const kept = (await biz.post('/v1/contacts', { name: 'Meena Stores', phone: '9876512340' })).body.data;
    const gone = await knownContact(biz, 'Meena Store', '9876512341');
    const merged = await cli(h, 'contact', 'merge', '--business', biz.business.id, '--keep', kept.id, '--merge', gone);
    expect(merged.code, merged.stderr).toBe(0);
    const before = {
      dues: (await biz.get('/v1/transactions?limit=100')).body,
      summary: (await biz.get('/v1/summary')).body,
    };

    const res = await biz.post('/v1/transactions', { amount_paise: 1_000, due_date: '2030-01-01', contact_id: gone });
    expect(res.status, res.text).toBe(422);
    expect(res.body.error.field).toBe('contact_id');
    expect({
      dues: (await biz.get('/v1/transactions?limit=100')).body,
      summary: (await biz.get('/v1/summary')).body,
    }).toEqual(before);
    // The kept contact takes new dues as before.
    expect((await dueFor(biz, kept.id)).contact_name).toBe('Meena Stores');
  });

  it("writes an erased contact's due with the erased name and no phone, not the ones read before", async () => {
    const biz = await h.newBusiness();
    const id = await knownContact(biz, 'Suresh Traders', '9876512342');
    const erased = await cli(h, 'contact', 'erase', '--business', biz.business.id, '--contact', id, '--json');
    expect(erased.code, erased.stderr).toBe(0);

    const due = await dueFor(biz, id);
    expect(due).toMatchObject({ contact_id: id, contact_name: 'Erased buyer', contact_phone: null });
    expect(JSON.stringify((await biz.get('/v1/transactions?limit=100')).body)).not.toMatch(/Suresh|9876512342/);
  });

  it("writes a renamed contact's due with its new name and phone", async () => {
    const biz = await h.newBusiness();
    const id = await knownContact(biz, 'Anil Kirana', '9876512343');
    const patched = await biz.patch(`/v1/contacts/${id}`, { name: 'Anil General Store', phone: '9876512344' });
    expect(patched.status, patched.text).toBe(200);

    const due = await dueFor(biz, id);
    expect(due).toMatchObject({ contact_id: id, contact_name: 'Anil General Store', contact_phone: '919876512344' });
  });
});
