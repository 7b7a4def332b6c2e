import type { ContactRow, ReplyRow } from '../../contacts/repository.js';
import type { ContactStanding } from '../../contacts/service.js';
import { html, type Markup } from '../../paypage/html.js';
import { layout, type PageChrome } from '../layout.js';
import { pager, type View } from './view.js';

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
export function replyItem(v: View, r: ReplyRow): Markup {
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

export const CONTACT_SORTS = ['balance_desc', 'name', 'oldest_due', 'created_desc'] as const;
export type ContactSortChoice = (typeof CONTACT_SORTS)[number];

/** Days since a contact's oldest open due's date, when that date has passed (0 otherwise). */
export function overdueDays(oldestOpenDue: string | null | undefined, today: string): number {
  if (!oldestOpenDue || oldestOpenDue >= today) return 0;
  return Math.round((Date.parse(`${today}T00:00:00Z`) - Date.parse(`${oldestOpenDue}T00:00:00Z`)) / 86_400_000);
}

/** A buyer's line in a list: the name to tap, what they owe and since how long. */
export function buyerItem(
  v: View,
  contact: ContactRow,
  today: string,
  href = `/dashboard/contacts/${contact.id}`,
  assignee?: string,
): Markup {
  const { t } = v;
  const days = overdueDays(contact.oldest_open_due, today);
  const balance = Number(contact.balance_paise);
  const notes = [
    days > 0 ? t('ledger.overdue_days', { days }) : '',
    assignee ? t('contacts.assignee', { name: assignee }) : '',
  ].filter(Boolean);
  return html`<li><span><a href="${href}">${contact.name}</a>${
    notes.length > 0 ? html`<br><span class="muted">${notes.join(' · ')}</span>` : ''
  }</span><span class="end${balance > 0 ? ' owed' : ''}">${balance < 0 ? t('ledger.advance', { amount: v.money(-balance) }) : v.money(balance)}</span></li>`;
}

export function renderContactList(
  v: View,
  d: {
    items: Item[];
    total: number;
    page: number;
    pages: number;
    q: string;
    sort: ContactSortChoice;
    today: string;
    /** the names of the users the page's buyers are assigned to, by id */
    assignees: Map<string, string>;
  },
  flash?: PageChrome['flash'],
): string {
  const { t } = v;
  const body = html`<h1>${t('contacts.title')}</h1>
<form class="card filters" method="get" action="/dashboard/contacts" role="search">
<div><label for="q">${t('contacts.search')}</label><input id="q" name="q" type="search" value="${d.q}" maxlength="120"></div>
<div><label for="sort">${t('contacts.sort')}</label><select id="sort" name="sort">${CONTACT_SORTS.map(
    (s) => html`<option value="${s}"${s === d.sort ? html` selected` : ''}>${t(`contacts.sort_${s}`)}</option>`,
  )}</select></div>
<div><button type="submit">${t('dues.filter')}</button></div>
</form>
<section class="card" aria-label="${t('contacts.title')}">${
    d.items.length === 0
      ? html`<p>${t('contacts.none')}</p>`
      : html`<ul class="list">${d.items.map(({ contact }) =>
          buyerItem(
            v,
            contact,
            d.today,
            undefined,
            contact.assigned_to ? d.assignees.get(contact.assigned_to) : undefined,
          ),
        )}</ul>`
  }
${d.pages > 1 ? pager(v, '/dashboard/contacts', { q: d.q, sort: d.sort }, d.page, d.pages) : ''}
</section>`;
  return layout(v.chrome(t('contacts.title'), 'contacts', flash), body);
}
