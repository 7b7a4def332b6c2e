import type { ContactRow, ReplyRow } from '../../contacts/repository.js';
import type { ContactStanding } from '../../contacts/service.js';
import { html, type Markup } from '../../paypage/html.js';
import { csrfField, layout, type PageChrome } from '../layout.js';
import type { DueRow } from './dues.js';
import { pager, statusBadge, type View } from './view.js';

type Item = { contact: ContactRow; standing: ContactStanding };

/** The buyer's latest replies shown on the contact's page (the API lists more). */
export const REPLIES_SHOWN = 20;
/**
 * A reply is shown up to this many characters (WhatsApp allows 4,096): 20 of them, escaped, keep the
 * page well under 100 KB. A longer one ends with "…"; GET /v1/contacts/{id}/replies has it whole.
 */
export const REPLY_CHARS = 400;

function replyText(text: string): string {
  const chars = Array.from(text);
  return chars.length > REPLY_CHARS ? `${chars.slice(0, REPLY_CHARS).join('')}…` : text;
}

/**
 * PRODUCT part 13: what the buyer wrote, when, and the promise read from it (its date and the due it
 * was recorded on); a reply with no promise is left for the owner to read, and says so.
 */
function replyItem(v: View, r: ReplyRow): Markup {
  const { t } = v;
  const promise =
    r.promise_date !== null && r.transaction_id !== null
      ? html`${t('due.promise', { date: v.date(r.promise_date) })}${
          r.due_date !== null && r.due_amount_paise !== null
            ? html` <a href="/dashboard/dues/${r.transaction_id}">${t('reply.for_due', {
                amount: v.money(r.due_amount_paise),
                date: v.date(r.due_date),
              })}</a>`
            : ''
        }`
      : html`<strong class="status status-unclear">${t('reply.unclear')}</strong>`;
  return html`<li><span><span class="reply">${replyText(r.text)}</span><br><span class="muted">${v.instant(r.received_at)}</span><br>${promise}</span></li>`;
}

export function renderContactList(
  v: View,
  d: { items: Item[]; total: number; page: number; pages: number; q: string },
  flash?: PageChrome['flash'],
): string {
  const { t } = v;
  const body = html`<h1>${t('contacts.title')}</h1>
<form class="card filters" method="get" action="/dashboard/contacts" role="search">
<div><label for="q">${t('contacts.search')}</label><input id="q" name="q" type="search" value="${d.q}" maxlength="120"></div>
<div></div><div><button type="submit">${t('dues.filter')}</button></div>
</form>
<section class="card" aria-label="${t('contacts.title')}">${
    d.items.length === 0
      ? html`<p>${t('contacts.none')}</p>`
      : html`<ul class="list">${d.items.map(
          ({ contact, standing }) =>
            html`<li><span><a href="/dashboard/contacts/${contact.id}">${contact.name}</a><br><span class="muted">${t('contact.score')} ${standing.paymentScore} · ${t('contact.risk')}: ${t(`risk.${standing.riskFlag}`)}</span></span><span class="end">${v.money(standing.outstandingPaise)}</span></li>`,
        )}</ul>`
  }
${d.pages > 1 ? pager(v, '/dashboard/contacts', { q: d.q }, d.page, d.pages) : ''}
</section>`;
  return layout(v.chrome(t('contacts.title'), 'contacts', flash), body);
}

export function renderContact(
  v: View,
  d: Item & { dues: DueRow[]; dueTotal: number; replies: ReplyRow[] },
  flash?: PageChrome['flash'],
): string {
  const { t } = v;
  const { contact, standing } = d;
  const body = html`<h1>${contact.name}</h1>
<section class="card" aria-labelledby="standing-h"><h2 id="standing-h">${t('contact.score')}</h2>
<dl>
<dt>${t('contact.phone')}</dt><dd>${contact.phone ? `+${contact.phone}` : '—'}</dd>
<dt>${t('contact.score')}</dt><dd><strong>${standing.paymentScore}</strong> / 100</dd>
<dt>${t('contact.risk')}</dt><dd>${t(`risk.${standing.riskFlag}`)}</dd>
<dt>${t('contact.outstanding')}</dt><dd>${v.money(standing.outstandingPaise)}</dd>
<dt>${t('status.overdue')}</dt><dd>${standing.overdueCount}</dd>
<dt>${t('status.pending')}</dt><dd>${standing.pendingCount}</dd>
</dl>
<p class="muted">${contact.reminders_paused ? t('contact.paused') : t('contact.not_paused')}</p>
${
  v.may('contacts.edit')
    ? html`<form method="post" action="/dashboard/contacts/${contact.id}/reminders">${csrfField(v.csrfToken)}
<input type="hidden" name="reminders_paused" value="${contact.reminders_paused ? 'false' : 'true'}">
<div class="actions"><button type="submit" class="secondary">${contact.reminders_paused ? t('contact.resume') : t('contact.pause')}</button></div>
</form>`
    : ''
}
</section>
<section class="card" aria-labelledby="history-h"><h2 id="history-h">${t('contact.dues')} (${d.dueTotal})</h2>${
    d.dues.length === 0
      ? html`<p>${t('dues.none')}</p>`
      : html`<ul class="list">${d.dues.map(
          (r) =>
            html`<li><span><a href="/dashboard/dues/${r.id}">${v.date(r.due_date)}</a> ${statusBadge(v, r.status)}${r.invoice_number ? html`<br><span class="muted">${r.invoice_number}</span>` : ''}</span><span>${v.money(r.status === 'paid' ? r.amount : r.balance)}</span></li>`,
        )}</ul>`
  }
${d.dueTotal > d.dues.length ? html`<p><a href="/dashboard/dues?status=all&amp;contact=${contact.id}">${t('dues.title')}</a></p>` : ''}
</section>
<section class="card" aria-labelledby="replies-h"><h2 id="replies-h">${t('contact.replies')}</h2>${
    d.replies.length === 0
      ? html`<p class="muted">${t('contact.no_replies')}</p>`
      : html`<ul class="list">${d.replies.map((r) => replyItem(v, r))}</ul>`
  }</section>`;
  return layout(v.chrome(contact.name, 'contacts', flash), body);
}
