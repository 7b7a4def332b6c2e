import { html, type Markup } from '../../paypage/html.js';
import type { Confirmation } from './confirm.js';
import type { View } from './view.js';

/** A buyer's "I have paid" from their account page, as the dashboard lists it (PRODUCT part 18). */
export interface AccountClaimItem {
  id: string;
  contact_id: string;
  contact_name: string;
  /** what the buyer says they paid */
  amount: number;
  reference: string | null;
  created_at: string;
}

const claimPath = (c: { contact_id: string; id: string }, decision: 'confirm' | 'reject') =>
  `/dashboard/contacts/${c.contact_id}/claims/${c.id}/${decision}`;

/**
 * One account claim in a list (Home, the buyer's page): who, what they say they paid and when, and
 * the two decisions, each a link to its confirmation step (nothing changes on the first tap).
 */
export function accountClaimItem(v: View, c: AccountClaimItem, withName: boolean): Markup {
  const { t } = v;
  const what = [t('claims.for_account'), c.reference ?? t('due.no_reference'), v.instant(c.created_at)].join(' · ');
  return html`<li><span>${withName ? html`<a href="/dashboard/contacts/${c.contact_id}">${c.contact_name}</a><br>` : ''}<span class="muted">${what}</span>${
    v.may('claims.decide')
      ? html`<span class="actions"><a class="button" href="${claimPath(c, 'confirm')}">${t('claims.confirm')}</a><a class="button secondary" href="${claimPath(c, 'reject')}">${t('claims.reject')}</a></span>`
      : ''
  }</span><span class="end">${v.money(c.amount)}</span></li>`;
}

/** Paise as the amount field shows them: rupees with two decimals, no grouping (exact). */
export function rupeesField(paise: number): string {
  return `${Math.floor(paise / 100)}.${String(paise % 100).padStart(2, '0')}`;
}

/**
 * The second step of a decision: confirming records a receipt of the amount in the field (the
 * buyer's amount unless the owner changes it); rejecting changes nothing else.
 */
export function accountClaimConfirmation(
  v: View,
  c: AccountClaimItem,
  decision: 'confirm' | 'reject',
  amountField?: string,
): Confirmation {
  const { t } = v;
  const said = t('claims.said', {
    contact: c.contact_name,
    amount: v.money(c.amount),
    date: v.instant(c.created_at),
    reference: c.reference ?? t('due.no_reference'),
  });
  const common = {
    action: claimPath(c, decision),
    back: `/dashboard/contacts/${c.contact_id}`,
    section: 'contacts',
  } as const;
  if (decision === 'reject') {
    return {
      ...common,
      title: t('claims.reject_title'),
      text: `${said} ${t('claims.reject_text')}`,
      button: t('claims.reject_button'),
      danger: true,
    };
  }
  return {
    ...common,
    title: t('claims.confirm_title'),
    text: `${said} ${t('claims.confirm_text')}`,
    button: t('claims.confirm_button'),
    fields: html`<label for="claim-amount">${t('claims.amount_received')}</label><input id="claim-amount" name="amount" inputmode="decimal" required value="${amountField ?? rupeesField(c.amount)}">`,
  };
}
