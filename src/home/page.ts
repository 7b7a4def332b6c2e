import { createHash } from 'node:crypto';

/**
 * `GET /`: where everything is, in English and Hindi. Links are relative, so the page works on
 * whatever host and port it is opened on. No script; one inline style, allowed by its hash.
 */
const LINKS: { href: string; en: string; hi: string }[] = [
  { href: '/docs', en: 'API documentation (try every call)', hi: 'API दस्तावेज़ (हर कॉल आज़माएँ)' },
  { href: '/dashboard', en: 'Dashboard for the business', hi: 'व्यापार का डैशबोर्ड' },
  { href: '/healthz', en: 'Health check', hi: 'स्वास्थ्य जाँच' },
  { href: '/openapi.json', en: 'OpenAPI document', hi: 'OpenAPI दस्तावेज़' },
];

const STYLE =
  'body{font:16px/1.5 system-ui,"Noto Sans Devanagari",sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem}code{background:#eee;padding:.1rem .3rem}li{margin:.5rem 0}';

export const HOME_CONTENT_SECURITY_POLICY = `default-src 'none'; style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;

export const HOME_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Receivables API</title>
<style>${STYLE}</style>
</head>
<body>
<h1>Receivables API <span lang="hi">· बकाया API</span></h1>
<p>Track what your buyers owe, remind them, and get paid.<br><span lang="hi">ख़रीदारों का बकाया दर्ज करें, उन्हें याद दिलाएँ, और भुगतान पाएँ।</span></p>
<ul>
${LINKS.map((l) => `<li><a href="${l.href}">${l.en}</a><br><span lang="hi">${l.hi}</span></li>`).join('\n')}
</ul>
<p>Next: <code>npm run -s cli -- demo</code> creates a demo business with data, an API key and a dashboard sign-in link.<br>
<span lang="hi">आगे: <code>npm run -s cli -- demo</code> डेटा के साथ एक डेमो व्यापार, एक API कुंजी और डैशबोर्ड साइन-इन लिंक बनाता है।</span></p>
</body>
</html>
`;

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
