import type { AuditEntry } from '../../audit/read.js';
import type { ContactRow, ReplyRow } from '../../contacts/repository.js';
import type { ContactStanding } from '../../contacts/service.js';
import { html, type Markup } from '../../paypage/html.js';
import { defaultFrom, type LatestEntries, type StatementEntry } from '../../statements/statement.js';
import { PAYMENT_METHODS } from '../../transactions/schema.js';
import { isMessageKey } from '../i18n.js';
import { csrfField, layout, type PageChrome } from '../layout.js';
import { type AccountClaimItem, accountClaimItem } from './account-claims.js';
import { historySection } from './audit.js';
import { replyItem } from './contacts.js';
import type { View } from './view.js';

/** The buyer's account claims waiting for a decision, oldest first, shown on their page. */
export const CLAIMS_SHOWN = 10;

/** The newest entries shown on the buyer's page, whatever their dates; the statement page has any period. */
export const LEDGER_ENTRIES = 50;

/** The buyer page's forms, each folded under its name; the one whose input was refused opens. */
export type LedgerForm = 'receive' | 'due' | 'remind' | 'share' | 'statement' | 'edit' | 'assign' | 'merge';

export interface LedgerData {
  contact: ContactRow;
  standing: ContactStanding;
  /** days since the oldest open due's date, when it has passed */
  overdueDays: number;
  /** the buyer's newest entries, newest first (statements.latest) */
  latest: LatestEntries;
  /** the "Statement" form's period when it opens: the default statement's */
  period: { from: string; to: string };
  replies: ReplyRow[];
  /** "I have paid" from the buyer's account page, waiting for the owner's decision */
  claims: AccountClaimItem[];
  /** the business's users: whom the buyer may be assigned to, and who holds them now */
  users: Array<{ id: string; name: string }>;
  /** the buyer's audit entries, newest first (audit/read.ts) */
  history: AuditEntry[];
  accountUrl: string | null;
  whatsappUrl: string | null;
  today: string;
  /** one-time keys of the receipt's and the new due's forms */
  receiptOnce: string;
  dueOnce: string;
  open?: LedgerForm;
  /** what the refused form held, shown back */
  values?: Record<string, string>;
}

/** A statement entry in the page's language: its kind, and what it carries (invoice, method, reason). */
export function entryText(v: View, e: StatementEntry): string {
  const { t } = v;
  const d = e.detail;
  switch (e.kind) {
    case 'due':
      return [
        d.invoiceNumber ? t('entry.invoice', { invoice: d.invoiceNumber }) : t('entry.due'),
        d.dueDate ? t('entry.due_on', { date: v.date(d.dueDate) }) : '',
      ]
        .filter(Boolean)
        .join(' · ');
    case 'payment': {
      // 'api' is the API's default method: it says nothing of how the money came.
      const method = `method.${d.method ?? 'api'}`;
      const how = d.method === 'api' || d.method === undefined ? '' : isMessageKey(method) ? t(method) : d.method;
      return [t('entry.payment'), how, d.utr ?? ''].filter(Boolean).join(' · ');
    }
    case 'reversal':
      return [t('entry.reversal'), d.reason ?? ''].filter(Boolean).join(' · ');
    default: {
      const kind = `adjustment.${d.adjustmentKind ?? ''}`;
      return [t('entry.adjustment'), isMessageKey(kind) ? t(kind) : (d.adjustmentKind ?? ''), d.reason ?? '']
        .filter(Boolean)
        .join(' · ');
    }
  }
}

/** The amount of an entry as the owner reads a khata: what the buyer got (debit) or gave (credit). */
export function entryAmount(v: View, e: StatementEntry): Markup {
  return e.debit_paise > 0
    ? html`<span class="debit">+${v.money(e.debit_paise)}</span>`
    : html`<span class="credit">−${v.money(e.credit_paise)}</span>`;
}

function entryItem(v: View, d: LedgerData, e: StatementEntry): Markup {
  const { t } = v;
  const link = e.transaction_id ? html`<a href="/dashboard/dues/${e.transaction_id}">${entryText(v, e)}</a>` : '';
  const reversed = e.kind === 'payment' && e.detail.reversed;
  const reverse =
    e.kind === 'payment' && e.receipt_id && !reversed && v.may('payments.reverse')
      ? html` · <a href="/dashboard/contacts/${d.contact.id}/payments/${e.receipt_id}/reverse">${t('ledger.reverse')}</a>`
      : '';
  return html`<li><span>${link || entryText(v, e)}${reversed ? html` <span class="status status-overdue">${t('ledger.reversed')}</span>` : ''}<br><span class="muted">${v.date(e.date)}${reverse}</span></span><span class="end">${entryAmount(v, e)}<br><span class="muted">${t('ledger.balance_after', { amount: v.money(e.balance_paise) })}</span></span></li>`;
}

