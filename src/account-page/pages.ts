import { formatDate, formatMoney } from '../i18n/format.js';
import { type Language, languageOf, type MessageKey, type Translate, translator } from '../i18n/index.js';
import { upiLink } from '../paypage/format.js';
import { html, layout, type Markup, trusted } from '../paypage/html.js';
import { qrSvg } from '../paypage/pages.js';
import { type AccountClaimError, type AccountPage, DUES_SHOWN, REFERENCE_MAX } from './service.js';

/** The page's words, money and dates in its language (the buyer's, else the business's). */
interface Words {
  lang: Language;
  t: Translate;
  money(minor: number): string;
  date(date: string): string;
}

function wordsFor(page: AccountPage): Words {
  const lang = languageOf(page.language);
  return {
    lang,
    t: translator(lang),
    money: (minor) => formatMoney(lang, minor, page.currency),
    date: (date) => formatDate(lang, date),
  };
}

/**
 * The UPI link for the whole balance, when it can be paid by UPI: the business has a UPI id, the
 * account is in rupees and something is owed. Its note starts with the account's reference, so a
 * bank statement names the account (ASCII whatever the page's language: it is for the bank).
 */
export function accountUpiLink(page: AccountPage): string | null {
  if (!page.upiId || page.currency !== 'INR' || page.balancePaise <= 0) return null;
  return upiLink({
    vpa: page.upiId,
    payeeName: page.businessName,
    paise: page.balancePaise,
    note: [page.paymentReference, 'Account'].filter((part) => part !== null).join(' '),
  });
}

/** "Pay online" for the whole balance, when a payments gateway is set up. */
export interface OnlineAccountPayment {
  enabled: boolean;
  /** the last attempt did not reach the gateway's page */
  failed?: boolean;
}

/** What the claim form says back after a refused attempt. */
export interface ClaimFormState {
  error: AccountClaimError;
  amount: string;
  reference: string;
}

const CLAIM_ERRORS: Record<AccountClaimError, MessageKey> = {
  amount: 'account.claim_bad_amount',
  reference: 'account.claim_bad_reference',
};

function balanceLine(page: AccountPage, { t, money }: Words): Markup {
  if (page.balancePaise > 0) {
    const overdue = page.dues.filter((d) => d.overdue).reduce((sum, d) => sum + d.balancePaise, 0);
    return overdue > 0
      ? html`<p class="status status-overdue" id="status">${t('account.overdue_part', { amount: money(overdue) })}</p>`
      : html`<p class="status status-pending" id="status">${t('account.to_pay')}</p>`;
  }
  if (page.balancePaise < 0) {
    return html`<p class="status status-paid" id="status">${t('account.advance', { amount: money(-page.balancePaise) })}</p>`;
  }
  return html`<p class="status status-paid" id="status">${t('account.nothing_due')}</p>`;
}

async function upiSection(page: AccountPage, w: Words): Promise<Markup | false> {
  const link = accountUpiLink(page);
  if (link === null) return false;
  return html`<section id="upi">
<a class="button" id="upi-link" href="${link}">${w.t('pay.upi_button', { amount: w.money(page.balancePaise) })}</a>
<figure class="qr" id="qr">${await qrSvg(link, w.t('pay.qr_label'))}<figcaption>${w.t('pay.upi_scan', { upi: page.upiId ?? '' })}</figcaption></figure>
${
  page.paymentReference !== null &&
  html`<dl><dt>${w.t('pay.reference')}</dt><dd id="payment-reference">${page.paymentReference}</dd></dl>`
}
</section>`;
}

function onlineSection(page: AccountPage, token: string, online: OnlineAccountPayment, hasUpi: boolean, w: Words) {
  if (!online.enabled || page.balancePaise <= 0) return false;
  return html`<section id="online">
<form method="post" action="/a/${token}/online">
<button type="submit" id="pay-online"${hasUpi ? trusted(' class="secondary"') : ''}>${w.t('account.pay_online', { amount: w.money(page.balancePaise) })}</button>
</form>
${online.failed === true && html`<p class="error" role="alert" id="online-error">${w.t('pay.online_unavailable')}</p>`}
</section>`;
}

