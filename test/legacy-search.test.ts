import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness, type TestBusiness } from './helpers/harness.js';

/**
 * Fuzzy search of the earlier shape (PRODUCT part 7): case-insensitive, one typo per word, every
 * query word must match a word of the name; on contacts and, through the contact, on dues.
 */

let h: Harness;
let biz: TestBusiness;
const contactIds = new Map<string, string>();

const NAMES = [
  'Ravi Kumar',
  'Ravina Kapoor',
  'Sunita Rao',
  'Rao & Sons',
  "D'Souza Traders",
  'Al Noor',
  'José Fernandes',
  'रवि शर्मा',
];

beforeAll(async () => {
  h = await startHarness({ now: '2030-03-10T06:00:00.000Z' });
  biz = await h.newBusiness();
  for (const name of NAMES) {
    h.clock.advance(1000);
    const res = await biz.post('/v1/contacts', { name });
    expect(res.status, res.text).toBe(201);
    contactIds.set(name, res.body.data.id);
  }
  // Dues create their contact by name through the same service: Ravi Kumar has two.
  for (const [amount, date, name] of [
    [100, '2030-03-01', 'Ravi Kumar'],
    [200, '2030-03-20', 'ravi kumar'],
    [300, '2030-03-05', 'Sunita Rao'],
    [400, '2030-03-06', 'Ravina Kapoor'],
  ] as const) {
    const res = await biz.post('/v1/transactions', { amount_paise: amount, due_date: date, contact_name: name });
    expect(res.status, res.text).toBe(201);
  }
  // Another business with a same-named contact must never show up.
  const other = await h.newBusiness();
  await other.post('/v1/transactions', { amount_paise: 999, due_date: '2030-03-01', contact_name: 'Ravi Kumar' });
});
afterAll(() => h.close());

async function contactNames(search: string, who: TestBusiness = biz): Promise<string[]> {
  const res = await who.get(`/legacy/v1/contacts?search=${encodeURIComponent(search)}`);
  expect(res.status, res.text).toBe(200);
  expect(res.body.total, search).toBe(res.body.data.length);
  return res.body.data.map((c: { name: string }) => c.name).sort();
}

describe('GET /legacy/v1/contacts?search=', () => {
  it('finds an exact word, whatever the case', async () => {
    expect(await contactNames('ravi')).toEqual(['Ravi Kumar']);
    expect(await contactNames('RAVI')).toEqual(['Ravi Kumar']);
    expect(await contactNames('Kumar')).toEqual(['Ravi Kumar']);
  });

  it('tolerates one substitution, deletion, insertion or transposition in a word', async () => {
    expect(await contactNames('rabi')).toEqual(['Ravi Kumar']);
    expect(await contactNames('kumr')).toEqual(['Ravi Kumar']);
    expect(await contactNames('kummar')).toEqual(['Ravi Kumar']);
    expect(await contactNames('kumra')).toEqual(['Ravi Kumar']);
    expect(await contactNames('sunitha')).toEqual(['Sunita Rao']);
    expect(await contactNames('fernandez')).toEqual(['José Fernandes']);
  });

  it('does not match a word two typos away', async () => {
    expect(await contactNames('kimur')).toEqual([]);
    expect(await contactNames('rbvy')).toEqual([]);
    expect(await contactNames('suntiha')).toEqual([]);
    // "ravina" is two insertions from "ravi"
    expect(await contactNames('ravi kapoor')).toEqual([]);
  });

  it('requires every query word to match a word of the name, in any order, each with its own typo', async () => {
    expect(await contactNames('rao')).toEqual(['Rao & Sons', 'Sunita Rao']);
    expect(await contactNames('sunita rao')).toEqual(['Sunita Rao']);
    expect(await contactNames('kumar ravi')).toEqual(['Ravi Kumar']);
    expect(await contactNames('rabi kumaar')).toEqual(['Ravi Kumar']);
    expect(await contactNames('ravi sons')).toEqual([]);
    expect(await contactNames('  Ravina,  KAPOR ')).toEqual(['Ravina Kapoor']);
  });

  it('handles punctuation, accents, short words and other scripts by documented rules', async () => {
    expect(await contactNames('dsouza')).toEqual(["D'Souza Traders"]);
    expect(await contactNames("d'souza")).toEqual(["D'Souza Traders"]);
    expect(await contactNames('jose')).toEqual(['José Fernandes']);
    expect(await contactNames('al')).toEqual(['Al Noor']);
    // Words of one or two characters must match exactly.
    expect(await contactNames('ak')).toEqual([]);
    expect(await contactNames('रवि')).toEqual(['रवि शर्मा']);
    expect(await contactNames('शरमा')).toEqual(['रवि शर्मा']);
  });

  it('ignores a search without any word, and counts matches beyond the page in total', async () => {
    expect(await contactNames(' - ')).toHaveLength(NAMES.length);
    const res = await biz.get('/legacy/v1/contacts?search=rao&limit=1');
    expect(res.body).toMatchObject({ total: 2, limit: 1, data: [{ name: 'Rao & Sons' }] });
  });

  it("never finds another business's contacts", async () => {
    const other = await h.newBusiness();
    expect(await contactNames('ravi', other)).toEqual([]);
  });

  it('follows a rename, in the same transaction as the rename', async () => {
    const rename = await h.newBusiness();
    const created = await rename.post('/v1/contacts', { name: 'Mohan Lal' });
    expect(await contactNames('mohan', rename)).toEqual(['Mohan Lal']);
    const patched = await rename.patch(`/v1/contacts/${created.body.data.id}`, { name: 'Mohanraj Pillai' });
    expect(patched.status, patched.text).toBe(200);
    expect(await contactNames('mohan', rename)).toEqual([]);
    expect(await contactNames('lal', rename)).toEqual([]);
    expect(await contactNames('mohanraj pilai', rename)).toEqual(['Mohanraj Pillai']);
    // A rename refused with 409 leaves the index as it was.
    await rename.post('/v1/contacts', { name: 'Arjun Mehta' });
    const refused = await rename.patch(`/v1/contacts/${created.body.data.id}`, { name: 'arjun mehta' });
    expect(refused.status).toBe(409);
    expect(await contactNames('mehta', rename)).toEqual(['Arjun Mehta']);
    expect(await contactNames('pillai', rename)).toEqual(['Mohanraj Pillai']);
  });
});

