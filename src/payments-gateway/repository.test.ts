import { describe, expect, it } from 'vitest';
import { planStore } from '../db/sqlite/plans.test-support.js';
import { countUnapplied, listUnapplied } from './repository.js';

/** SQLite plans without statistics: the unapplied payments are read from their own index, not the business's payments. */
describe('unapplied gateway payments query plans (SQLite)', () => {
  const { db, planOf } = planStore('gateway-plans-');
  const business = '01959c4e-0000-7000-8000-000000000001';

  for (const [name, run] of [
    ['a page', () => listUnapplied(db, business, 5, 0)],
    ['the count', () => countUnapplied(db, business)],
  ] as const) {
    it(`reads ${name} of the unapplied payments through their partial index`, async () => {
      const plan = await planOf(run);
      expect(plan).toMatch(/gateway_payments_unapplied \(business_id=\?\)/);
      expect(plan).not.toMatch(/gateway_payments_business_created|SCAN|TEMP B-TREE/);
    });
  }
});
