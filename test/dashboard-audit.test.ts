import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuditActor, runAs } from '../src/audit/context.js';
import { type AuditChange, recordAudit } from '../src/audit/record.js';
import { type DashboardClient, signInByLink } from './helpers/dashboard.js';
import { type Harness, startHarness, type TestBusiness } from './helpers/harness.js';
import { addStaff, signInAsUser } from './helpers/staff.js';

/**
 * PRODUCT part 23: the audit log on the dashboard. The owner's Activity page lists every entry,
 * newest first, a page at a time, filtered by what changed; a due's and a buyer's page end with
 * their History (who, when, each field before → after, money and dates in the page's language).
 * Which roles may open the Activity page is tested from the table in permissions.test.ts.
 */

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ now: '2026-03-10T06:00:00.000Z' });
});
afterAll(() => h?.close());

interface Shop {
  biz: TestBusiness;
  owner: DashboardClient;
  dueId: string;
  contactId: string;
}

async function shop(language: 'en' | 'hi' = 'en'): Promise<Shop> {
  const biz = await h.newBusiness({ language, name: language === 'hi' ? 'शर्मा एंड संस' : 'Sharma & Sons' });
  const due = await biz.post('/v1/transactions', {
    contact_name: 'Ravi Kumar',
    amount_paise: 450_000,
    due_date: '2026-03-20',
  });
  expect(due.status, JSON.stringify(due.body)).toBe(201);
  return {
    biz,
    owner: await signInByLink(h, biz.business.id),
    dueId: due.body.data.id,
    contactId: due.body.data.contact_id,
  };
}

/** Entries as the writer records them, inside a transaction, as this actor (the writer is tested in audit-log.test.ts). */
async function record(businessId: string, actor: AuditActor, entries: AuditChange[]) {
  await runAs(actor, () =>
    h.store.db.transaction().execute((trx) => recordAudit(trx, businessId, h.clock.now(), entries)),
  );
}

const ASHA: AuditActor = { type: 'user', id: '01935f6a-0000-7000-8000-00000000aaaa', name: 'Asha Accountant' };

