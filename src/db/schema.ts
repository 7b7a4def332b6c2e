import type { Generated, Kysely, Transaction } from 'kysely';

/**
 * Table shapes as the code sees them on both stores. Timestamps are ISO 8601 UTC strings with
 * milliseconds, dates are 'YYYY-MM-DD', booleans are 0/1 integers and money is integer paise:
 * the PostgreSQL driver is configured to hand back the same JavaScript values as SQLite, so one
 * code path serves both (see db/postgres/pool.ts).
 */

export interface BusinessTable {
  id: string;
  name: string;
  phone: string;
  plan: string;
  plan_expires_at: string;
  currency: string;
  language: string;
  timezone: string;
  country: string;
  upi_id: string | null;
  reminders_paused: number;
  /** the reminder sequence's day offsets from the due date, comma-separated (PRODUCT part 13) */
  reminder_steps: Generated<string>;
  created_at: string;
  updated_at: string;
}

export interface ApiKeyTable {
  id: string;
  business_id: string;
  key_hash: string;
  key_prefix: string;
  created_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
  /** where the key was issued (PRODUCT part 16) */
  source: Generated<KeySource>;
}

export type KeySource = 'cli' | 'chat' | 'dashboard';

/** Per-business running totals, changed in the same transaction as the rows they count. */
export interface BusinessTotalsTable {
  business_id: string;
  pending_count: number;
  pending_paise: number;
  overdue_count: number;
  overdue_paise: number;
  paid_count: number;
  paid_paise: number;
  contact_count: number;
  /** the business's contacts' unused credit (sum of contacts.credit_paise) */
  credit_paise: Generated<number>;
  /** how many contacts have a balance_paise above 0 (kept by a trigger on contacts) */
  balance_contact_count: Generated<number>;
  /** moves with every change to the business's dues or contacts (triggers; see its migration) */
  data_version: Generated<number>;
  /** PostgreSQL only: which of the business's rows (totals/aggregates.ts SHARD); SQLite has one row */
  shard: Generated<number>;
}

/** Stored-pending dues per due date: lets "pending but already past due" be summed without a scan. */
export interface PendingByDayTable {
  business_id: string;
  due_date: string;
  due_count: number;
  due_paise: number;
  /** PostgreSQL only (see BusinessTotalsTable.shard) */
  shard: Generated<number>;
}

/**
 * Money received by business-local month, for paid_this_month_paise: `due_paise` sums the payments
 * (part payments included), `due_count` the dues they settled.
 */
/** Open balances per due date, every open due whatever its stored status: aging without a scan. */
export interface OpenByDayTable {
  business_id: string;
  due_date: string;
  due_count: number;
  due_paise: number;
  /** PostgreSQL only (see BusinessTotalsTable.shard) */
  shard: Generated<number>;
}

export interface PaidByMonthTable {
  business_id: string;
  month: string;
  due_count: number;
  due_paise: number;
  /** PostgreSQL only (see BusinessTotalsTable.shard) */
  shard: Generated<number>;
}

export interface ContactTable {
  id: string;
  business_id: string;
  name: string;
  /** trimmed, NFC, lower-cased name: the case-insensitive identity within the business */
  name_key: string;
  phone: string | null;
  /** phone digits reversed, for index-friendly "phone ends with" search */
  phone_rev: string | null;
  /** 1 when the business paused reminders to this contact */
  reminders_paused: Generated<number>;
  created_at: string;
  updated_at: string;
  /** kept: the open dues' balances (triggers on transactions keep it; migration 2026-11-27T02-00) */
  open_paise: Generated<number>;
  /** kept: the receipts' unused credit */
  credit_paise: Generated<number>;
  /** kept: open_paise - credit_paise (negative when the business owes the buyer) */
  balance_paise: Generated<number>;
  /** the buyer's account page token (/a/<token>); null only for rows written outside the service (bench seeds) */
  account_token: Generated<string | null>;
  /** the buyer's language for the account page; null: the business's */
  language: Generated<string | null>;
  /** kept: the due date of the oldest open due, '9999-12-31' when none (migration 2026-11-27T02-10) */
  oldest_open_due: Generated<string>;
  /** `R` + 7 characters, in the account's UPI note: names the account in a bank narration */
  payment_reference: Generated<string | null>;
  /** the user (staff) this buyer is assigned to: a collector sees and acts on these only */
  assigned_to: Generated<string | null>;
  /** kept: its dues not deleted (the contact balance trigger; migration 2026-12-01T01-00) */
  due_count: Generated<number>;
}

