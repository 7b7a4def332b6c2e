import { AUDIT_TABLE } from '../../audit/record.js';

/**
 * What `business export` writes: one JSON-lines file per kind, each line one stored row of the
 * business with every column (so a column added later is exported without a change here), less
 * the secrets. A new table holding the business's data is one more entry.
 */
export interface ExportKind {
  /** the file's name without `.jsonl` */
  readonly file: string;
  readonly table: string;
  /** a unique column the rows are paged by */
  readonly key: string;
  /** where the business's rows are: its id column (default business_id) */
  readonly businessColumn?: string;
  /** columns never exported (secrets, hashes) */
  readonly omit?: readonly string[];
  /** columns holding JSON text, exported as the JSON they hold */
  readonly json?: readonly string[];
}

export const EXPORT_KINDS: readonly ExportKind[] = [
  { file: 'business', table: 'businesses', key: 'id', businessColumn: 'id' },
  // account_token opens the buyer's account page: a secret, like a due's pay_token.
  { file: 'contacts', table: 'contacts', key: 'id', omit: ['name_key', 'phone_rev', 'account_token'] },
  // buyers merged into another: where each went, and the payment reference it still answers for
  { file: 'merged_contacts', table: 'merged_contacts', key: 'id', omit: ['account_token'] },
  { file: 'dues', table: 'transactions', key: 'id', omit: ['pay_token'], json: ['recurrence'] },
  { file: 'receipts', table: 'receipts', key: 'id' },
  { file: 'payments', table: 'payments', key: 'id' },
  { file: 'adjustments', table: 'adjustments', key: 'id' },
  { file: 'claims', table: 'payment_claims', key: 'id' },
  { file: 'bank_statements', table: 'bank_statements', key: 'id' },
  { file: 'bank_credits', table: 'bank_credits', key: 'id' },
  { file: 'bank_payers', table: 'bank_payers', key: 'payer' },
  { file: 'payment_links', table: 'payment_links', key: 'id' },
  { file: 'account_payment_links', table: 'account_payment_links', key: 'id' },
  { file: 'gateway_payments', table: 'gateway_payments', key: 'gateway_payment_id' },
  { file: 'reminders', table: 'reminders', key: 'id', omit: ['lease_id', 'locked_until'] },
  { file: 'replies', table: 'buyer_replies', key: 'id' },
  { file: 'messages', table: 'chat_messages', key: 'id' },
  { file: 'events', table: 'events', key: 'id', json: ['payload'] },
  {
    file: 'webhook_endpoints',
    table: 'webhook_endpoints',
    key: 'id',
    omit: ['secret_sealed', 'previous_secret_sealed'],
    json: ['events'],
  },
  { file: 'api_keys', table: 'api_keys', key: 'id', omit: ['key_hash'] },
  { file: 'audit', table: AUDIT_TABLE, key: 'id', json: ['changes'] },
];
