import { createHash } from 'node:crypto';
import { html, type Markup, trusted } from '../paypage/html.js';
import { htmlLang, type Translate } from './i18n.js';

/* Mobile first (360 px and up): one column, large tap targets, system fonts, nothing to download. */
const STYLE = `
*{box-sizing:border-box}
body{margin:0;background:#f3f4f6;color:#111827;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
a{color:#1d4ed8}
.skip{position:absolute;left:-999px}.skip:focus{left:.5rem;top:.5rem;background:#fff;padding:.5rem;z-index:2}
header{background:#1e3a8a;color:#fff}
header .bar{max-width:64rem;margin:0 auto;padding:.5rem 1rem;display:flex;flex-wrap:wrap;align-items:center;gap:.25rem 1rem}
header .brand{font-weight:700;margin-right:auto;overflow-wrap:anywhere}
header nav{max-width:64rem;margin:0 auto;padding:0 .5rem .5rem;display:flex;flex-wrap:wrap;gap:.25rem}
header nav a{color:#fff;text-decoration:none;padding:.5rem .75rem;border-radius:8px;min-height:44px;display:inline-flex;align-items:center}
header nav a[aria-current=page]{background:#1d4ed8;font-weight:600}
header form{margin:0}
header button.link{background:none;border:1px solid #93c5fd;color:#fff;padding:.375rem .75rem;width:auto;min-height:40px}
main{max-width:64rem;margin:0 auto;padding:1rem}
h1{font-size:1.375rem;margin:.25rem 0 1rem;overflow-wrap:anywhere}
h2{font-size:1.125rem;margin:0 0 .75rem}
h2,h3,h4{overflow-wrap:anywhere}
.card{background:#fff;border-radius:12px;padding:1rem;box-shadow:0 1px 3px rgba(0,0,0,.08);margin-bottom:1rem}
.grid{display:grid;grid-template-columns:repeat(auto-fit,minmax(9rem,1fr));gap:.5rem;margin-bottom:1rem}
.stat{background:#fff;border-radius:12px;padding:.75rem 1rem;box-shadow:0 1px 3px rgba(0,0,0,.08)}
.stat .label{color:#4b5563;font-size:.875rem}.stat .value{font-size:clamp(1rem,4.4vw,1.375rem);font-weight:700;white-space:nowrap}
.cols{display:grid;gap:1rem}@media(min-width:48rem){.cols{grid-template-columns:1fr 1fr}}
.list{list-style:none;margin:0;padding:0}
.list li{padding:.625rem 0;border-bottom:1px solid #e5e7eb;display:flex;justify-content:space-between;gap:.75rem}
.list li>:first-child{overflow-wrap:break-word;min-width:0}.list .end{text-align:right;white-space:nowrap}
.status{display:inline-block;padding:0 .5rem;border-radius:999px;font-size:.8125rem;font-weight:600;white-space:nowrap}
.status-pending{background:#fef3c7;color:#78350f}.status-overdue{background:#fee2e2;color:#991b1b}.status-paid{background:#d1fae5;color:#065f46}.status-unclear{background:#fef3c7;color:#78350f;white-space:normal}
.reply{white-space:pre-wrap;overflow-wrap:anywhere}
dl{margin:0;display:grid;grid-template-columns:auto 1fr;gap:.25rem 1rem}dt{color:#4b5563}dd{margin:0;overflow-wrap:anywhere}
label{display:block;margin:.5rem 0 .25rem;font-size:.9375rem;font-weight:500}
input,select,textarea{display:block;width:100%;padding:.625rem;border:1px solid #6b7280;border-radius:8px;font:inherit;background:#fff;min-height:44px}
input[type=checkbox]{display:inline-block;width:1.25rem;height:1.25rem;min-height:0;vertical-align:middle;margin-right:.5rem}
label.check{display:flex;align-items:center}
button,.button{display:inline-block;padding:.625rem 1rem;border:0;border-radius:8px;background:#1d4ed8;color:#fff;font:inherit;font-weight:600;text-decoration:none;cursor:pointer;min-height:44px;text-align:center}
button.secondary,.button.secondary{background:#fff;color:#1d4ed8;border:2px solid #1d4ed8}
button.danger{background:#b91c1c}
form.inline{display:inline}
.actions{display:flex;flex-wrap:wrap;gap:.5rem;margin-top:.75rem}
.filters{display:grid;grid-template-columns:1fr;gap:.5rem;align-items:end}@media(min-width:48rem){.filters{grid-template-columns:2fr 1fr 2fr auto}}
.dates{display:grid;gap:.5rem}@media(min-width:30rem){.dates{grid-template-columns:1fr 1fr}}.dates input{min-width:0}
.notice{padding:.75rem;border-radius:8px;background:#eff6ff;color:#1e3a8a;margin-bottom:1rem;overflow-wrap:anywhere}
.error{padding:.75rem;border-radius:8px;background:#fee2e2;color:#991b1b;margin-bottom:1rem;overflow-wrap:anywhere}
.muted{color:#4b5563;font-size:.875rem}
.pager{display:flex;justify-content:space-between;align-items:center;gap:.5rem;margin-top:.75rem}
.aging svg{width:100%;height:auto;display:block}
.choices{list-style:none;margin:.25rem 0;padding:0}.choices li{display:block;margin:.5rem 0;padding:0;border:0}.choices .muted{display:block;margin-top:.125rem}
.key{font-family:ui-monospace,monospace;background:#f3f4f6;padding:.5rem;border-radius:6px;overflow-wrap:anywhere;display:block}
code{overflow-wrap:anywhere}
.big{font-size:2rem;font-weight:700;margin:0 0 .5rem}.balance{font-size:1.5rem}.owed{color:#991b1b}
.debit{color:#991b1b;font-weight:600}.credit{color:#065f46;font-weight:600}
details.fold{padding:0}details.fold>summary{padding:1rem;min-height:44px;cursor:pointer;font-weight:600;color:#1d4ed8}details.fold>:not(summary){padding:0 1rem 1rem}
.scroll{overflow-x:auto}table.statement{width:100%;border-collapse:collapse;font-size:.875rem}.statement th,.statement td{text-align:left;padding:.375rem .25rem;border-bottom:1px solid #e5e7eb;vertical-align:top}.statement .num{text-align:right;white-space:nowrap}
@media print{header,.skip,.noprint,script{display:none}body{background:#fff}.card{box-shadow:none;padding:0}main{padding:0}}
`.trim();