/**
 * Issue 18: what a contact's paid dues add to its payment score, kept in the transaction that
 * settles each due (lib/payment-score.ts PaidSums, contacts/score-sums.ts).
 */
export interface ContactScoreTable {
  contact_id: string;
  business_id: string;
  /** day number (days since 1970-01-01) the sums are relative to: the latest date summed */
  epoch_day: number;
  weighted: number;
  weights: number;
  terms: number;
}

/**
 * Kept: per contact and month, what moved its statement balance in that month (debits less
 * credits), kept by triggers (migration 2026-11-30T03-00): a statement's opening balance.
 */
export interface ContactLedgerMonthTable {
  contact_id: string;
  /** `YYYY-MM`: a due's, adjustment's or reversal's UTC month, a receipt's received_on month */
  month: string;
  business_id: string;
  paise: number;
}

/**
 * A contact's open dues by date, kept by triggers on transactions (migration 2026-12-01T01-00): its
 * standing and aging read these, not its dues. A row exists while its day has open dues or open
 * promises.
 */
export interface ContactOpenDayTable {
  contact_id: string;
  /** a due date of its open dues, or a promise date of them */
  day: string;
  /** the open dues due that day */
  due_count: number;
  /** their open balances */
  balance_paise: number;
  /** their amounts plus the amounts of the open dues promised for that day (the score's terms) */
  scored_paise: number;
}

/**
 * A buyer merged into another (contact-merge/): its account link forwards to the kept buyer's page,
 * and its payment reference matches bank lines to the kept buyer.
 */
export interface MergedContactTable {
  /** the merged contact's id */
  id: string;
  business_id: string;
  /** the buyer it is part of now */
  kept_id: string;
  account_token: string | null;
  payment_reference: string | null;
  merged_at: string;
}

/** Words of contact names and their one-deletion variants: the fuzzy-search index (contacts/fuzzy.ts). */
export interface ContactNameTermTable {
  business_id: string;
  term: string;
  contact_id: string;
  /** code-point index of the deleted character, -1 for the whole word */
  pos: number;
  /** the deleted character, '' for the whole word */
  ch: string;
}

export interface TransactionTable {
  id: string;
  business_id: string;
  contact_id: string;
  amount_paise: number;
  currency: string;
  /** stored status: pending, overdue (set by the sweeper) or paid */
  status: string;
  /** 1 while pending or overdue, 0 once paid, -1 once deleted: the leading column of the list indexes */
  open: number;
  direction: string;
  due_date: string;
  paid_at: string | null;
  utr: string | null;
  payment_method: string | null;
  invoice_number: string | null;
  notes: string | null;
  reminder_count: number;
  /** "I have paid" claims made on the pay page */
  claim_count: number;
  pay_token: string;
  created_at: string;
  updated_at: string;
  /** the sum of the due's payments (not reversed) */
  amount_paid_paise: Generated<number>;
  /** the sum of the due's adjustments; the balance is amount - paid - adjusted */
  amount_adjusted_paise: Generated<number>;
  /** set when the due was removed (soft delete; `open` is then -1) */
  deleted_at: Generated<string | null>;
  /** the id of the first due of its series; null when it does not repeat */
  series_id: Generated<string | null>;
  /** JSON `{"interval": "weekly" | "monthly", "until": "YYYY-MM-DD" | null}`, or null */
  recurrence: Generated<string | null>;
  /** 1 while the next due of the series is still to be created from this one */
  recurs_next: Generated<number>;
  /** 1 when the business paused this due's automatic reminders */
  reminders_paused: Generated<number>;
  /** the buyer's latest promise to pay (PRODUCT part 13): the promised date and when it was made */
  promise_date: Generated<string | null>;
  promise_made_at: Generated<string | null>;
  /** `R` + 8 characters, in the pay page's UPI note: names the due in a bank narration */
  payment_reference: Generated<string | null>;
}

