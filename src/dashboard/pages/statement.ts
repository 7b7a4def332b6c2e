import type { ContactRow } from '../../contacts/repository.js';
import { html } from '../../paypage/html.js';
import type { StatementEntry } from '../../statements/statement.js';
import { layout } from '../layout.js';
import { balanceText, entryAmount, entryText } from './ledger.js';
import type { View } from './view.js';

/** A buyer's statement of account for a period, as a page that prints cleanly (the header and links are not printed). */
export function renderStatement(
  v: View,
  d: {
    contact: ContactRow;
    statement: { from: string; to: string; opening: number; closing: number; entries: StatementEntry[] };
  },
): string {
  const { t } = v;
  const { contact, statement: s } = d;
  const base = `/dashboard/contacts/${contact.id}`;
  const title = t('statement.title', { name: contact.name });
  const body = html`<h1>${title}</h1>
<p>${v.business.name} · ${t('ledger.period', { from: v.date(s.from), to: v.date(s.to) })}</p>
<p class="noprint actions"><a class="button secondary" href="${base}">${t('common.back')}</a><a class="button secondary" href="${base}/statement.csv?from=${s.from}&amp;to=${s.to}">${t('ledger.csv')}</a></p>
<section class="card scroll" aria-labelledby="st-h"><h2 id="st-h">${t('ledger.entries')}</h2>
<table class="statement"><thead><tr><th scope="col">${t('statement.date')}</th><th scope="col">${t('statement.entry')}</th><th scope="col" class="num">${t('statement.amount')}</th><th scope="col" class="num">${t('statement.balance')}</th></tr></thead>
<tbody><tr><td>${v.date(s.from)}</td><td>${t('statement.opening')}</td><td></td><td class="num">${v.money(s.opening)}</td></tr>
${s.entries.map(
  (e) =>
    html`<tr><td>${v.date(e.date)}</td><td>${entryText(v, e)}${e.kind === 'payment' && e.detail.reversed ? html` (${t('ledger.reversed')})` : ''}</td><td class="num">${entryAmount(v, e)}</td><td class="num">${v.money(e.balance_paise)}</td></tr>`,
)}
<tr><td>${v.date(s.to)}</td><td><strong>${t('statement.closing')}</strong></td><td></td><td class="num"><strong>${v.money(s.closing)}</strong></td></tr></tbody></table>
<p><strong>${balanceText(v, s.closing)}</strong></p>
</section>`;
  return layout(v.chrome(title, 'contacts'), body);
}
