import { describe, expect, it } from 'vitest';
import { planStore } from '../db/sqlite/plans.test-support.js';
import { listPendingAccountClaims } from './repository.js';

/** SQLite plans without statistics: a buyer's pending claims are read by the buyer's claims, not the business's. */
describe('claim query plans (SQLite)', () => {
  const { db, planOf } = planStore('claim-plans-');
  const business = '01959c4e-0000-7000-8000-000000000001';
  const contact = '01959c4e-0000-7000-8000-000000000002';

  it("reads a buyer's pending account claims through the buyer's claims index", async () => {
    const plan = await planOf(() => listPendingAccountClaims(db, business, contact, 5));
    expect(plan).toMatch(/SEARCH payment_claims USING INDEX payment_claims_contact_created \(contact_id=\?\)/);
    expect(plan).not.toMatch(/payment_claims_business_status_created|SCAN|TEMP B-TREE FOR ORDER BY/);
  });
});