describe('a query with a common word and a rare one', () => {
  // "buyer" is in most names here and "shah" in few: the rare word leads the lookup (name-terms.ts
  // rarestFirst), and the answer must not depend on which word is rarer or comes first.
  const COMMON_NAMES = ['Buyer Gupta', 'Buyer Iyer', 'Buyer Nair', 'Buyer Patil', 'Buyer Reddy', 'Buyer Singh'];
  const MATCHES = ['Buyer Shah', 'Byuer Sha', 'Shah Buyers'];
  let mixed: TestBusiness;

  beforeAll(async () => {
    mixed = await h.newBusiness();
    for (const name of [...COMMON_NAMES, ...MATCHES, 'Shah Traders', 'Shaw Exports']) {
      const res = await mixed.post('/v1/transactions', {
        amount_paise: 100,
        due_date: '2030-03-01',
        contact_name: name,
      });
      expect(res.status, res.text).toBe(201);
    }
  });

  it('finds the contacts matching both words, whichever word comes first', async () => {
    for (const query of ['buyer shah', 'shah buyer']) {
      expect(await contactNames(query, mixed), query).toEqual(MATCHES);
    }
    // "buyr" is two edits from "byuer" and "buyers"; "byer" one from "byuer", two from "buyers".
    expect(await contactNames('buyr shah', mixed)).toEqual(['Buyer Shah']);
    expect(await contactNames('SHAH byer', mixed)).toEqual(['Buyer Shah', 'Byuer Sha']);
    expect(await contactNames('buyer', mixed)).toEqual([...COMMON_NAMES, ...MATCHES].sort());
    expect(await contactNames('shah', mixed)).toEqual([
      'Buyer Shah',
      'Byuer Sha',
      'Shah Buyers',
      'Shah Traders',
      'Shaw Exports',
    ]);
    expect(await contactNames('buyer shah traders', mixed)).toEqual([]);
    expect(await contactNames('buyer nobody', mixed)).toEqual([]);
  });

  it('finds their dues the same way', async () => {
    for (const query of ['buyer%20shah', 'shah%20buyer']) {
      const res = await mixed.get(`/legacy/v1/transactions?search=${query}`);
      expect(res.status, res.text).toBe(200);
      expect(res.body.data.map((t: { contactName: string }) => t.contactName).sort(), query).toEqual(MATCHES);
    }
  });
});

describe('GET /legacy/v1/transactions?search=', () => {
  async function dues(query: string) {
    const res = await biz.get(`/legacy/v1/transactions?${query}`);
    expect(res.status, res.text).toBe(200);
    expect(res.body.total, query).toBe(res.body.data.length);
    return res.body.data.map((t: { contactName: string; amountPaise: number }) => [t.contactName, t.amountPaise]);
  }

  it("matches the contact's name fuzzily, with the other filters", async () => {
    expect(await dues('search=rabi%20kumr')).toEqual([
      ['Ravi Kumar', 200],
      ['Ravi Kumar', 100],
    ]);
    expect(await dues('search=kapor')).toEqual([['Ravina Kapoor', 400]]);
    expect(await dues('search=rao')).toEqual([['Sunita Rao', 300]]);
    expect(await dues('search=kimur')).toEqual([]);
    expect(await dues('search=kapur')).toEqual([]);
    expect(await dues('search=ravi&status=overdue')).toEqual([['Ravi Kumar', 100]]);
    expect(await dues('search=ravi&startDate=2030-03-02')).toEqual([['Ravi Kumar', 200]]);
    expect(await dues(`search=ravi&contact_id=${contactIds.get('Sunita Rao')}`)).toEqual([]);
    const paged = await biz.get('/legacy/v1/transactions?search=ravi&limit=1&offset=1');
    expect(paged.body).toMatchObject({ total: 2, limit: 1, offset: 1, data: [{ amountPaise: 100 }] });
  });
});

describe('/v1 search is unchanged', () => {
  it('stays a case-insensitive substring with its 400 for short text', async () => {
    const found = await biz.get('/v1/contacts?search=AVI%20KU');
    expect(found.body.data.map((c: { name: string }) => c.name)).toEqual(['Ravi Kumar']);
    expect((await biz.get('/v1/contacts?search=rabi')).body.total).toBe(0);
    expect((await biz.get('/v1/contacts?search=a')).status).toBe(400);
  });
});
