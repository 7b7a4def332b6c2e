/**
 * Pages on a phone (PRODUCT part 20, "Pages stay light"): every dashboard and buyer page opened in
 * Debian's Chromium (playwright-core) on Chromium's "Slow 4G" line (562.5 ms round trip, 1.44
 * Mbit/s down, 675 kbit/s up, no cache) with the CPU slowed 4x, in English and in Hindi. Time to
 * content is the page's first contentful paint, from the navigation's start. The same bytes from a
 * bare `node:http` server are opened in the same run, alternated round by round, so the ratio shows
 * what the real server adds to what the line and the phone cost anyway.
 *
 *   flock /tmp/bench.lock npx tsx bench/pages.ts [--rounds 5]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { BrowserContext, CDPSession, Page } from 'playwright-core';
import { loadConfig } from '../src/config.js';
import { createLoginLink } from '../src/dashboard/auth.js';
import { migrate, openStore } from '../src/db/store.js';
import { systemClock } from '../src/lib/clock.js';
import { createServices } from '../src/services.js';
import { launchChromium } from '../test/helpers/chromium.js';
import { freePort, start, stop } from './lib.js';

const rounds = Number(process.argv[process.argv.indexOf('--rounds') + 1]) || 5;

/** Chromium DevTools' "Slow 4G" preset, as DevTools sends it over CDP. */
const SLOW_4G = {
  offline: false,
  latency: 562.5,
  downloadThroughput: (1.6 * 1_000_000 * 0.9) / 8,
  uploadThroughput: (750 * 1_000 * 0.9) / 8,
};
const CPU_SLOWDOWN = 4;

const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-pages-'));
const port = await freePort();
const base = `http://127.0.0.1:${port}`;

/** Two businesses (English, Hindi) with their dues, a key and a one-time sign-in link each, written before the server starts. */
async function prepare() {
  const config = loadConfig({ DATA_DIR: dataDir });
  const store = openStore(config);
  try {
    await migrate(store.db);
    const services = createServices({ store, clock: systemClock, config });
    const made = [];
    for (const [language, name, phone] of [
      ['en', 'Sharma & Sons', '+91 90000 00011'],
      ['hi', 'शर्मा एंड संस', '+91 90000 00012'],
    ] as const) {
      const { business, apiKey } = await services.businesses.create({ name, phone, language });
      await services.businesses.update(business.id, { upiId: 'sharma.sons@okicici' });
      await services.bulk.importDues(business, { csv: duesCsv() });
      const link = await createLoginLink({ db: store.db, clock: systemClock, publicBaseUrl: base }, business.id);
      made.push({ language, apiKey, link });
    }
    return made;
  } finally {
    await store.close();
  }
}

const BUYERS = ['Ravi Kumar', 'Meena Stores', 'Gupta Hardware', 'Patel Cement Agency', 'Kiran General Store'];

/** Forty dues over five buyers (imported, as the owner's CSV would), a day apart by three. */
function duesCsv(): string {
  const lines = ['contact_name,amount_paise,due_date'];
  for (let i = 0; i < 40; i++) {
    const day = new Date(Date.now() + (i - 20) * 3 * 86_400_000).toISOString().slice(0, 10);
    lines.push(`${BUYERS[i % 5]},${150_000 + i * 12_345},${day}`);
  }
  return `${lines.join('\n')}\n`;
}

/** A part payment and a paid due, over the API: the due and buyer pages show both. */
async function pay(apiKey: string): Promise<{ payPath: string }> {
  const call = async (url: string, body?: unknown) => {
    const res = await fetch(base + url, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
    return (await res.json()) as { data: Array<{ id: string; pay_page_url: string }> };
  };
  const [first, second] = (await call('/v1/transactions?limit=2')).data as [
    { id: string; pay_page_url: string },
    { id: string },
  ];
  await call(`/v1/transactions/${first.id}/payments`, { amount_paise: 50_000, payment_method: 'cash' });
  await call(`/v1/transactions/${second.id}/mark-paid`, {});
  return { payPath: new URL(first.pay_page_url).pathname };
}

/** The pages a signed-in owner reaches: the nav's sections, the first due and buyer, the buyer's pages. */
async function pagesOf(context: BrowserContext, payPath: string): Promise<string[]> {
  const html = async (url: string) => (await context.request.get(base + url)).text();
  const links = (text: string, pattern: RegExp) => [...text.matchAll(pattern)].map((m) => m[1] as string);
  const nav = /<nav[\s\S]*?<\/nav>/.exec(await html('/dashboard'))?.[0] ?? '';
  const sections = links(nav, /href="(\/dashboard[^"]*)"/g);
  const due = links(await html('/dashboard/dues'), /href="(\/dashboard\/dues\/[0-9a-f-]{36})"/g)[0];
  const buyer = links(await html('/dashboard/contacts'), /href="(\/dashboard\/contacts\/[0-9a-f-]{36})"/g)[0];
  const account = links(await html(buyer ?? '/dashboard'), /href="(\/a\/[\w-]+)"/g)[0];
  return [...new Set([...sections, due, buyer, payPath, account])].filter((p): p is string => p !== undefined);
}

