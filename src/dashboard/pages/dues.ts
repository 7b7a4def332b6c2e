import type { AuditEntry } from '../../audit/read.js';
import { html, type Markup } from '../../paypage/html.js';
import { PAYMENT_METHODS } from '../../transactions/schema.js';
import { isMessageKey, type Translate } from '../i18n.js';
import { csrfField, layout, type PageChrome } from '../layout.js';
import { historySection } from './audit.js';
import { pager, statusBadge, type View } from './view.js';

export const DUE_STATUSES = ['outstanding', 'overdue', 'pending', 'paid', 'all'] as const;
export type DueStatusFilter = (typeof DUE_STATUSES)[number];

export interface DueRow {
  id: string;
  contact_name: string;
  due_date: string;
  status: string;
  amount: number;
  balance: number;
  invoice_number: string | null;
}

export function renderDueList(
  v: View,
  d: {
    rows: DueRow[];
    total: number;
    page: number;
    pages: number;
    q: string;
    status: DueStatusFilter;
    from: string;
    to: string;
  },
  flash?: PageChrome['flash'],
): string {
  const { t } = v;
  const body = html`<h1>${t('dues.title')}</h1>
<p><a class="button" href="/dashboard/dues/new">${t('dues.add')}</a></p>
<section class="card" aria-label="${t('dues.count', { total: d.total })}">
<p class="muted">${t('dues.count', { total: d.total })}</p>
${
  d.rows.length === 0
    ? html`<p>${t('dues.none')}</p>`
    : html`<ul class="list">${d.rows.map(
        (r) =>
          html`<li><span><a href="/dashboard/dues/${r.id}">${r.contact_name}</a><br><span class="muted">${v.date(r.due_date)}${r.invoice_number ? html` · ${r.invoice_number}` : ''}</span></span><span class="end">${v.money(r.status === 'paid' ? r.amount : r.balance)}<br>${statusBadge(v, r.status)}</span></li>`,
      )}</ul>`
}
${d.pages > 1 ? pager(v, '/dashboard/dues', { q: d.q, status: d.status, from: d.from, to: d.to }, d.page, d.pages) : ''}
</section>
<details class="card fold" id="filters"${d.q || d.from || d.to || d.status !== 'outstanding' ? html` open` : ''}><summary>${t('dues.filters')}</summary>
<form class="filters" method="get" action="/dashboard/dues" role="search">
<div><label for="q">${t('dues.search')}</label><input id="q" name="q" type="search" value="${d.q}" maxlength="120"></div>
<div><label for="status">${t('dues.status')}</label><select id="status" name="status">${DUE_STATUSES.map(
    (s) =>
      html`<option value="${s}"${s === d.status ? html` selected` : ''}>${s === 'all' ? t('dues.all') : t(`status.${s}`)}</option>`,
  )}</select></div>
<div class="dates"><div><label for="from">${t('dues.from')}</label><input id="from" name="from" type="date" value="${d.from}"></div>
<div><label for="to">${t('dues.to')}</label><input id="to" name="to" type="date" value="${d.to}"></div></div>
<div><button type="submit">${t('dues.filter')}</button></div>
</form>
</details>`;
  return layout(v.chrome(t('dues.title'), 'dues', flash), body);
}

export interface DueFormValues {
  contact_name?: string;
  contact_phone?: string;
  amount?: string;
  due_date?: string;
  invoice_number?: string;
  notes?: string;
  reminders_paused?: boolean;
  /** the add form's one-time key (Idempotency-Key): the same form sent twice adds one due */
  once?: string;
}