/** Progressive enhancement: the copy button and the file picker appear and work only with JavaScript. */
const SCRIPT = `for(const b of document.querySelectorAll('[data-copy]')){b.hidden=false;b.addEventListener('click',()=>{navigator.clipboard.writeText(b.dataset.copy).then(()=>{b.textContent=b.dataset.done})})}
for(const f of document.querySelectorAll('[data-into]')){f.closest('.file').hidden=false;f.addEventListener('change',()=>{const file=f.files[0];if(file)file.text().then((text)=>{document.getElementById(f.dataset.into).value=text})})}`;

const hash = (text: string) => createHash('sha256').update(text).digest('base64');

/** Only the inline style and script (by hash) run; forms post only here; the page is never framed. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  `style-src 'sha256-${hash(STYLE)}'`,
  `script-src 'sha256-${hash(SCRIPT)}'`,
  "img-src 'self' data:",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

export type Section = 'home' | 'dues' | 'contacts' | 'bank' | 'import' | 'settings' | 'developers' | 'users';

export interface PageChrome {
  t: Translate;
  language: string;
  title: string;
  /** absent on the sign-in pages */
  nav?: {
    businessName: string;
    userName: string;
    current: Section;
    csrfToken: string;
    /** the sections the signed-in user's role may open */
    sections: readonly Section[];
  };
  flash?: { kind: 'notice' | 'error'; text: string } | undefined;
}

const SECTIONS: Array<[Section, string, Parameters<Translate>[0]]> = [
  ['home', '/dashboard', 'nav.home'],
  ['dues', '/dashboard/dues', 'nav.dues'],
  ['contacts', '/dashboard/contacts', 'nav.contacts'],
  ['bank', '/dashboard/bank', 'nav.bank'],
  ['import', '/dashboard/import', 'nav.import'],
  ['settings', '/dashboard/settings', 'nav.settings'],
  ['developers', '/dashboard/developers', 'nav.developers'],
  ['users', '/dashboard/users', 'nav.users'],
];

/** The hidden CSRF field every form of a signed-in page carries. */
export function csrfField(token: string): Markup {
  return html`<input type="hidden" name="_csrf" value="${token}">`;
}

export function layout(chrome: PageChrome, body: Markup): string {
  const { t, nav, flash } = chrome;
  const header = nav
    ? html`<header>
<div class="bar"><span class="brand">${nav.businessName}</span>${nav.userName ? html`<span>${nav.userName}</span>` : ''}
<form method="post" action="/dashboard/logout">${csrfField(nav.csrfToken)}<button class="link" type="submit">${t('nav.sign_out')}</button></form></div>
<nav aria-label="${t('app.title')}">${SECTIONS.filter(([section]) => nav.sections.includes(section)).map(
        ([section, href, key]) =>
          html`<a href="${href}"${section === nav.current ? trusted(' aria-current="page"') : ''}>${t(key)}</a>`,
      )}</nav>
</header>`
    : html`<header><div class="bar"><span class="brand">${t('app.title')}</span></div></header>`;
  return `<!doctype html>${html`<html lang="${htmlLang(chrome.language)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="same-origin">
<link rel="icon" href="data:,">
<title>${chrome.title} · ${t('app.title')}</title>
<style>${trusted(STYLE)}</style>
</head>
<body><a class="skip" href="#main">${t('nav.skip')}</a>
${header}
<main id="main">${flash ? html`<p class="${flash.kind}" role="status">${flash.text}</p>` : ''}${body}</main>
<script>${trusted(SCRIPT)}</script>
</body>
</html>
`}`;
}