/** The headline: what the buyer owes, or the advance the business holds for them. */
export function balanceText(v: View, balancePaise: number): string {
  if (balancePaise > 0) return v.t('ledger.to_collect', { amount: v.money(balancePaise) });
  if (balancePaise < 0) return v.t('ledger.advance', { amount: v.money(-balancePaise) });
  return v.t('ledger.settled');
}

function fold(d: LedgerData, form: LedgerForm, title: string, body: Markup): Markup {
  return html`<details class="card fold" id="${form}"${d.open === form ? html` open` : ''}><summary>${title}</summary>${body}</details>`;
}

export function renderLedger(v: View, d: LedgerData, flash?: PageChrome['flash']): string {
  const { t } = v;
  const { contact, standing } = d;
  const base = `/dashboard/contacts/${contact.id}`;
  const val = (name: string, fallback = '') => d.values?.[name] ?? fallback;
  const balance = Number(contact.balance_paise);
  const shown = d.latest.entries;
  const oldest = shown.at(-1);
  const language = val('language', contact.language ?? '');

  const receive = html`<form method="post" action="${base}/payments">${csrfField(v.csrfToken)}<input type="hidden" name="once" value="${d.receiptOnce}">
<label for="receive-amount">${t('field.amount')}</label><input id="receive-amount" name="amount" inputmode="decimal" required value="${val('amount')}">
<label for="receive-method">${t('field.payment_method')}</label><select id="receive-method" name="payment_method">${PAYMENT_METHODS.map(
    (m) => html`<option value="${m}"${val('payment_method') === m ? html` selected` : ''}>${t(`method.${m}`)}</option>`,
  )}</select>
<label for="receive-utr">${t('field.utr')}</label><input id="receive-utr" name="utr" maxlength="60" value="${val('utr')}">
<label for="receive-on">${t('field.received_on')}</label><input id="receive-on" name="received_on" type="date" value="${val('received_on', d.today)}">
<div class="actions"><button type="submit">${t('ledger.receive')}</button></div></form>`;

  const due = html`<form method="post" action="${base}/dues">${csrfField(v.csrfToken)}<input type="hidden" name="once" value="${d.dueOnce}">
<label for="due-amount">${t('field.amount')}</label><input id="due-amount" name="amount" inputmode="decimal" required value="${val('due_amount')}">
<label for="due-date">${t('field.due_date')}</label><input id="due-date" name="due_date" type="date" required value="${val('due_date', d.today)}">
<label for="due-invoice">${t('field.invoice_number')}</label><input id="due-invoice" name="invoice_number" maxlength="60" value="${val('invoice_number')}">
<label for="due-notes">${t('field.notes')}</label><textarea id="due-notes" name="notes" rows="2" maxlength="500">${val('notes')}</textarea>
<div class="actions"><button type="submit">${t('ledger.new_due')}</button></div></form>`;

  const remind = html`<form method="post" action="${base}/remind">${csrfField(v.csrfToken)}
<p class="muted">${balance > 0 ? t('ledger.remind_help') : t('ledger.nothing_to_remind')}</p>
<div class="actions"><button type="submit"${balance > 0 ? '' : html` disabled`}>${t('ledger.remind')}</button></div></form>`;

  const share = d.accountUrl
    ? html`<label for="account-url">${t('ledger.account_link')}</label><input id="account-url" readonly value="${d.accountUrl}">
<div class="actions"><button type="button" class="secondary" hidden data-copy="${d.accountUrl}" data-done="✓">${t('due.copy')}</button>
<a class="button" href="${d.whatsappUrl ?? ''}" target="_blank" rel="noopener noreferrer">${t('ledger.share')}</a></div>`
    : html`<p class="muted">${t('ledger.no_account_link')}</p>`;

  const statement = html`<form method="get" action="${base}/statement">
<div class="dates"><div><label for="st-from">${t('dues.from')}</label><input id="st-from" name="from" type="date" value="${d.period.from}"></div>
<div><label for="st-to">${t('dues.to')}</label><input id="st-to" name="to" type="date" value="${d.period.to}"></div></div>
<div class="actions"><button type="submit">${t('ledger.statement')}</button><a class="button secondary" href="${base}/statement.csv?from=${d.period.from}&amp;to=${d.period.to}">${t('ledger.csv')}</a></div></form>`;

  const edit = html`<form method="post" action="${base}/edit">${csrfField(v.csrfToken)}
<label for="edit-name">${t('field.name')}</label><input id="edit-name" name="name" required minlength="2" maxlength="120" value="${val('name', contact.name)}">
<label for="edit-phone">${t('field.phone')}</label><input id="edit-phone" name="phone" type="tel" maxlength="40" value="${val('phone', contact.phone ? `+${contact.phone}` : '')}">
<label for="edit-language">${t('field.buyer_language')}</label><select id="edit-language" name="language">
<option value=""${language === '' ? html` selected` : ''}>${t('language.business')}</option>
<option value="en"${language === 'en' ? html` selected` : ''}>${t('language.en')}</option>
<option value="hi"${language === 'hi' ? html` selected` : ''}>${t('language.hi')}</option></select>
<div class="actions"><button type="submit">${t('ledger.edit')}</button></div></form>
<form method="post" action="${base}/reminders">${csrfField(v.csrfToken)}
<input type="hidden" name="reminders_paused" value="${contact.reminders_paused ? 'false' : 'true'}">
<p class="muted">${contact.reminders_paused ? t('contact.paused') : t('contact.not_paused')}</p>
<div class="actions"><button type="submit" class="secondary">${contact.reminders_paused ? t('contact.resume') : t('contact.pause')}</button></div></form>`;

  const assignee = d.users.find((u) => u.id === contact.assigned_to);
  const chosen = val('assigned_to', contact.assigned_to ?? '');
  const assign = html`<form method="post" action="${base}/assign">${csrfField(v.csrfToken)}
<label for="assign-to">${t('ledger.assign')}</label><select id="assign-to" name="assigned_to">
<option value=""${chosen === '' ? html` selected` : ''}>${t('ledger.assign_nobody')}</option>${d.users.map(
    (u) => html`<option value="${u.id}"${chosen === u.id ? html` selected` : ''}>${u.name}</option>`,
  )}</select>
<div class="actions"><button type="submit">${t('ledger.assign_save')}</button></div></form>`;

  const merge = html`<form method="get" action="${base}/merge" role="search">
<p class="muted">${t('merge.help', { name: contact.name })}</p>
<label for="merge-q">${t('contacts.search')}</label><input id="merge-q" name="q" type="search" maxlength="120">
<div class="actions"><button type="submit">${t('merge.find')}</button></div></form>`;

  const body = html`<h1>${contact.name}</h1>
<section class="card" aria-labelledby="balance-h"><h2 id="balance-h" class="balance${balance > 0 ? ' owed' : ''}">${balanceText(v, balance)}</h2>
<p class="muted">${[
    d.overdueDays > 0 ? t('ledger.overdue_days', { days: d.overdueDays }) : '',
    contact.phone ? `+${contact.phone}` : t('ledger.no_phone'),
    `${t('contact.score')} ${standing.paymentScore}`,
    assignee ? t('contacts.assignee', { name: assignee.name }) : '',
  ]
    .filter(Boolean)
    .join(' · ')}</p>
</section>
${
  d.claims.length > 0
    ? html`<section class="card" aria-labelledby="claims-h"><h2 id="claims-h">${t('due.claims')}</h2><ul class="list">${d.claims.map((c) => accountClaimItem(v, c, false))}</ul></section>`
    : ''
}
${v.may('payments.record') ? fold(d, 'receive', t('ledger.receive'), receive) : ''}
${v.may('dues.create') ? fold(d, 'due', t('ledger.new_due'), due) : ''}
${v.may('reminders.send') ? fold(d, 'remind', t('ledger.remind'), remind) : ''}
${fold(d, 'share', t('ledger.share'), share)}
${fold(d, 'statement', t('ledger.statement'), statement)}
${v.may('contacts.edit') ? fold(d, 'edit', t('ledger.edit'), edit) : ''}
${v.may('contacts.assign') ? fold(d, 'assign', t('ledger.assign'), assign) : ''}
${v.may('contacts.merge') ? fold(d, 'merge', t('merge.title'), merge) : ''}
<section class="card" aria-labelledby="entries-h"><h2 id="entries-h">${t('ledger.entries')}</h2>${
    shown.length === 0
      ? html`<p>${t('ledger.no_entries')}</p>`
      : html`<ol class="list" reversed>${shown.map((e) => entryItem(v, d, e))}</ol>`
  }
<p class="muted">${t('ledger.opening', { amount: v.money(d.latest.opening) })}${
    // the older entries: the statement of the period before the oldest shown, ending on its date
    d.latest.older && oldest
      ? html` · <a href="${base}/statement?from=${defaultFrom(oldest.date)}&amp;to=${oldest.date}">${t('ledger.older_entries')}</a>`
      : ''
  }</p>
<p><a href="/dashboard/dues?status=all&amp;contact=${contact.id}">${t('ledger.dues')}</a></p>
</section>
<section class="card" aria-labelledby="replies-h"><h2 id="replies-h">${t('contact.replies')}</h2>${
    d.replies.length === 0
      ? html`<p class="muted">${t('contact.no_replies')}</p>`
      : html`<ul class="list">${d.replies.map((r) => replyItem(v, r))}</ul>`
  }</section>
${historySection(v, d.history, v.may('audit.read') ? `/dashboard/audit?entity=contact&id=${contact.id}` : null)}`;
  return layout(v.chrome(contact.name, 'contacts', flash), body);
}
