import type { Executor } from '../db/schema.js';

/** Which of these invoice numbers already belong to a (not deleted) due of the business. */
export async function existingInvoiceNumbers(db: Executor, businessId: string, numbers: string[]): Promise<string[]> {
  if (numbers.length === 0) return [];
  const rows = await db
    .selectFrom('transactions')
    .select('invoice_number')
    .distinct()
    .where('business_id', '=', businessId)
    .where('invoice_number', 'in', numbers)
    .where('deleted_at', 'is', null)
    .execute();
  return rows.map((r) => r.invoice_number as string);
}
