import { createHash } from 'node:crypto';
import type { Language } from '../i18n/index.js';

/**
 * A tiny HTML template: `html` escapes every interpolated value unless it is already markup
 * (`Markup`, from `html` itself or `trusted`), so a business-provided string can never become
 * markup by forgetting to call escapeHtml.
 */
export class Markup {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for an element's content or a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] as string);
}

/** Markup made by code we trust (the QR code library's SVG): never for anything a user typed. */
export function trusted(markup: string): Markup {
  return new Markup(markup);
}

type Value = Markup | string | number | null | undefined | false | Value[];

function render(value: Value): string {
  if (value instanceof Markup) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Value[]): Markup {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) out += render(values[i] as Value) + (strings[i + 1] ?? '');
  return new Markup(out);
}

/**
 * A translated sentence with markup in its `{slots}` (`'reference {reference}'`): the sentence is
 * escaped, each slot is replaced by its markup.
 */
export function htmlWith(text: string, slots: Record<string, Markup>): Markup {
  return new Markup(escapeHtml(text).replace(/\{(\w+)\}/g, (whole, name: string) => slots[name]?.value ?? whole));
}

/* Mobile first: one column, large tap targets, system fonts (nothing to download). */
const STYLE = `
*{box-sizing:border-box}
body{margin:0;background:#f3f4f6;color:#111827;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{max-width:28rem;margin:0 auto;padding:1rem}
.card{background:#fff;border-radius:12px;padding:1.25rem;box-shadow:0 1px 3px rgba(0,0,0,.08)}
.payee{margin:0;color:#6b7280;font-size:.875rem}
h1{margin:.25rem 0 0;font-size:1.25rem;overflow-wrap:anywhere}
.amount{margin:.75rem 0 .25rem;font-size:2rem;font-weight:700}
.status{display:inline-block;margin:0;padding:.125rem .625rem;border-radius:999px;font-size:.875rem;font-weight:600}
.status-pending{background:#fef3c7;color:#92400e}
.status-overdue{background:#fee2e2;color:#991b1b}
.status-paid{background:#d1fae5;color:#065f46}
dl{margin:1rem 0 0;display:grid;grid-template-columns:auto 1fr;gap:.25rem 1rem}
dt{color:#6b7280}
dd{margin:0;overflow-wrap:anywhere}
section{margin-top:1.25rem;padding-top:1.25rem;border-top:1px solid #e5e7eb}
.button,button{display:block;width:100%;padding:.875rem;border:0;border-radius:8px;background:#1d4ed8;color:#fff;font:inherit;font-weight:600;text-align:center;text-decoration:none;cursor:pointer}
button.secondary{background:#fff;color:#1d4ed8;border:2px solid #1d4ed8}
.qr{margin:1rem auto 0;text-align:center}
.qr svg{display:block;width:15rem;height:15rem;margin:0 auto}
.qr figcaption{color:#6b7280;font-size:.875rem;overflow-wrap:anywhere}
label{display:block;margin-bottom:.25rem;font-size:.875rem}
input{display:block;width:100%;margin-bottom:.75rem;padding:.75rem;border:1px solid #d1d5db;border-radius:8px;font:inherit}
.notice{padding:.75rem;border-radius:8px;background:#eff6ff;color:#1e3a8a}
.error{padding:.75rem;border-radius:8px;background:#fee2e2;color:#991b1b}
.muted{color:#6b7280;font-size:.875rem}
h2{margin:0 0 .5rem;font-size:1rem}
.label{margin:1rem 0 0;color:#4b5563;font-size:.875rem}
.label+.amount{margin-top:0}
.rows{list-style:none;margin:0;padding:0}
.rows li{display:flex;justify-content:space-between;gap:1rem;padding:.5rem 0;border-bottom:1px solid #f3f4f6}
.rows strong{white-space:nowrap}
.late{color:#991b1b;font-size:.875rem;font-weight:600}
`.trim();

const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');

/**
 * Nothing loads but the one inline stylesheet (allowed by its hash): no script at all, forms post
 * only to this origin, and the page cannot be framed. `formTargets` are origins a form may end up
 * at through a redirect (the payment gateway's link pages: browsers apply form-action to them).
 */
export function contentSecurityPolicy(formTargets: readonly string[] = []): string {
  return [
    "default-src 'none'",
    `style-src 'sha256-${STYLE_HASH}'`,
    "img-src 'self' data:",
    ["form-action 'self'", ...formTargets].join(' '),
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

export const CONTENT_SECURITY_POLICY = contentSecurityPolicy();

export function layout(lang: Language, title: string, body: Markup): string {
  return `<!doctype html>${html`<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>${title}</title>
<style>${trusted(STYLE)}</style>
</head>
<body><main>${body}</main></body>
</html>
`}`;
}