function dueFields(v: View, values: DueFormValues, withContact: boolean): Markup {
  const { t } = v;
  return html`${
    withContact
      ? html`<label for="contact_name">${t('field.contact_name')}</label><input id="contact_name" name="contact_name" required minlength="2" maxlength="120" autocomplete="off" value="${values.contact_name ?? ''}">
<label for="contact_phone">${t('field.contact_phone')}</label><input id="contact_phone" name="contact_phone" type="tel" maxlength="40" value="${values.contact_phone ?? ''}">`
      : ''
  }
<label for="amount">${t('field.amount')}</label><input id="amount" name="amount" inputmode="decimal" required value="${values.amount ?? ''}" placeholder="1,234.50">
<label for="due_date">${t('field.due_date')}</label><input id="due_date" name="due_date" type="date" required value="${values.due_date ?? ''}">
<label for="invoice_number">${t('field.invoice_number')}</label><input id="invoice_number" name="invoice_number" maxlength="60" value="${values.invoice_number ?? ''}">
<label for="notes">${t('field.notes')}</label><textarea id="notes" name="notes" rows="2" maxlength="500">${values.notes ?? ''}</textarea>`;
}

/** Buyers whose names are close to the one typed: the owner picks one, or confirms a new buyer. */
export interface DidYouMean {
  typed: string;
  contacts: Array<{ id: string; name: string }>;
}

export function renderNewDue(v: View, values: DueFormValues, flash?: PageChrome['flash'], ask?: DidYouMean): string {
  const { t } = v;
  // Its own form, carrying what was typed: Enter in the fields below never picks a buyer.
  const carried = (
    ['contact_name', 'contact_phone', 'amount', 'due_date', 'invoice_number', 'notes', 'once'] as const
  ).map((k) => html`<input type="hidden" name="${k}" value="${values[k] ?? ''}">`);
  const question = ask
    ? html`<form class="card notice" method="post" action="/dashboard/dues" aria-labelledby="ask-h">${csrfField(v.csrfToken)}${carried}<h2 id="ask-h" role="status">${t('dues.similar_title')}</h2><div class="actions">${ask.contacts.map(
        (c) =>
          html`<button type="submit" name="contact_id" value="${c.id}">${t('dues.did_you_mean', { name: c.name })}</button>`,
      )}<button type="submit" class="secondary" name="new_contact" value="1">${t('dues.new_buyer', { name: ask.typed })}</button></div></form>`
    : '';
  const body = html`<h1>${t('dues.add')}</h1>${question}
<form class="card" method="post" action="/dashboard/dues">${csrfField(v.csrfToken)}<input type="hidden" name="once" value="${values.once ?? ''}">
${dueFields(v, values, true)}
<div class="actions"><button type="submit">${t('due.create')}</button><a class="button secondary" href="/dashboard/dues">${t('common.back')}</a></div>
</form>`;
  return layout(v.chrome(t('dues.add'), 'dues', flash), body);
}

export interface DueDetail {
  id: string;
  contact_id: string;
  contact_name: string;
  contact_phone: string | null;
  status: string;
  amount: number;
  paid: number;
  balance: number;
  due_date: string;
  invoice_number: string | null;
  notes: string | null;
  created_at: string;
  paid_at: string | null;
  reminders_paused: boolean;
  payUrl: string;
  /** the payment form's one-time key: the same payment sent twice is recorded once */
  paymentOnce: string;
  whatsappUrl: string;
  payments: Array<{ amount: number; payment_method: string; utr: string | null; source: string; created_at: string }>;
  steps: Array<{
    template: string;
    scheduled_for: string;
    status: string;
    reason: string | null;
    /** what WhatsApp reported of a step that went out */
    delivery?: string | null;
  }>;
  /** the due's audit entries, newest first (audit/read.ts) */
  history: AuditEntry[];
  promiseDate: string | null;
  /** PRODUCT part 13: null until the promised day ends, then whether the due was paid in full by then */
  promiseKept: boolean | null;
  claims: Array<{
    id: string;
    reference: string | null;
    status: string;
    created_at: string;
    decided_at: string | null;
  }>;
}

function claimForm(v: View, dueId: string, claimId: string, decision: string, label: string, cls = ''): Markup {
  return html`<form class="inline" method="post" action="/dashboard/dues/${dueId}/claims/${claimId}/${decision}">${csrfField(v.csrfToken)}<button type="submit"${cls ? html` class="${cls}"` : ''}>${label}</button></form>`;
}

