import QRCode from 'qrcode';
import { formatDate, formatInstant, formatMoney } from '../i18n/format.js';
import { type Language, type MessageKey, type Translate, translator } from '../i18n/index.js';
import { upiLink } from './format.js';
import { html, htmlWith, layout, type Markup, trusted } from './html.js';
import { type PayPage, REFERENCE_MAX } from './service.js';

/**
 * The UPI link of a due, when it can be paid by UPI: the business has a UPI id, the due is in
 * rupees and still open.
 */
export function upiLinkFor(page: PayPage): string | null {
  if (!page.upiId || page.currency !== 'INR' || page.status === 'paid') return null;
  return upiLink({
    vpa: page.upiId,
    payeeName: page.businessName,
    paise: page.balancePaise,
    // The reference first: UPI apps and banks cut long notes, and the narration must keep it.
    // (The note is for the bank's narration, in plain ASCII whatever the page's language.)
    note: [page.paymentReference, page.invoiceNumber ? `Invoice ${page.invoiceNumber}` : `Due ${page.dueDate}`]
      .filter((part) => part !== null)
      .join(' '),
  });
}

/** The page's words, money and time in its language (the buyer's, else the business's). */
interface Words {
  t: Translate;
  money(minor: number): string;
  instant(iso: string): string;
}

function wordsFor(page: PayPage): Words {
  return {
    t: translator(page.language),
    money: (minor) => formatMoney(page.language, minor, page.currency),
    instant: (iso) => formatInstant(page.language, iso, page.timezone),
  };
}

/** The same link as a QR code, drawn server-side as inline SVG (no image request, no script). */
export async function qrSvg(link: string, label: string): Promise<Markup> {
  const svg = await QRCode.toString(link, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  return trusted(svg.replace('<svg ', html`<svg role="img" aria-label="${label}" `.value));
}

function details(page: PayPage, { t }: Words): Markup {
  return html`<dl>
<dt>${t('pay.due_date')}</dt><dd>${formatDate(page.language, page.dueDate)}</dd>
<dt>${t('pay.billed_to')}</dt><dd>${page.contactName}</dd>
${page.invoiceNumber !== null && html`<dt>${t('pay.invoice')}</dt><dd>${page.invoiceNumber}</dd>`}
${page.paymentReference !== null && html`<dt>${t('pay.reference')}</dt><dd id="payment-reference">${page.paymentReference}</dd>`}
</dl>`;
}

/** Part payments made so far, and what they leave to pay. */
function paymentsMade(page: PayPage, w: Words): Markup | false {
  if (page.payments.length === 0) return false;
  return html`<section id="payments">
<p>${w.t('pay.paid_so_far', { total: w.money(page.amountPaise) })}</p>
<ul>${page.payments.map(
    (p) => html`<li>${w.t('pay.payment_on', { amount: w.money(p.amountPaise), date: w.instant(p.createdAt) })}</li>`,
  )}</ul>
</section>`;
}

function reported(page: PayPage, { t, instant }: Words): Markup | false {
  const last = page.lastClaim;
  if (page.claimCount === 0 || !last) return false;
  const times = page.claimCount === 1 ? t('pay.times_once') : t('pay.times', { count: page.claimCount });
  return html`<p class="notice" id="reported">${t('pay.reported', { times, date: instant(last.createdAt) })}${
    last.reference !== null &&
    htmlWith(t('pay.reported_reference'), { reference: html`<strong>${last.reference}</strong>` })
  }${t('pay.reported_end', { business: page.businessName })}</p>`;
}

function claimForm(page: PayPage, token: string, error: string | undefined, w: Words): Markup {
  const hasReported = page.claimCount > 0;
  return html`<section>
${reported(page, w)}
<form method="post" action="/pay/${token}/claim">
<label for="reference">${w.t('pay.reference_field')}</label>
<input id="reference" name="reference" maxlength="${REFERENCE_MAX}" autocomplete="off" inputmode="text">
${error !== undefined && html`<p class="error" role="alert">${error}</p>`}
<button type="submit"${hasReported ? trusted(' class="secondary"') : ''}>${w.t('pay.claim')}</button>
</form>
</section>`;
}

/** "Pay online" (PRODUCT part 11): offered while a payments gateway is set up and the due is open. */
export interface OnlinePayment {
  enabled: boolean;
  /** the last attempt did not reach the gateway's page */
  failed?: boolean;
}

function payOnlineForm(page: PayPage, token: string, online: OnlinePayment | undefined, { t }: Words): Markup | false {
  if (!online?.enabled || page.status === 'paid' || page.balancePaise <= 0) return false;
  return html`<section id="online">
<form method="post" action="/pay/${token}/online">
<button type="submit" id="pay-online">${t('pay.online')}</button>
</form>
${online.failed === true && html`<p class="error" role="alert" id="online-error">${t('pay.online_unavailable')}</p>`}
</section>`;
}

/** A form's refusal as the page says it: a catalogue key and its values. */
export interface PageError {
  key: MessageKey;
  params?: Record<string, string | number>;
}

export async function renderPayPage(
  page: PayPage,
  token: string,
  error?: PageError,
  online?: OnlinePayment,
): Promise<string> {
  const w = wordsFor(page);
  const { t } = w;
  // An open due asks for its balance; a paid one shows what it was for.
  const amount = w.money(page.status === 'paid' ? page.amountPaise : page.balancePaise);
  const link = upiLinkFor(page);
  const status =
    page.status === 'paid' && page.paidAt !== null
      ? t('pay.paid_on', { date: w.instant(page.paidAt) })
      : t(`status.${page.status}`);
  const body = html`<div class="card">
<p class="payee">${t('pay.payment_to')}</p>
<h1>${page.businessName}</h1>
<p class="amount" id="amount">${amount}</p>
<p class="status status-${page.status}" id="status">${status}</p>
${details(page, w)}
${paymentsMade(page, w)}
${
  link !== null &&
  html`<section id="upi">
<a class="button" id="upi-link" href="${link}">${t('pay.upi_button', { amount })}</a>
<figure class="qr" id="qr">${await qrSvg(link, t('pay.qr_label'))}<figcaption>${t('pay.upi_scan', { upi: page.upiId ?? '' })}</figcaption></figure>
</section>`
}
${payOnlineForm(page, token, online, w)}
${page.status !== 'paid' && claimForm(page, token, error && t(error.key, error.params), w)}
</div>`;
  const title =
    page.status === 'paid'
      ? t('pay.title_paid', { business: page.businessName })
      : t('pay.title_open', { amount, business: page.businessName });
  return layout(page.language, title, body);
}

/** A page with only a heading and a sentence: not found, too many claims, errors. */
export function renderMessage(
  lang: Language,
  title: MessageKey,
  text: MessageKey,
  params?: Record<string, string | number>,
): string {
  const t = translator(lang);
  return layout(lang, t(title), html`<div class="card"><h1>${t(title)}</h1><p>${t(text, params)}</p></div>`);
}
