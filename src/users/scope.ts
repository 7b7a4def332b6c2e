import type { Executor } from '../db/schema.js';

/**
 * Whom a due's or a contact's buyer is assigned to (a collector acts on their own buyers only);
 * undefined when the business has no such due or contact.
 */
export async function assigneeOfDue(
  db: Executor,
  businessId: string,
  dueId: string,
): Promise<{ assigned_to: string | null } | undefined> {
  return db
    .selectFrom('transactions')
    .innerJoin('contacts', 'contacts.id', 'transactions.contact_id')
    .select('contacts.assigned_to')
    .where('transactions.business_id', '=', businessId)
    .where('transactions.id', '=', dueId)
    .executeTakeFirst();
}

export async function assigneeOfContact(
  db: Executor,
  businessId: string,
  contactId: string,
): Promise<{ assigned_to: string | null } | undefined> {
  return db
    .selectFrom('contacts')
    .select('assigned_to')
    .where('business_id', '=', businessId)
    .where('id', '=', contactId)
    .executeTakeFirst();
}