/** A reminder step's template, status or reason in the business's language (raw words if new). */
function inWords(t: Translate, group: 'step' | 'step_status' | 'step_reason' | 'step_delivery', value: string): string {
  const key = `${group}.${value}`;
  return isMessageKey(key) ? t(key) : value.replace(/^reminder_/, '').replace(/_/g, ' ');
}

function promiseOutcome(v: View, kept: boolean | null): Markup | string {
  if (kept === null) return '';
  return kept
    ? html` <span class="status status-paid">${v.t('promise.kept')}</span>`
    : html` <span class="status status-overdue">${v.t('promise.broken')}</span>`;
}

export function renderDue(v: View, d: DueDetail, flash?: PageChrome['flash'], edit?: DueFormValues): string {
  const { t } = v;
  const open = d.status !== 'paid';
  const form = (action: string, label: string, cls = '') =>
    html`<form class="inline" method="post" action="/dashboard/dues/${d.id}/${action}">${csrfField(v.csrfToken)}<button type="submit"${cls ? html` class="${cls}"` : ''}>${label}</button></form>`;
  const body = html`<h1>${d.contact_name} · ${v.money(d.amount)}</h1>
<div class="cols">
<section class="card" aria-labelledby="due-h"><h2 id="due-h">${t('due.title')} ${statusBadge(v, d.status)}</h2>
<dl>
<dt>${t('due.contact')}</dt><dd><a href="/dashboard/contacts/${d.contact_id}">${d.contact_name}</a>${d.contact_phone ? html` · +${d.contact_phone}` : ''}</dd>
<dt>${t('due.amount')}</dt><dd>${v.money(d.amount)}</dd>
<dt>${t('due.paid')}</dt><dd>${v.money(d.paid)}</dd>
<dt>${t('due.balance')}</dt><dd><strong>${v.money(d.balance)}</strong></dd>
<dt>${t('due.due_date')}</dt><dd>${v.date(d.due_date)}</dd>
${d.invoice_number ? html`<dt>${t('due.invoice')}</dt><dd>${d.invoice_number}</dd>` : ''}
${d.notes ? html`<dt>${t('due.notes')}</dt><dd>${d.notes}</dd>` : ''}
<dt>${t('due.created')}</dt><dd>${v.instant(d.created_at)}</dd>
${d.paid_at ? html`<dt>${t('due.paid_at')}</dt><dd>${v.instant(d.paid_at)}</dd>` : ''}
</dl>
${open ? html`<div class="actions">${v.may('payments.record') ? html`<a class="button" href="/dashboard/dues/${d.id}/mark-paid">${t('due.mark_paid')}</a>` : ''}${v.may('reminders.send') ? form('remind', t('due.remind'), 'secondary') : ''}</div>` : ''}
</section>
${
  open
    ? html`<section class="card" aria-labelledby="share-h"><h2 id="share-h">${t('due.share')}</h2>
<label for="pay-url">${t('due.pay_link')}</label><input id="pay-url" readonly value="${d.payUrl}">
<div class="actions"><button type="button" class="secondary" hidden data-copy="${d.payUrl}" data-done="✓">${t('due.copy')}</button>
<a class="button" href="${d.whatsappUrl}" target="_blank" rel="noopener noreferrer">${t('due.whatsapp')}</a></div>
</section>`
    : ''
}
</div>
${
  open && v.may('payments.record')
    ? html`<section class="card" aria-labelledby="pay-h"><h2 id="pay-h">${t('due.record_payment')}</h2>
<form method="post" action="/dashboard/dues/${d.id}/payments">${csrfField(v.csrfToken)}<input type="hidden" name="once" value="${d.paymentOnce}">
<label for="pay-amount">${t('field.amount')}</label><input id="pay-amount" name="amount" inputmode="decimal" required value="">
<label for="payment_method">${t('field.payment_method')}</label><select id="payment_method" name="payment_method">${PAYMENT_METHODS.map(
        (m) => html`<option value="${m}">${t(`method.${m}`)}</option>`,
      )}</select>
<label for="utr">${t('field.utr')}</label><input id="utr" name="utr" maxlength="60">
<div class="actions"><button type="submit">${t('due.record')}</button></div>
</form></section>`
    : ''
}${
  open && v.may('dues.edit')
    ? html`<section class="card" aria-labelledby="edit-h"><h2 id="edit-h">${t('due.edit')}</h2>
<form method="post" action="/dashboard/dues/${d.id}/edit">${csrfField(v.csrfToken)}
${dueFields(
  v,
  edit ?? {
    amount: (d.amount / 100).toFixed(2),
    due_date: d.due_date.slice(0, 10),
    invoice_number: d.invoice_number ?? '',
    notes: d.notes ?? '',
  },
  false,
)}
<label class="check"><input type="checkbox" name="reminders_paused" value="true"${(edit?.reminders_paused ?? d.reminders_paused) ? html` checked` : ''}>${t('field.reminders_paused')}</label>
<div class="actions"><button type="submit">${t('due.save')}</button></div>
</form></section>`
    : ''
}
${
  d.claims.length > 0
    ? html`<section class="card" aria-labelledby="claims-h"><h2 id="claims-h">${t('due.claims')}</h2><ul class="list">${d.claims.map(
        (c) =>
          html`<li><span>${c.reference ?? t('due.no_reference')}<br><span class="muted">${v.instant(c.created_at)} · ${t(`claim.${c.status}` as 'claim.pending')}</span></span>${
            c.status === 'pending' && open && v.may('claims.decide')
              ? html`<span class="actions">${claimForm(v, d.id, c.id, 'confirm', t('due.confirm_claim'))}${claimForm(v, d.id, c.id, 'reject', t('due.reject_claim'), 'secondary')}</span>`
              : ''
          }</li>`,
      )}</ul></section>`
    : ''
}
<section class="card" aria-labelledby="steps-h"><h2 id="steps-h">${t('due.reminders')}</h2>
${d.promiseDate ? html`<p class="notice">${t('due.promise', { date: v.date(d.promiseDate) })}${promiseOutcome(v, d.promiseKept)}</p>` : ''}${
  d.steps.length === 0
    ? html`<p class="muted">${t('due.no_reminders')}</p>`
    : html`<ul class="list">${d.steps.map(
        (step) =>
          html`<li><span>${inWords(t, 'step', step.template)}<br><span class="muted">${v.instant(step.scheduled_for)}</span></span><span class="end">${inWords(t, 'step_status', step.status)}${step.delivery ? html` · ${inWords(t, 'step_delivery', step.delivery)}` : ''}${step.reason ? html`<br><span class="muted">${inWords(t, 'step_reason', step.reason)}</span>` : ''}</span></li>`,
      )}</ul>`
}</section>
<section class="card" aria-labelledby="payments-h"><h2 id="payments-h">${t('due.payments')}</h2>${
    d.payments.length === 0
      ? html`<p class="muted">${t('due.no_payments')}</p>`
      : html`<ul class="list">${d.payments.map(
          (p) =>
            html`<li><span>${v.instant(p.created_at)}<br><span class="muted">${t(`method.${p.payment_method}` as 'method.upi')}${p.utr ? html` · ${p.utr}` : ''} · ${p.source}</span></span><span>${v.money(p.amount)}</span></li>`,
        )}</ul>`
  }</section>
${
  d.paid === 0 && v.may('dues.delete')
    ? html`<section class="card"><a class="button danger" href="/dashboard/dues/${d.id}/delete">${t('due.delete')}</a></section>`
    : ''
}
${historySection(v, d.history, v.may('audit.read') ? `/dashboard/audit?entity=transaction&id=${d.id}` : null)}`;
  return layout(v.chrome(`${d.contact_name}`, 'dues', flash), body);
}
