import QRCode from 'qrcode';
import { formatDate, formatInstant, formatMoney, upiLink } from './format.js';
import { html, layout, type Markup, trusted } from './html.js';
import { type PayPage, REFERENCE_MAX } from './service.js';

const STATUS_LABEL = { pending: 'Pending', overdue: 'Overdue', paid: 'Paid' } as const;

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
    note: [page.paymentReference, page.invoiceNumber ? `Invoice ${page.invoiceNumber}` : `Due ${page.dueDate}`]
      .filter((part) => part !== null)
      .join(' '),
  });
}

/** The same link as a QR code, drawn server-side as inline SVG (no image request, no script). */
export async function qrSvg(link: string, label = 'UPI QR code'): Promise<Markup> {
  const svg = await QRCode.toString(link, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  return trusted(svg.replace('<svg ', html`<svg role="img" aria-label="${label}" `.value));
}

function details(page: PayPage): Markup {
  return html`<dl>
<dt>Due date</dt><dd>${formatDate(page.dueDate)}</dd>
<dt>Billed to</dt><dd>${page.contactName}</dd>
${page.invoiceNumber !== null && html`<dt>Invoice</dt><dd>${page.invoiceNumber}</dd>`}
${page.paymentReference !== null && html`<dt>Payment reference</dt><dd id="payment-reference">${page.paymentReference}</dd>`}
</dl>`;
}

/** Part payments made so far, and what they leave to pay. */
function paymentsMade(page: PayPage): Markup | false {
  if (page.payments.length === 0) return false;
  const total = formatMoney(page.amountPaise, page.currency, page.country);
  return html`<section id="payments">
<p>Paid so far of ${total}:</p>
<ul>${page.payments.map(
    (p) =>
      html`<li>${formatMoney(p.amountPaise, page.currency, page.country)} on ${formatInstant(p.createdAt, page.timezone)}</li>`,
  )}</ul>
</section>`;
}

function reported(page: PayPage): Markup | false {
  const last = page.lastClaim;
  if (page.claimCount === 0 || !last) return false;
  const times = page.claimCount === 1 ? 'once' : `${page.claimCount} times`;
  return html`<p class="notice" id="reported">Payment reported ${times}, last on
${formatInstant(last.createdAt, page.timezone)}${last.reference !== null && html`, reference <strong>${last.reference}</strong>`}.
This page will show it as paid once ${page.businessName} confirms it.</p>`;
}

function claimForm(page: PayPage, token: string, error: string | undefined): Markup {
  const hasReported = page.claimCount > 0;
  return html`<section>
${reported(page)}
<form method="post" action="/pay/${token}/claim">
<label for="reference">Payment reference (UTR), optional</label>
<input id="reference" name="reference" maxlength="${REFERENCE_MAX}" autocomplete="off" inputmode="text">
${error !== undefined && html`<p class="error" role="alert">${error}</p>`}
<button type="submit"${hasReported ? trusted(' class="secondary"') : ''}>I have paid</button>
</form>
</section>`;
}

/** "Pay online" (PRODUCT part 11): offered while a payments gateway is set up and the due is open. */
export interface OnlinePayment {
  enabled: boolean;
  /** why the last attempt did not reach the gateway's page */
  error?: string | undefined;
}

function payOnlineForm(page: PayPage, token: string, online: OnlinePayment | undefined): Markup | false {
  if (!online?.enabled || page.status === 'paid' || page.balancePaise <= 0) return false;
  return html`<section id="online">
<form method="post" action="/pay/${token}/online">
<button type="submit" id="pay-online">Pay online</button>
</form>
${online.error !== undefined && html`<p class="error" role="alert" id="online-error">${online.error}</p>`}
</section>`;
}

export async function renderPayPage(
  page: PayPage,
  token: string,
  error?: string,
  online?: OnlinePayment,
): Promise<string> {
  // An open due asks for its balance; a paid one shows what it was for.
  const amount = formatMoney(
    page.status === 'paid' ? page.amountPaise : page.balancePaise,
    page.currency,
    page.country,
  );
  const link = upiLinkFor(page);
  const status =
    page.status === 'paid' && page.paidAt !== null
      ? `Paid on ${formatInstant(page.paidAt, page.timezone)}`
      : STATUS_LABEL[page.status];
  const body = html`<div class="card">
<p class="payee">Payment to</p>
<h1>${page.businessName}</h1>
<p class="amount" id="amount">${amount}</p>
<p class="status status-${page.status}" id="status">${status}</p>
${details(page)}
${paymentsMade(page)}
${
  link !== null &&
  html`<section id="upi">
<a class="button" id="upi-link" href="${link}">Pay ${amount} with a UPI app</a>
<figure class="qr" id="qr">${await qrSvg(link)}<figcaption>Or scan with any UPI app. UPI ID: ${page.upiId}</figcaption></figure>
</section>`
}
${payOnlineForm(page, token, online)}
${page.status !== 'paid' && claimForm(page, token, error)}
</div>`;
  const title = page.status === 'paid' ? `Paid: ${page.businessName}` : `Pay ${amount} to ${page.businessName}`;
  return layout(title, body);
}

/** A page with only a heading and a sentence: not found, too many claims, errors. */
export function renderMessage(title: string, text: string): string {
  return layout(title, html`<div class="card"><h1>${title}</h1><p>${text}</p></div>`);
}
