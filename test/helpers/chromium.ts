import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { type Browser, chromium, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { type Harness, startHarness } from './harness.js';

/** Debian's Chromium, driven by playwright-core (no browser download). */
export const CHROMIUM = '/usr/bin/chromium';

/** Launches headless Chromium; a missing one fails the calling test, it never skips (.ci/run installs it). */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (see .ci/run)`);
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** axe-core's script, injected into a page to check its accessibility. */
export const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

/**
 * axe-core on the page (evaluated over the DevTools protocol, so the page's CSP stays as served):
 * a serious or critical violation fails the calling test, named by `name`, with what and where.
 */
export async function expectAccessible(page: Page, name: string): Promise<void> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate<AxeViolation[]>(
    `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) })))`,
  );
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(serious, `${name}: ${JSON.stringify(serious, null, 1)}`).toEqual([]);
}

export const PHONE = { width: 360, height: 740 };
export const DESKTOP = { width: 1280, height: 800 };
/** [label, viewport, language, JavaScript]: axe-core needs JavaScript; the pages themselves do not. */
export const PAGE_CASES = [
  ['phone', PHONE, 'en', true],
  ['phone', PHONE, 'hi', true],
  ['desktop', DESKTOP, 'en', true],
  ['desktop', DESKTOP, 'hi', true],
  ['phone-nojs', PHONE, 'en', false],
] as const;

/** A harness serving on a local port, its address, Chromium, and a folder for the screenshots. */
export interface BrowserHarness {
  h: Harness;
  browser: Browser;
  /** `http://127.0.0.1:<port>` */
  base: string;
  close(): Promise<void>;
}

/** Starts a harness (options as startHarness's), listens on a free port, launches Chromium and makes `artifacts`. */
export async function startBrowserHarness(
  options: Parameters<typeof startHarness>[0],
  artifacts: string,
): Promise<BrowserHarness> {
  const h = await startHarness(options);
  let browser: Browser;
  try {
    await h.app.listen({ host: '127.0.0.1', port: 0 });
    mkdirSync(artifacts, { recursive: true });
    browser = await launchChromium();
  } catch (error) {
    await h.close();
    throw error;
  }
  const base = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
  return {
    h,
    browser,
    base,
    close: async () => {
      await browser.close();
      await h.close();
    },
  };
}