/** A bare node:http server answering each path with the bytes the real server sent for it. */
async function bareServer(pages: Map<string, string>): Promise<{ server: Server; base: string }> {
  const server = createServer((req, res) => {
    const body = pages.get(req.url ?? '');
    res.writeHead(body === undefined ? 404 : 200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(body ?? '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** Opens `url` on the slowed phone and answers its first contentful paint (ms from the navigation's start). */
async function timeToContent(page: Page, cdp: CDPSession, url: string): Promise<number> {
  await page.goto('about:blank');
  await cdp.send('Network.clearBrowserCache');
  await page.goto(url, { waitUntil: 'load' });
  // A paint entry only, however the page's script runs (a string: no DOM types in this Node program).
  return page.evaluate<number>(
    `new Promise((resolve, reject) => {
      setTimeout(() => reject(new Error('no contentful paint within 30 s')), 30000);
      new PerformanceObserver((list) => {
        const fcp = list.getEntriesByName('first-contentful-paint')[0];
        if (fcp) resolve(fcp.startTime);
      }).observe({ type: 'paint', buffered: true });
    })`,
  );
}

/** A 360 x 740 phone whose browser asks for the language (the sign-in page follows it). */
const phoneIn = (language: 'en' | 'hi') => ({
  viewport: { width: 360, height: 740 },
  deviceScaleFactor: 2,
  isMobile: true,
  hasTouch: true,
  locale: `${language}-IN`,
  extraHTTPHeaders: { 'accept-language': `${language}-IN,${language};q=0.9` },
});

/** A tab on the slowed phone: Slow 4G, no cache, the CPU 4x slower. */
async function slowPhone(context: BrowserContext): Promise<{ page: Page; cdp: CDPSession }> {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  await cdp.send('Network.emulateNetworkConditions', SLOW_4G);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: CPU_SLOWDOWN });
  return { page, cdp };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

const businesses = await prepare();
const server = await start(
  'src/server.ts',
  [],
  {
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_BASE_URL: base,
    WORKERS: 'false',
    LOG_LEVEL: 'warn',
  },
  '',
);
const browser = await launchChromium();
try {
  await (async function waitForServer() {
    for (let i = 0; i < 1200; i++) {
      if (
        await fetch(`${base}/healthz`).then(
          (r) => r.ok,
          () => false,
        )
      )
        return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error('the server did not start in 120 s');
  })();
  console.log(
    `${rounds} rounds; Slow 4G (562.5 ms RTT, 1.44 Mbit/s down), CPU ${CPU_SLOWDOWN}x slower; first contentful paint, median`,
  );
  console.log('| language | page | bytes | server ms | bare ms | ratio | server rounds |');
  console.log('|---|---|---|---|---|---|---|');
  for (const { language, apiKey, link } of businesses) {
    const { payPath } = await pay(apiKey);
    const context = await browser.newContext(phoneIn(language));
    const signIn = await context.newPage();
    await signIn.goto(`${base}${new URL(link).pathname}`);
    const paths = await pagesOf(context, payPath);
    const bytes = new Map<string, string>();
    for (const p of paths) bytes.set(p, await (await context.request.get(base + p)).text());
    // The sign-in page, as someone not yet signed in sees it (in the browser's language).
    const anonymous = await browser.newContext(phoneIn(language));
    bytes.set('/dashboard/login', await (await anonymous.request.get(`${base}/dashboard/login`)).text());
    const bare = await bareServer(bytes);
    const signedIn = await slowPhone(context);
    const signedOut = await slowPhone(anonymous);
    for (const p of [...paths, '/dashboard/login']) {
      const { page, cdp } = p === '/dashboard/login' ? signedOut : signedIn;
      const real: number[] = [];
      const plain: number[] = [];
      for (let r = 0; r < rounds; r++) {
        // Alternated: which server goes first changes every round.
        if (r % 2 === 0) {
          real.push(await timeToContent(page, cdp, base + p));
          plain.push(await timeToContent(page, cdp, bare.base + p));
        } else {
          plain.push(await timeToContent(page, cdp, bare.base + p));
          real.push(await timeToContent(page, cdp, base + p));
        }
      }
      const size = Buffer.byteLength(bytes.get(p) ?? '');
      const name = p.replace(/[0-9a-f-]{36}|(?<=\/(pay|a)\/)[\w-]+/g, ':id');
      console.log(
        `| ${language} | ${name} | ${size} | ${median(real).toFixed(0)} | ${median(plain).toFixed(0)} | ${(median(real) / median(plain)).toFixed(2)} | ${real.map((x) => x.toFixed(0)).join(', ')} |`,
      );
    }
    bare.server.close();
    await context.close();
    await anonymous.close();
  }
} finally {
  await browser.close();
  await stop(server);
  rmSync(dataDir, { recursive: true, force: true });
}
