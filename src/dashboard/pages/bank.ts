import type { BankCreditView, CreditTargets, StatementResult } from '../../bank/service.js';
import type { ContactRow } from '../../contacts/repository.js';
import { html, type Markup } from '../../paypage/html.js';
import { csrfField, layout, type PageChrome } from '../layout.js';
import type { DueRow } from './dues.js';
import { pager, type View } from './view.js';

/**
 * The bank page: upload a statement (a file form that works without JavaScript), the credits that
 * wait for the owner, each with its suggestions one tap away, and the credits matched lately; and
 * one credit's page, to apply it to a buyer or a due found by name.
 */

export interface BankPage {
  waiting: BankCreditView[];
  waitingTotal: number;
  page: number;
  pages: number;
  matched: BankCreditView[];
  targets: CreditTargets;
  /** what the upload just did */
  uploaded?: StatementResult;
}

export interface CreditPage {
  credit: BankCreditView;
  targets: CreditTargets;
  q: string;
  contacts: ContactRow[];
  dues: DueRow[];
}

/** The three words a due is known by on a phone: the buyer, the invoice number or due date, the balance. */
function dueLabel(
  v: View,
  d: { contact_name: string; invoice_number: string | null; due_date: string },
  balance: number,
) {
  return `${d.contact_name} · ${d.invoice_number ?? v.date(d.due_date)} · ${v.money(balance)}`;
}

function applyForm(v: View, creditId: string, field: 'transaction_id' | 'contact_id', id: string, label: string) {
  return html`<form method="post" action="/dashboard/bank/credits/${creditId}/apply">${csrfField(v.csrfToken)}<input type="hidden" name="${field}" value="${id}"><button type="submit">${label}</button></form>`;
}

function ignoreForm(v: View, creditId: string) {
  return html`<form method="post" action="/dashboard/bank/credits/${creditId}/ignore">${csrfField(v.csrfToken)}<button type="submit" class="secondary">${v.t('bank.ignore')}</button></form>`;
}

/** The credit as the bank printed it: amount, date, narration and reference. */
function creditHead(v: View, c: BankCreditView): Markup {
  return html`<strong>${v.money(c.amount_paise)}</strong> · ${v.date(c.date)}<br><span class="muted">${c.narration}${
    c.reference ? html` · ${v.t('bank.reference', { reference: c.reference })}` : ''
  }</span>`;
}

/** Each suggestion as one button that applies the credit to it, with why it is suggested. */
function suggestionForms(v: View, c: BankCreditView, targets: CreditTargets): Markup {
  const { t } = v;
  const items = c.suggestions.flatMap((s) => {
    const due = s.transaction_id === null ? undefined : targets.dues.get(s.transaction_id);
    const contact = s.contact_id === null ? undefined : targets.contacts.get(s.contact_id);
    if (s.transaction_id !== null && due) {
      const what = dueLabel(v, due, due.balance);
      return [
        html`<li>${applyForm(v, c.id, 'transaction_id', s.transaction_id, t('bank.accept', { what }))}<span class="muted">${t(`bank.reason.${s.reason}`)}</span></li>`,
      ];
    }
    if (s.transaction_id === null && s.contact_id !== null && contact) {
      const what = `${t('bank.account', { name: contact.name })} · ${v.money(contact.balance)}`;
      return [
        html`<li>${applyForm(v, c.id, 'contact_id', s.contact_id, t('bank.accept', { what }))}<span class="muted">${t(`bank.reason.${s.reason}`)}</span></li>`,
      ];
    }
    return [];
  });
  if (items.length === 0) return html``;
  return html`<p class="muted">${t('bank.suggested')}</p><ul class="choices">${items}</ul>`;
}

function waitingItem(v: View, c: BankCreditView, targets: CreditTargets): Markup {
  return html`<li><div>${creditHead(v, c)}${suggestionForms(v, c, targets)}<div class="actions"><a class="button secondary" href="/dashboard/bank/credits/${c.id}">${v.t('bank.choose')}</a>${ignoreForm(v, c.id)}</div></div></li>`;
}

/** Where a matched credit went (the due, else the buyer's account) and how it was matched. */
function matchedItem(v: View, c: BankCreditView, targets: CreditTargets): Markup {
  const due = c.transaction_id === null ? undefined : targets.dues.get(c.transaction_id);
  const contact = c.contact_id === null ? undefined : targets.contacts.get(c.contact_id);
  const where = due
    ? html`<a href="/dashboard/dues/${c.transaction_id}">${due.contact_name}${due.invoice_number ? ` · ${due.invoice_number}` : ''}</a>`
    : contact
      ? html`<a href="/dashboard/contacts/${c.contact_id}">${contact.name}</a>`
      : '';
  return html`<li><span>${creditHead(v, c)}<br>${where}${
    c.matched_by ? html` <span class="muted">· ${v.t(`bank.by.${c.matched_by}` as 'bank.by.owner')}</span>` : ''
  }</span></li>`;
}

