import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BusinessService } from '../src/businesses/service.js';
import { insertRows } from '../src/db/insert-rows.js';
import type { Store } from '../src/db/store.js';
import { systemClock } from '../src/lib/clock.js';
import { uuidv7 } from '../src/lib/ids.js';
import { openTestStore, uniquePhone } from './helpers/harness.js';

let store: Store;
beforeAll(async () => {
  ({ store } = await openTestStore());
});
afterAll(() => store.close());

function event(businessId: string, n: number) {
  return {
    id: uuidv7(),
    business_id: businessId,
    type: 'contact.created',
    payload: JSON.stringify({ n }),
    created_at: `2026-11-2${n % 10}T00:00:00.000Z`,
    dispatched_at: n % 2 === 0 ? null : '2026-11-23T00:00:00.000Z',
  };
}

let businesses: BusinessService;
async function newBusiness(): Promise<string> {
  businesses ??= new BusinessService({ db: store.db, clock: systemClock });
  return (await businesses.create({ name: 'Insert Rows', phone: uniquePhone() })).business.id;
}

function eventsOf(businessId: string) {
  return store.db.selectFrom('events').selectAll().where('business_id', '=', businessId).orderBy('id').execute();
}

describe('insertRows (compiled once per shape)', () => {
  it('writes every value of every row, for one row and for many, shape after shape', async () => {
    const businessId = await newBusiness();
    const one = [event(businessId, 1)];
    const three = [event(businessId, 2), event(businessId, 3), event(businessId, 4)];
    const again = [event(businessId, 5), event(businessId, 6), event(businessId, 7)];
    await insertRows(store.db, 'events', one);
    await insertRows(store.db, 'events', three);
    await insertRows(store.db, 'events', again); // the compiled 3-row statement, new values
    const rows = await eventsOf(businessId);
    expect(rows).toEqual([...one, ...three, ...again]);
  });

  it('splits many rows over several statements, under the bound-value limits', async () => {
    const businessId = await newBusiness();
    // 6 columns a row: 11,000 rows are 66,000 values, more than either store binds in one statement
    const many = Array.from({ length: 11_000 }, (_, n) => event(businessId, n));
    await expect(insertRows(store.db, 'events', many)).resolves.toBe(many.length);
    const rows = await eventsOf(businessId);
    expect(rows).toHaveLength(11_000);
    expect(rows).toEqual([...many].sort((a, b) => (a.id < b.id ? -1 : 1)));
  });

  it('takes each row by column name, whatever order its keys are in', async () => {
    const businessId = await newBusiness();
    const a = event(businessId, 1);
    const { payload, id, ...rest } = event(businessId, 2);
    const b = { payload, ...rest, id };
    await insertRows(store.db, 'events', [a, b]);
    const rows = await eventsOf(businessId);
    expect(rows).toEqual([a, { ...rest, id, payload }]);
  });

  it('skips rows that conflict when asked, and fails on them otherwise', async () => {
    const businessId = await newBusiness();
    const a = event(businessId, 1);
    await insertRows(store.db, 'events', [a]);
    const b = event(businessId, 2);
    const inserted = await insertRows(store.db, 'events', [{ ...a, payload: '{"changed":true}' }, b], {
      ignoreConflictOn: ['id'],
    });
    expect(inserted).toBe(1); // b only
    const rows = await eventsOf(businessId);
    expect(rows).toEqual([a, b]);
    await expect(insertRows(store.db, 'events', [a])).rejects.toThrow();
  });

  it('refuses an undefined value instead of binding it', async () => {
    const businessId = await newBusiness();
    const bad = { ...event(businessId, 1), dispatched_at: undefined };
    await expect(insertRows(store.db, 'events', [bad as never])).rejects.toThrow(/events\.dispatched_at is undefined/);
  });

  it('does nothing for no rows', async () => {
    await expect(insertRows(store.db, 'events', [])).resolves.toBe(0);
  });
});
