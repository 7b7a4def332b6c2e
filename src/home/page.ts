import { createHash } from 'node:crypto';
import { acceptedLanguage, type Language, type MessageKey, translator } from '../i18n/index.js';
import { html } from '../paypage/html.js';

/**
 * `GET /`: where everything is, in the language the browser asks for first (English or Hindi, as
 * the other pages that know no business yet). Links are relative, so the page works on whatever
 * host and port it is opened on. No script; one inline style, allowed by its hash.
 */
const LINKS: { href: string; key: MessageKey }[] = [
  { href: '/docs', key: 'root.docs' },
  { href: '/dashboard', key: 'root.dashboard' },
  { href: '/healthz', key: 'root.health' },
  { href: '/openapi.json', key: 'root.openapi' },
];

const STYLE =
  'body{font:16px/1.5 system-ui,"Noto Sans Devanagari",sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem}code{background:#eee;padding:.1rem .3rem}li{margin:.5rem 0}';

export const HOME_CONTENT_SECURITY_POLICY = `default-src 'none'; style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;

function render(lang: Language): string {
  const t = translator(lang);
  const [before = '', after = ''] = t('root.next', { command: '\u0000' }).split('\u0000');
  return `<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${html`${t('root.title')}`}</title>
<style>${STYLE}</style>
</head>
<body>
<h1>${html`${t('root.title')}`}</h1>
<p>${html`${t('root.tagline')}`}</p>
<ul>
${LINKS.map((l) => html`<li><a href="${l.href}">${t(l.key)}</a></li>`).join('\n')}
</ul>
<p>${html`${before}<code>npm run -s cli -- demo</code>${after}`}</p>
</body>
</html>
`;
}

const PAGES: Record<Language, string> = { en: render('en'), hi: render('hi') };

/** The root page in the language a browser's Accept-Language asks for first. */
export function homePage(acceptLanguage: string | undefined): string {
  return PAGES[acceptedLanguage(acceptLanguage)];
}

/** The lines `npm start` prints once it listens: where everything is, and what to run next. */
export function startupLines(base: string, store: string, workers: boolean): string[] {
  return [
    `Receivables API ready (${store} store${workers ? ', background workers in this process' : ', no workers'})`,
    `  Home         ${base}/`,
    `  API          ${base}/v1`,
    `  API docs     ${base}/docs`,
    `  Dashboard    ${base}/dashboard`,
    `  Health       ${base}/healthz  (readiness: ${base}/readyz)`,
    'Next: npm run -s cli -- demo   (a demo business with data, an API key and a dashboard sign-in link)',
  ];
}