/** One payment (part or whole) of a due (PRODUCT part 10). */
export interface PaymentTable {
  id: string;
  business_id: string;
  transaction_id: string;
  amount_paise: number;
  utr: string | null;
  payment_method: string;
  /** api, claim, gateway, import, chat, dashboard or credit */
  source: string;
  created_at: string;
  /** the receipt this payment is an allocation of */
  receipt_id: string;
  /** set when its receipt was reversed: it no longer counts on the due */
  reversed_at: string | null;
}

/** Money received from a buyer; its payments are its allocations, the rest is credit. */
export interface ReceiptTable {
  id: string;
  business_id: string;
  contact_id: string;
  amount_paise: number;
  applied_paise: number;
  /** what is left of it as the contact's credit */
  credit_paise: number;
  utr: string | null;
  payment_method: string;
  source: string;
  received_on: string;
  created_at: string;
  reversed_at: string | null;
  reversal_reason: string | null;
  /** the claim this receipt confirmed (unique: a claim pays once) */
  claim_id?: string | null;
}

/** What lowers a due's balance without money (tds, discount, credit_note, write_off). */
export interface AdjustmentTable {
  id: string;
  business_id: string;
  transaction_id: string;
  contact_id: string;
  kind: string;
  amount_paise: number;
  reason: string | null;
  reference: string | null;
  created_at: string;
}

export interface IdempotencyKeyTable {
  business_id: string;
  operation: string;
  idempotency_key: string;
  request_hash: string;
  response_status: number;
  response_body: string;
  created_at: string;
}

/** The outbox: one row per event, written in the transaction of the change that caused it. */
export interface EventTable {
  id: string;
  business_id: string;
  type: string;
  /** the exact JSON text of the event's `data` */
  payload: string;
  created_at: string;
  /** set once the event has been fanned out to webhook deliveries */
  dispatched_at: string | null;
}

/** An "I have paid" claim made on the pay page; transactions.claim_count counts them. */
export interface PaymentClaimTable {
  id: string;
  business_id: string;
  /** the due a pay page claim is for; null for an account claim */
  transaction_id: string | null;
  reference: string | null;
  created_at: string;
  /** pending, confirmed or rejected (PRODUCT part 11) */
  status: string;
  decided_at: string | null;
  /** the contact whose account an account page claim is for; null for a due's claim */
  contact_id?: string | null;
  /** what the buyer says they paid (account claims) */
  amount_paise?: number | null;
}

/** A gateway payment link of a due (PRODUCT part 11); status created, cancelled or paid. */
export interface PaymentLinkTable {
  id: string;
  business_id: string;
  transaction_id: string;
  gateway_link_id: string;
  amount_paise: number;
  short_url: string;
  status: string;
  created_at: string;
}

/** A payment link of a contact's whole balance (the account page); its id is the gateway's reference. */
export interface AccountPaymentLinkTable {
  id: string;
  business_id: string;
  contact_id: string;
  gateway_link_id: string;
  amount_paise: number;
  short_url: string;
  /** created (open), paid or cancelled */
  status: string;
  created_at: string;
}

/** A payment the gateway reported, once per gateway payment id; unapplied_paise > 0 is money no due took. */
export interface GatewayPaymentTable {
  gateway_payment_id: string;
  business_id: string;
  /** the due of the link it was paid on; null for an account link */
  transaction_id: string | null;
  /** the account of the link it was paid on; null for a due's link */
  contact_id: string | null;
  gateway_link_id: string | null;
  amount_paise: number;
  payment_method: string;
  /** the payments row it was recorded as, null when none of it applied */
  payment_id: string | null;
  unapplied_paise: number;
  /** why money was left unapplied: settled, deleted or over_balance */
  unapplied_reason: string | null;
  created_at: string;
}

/** A reminder: queued (automatic), in flight, sent, cancelled or failed (PRODUCT part 6). */
export interface ReminderTable {
  id: string;
  business_id: string;
  transaction_id: string;
  contact_id: string;
  /** manual (POST remind) or automatic (scheduled at due-date creation) */
  kind: string;
  /** scheduled, sending (protections passed, channel call in flight), sent, cancelled, failed */
  status: string;
  /** chosen when the reminder is attempted (the due date decides it at that moment) */
  template: string | null;
  /** why it was cancelled or failed */
  reason: string | null;
  scheduled_for: string;
  sent_at: string | null;
  attempts: number;
  /** the worker holding the row, and until when: a crashed worker's rows are taken over */
  lease_id: string | null;
  locked_until: string | null;
  provider_message_id: string | null;
  /** the channel's delivery status: sent, delivered, read, failed */
  delivery_status: string | null;
  delivery_updated_at: string | null;
  created_at: string;
  updated_at: string;
  /** a step of a sequence: when the next step is due (held back past it, this one is skipped) */
  step_until: string | null;
}