function uploadForm(v: View): Markup {
  const { t } = v;
  return html`<section class="card" aria-labelledby="upload-h"><h2 id="upload-h">${t('bank.upload_title')}</h2>
<p class="muted">${t('bank.upload_help')}</p>
<form method="post" action="/dashboard/bank" enctype="multipart/form-data">${csrfField(v.csrfToken)}
<label for="statement">${t('bank.file')}</label><input id="statement" name="statement" type="file" accept=".csv,text/csv" required>
<div class="actions"><button type="submit">${t('bank.upload')}</button></div>
</form></section>`;
}

export function renderBank(v: View, d: BankPage, flash?: PageChrome['flash']): string {
  const { t } = v;
  const notice = d.uploaded ? { kind: 'notice' as const, text: t('bank.uploaded', { ...d.uploaded }) } : flash;
  const body = html`<h1>${t('bank.title')}</h1>
${uploadForm(v)}
<section class="card" aria-labelledby="waiting-h"><h2 id="waiting-h">${t('bank.waiting', { count: d.waitingTotal })}</h2>${
    d.waiting.length === 0
      ? html`<p class="muted">${t('bank.none_waiting')}</p>`
      : html`<ul class="list">${d.waiting.map((c) => waitingItem(v, c, d.targets))}</ul>${
          d.pages > 1 ? pager(v, '/dashboard/bank', {}, d.page, d.pages) : ''
        }`
  }</section>
<section class="card" aria-labelledby="matched-h"><h2 id="matched-h">${t('bank.matched_title')}</h2>${
    d.matched.length === 0
      ? html`<p class="muted">${t('bank.none_matched')}</p>`
      : html`<ul class="list">${d.matched.map((c) => matchedItem(v, c, d.targets))}</ul>`
  }</section>`;
  return layout(v.chrome(t('bank.title'), 'bank', notice), body);
}

export function renderCredit(v: View, d: CreditPage, flash?: PageChrome['flash']): string {
  const { t } = v;
  const c = d.credit;
  const waiting = c.status === 'suggested' || c.status === 'unmatched';
  const title = t('bank.credit_title', { amount: v.money(c.amount_paise), date: v.date(c.date) });
  const found =
    d.contacts.length === 0 && d.dues.length === 0
      ? d.q === ''
        ? ''
        : html`<p class="muted">${t('bank.no_results')}</p>`
      : html`${
          d.contacts.length > 0
            ? html`<h3>${t('bank.buyers')}</h3><ul class="choices">${d.contacts.map(
                (contact) =>
                  html`<li>${applyForm(v, c.id, 'contact_id', contact.id, t('bank.apply_account', { name: contact.name }))}<span class="muted">${v.money(contact.balance_paise)}</span></li>`,
              )}</ul>`
            : ''
        }${
          d.dues.length > 0
            ? html`<h3>${t('bank.open_dues')}</h3><ul class="choices">${d.dues.map(
                (due) =>
                  html`<li>${applyForm(v, c.id, 'transaction_id', due.id, t('bank.apply_due', { what: dueLabel(v, due, due.balance) }))}</li>`,
              )}</ul>`
            : ''
        }`;
  const body = html`<h1>${title}</h1>
<section class="card"><p>${creditHead(v, c)}</p><p>${t('bank.status', { status: t(`bank.status.${c.status}` as 'bank.status.matched') })}</p>${
    waiting ? html`${suggestionForms(v, c, d.targets)}<div class="actions">${ignoreForm(v, c.id)}</div>` : ''
  }</section>
${
  waiting
    ? html`<section class="card" aria-labelledby="find-h"><h2 id="find-h">${t('bank.choose')}</h2>
<p class="muted">${t('bank.apply_help')}</p>
<form method="get" action="/dashboard/bank/credits/${c.id}" role="search"><label for="q">${t('bank.find')}</label><input id="q" name="q" value="${d.q}" maxlength="120">
<div class="actions"><button type="submit" class="secondary">${t('bank.search')}</button></div></form>${found}</section>`
    : ''
}
<p><a href="/dashboard/bank">${t('bank.back')}</a></p>`;
  return layout(v.chrome(title, 'bank', flash), body);
}

/** Home's line for the credits waiting, with its link (nothing when none wait). */
export function bankWaitingLink(v: View, count: number): Markup {
  return count > 0 ? html`<p><a href="/dashboard/bank">${v.t('home.bank_waiting', { count })}</a></p>` : html``;
}
