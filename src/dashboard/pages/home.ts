import type { ContactRow } from '../../contacts/repository.js';
import { html, type Markup } from '../../paypage/html.js';
import type { Aging, Totals } from '../../totals/read.js';
import { outstandingOfTotals } from '../../transactions/domain.js';
import { layout } from '../layout.js';
import { type AccountClaimItem, accountClaimItem } from './account-claims.js';
import { bankWaitingLink } from './bank.js';
import { buyerItem } from './contacts.js';
import type { View } from './view.js';

export interface HomeData {
  totals: Totals;
  /** the buyers who owe most, most first */
  topBuyers: ContactRow[];
  today: string;
  /** no UPI id and no payments gateway: buyers have no way to pay online */
  cannotPayOnline: boolean;

  aging: Aging;
  overdue: Array<{ id: string; contact_name: string; due_date: string; balance: number }>;
  overdueTotal: number;
  /** this month's reminders: what they cost, and the money received on the dues they reminded */
  reminders: { costPaise: number; collectedPaise: number };
  /** bank credits waiting for the owner's decision */
  bankWaiting: number;
  /** money the gateway received that no due took (PRODUCT part 11) */
  unapplied: {
    total: number;
    /** `href`: the due the money came for, or the buyer's account */
    rows: Array<{ href: string; paise: number; reason: string; reference: string; created_at: string }>;
  };
  /** waiting for a decision, newest first: a due's claims (decided on the due's page) and account claims */
  claims: Array<
    | {
        kind: 'due';
        transaction_id: string;
        contact_name: string;
        reference: string | null;
        created_at: string;
        balance: number;
      }
    | ({ kind: 'account' } & AccountClaimItem)
  >;
}

/** PRODUCT part 13's buckets, in the chart's order. */
const AGING_BUCKETS = ['current', 'd1_30', 'd31_60', 'd61_90', 'd90_plus'] as const;

const BAR_COLOURS = ['#2563eb', '#f59e0b', '#ea580c', '#dc2626', '#7f1d1d'];

/**
 * The aging chart: inline SVG bars (no script, no library), labelled in text for screen readers.
 * Each bucket's name sits above its bar, so a long name (Hindi's are) never runs into the bar.
 */
function agingChart(v: View, aging: Aging): Markup {
  const max = Math.max(1, ...AGING_BUCKETS.map((b) => aging[b].paise));
  const rowHeight = 44;
  const bars = AGING_BUCKETS.map((bucket, i) => {
    const { paise, count } = aging[bucket];
    const width = Math.round((paise / max) * 180);
    const y = i * rowHeight;
    return html`<g><text x="0" y="${y + 14}" font-size="13" fill="#111827">${v.t(`aging.${bucket}`)}</text>
<rect x="0" y="${y + 20}" width="${Math.max(width, paise > 0 ? 2 : 0)}" height="18" rx="3" fill="${BAR_COLOURS[i] ?? '#2563eb'}"></rect>
<text x="${width + 6}" y="${y + 34}" font-size="12" fill="#374151">${v.money(paise)} (${count})</text></g>`;
  });
  const label = AGING_BUCKETS.map((b) => `${v.t(`aging.${b}`)}: ${v.money(aging[b].paise)}`).join('; ');
  return html`<svg viewBox="0 0 320 ${AGING_BUCKETS.length * rowHeight}" role="img" aria-label="${label}">${bars}</svg>`;
}

export function renderHome(v: View, d: HomeData, flash?: { kind: 'notice' | 'error'; text: string }): string {
  const { t } = v;
  const stat = (label: string, value: string) =>
    html`<div class="stat"><div class="label">${label}</div><div class="value">${value}</div></div>`;
  const body = html`<h1>${t('home.title')}</h1>
${
  d.cannotPayOnline
    ? html`<p class="error" role="status">${t('home.no_online_payment')} <a href="/dashboard/settings">${t('home.add_upi')}</a></p>`
    : ''
}
<section class="card" aria-labelledby="collect-h"><h2 id="collect-h">${t('home.to_collect')}</h2>
<p class="big">${v.money(outstandingOfTotals(d.totals))}</p>${
    d.topBuyers.length === 0
      ? html`<p class="muted">${t('home.no_buyers_owing')}</p>`
      : html`<h3>${t('home.owe_most')}</h3><ul class="list">${d.topBuyers.map((c) => buyerItem(v, c, d.today))}</ul>
<p><a href="/dashboard/contacts">${t('home.all_buyers')}</a></p>`
  }</section>
<div class="grid">
${stat(t('home.outstanding'), v.money(outstandingOfTotals(d.totals)))}
${stat(t('home.overdue'), v.money(d.totals.overdue.paise))}
${stat(t('home.pending'), v.money(d.totals.pending.paise))}
${stat(t('home.paid_this_month'), v.money(d.totals.paidThisMonthPaise))}
${stat(t('home.reminders_cost'), v.money(Math.round(d.reminders.costPaise)))}
${stat(t('home.collected_after_reminders'), v.money(d.reminders.collectedPaise))}
${stat(t('home.contacts'), String(d.totals.contactCount))}
</div>
<div class="cols">
<section class="card aging" aria-labelledby="aging-h"><h2 id="aging-h">${t('home.aging')}</h2>${agingChart(v, d.aging)}</section>
<section class="card" aria-labelledby="claims-h"><h2 id="claims-h">${t('home.claims')}</h2>${bankWaitingLink(v, d.bankWaiting)}${
    d.claims.length === 0
      ? html`<p class="muted">${t('home.no_claims')}</p>`
      : html`<ul class="list">${d.claims.map((c) =>
          c.kind === 'account'
            ? accountClaimItem(v, c, true)
            : html`<li><span><a href="/dashboard/dues/${c.transaction_id}">${c.contact_name}</a><br><span class="muted">${c.reference ?? ''} · ${v.instant(c.created_at)}</span></span><span>${v.money(c.balance)}</span></li>`,
        )}</ul>`
  }</section>
</div>
${
  d.unapplied.total > 0
    ? html`<section class="card" aria-labelledby="unapplied-h"><h2 id="unapplied-h">${t('home.unapplied')} (${d.unapplied.total})</h2><ul class="list">${d.unapplied.rows.map(
        (u) =>
          html`<li><span><a href="${u.href}">${u.reference}</a><br><span class="muted">${t(`unapplied.${u.reason}` as 'unapplied.settled')} · ${v.instant(u.created_at)}</span></span><span class="end">${v.money(u.paise)}</span></li>`,
      )}</ul></section>`
    : ''
}
<section class="card" aria-labelledby="overdue-h"><h2 id="overdue-h">${t('home.overdue_list')}</h2>${
    d.overdue.length === 0
      ? html`<p class="muted">${t('home.no_overdue')}</p>`
      : html`<ul class="list">${d.overdue.map(
          (due) =>
            html`<li><span><a href="/dashboard/dues/${due.id}">${due.contact_name}</a><br><span class="muted">${v.date(due.due_date)}</span></span><span>${v.money(due.balance)}</span></li>`,
        )}</ul>${
          d.overdueTotal > d.overdue.length
            ? html`<p><a href="/dashboard/dues?status=overdue">${t('home.see_all')} (${d.overdueTotal})</a></p>`
            : ''
        }`
  }</section>`;
  return layout(v.chrome(t('home.title'), 'home', flash), body);
}