function duesSection(page: AccountPage, { t, money, date }: Words): Markup | false {
  if (page.dues.length === 0) return false;
  return html`<section id="dues">
<h2>${t('account.dues')}</h2>
<ul class="rows">${page.dues.map(
    (d) =>
      html`<li><span>${t('account.due_on', { date: date(d.dueDate) })}${
        d.invoiceNumber !== null &&
        html`<br><span class="muted">${t('account.invoice', { number: d.invoiceNumber })}</span>`
      }${d.overdue && html`<br><span class="late">${t('account.overdue')}</span>`}</span><strong>${money(d.balancePaise)}</strong></li>`,
  )}</ul>
${page.moreDues && html`<p class="muted">${t('account.more_dues', { count: DUES_SHOWN })}</p>`}
</section>`;
}

function paymentsSection(page: AccountPage, { t, money, date }: Words): Markup | false {
  if (page.receipts.length === 0) return false;
  return html`<section id="payments">
<h2>${t('account.payments')}</h2>
<ul class="rows">${page.receipts.map(
    (r) =>
      html`<li><span>${date(r.receivedOn)}${r.reversed && html`<br><span class="muted">${t('account.reversed')}</span>`}</span><strong>${money(r.amountPaise)}</strong></li>`,
  )}</ul>
</section>`;
}

function claimSection(page: AccountPage, token: string, state: ClaimFormState | undefined, w: Words): Markup {
  const { t } = w;
  const claim = page.pendingClaim;
  return html`<section id="claim">
<h2>${t('account.claim_title')}</h2>
${
  claim !== null &&
  html`<p class="notice" id="reported">${t('account.claim_pending', {
    amount: w.money(claim.amountPaise),
    date: w.date(claim.createdAt.slice(0, 10)),
    business: page.businessName,
  })}</p>`
}
<form method="post" action="/a/${token}/claim">
<label for="amount">${t('account.claim_amount')}</label>
<input id="amount" name="amount" required inputmode="decimal" autocomplete="off" value="${state?.amount ?? ''}"${
    state?.error === 'amount' ? trusted(' aria-invalid="true" aria-describedby="claim-error"') : ''
  }>
<label for="reference">${t('pay.reference_field')}</label>
<input id="reference" name="reference" maxlength="${REFERENCE_MAX}" autocomplete="off" value="${state?.reference ?? ''}"${
    state?.error === 'reference' ? trusted(' aria-invalid="true" aria-describedby="claim-error"') : ''
  }>
${state !== undefined && html`<p class="error" role="alert" id="claim-error">${t(CLAIM_ERRORS[state.error])}</p>`}
<button type="submit" class="secondary">${t('pay.claim')}</button>
</form>
</section>`;
}

export async function renderAccountPage(
  page: AccountPage,
  token: string,
  online: OnlineAccountPayment,
  claim?: ClaimFormState,
): Promise<string> {
  const w = wordsFor(page);
  const { t } = w;
  const upi = await upiSection(page, w);
  const amount = w.money(Math.max(page.balancePaise, 0));
  const body = html`<div class="card">
<p class="payee">${t('account.of', { name: page.contactName })}</p>
<h1>${page.businessName}</h1>
<p class="label">${t('account.total')}</p>
<p class="amount" id="balance">${amount}</p>
${balanceLine(page, w)}
${upi}
${onlineSection(page, token, online, upi !== false, w)}
${page.balancePaise > 0 && upi === false && !online.enabled && html`<p class="notice" id="ask">${t('account.ask_business', { business: page.businessName })}</p>`}
${duesSection(page, w)}
${paymentsSection(page, w)}
${claimSection(page, token, claim, w)}
</div>`;
  return layout(w.lang, t('account.title', { business: page.businessName }), body);
}

/** A page with only a heading and a sentence (not found, too many claims), in a language. */
export function renderAccountMessage(language: string, title: MessageKey, text: MessageKey, params = {}): string {
  const lang = languageOf(language);
  const t = translator(lang);
  return layout(lang, t(title), html`<div class="card"><h1>${t(title)}</h1><p>${t(text, params)}</p></div>`);
}
