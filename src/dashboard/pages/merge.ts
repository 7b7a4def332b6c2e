import type { MergePreview } from '../../contact-merge/service.js';
import type { ContactRow } from '../../contacts/repository.js';
import { html } from '../../paypage/html.js';
import { layout, type PageChrome } from '../layout.js';
import type { Confirmation } from './confirm.js';
import { buyerItem } from './contacts.js';
import { balanceText } from './ledger.js';
import type { View } from './view.js';

/**
 * Merging two buyers, first step: find the other buyer (a search, then one tap on a name), whose
 * everything moves to this one. The second step is the confirmation (mergeConfirmation).
 */
export function renderMergeSearch(
  v: View,
  d: { contact: ContactRow; q: string; candidates: ContactRow[]; today: string },
  flash?: PageChrome['flash'],
): string {
  const { t } = v;
  const base = `/dashboard/contacts/${d.contact.id}`;
  const body = html`<h1>${t('merge.title')}</h1>
<p>${t('merge.help', { name: d.contact.name })}</p>
<form class="card filters" method="get" action="${base}/merge" role="search">
<div><label for="merge-q">${t('contacts.search')}</label><input id="merge-q" name="q" type="search" value="${d.q}" maxlength="120"></div>
<div><button type="submit">${t('merge.find')}</button></div>
</form>
<section class="card" aria-labelledby="merge-list-h"><h2 id="merge-list-h">${t('merge.choose')}</h2>${
    d.candidates.length === 0
      ? html`<p>${t('merge.none')}</p>`
      : html`<ul class="list">${d.candidates.map((c) =>
          // The name leads to the confirmation of merging that buyer into this one.
          buyerItem(v, c, d.today, `${base}/merge?with=${c.id}`),
        )}</ul>`
  }
<p><a href="${base}">${t('common.cancel')}</a></p></section>`;
  return layout(v.chrome(t('merge.title'), 'contacts', flash), body);
}

/** The second step: what moves, and the balance the kept buyer has after. */
export function mergeConfirmation(v: View, p: MergePreview): Confirmation {
  const { t } = v;
  const base = `/dashboard/contacts/${p.kept.id}`;
  return {
    title: t('merge.confirm_title'),
    text: t('merge.confirm_text', {
      kept: p.kept.name,
      merged: p.merged.name,
      dues: p.moving.dues,
      receipts: p.moving.receipts,
      claims: p.moving.claims,
      replies: p.moving.replies,
      credits: p.moving.bank_credits,
    }),
    action: `${base}/merge`,
    button: t('merge.button'),
    danger: true,
    fields: html`<p><span class="muted">${t('merge.after', { name: p.kept.name })}</span><br><strong class="balance${p.balance_paise > 0 ? ' owed' : ''}">${balanceText(v, p.balance_paise)}</strong></p><input type="hidden" name="merge_id" value="${p.merged.id}">`,
    back: `${base}/merge`,
    section: 'contacts',
  };
}