describe('the Activity page', () => {
  it("shows a change made on the dashboard and one by an API key, newest first, and never another business's", async () => {
    const s = await shop();
    const other = await shop();
    const made = await s.owner.submit('/dashboard/developers', '/dashboard/developers/webhooks', {
      url: 'https://erp.example.com/hooks',
    });
    expect(made.status, made.text).toBe(200);
    h.clock.advance(60_000);
    const viaKey = await s.biz.post('/v1/webhooks', {
      url: 'https://books.example.com/in',
      events: ['transaction.created'],
    });
    expect(viaKey.status, JSON.stringify(viaKey.body)).toBe(201);
    expect(
      (
        await other.biz.post('/v1/webhooks', {
          url: 'https://other.example.com/secret-hook',
          events: ['transaction.created'],
        })
      ).status,
    ).toBe(201);

    const page = await s.owner.get('/dashboard/audit');
    expect(page.status, page.text).toBe(200);
    expect(page.text).toContain('<h1>Activity: who changed what</h1>');
    // after the entries of the due the shop began with (transaction.created, contact.created),
    // and the business's own beginning (its first key, its owner)
    const items = page.text.split('<li><span>').slice(1);
    expect(items).toHaveLength(6);
    expect(items[2]).toContain('created');
    expect(items[0]).toContain('Webhook created');
    // a key's prefix is base64url: it may hold '-' and '_'
    expect(items[0]).toMatch(/by API key <code>rk_live_[\w-]+<\/code>/);
    expect(items[0]).toContain('https://books.example.com/in');
    expect(items[1]).toContain('Webhook created');
    expect(items[1]).toContain('by Sharma &amp; Sons');
    expect(items[1]).toContain('Address: — → https://erp.example.com/hooks');
    expect(items[1]).toContain('Active: — → yes');
    // the buyer a due was made for is named, never shown by id
    expect(items[2]).toContain('Due created');
    expect(items[2]).toContain('Buyer: — → Ravi Kumar');
    expect(items[2]).toContain('Reminders paused: — → no');
    expect(page.text).not.toContain(`→ ${s.contactId}`);
    expect(page.text).not.toContain('other.example.com');
  });

  it('names a buyer merged into another as such, and the buyer it went to by name', async () => {
    const s = await shop();
    const kept = await s.biz.post('/v1/contacts', { name: 'Ravi Kumar Traders' });
    expect(kept.status, kept.text).toBe(201);
    await h.services.contactMerge.merge(s.biz.business, kept.body.data.id, s.contactId);

    const page = await s.owner.get(`/dashboard/audit?entity=transaction&id=${s.dueId}`);
    expect(page.status, page.text).toBe(200);
    const items = page.text.split('<li><span>').slice(1);
    expect(items[0]).toContain('Due changed');
    expect(items[0]).toContain('Buyer: a buyer since merged into another → Ravi Kumar Traders');
    expect(items[1]).toContain('Buyer: — → a buyer since merged into another');
    expect(page.text).not.toContain(`→ ${s.contactId}`);
    expect(page.text).not.toContain(`→ ${kept.body.data.id}`);
  });

  it('pages by cursor, newest first, with an "Older entries" link; filters by what changed', async () => {
    const s = await shop();
    for (let i = 1; i <= 53; i++) {
      h.clock.advance(1_000);
      await record(s.biz.business.id, ASHA, [
        {
          action: i % 2 ? 'transaction.updated' : 'contact.updated',
          entity: i % 2 ? 'transaction' : 'contact',
          entityId: i % 2 ? s.dueId : s.contactId,
          changes: { notes: [null, `note ${i}`] },
        },
      ]);
    }
    const first = await s.owner.get('/dashboard/audit');
    expect(first.text.match(/<li><span>/g)).toHaveLength(50);
    expect(first.text.indexOf('note 53')).toBeLessThan(first.text.indexOf('note 52'));
    expect(first.text).not.toContain('note 3<');
    const more = /<a class="button secondary" href="([^"]+)">Older entries<\/a>/.exec(first.text)?.[1];
    expect(more).toMatch(/^\/dashboard\/audit\?after=[0-9a-f-]{36}$/);
    const second = await s.owner.get((more as string).replace(/&amp;/g, '&'));
    // 53, the 2 of the due the shop began with and the business's first 2
    expect(second.text.match(/<li><span>/g)).toHaveLength(7);
    expect(second.text).toContain('note 3<');
    expect(second.text).toContain('note 1<');
    expect(second.text).not.toContain('Older entries');

    const buyers = await s.owner.get('/dashboard/audit?entity=contact');
    expect(buyers.text.match(/<li><span>/g)).toHaveLength(27);
    expect(buyers.text).not.toContain('Due changed');
    expect(buyers.text).toContain('<option value="contact" selected>Buyer</option>');
    // every entry links the buyer or the due it is about
    expect(buyers.text).toContain(`<a href="/dashboard/contacts/${s.contactId}">Buyer changed</a>`);
    const one = await s.owner.get(`/dashboard/audit?entity=transaction&id=${s.dueId}`);
    expect(one.text.match(/<li><span>/g)).toHaveLength(28);
  });

  it('answers 400 naming the parameter for bad input, and for a cursor of another business', async () => {
    const s = await shop();
    const other = await shop();
    await record(other.biz.business.id, ASHA, [
      { action: 'contact.updated', entity: 'contact', entityId: other.contactId, changes: { name: ['A', 'B'] } },
    ]);
    const entry = await h.store.db
      .selectFrom('audit_log')
      .select('id')
      .where('business_id', '=', other.biz.business.id)
      .executeTakeFirstOrThrow();
    const cases: Array<[string, string]> = [
      ['/dashboard/audit?entity=bogus', 'entity must be one of'],
      ['/dashboard/audit?id=abc', 'id needs entity'],
      ['/dashboard/audit?after=not-a-uuid', 'after is not the id of an audit entry'],
      [`/dashboard/audit?after=${entry.id}`, 'starting_after is not the id of an audit entry of this business'],
    ];
    for (const [url, message] of cases) {
      const res = await s.owner.get(url);
      expect(res.status, url).toBe(400);
      expect(res.text, url).toContain(message);
    }
    expect((await s.owner.get(`/dashboard/audit?entity=contact&id=${other.contactId}`)).text).toContain(
      'Nothing recorded yet.',
    );
  });
});

