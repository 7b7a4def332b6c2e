import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { type Browser, chromium } from 'playwright-core';

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