export interface ChatOptOutTable {
  phone: string;
  opted_out_at: string;
}

export interface ChatInboundMessageTable {
  id: string;
  phone: string;
  received_at: string;
}

/** A buyer's chat reply, kept for the business to read, with the promise read from it (PRODUCT part 13). */
export interface BuyerReplyTable {
  id: string;
  business_id: string;
  contact_id: string;
  message_id: string;
  text: string;
  /** the due the promise was recorded on; null when the reply was unclear or the contact owes nothing */
  transaction_id: string | null;
  promise_date: string | null;
  received_at: string;
}

/** One message the service sent through the chat channel (src/messaging/). */
export interface ChatMessageTable {
  id: string;
  /** the provider's id (WhatsApp's wamid): statuses and replies refer to it */
  provider_message_id: string;
  /** the business it was sent for; null for none */
  business_id: string | null;
  /** the contact it was sent to, when it went to a buyer */
  contact_id: string | null;
  reminder_id: string | null;
  /** the recipient's phone, digits with the country code */
  phone: string;
  /** reminder, reply, sign_in_code, notice */
  purpose: string;
  /** template or text */
  kind: string;
  template: string | null;
  /** the pricing category the status webhook reported (utility, marketing, authentication, service) */
  category: string | null;
  /** its cost from the price table, in thousandths of a paisa */
  cost_millipaise: number;
  /** sent, delivered, read, failed */
  delivery: string | null;
  /** the Cloud API's error code of a failed message */
  error_code: number | null;
  sent_at: string;
  updated_at: string;
}

/** What WhatsApp told us about a phone. */
export interface ChatPhoneTable {
  phone: string;
  /** when the phone last wrote to the service's number: opens the 24-hour customer-service window */
  last_inbound_at: string | null;
  /** set when WhatsApp answered that the phone cannot receive messages (131026) */
  unreachable_at: string | null;
}

/** The shared token bucket that paces sending through the number. */
export interface ChatSendPaceTable {
  name: string;
  tokens: number;
  updated_at: string;
}