describe("a due's and a buyer's History", () => {
  it('shows who changed what and when, money in rupees, to every role that may open the page', async () => {
    const s = await shop();
    const collector = await addStaff(h, s.biz, 'collector');
    await s.biz.patch(`/v1/contacts/${s.contactId}`, { assigned_to: collector.id });
    h.clock.set('2026-03-11T05:00:00.000Z');
    await record(s.biz.business.id, ASHA, [
      {
        action: 'transaction.updated',
        entity: 'transaction',
        entityId: s.dueId,
        changes: { amount_paise: [450_000, 400_000], due_date: ['2026-03-20', '2026-03-25'] },
      },
      {
        action: 'contact.updated',
        entity: 'contact',
        entityId: s.contactId,
        changes: { phone: [null, '919876500000'] },
      },
    ]);
    const due = await s.owner.get(`/dashboard/dues/${s.dueId}`);
    expect(due.text).toContain('<h2 id="history-h">History</h2>');
    expect(due.text).toContain('Due changed');
    expect(due.text).toContain('by Asha Accountant · 11 March 2026');
    expect(due.text).toContain('Amount: ₹4,500.00 → ₹4,000.00');
    expect(due.text).toContain('Due date: 20 March 2026 → 25 March 2026');
    expect(due.text).not.toContain('Phone: —');
    const buyer = await s.owner.get(`/dashboard/contacts/${s.contactId}`);
    expect(buyer.text).toContain('Buyer changed');
    expect(buyer.text).toContain('Phone: — → 919876500000');
    expect(buyer.text).not.toContain('Amount: ₹4,500.00');

    const theirs = await signInAsUser(h, s.biz.business.id, collector.id);
    expect((await theirs.get(`/dashboard/dues/${s.dueId}`)).text).toContain('Amount: ₹4,500.00 → ₹4,000.00');
    expect((await theirs.get(`/dashboard/contacts/${s.contactId}`)).text).toContain('Phone: — → 919876500000');
  });

  it('names the user a buyer is assigned to, not their id, and says when that user was removed since', async () => {
    const s = await shop();
    const collector = await addStaff(h, s.biz, 'collector', 'Kamal Collector');
    const gone = await addStaff(h, s.biz, 'collector', 'Gopal Gone');
    expect((await s.biz.patch(`/v1/contacts/${s.contactId}`, { assigned_to: gone.id })).status).toBe(200);
    expect((await s.biz.patch(`/v1/contacts/${s.contactId}`, { assigned_to: collector.id })).status).toBe(200);
    await h.services.users.remove(s.biz.business.id, gone.id);
    for (const url of [`/dashboard/contacts/${s.contactId}`, `/dashboard/audit?entity=contact&id=${s.contactId}`]) {
      const page = (await s.owner.get(url)).text;
      // the entries (the buyer's page also offers every user in its "Assigned to" form)
      const text = page.slice(page.search(/id="history-h"|<section class="card" aria-label="Activity/));
      expect(text, url).toContain('Assigned to: a user since removed → Kamal Collector');
      expect(text, url).toContain('Assigned to: — → a user since removed');
      expect(text, url).not.toContain(gone.id);
      expect(text, url).not.toContain(collector.id);
    }
  });

  it('shows the newest 10, and the owner a link to all of it', async () => {
    const s = await shop();
    for (let i = 1; i <= 12; i++) {
      h.clock.advance(1_000);
      await record(s.biz.business.id, ASHA, [
        {
          action: 'transaction.updated',
          entity: 'transaction',
          entityId: s.dueId,
          changes: { notes: [null, `n${i}.`] },
        },
      ]);
    }
    const due = await s.owner.get(`/dashboard/dues/${s.dueId}`);
    const history = due.text.slice(due.text.indexOf('id="history-h"'));
    expect(history.match(/<li><span>/g)).toHaveLength(10);
    expect(history).toContain('n12.');
    expect(history).not.toContain('n2.');
    expect(history).toContain(`href="/dashboard/audit?entity=transaction&amp;id=${s.dueId}">All of its history</a>`);
    const viewer = await signInAsUser(h, s.biz.business.id, (await addStaff(h, s.biz, 'viewer')).id);
    const seen = (await viewer.get(`/dashboard/dues/${s.dueId}`)).text;
    expect(seen).toContain('n12.');
    expect(seen).not.toContain('All of its history');
  });

  it("never shows another business's entries", async () => {
    const s = await shop();
    const other = await shop();
    // an entry of the other business naming this business's due id
    await record(other.biz.business.id, ASHA, [
      { action: 'transaction.updated', entity: 'transaction', entityId: s.dueId, changes: { notes: [null, 'leak'] } },
    ]);
    const due = await s.owner.get(`/dashboard/dues/${s.dueId}`);
    expect(due.text).not.toContain('leak');
    // its own entry, written when the due was created through the API
    expect(due.text).toContain('Due created');
  });

  it('speaks Hindi on a Hindi business', async () => {
    const s = await shop('hi');
    await record(s.biz.business.id, ASHA, [
      {
        action: 'transaction.updated',
        entity: 'transaction',
        entityId: s.dueId,
        changes: { amount_paise: [450_000, 400_000], status: ['pending', 'paid'] },
      },
    ]);
    const due = await s.owner.get(`/dashboard/dues/${s.dueId}`);
    expect(due.text).toContain('<h2 id="history-h">इतिहास</h2>');
    expect(due.text).toContain('उधार बदला गया');
    expect(due.text).toContain('Asha Accountant ने');
    expect(due.text).toContain('रकम: ₹4,500.00 → ₹4,000.00');
    const page = await s.owner.get('/dashboard/audit');
    expect(page.text).toContain('गतिविधि: किसने क्या बदला');
    expect(page.text).toContain('स्थिति:');
    expect((await s.owner.get('/dashboard/audit?entity=bogus')).text).toContain('सूची में से चुनें कि क्या बदला।');
  });

  it('words every money action and its fields, in English and in Hindi', async () => {
    for (const [language, words] of [
      [
        'en',
        [
          'Due part paid',
          'Paid: ₹0.00 → ₹1,000.00',
          'Payment recorded',
          'Kept as credit',
          'Recorded: — → through the API',
          'Due adjusted',
          'Adjusted: ₹0.00 → ₹500.00',
          'Adjustment created',
        ],
      ],
      [
        'hi',
        [
          'उधार कुछ चुकाया गया',
          'जमा: ₹0.00 → ₹1,000.00',
          'जमा लिखा गया',
          'बची जमा (क्रेडिट)',
          'API से',
          'उधार घटाया गया',
          'घटाई गई रकम: ₹0.00 → ₹500.00',
          'घट-बढ़ बनाया गया',
        ],
      ],
    ] as const) {
      const s = await shop(language);
      expect((await s.biz.post(`/v1/transactions/${s.dueId}/payments`, { amount_paise: 1_000_00 })).status).toBe(201);
      const adjusted = await s.biz.post(`/v1/transactions/${s.dueId}/adjustments`, {
        kind: 'tds',
        amount_paise: 500_00,
      });
      expect(adjusted.status, adjusted.text).toBe(201);
      const due = (await s.owner.get(`/dashboard/dues/${s.dueId}`)).text;
      const log = (await s.owner.get('/dashboard/audit')).text;
      for (const word of words) expect(`${due}${log}`, `${language}: ${word}`).toContain(word);
    }
  });
});
