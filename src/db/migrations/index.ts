import type { Migration } from 'kysely';
import * as core from './2026-11-21T00-00_core.js';
import * as reminders from './2026-11-21T02-00_reminders.js';
import * as contactNameTerms from './2026-11-21T05-00_contact-name-terms.js';
import * as paymentClaims from './2026-11-21T06-00_payment-claims.js';
import * as webhooks from './2026-11-22T00-00_webhooks.js';
import * as leanerWriteIndexes from './2026-11-23T00-00_leaner-write-indexes.js';
import * as businessDataVersion from './2026-11-23T01-00_business-data-version.js';
import * as ascendingListIndexes from './2026-11-23T02-00_ascending-list-indexes.js';
import * as dueLifecycle from './2026-11-24T01-00_due-lifecycle.js';
import * as apiKeyUsage from './2026-11-24T02-00_api-key-usage.js';
import * as dashboardSessions from './2026-11-24T03-00_dashboard-sessions.js';
import * as invoiceNumberIndex from './2026-11-24T04-00_invoice-number-index.js';
import * as moneyIn from './2026-11-24T05-00_money-in.js';
import * as coveringListIndexes from './2026-11-24T06-00_covering-list-indexes.js';
import * as sequences from './2026-11-24T07-00_sequences.js';
import * as dataVersionAtCommit from './2026-11-24T08-00_data-version-at-commit.js';
import * as contactNameTrigram from './2026-11-24T11-00_contact-name-trigram.js';
import * as contactNameFts from './2026-11-24T12-00_contact-name-fts.js';
import * as shardedTotals from './2026-11-25T01-00_sharded-totals.js';
import * as contactScores from './2026-11-25T02-00_contact-scores.js';
import * as stalePaymentLinks from './2026-11-25T05-00_stale-payment-links.js';
import * as leanCreateChecks from './2026-11-25T12-00_lean-create-checks.js';
import * as contactsUpdatedAtIndex from './2026-11-27T01-00_contacts-updated-at-index.js';
import * as khata from './2026-11-27T02-00_khata.js';
import * as contactOldestDue from './2026-11-27T02-10_contact-oldest-due.js';
import * as eventListIndexes from './2026-11-27T03-00_event-list-indexes.js';
import * as webhookSecretRotation from './2026-11-27T03-10_webhook-secret-rotation.js';
import * as webhookDisabledNotice from './2026-11-27T03-20_webhook-disabled-notice.js';
import * as chatMessages from './2026-11-27T05-00_chat-messages.js';
import * as paymentReferences from './2026-11-27T08-00_payment-references.js';
import * as bankCredits from './2026-11-27T08-10_bank-credits.js';
import * as accountClaims from './2026-11-28T02-00_account-claims.js';
import * as keptCredit from './2026-11-28T03-00_kept-credit.js';
import * as bankCreditReceipt from './2026-11-28T04-00_bank-credit-receipt.js';
import * as openBalanceByDueDate from './2026-11-28T04-10_open-balance-by-due-date.js';
import * as users from './2026-11-28T07-00_users.js';
import * as auditLog from './2026-11-29T01-00_audit-log.js';
import * as balanceContactCount from './2026-11-29T04-00_balance-contact-count.js';
import * as accountPaymentLinks from './2026-11-29T04-10_account-payment-links.js';
import * as auditLogByKind from './2026-11-30T02-00_audit-log-by-kind.js';
import * as contactLedgerMonths from './2026-11-30T03-00_contact-ledger-months.js';
import * as contactOpenDays from './2026-12-01T01-00_contact-open-days.js';
import * as newestEntryIndexes from './2026-12-01T02-00_newest-entry-indexes.js';
import * as unappliedGatewayPayments from './2026-12-01T03-00_unapplied-gateway-payments.js';
import * as mergedContacts from './2026-12-02T01-00_merged-contacts.js';

/**
 * Every migration, by name; names sort in the order they run. Listed statically (not read from the
 * folder) so that they load the same way under tsx, vitest and its global setup. Add new ones at
 * the end.
 */
export const migrations: Record<string, Migration> = {
  '2026-11-21T00-00_core': core,
  '2026-11-21T02-00_reminders': reminders,
  '2026-11-21T05-00_contact-name-terms': contactNameTerms,
  '2026-11-21T06-00_payment-claims': paymentClaims,
  '2026-11-22T00-00_webhooks': webhooks,
  '2026-11-23T00-00_leaner-write-indexes': leanerWriteIndexes,
  '2026-11-23T01-00_business-data-version': businessDataVersion,
  '2026-11-23T02-00_ascending-list-indexes': ascendingListIndexes,
  '2026-11-24T01-00_due-lifecycle': dueLifecycle,
  '2026-11-24T02-00_api-key-usage': apiKeyUsage,
  '2026-11-24T03-00_dashboard-sessions': dashboardSessions,
  '2026-11-24T04-00_invoice-number-index': invoiceNumberIndex,
  '2026-11-24T05-00_money-in': moneyIn,
  '2026-11-24T06-00_covering-list-indexes': coveringListIndexes,
  '2026-11-24T07-00_sequences': sequences,
  '2026-11-24T08-00_data-version-at-commit': dataVersionAtCommit,
  '2026-11-24T11-00_contact-name-trigram': contactNameTrigram,
  '2026-11-24T12-00_contact-name-fts': contactNameFts,
  '2026-11-25T01-00_sharded-totals': shardedTotals,
  '2026-11-25T02-00_contact-scores': contactScores,
  '2026-11-25T05-00_stale-payment-links': stalePaymentLinks,
  '2026-11-25T12-00_lean-create-checks': leanCreateChecks,
  '2026-11-27T03-00_event-list-indexes': eventListIndexes,
  '2026-11-27T03-10_webhook-secret-rotation': webhookSecretRotation,
  '2026-11-27T05-00_chat-messages': chatMessages,
  '2026-11-27T01-00_contacts-updated-at-index': contactsUpdatedAtIndex,
  '2026-11-27T03-20_webhook-disabled-notice': webhookDisabledNotice,
  '2026-11-27T02-00_khata': khata,
  '2026-11-27T08-00_payment-references': paymentReferences,
  '2026-11-27T02-10_contact-oldest-due': contactOldestDue,
  '2026-11-27T08-10_bank-credits': bankCredits,
  '2026-11-28T02-00_account-claims': accountClaims,
  '2026-11-28T03-00_kept-credit': keptCredit,
  '2026-11-28T04-00_bank-credit-receipt': bankCreditReceipt,
  '2026-11-28T04-10_open-balance-by-due-date': openBalanceByDueDate,
  '2026-11-28T07-00_users': users,
  '2026-11-29T01-00_audit-log': auditLog,
  '2026-11-29T04-00_balance-contact-count': balanceContactCount,
  '2026-11-29T04-10_account-payment-links': accountPaymentLinks,
  '2026-11-30T02-00_audit-log-by-kind': auditLogByKind,
  '2026-11-30T03-00_contact-ledger-months': contactLedgerMonths,
  '2026-12-01T01-00_contact-open-days': contactOpenDays,
  '2026-12-01T02-00_newest-entry-indexes': newestEntryIndexes,
  '2026-12-01T03-00_unapplied-gateway-payments': unappliedGatewayPayments,
  '2026-12-02T01-00_merged-contacts': mergedContacts,
};