export interface WebhookEndpointTable {
  id: string;
  business_id: string;
  url: string;
  /** JSON array of subscribed event names */
  events: string;
  /** the signing secret, sealed with AES-256-GCM (webhooks/secret-box.ts) */
  secret_sealed: string;
  /** the secret a rotation replaced, sealed, in force until previous_secret_expires_at */
  previous_secret_sealed: string | null;
  previous_secret_expires_at: string | null;
  active: number;
  /** consecutive failed attempts; a success resets it */
  failure_count: number;
  /** start of the current run of failures: 3 days of nothing but failures disables the endpoint */
  failing_since: string | null;
  last_triggered_at: string | null;
  disabled_reason: string | null;
  /** 1 once disabled after failures, until the business has been told over chat */
  disabled_notice_pending: number;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

/** One event to one endpoint: pending (queued or in flight), delivered or failed. */
export interface WebhookDeliveryTable {
  id: string;
  business_id: string;
  endpoint_id: string;
  event_id: string;
  event: string;
  /** the exact body bytes sent on every attempt */
  body: string;
  status: string;
  attempts: number;
  response_status: number | null;
  error: string | null;
  /** when the next attempt is due; null when none is planned */
  next_attempt_at: string | null;
  delivered_at: string | null;
  /** redeliver asked while an attempt was in flight: queue one more after it */
  requeue: number;
  lease_id: string | null;
  locked_until: string | null;
  created_at: string;
  updated_at: string;
}

/** Every attempt of a delivery, as logged. */
export interface WebhookAttemptTable {
  id: string;
  delivery_id: string;
  attempt: number;
  status: string;
  response_status: number | null;
  error: string | null;
  duration_ms: number;
  next_retry_at: string | null;
  created_at: string;
}

export interface AppSettingTable {
  name: string;
  value: string;
}

/** A sign-in code or one-time link of the dashboard (PRODUCT part 14); only the hash is kept. */
export interface DashboardLoginTable {
  id: string;
  business_id: string;
  kind: 'code' | 'link';
  phone: string | null;
  secret_hash: string;
  /** the user the code or link signs in (null only on rows older than users: the owner) */
  user_id: string | null;
  attempts: Generated<number>;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface DashboardSessionTable {
  token_hash: string;
  business_id: string;
  /** the user signed in */
  user_id: string;
  csrf_token: string;
  created_at: string;
  expires_at: string;
}

export type Role = 'owner' | 'accountant' | 'collector' | 'viewer';

/** A person who signs in to a business's dashboard: the owner (id = the business's id) or staff. */
export interface UserTable {
  id: string;
  business_id: string;
  name: string;
  phone: string;
  role: Role;
  created_at: string;
}

/** Who made a change: a dashboard user, an API key, a user over chat, or the system (CLI, workers, gateway). */
export type AuditActorType = 'user' | 'api_key' | 'chat' | 'system';

/** One audit entry (src/audit/): written with its change, never updated but by a contact's erase. */
export interface AuditLogTable {
  id: string;
  business_id: string;
  at: string;
  actor_type: AuditActorType;
  actor_id: string | null;
  actor_name: string | null;
  action: string;
  entity: string;
  entity_id: string;
  /** JSON text {field: [before, after]} */
  changes: string;
  request_id: string | null;
}

/** One uploaded bank statement. */
export interface BankStatementTable {
  id: string;
  business_id: string;
  lines: number;
  credits: number;
  duplicates: number;
  created_at: string;
}

/** One credit line of a bank statement, recorded once per business (by its fingerprint). */
export interface BankCreditTable {
  id: string;
  business_id: string;
  statement_id: string;
  fingerprint: string;
  date: string;
  amount_paise: number;
  reference: string | null;
  narration: string;
  balance_paise: number | null;
  /** matched, suggested, unmatched or ignored */
  status: string;
  /** claim, reference, invoice_number, payer or owner */
  matched_by: string | null;
  transaction_id: string | null;
  contact_id: string | null;
  receipt_id: string | null;
  /** JSON [{transaction_id, contact_id, reason}] */
  suggestions: string;
  created_at: string;
  decided_at: string | null;
}

/** A payer (UPI id or account name) seen paying for a contact. */
export interface BankPayerTable {
  business_id: string;
  payer: string;
  contact_id: string;
  updated_at: string;
}

export interface Database {
  bank_statements: BankStatementTable;
  bank_credits: BankCreditTable;
  bank_payers: BankPayerTable;
  businesses: BusinessTable;
  api_keys: ApiKeyTable;
  business_totals: BusinessTotalsTable;
  pending_by_day: PendingByDayTable;
  paid_by_month: PaidByMonthTable;
  open_by_day: OpenByDayTable;
  buyer_replies: BuyerReplyTable;
  contacts: ContactTable;
  contact_name_terms: ContactNameTermTable;
  contact_scores: ContactScoreTable;
  contact_ledger_months: ContactLedgerMonthTable;
  contact_open_days: ContactOpenDayTable;
  merged_contacts: MergedContactTable;
  transactions: TransactionTable;
  idempotency_keys: IdempotencyKeyTable;
  events: EventTable;
  payment_claims: PaymentClaimTable;
  payments: PaymentTable;
  receipts: ReceiptTable;
  adjustments: AdjustmentTable;
  payment_links: PaymentLinkTable;
  gateway_payments: GatewayPaymentTable;
  account_payment_links: AccountPaymentLinkTable;
  reminders: ReminderTable;
  chat_opt_outs: ChatOptOutTable;
  chat_inbound_messages: ChatInboundMessageTable;
  chat_messages: ChatMessageTable;
  chat_phones: ChatPhoneTable;
  chat_send_pace: ChatSendPaceTable;
  webhook_endpoints: WebhookEndpointTable;
  webhook_deliveries: WebhookDeliveryTable;
  webhook_attempts: WebhookAttemptTable;
  app_settings: AppSettingTable;
  dashboard_logins: DashboardLoginTable;
  dashboard_sessions: DashboardSessionTable;
  users: UserTable;
  audit_log: AuditLogTable;
}

export type Db = Kysely<Database>;
export type Trx = Transaction<Database>;
/** A repository's first argument: the database, or a transaction opened by a service. */
export type Executor = Db | Trx;
