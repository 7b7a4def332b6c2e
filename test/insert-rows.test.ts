import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertRows } from '../src/db/precompiled.js';
import type { Store } from '../src/db/store.js';
import { uuidv7 } from '../src/lib/ids.js';
import { openTestStore } from './helpers/harness.js';

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

async function newBusiness(): Promise<string> {
  const id = uuidv7();
  await store.db
    .insertInto('businesses')
    .values({
      id,
      name: 'Insert Rows',
      phone: '919800000001',
      plan: 'pro',
      plan_expires_at: '2027-11-23T00:00:00.000Z',
      currency: 'INR',
      language: 'en',
      timezone: 'Asia/Kolkata',
      country: 'IN',
      upi_id: null,
      reminders_paused: 0,
      created_at: '2026-11-23T00:00:00.000Z',
      updated_at: '2026-11-23T00:00:00.000Z',
    })
    .execute();
  return id;
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
    const rows = await store.db
      .selectFrom('events')
      .selectAll()
      .where('business_id', '=', businessId)
      .orderBy('id')
      .execute();
    expect(rows).toEqual([...one, ...three, ...again]);
  });

  it('takes each row by column name, whatever order its keys are in', async () => {
    const businessId = await newBusiness();
    const a = event(businessId, 1);
    const { payload, id, ...rest } = event(businessId, 2);
    const b = { payload, ...rest, id };
    await insertRows(store.db, 'events', [a, b]);
    const rows = await store.db
      .selectFrom('events')
      .selectAll()
      .where('business_id', '=', businessId)
      .orderBy('id')
      .execute();
    expect(rows).toEqual([a, { ...rest, id, payload }]);
  });

  it('skips rows that conflict when asked, and fails on them otherwise', async () => {
    const businessId = await newBusiness();
    const a = event(businessId, 1);
    await insertRows(store.db, 'events', [a]);
    const b = event(businessId, 2);
    await insertRows(store.db, 'events', [{ ...a, payload: '{"changed":true}' }, b], { ignoreConflictOn: ['id'] });
    const rows = await store.db
      .selectFrom('events')
      .selectAll()
      .where('business_id', '=', businessId)
      .orderBy('id')
      .execute();
    expect(rows).toEqual([a, b]);
    await expect(insertRows(store.db, 'events', [a])).rejects.toThrow();
  });

  it('refuses an undefined value instead of binding it', async () => {
    const businessId = await newBusiness();
    const bad = { ...event(businessId, 1), dispatched_at: undefined };
    await expect(insertRows(store.db, 'events', [bad as never])).rejects.toThrow(/events\.dispatched_at is undefined/);
  });

  it('does nothing for no rows', async () => {
    await expect(insertRows(store.db, 'events', [])).resolves.toBeUndefined();
  });
});
