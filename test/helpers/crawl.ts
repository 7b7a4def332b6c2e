import type { DashboardClient, Page } from './dashboard.js';

/** A page's kind: its path with ids and tokens as ':id', and its query's names (not values). */
function kindOf(url: URL): string {
  const path = url.pathname.replace(/\/[0-9a-f]{8}-[0-9a-f-]{27}|\/[A-Za-z0-9_-]{16,}/gi, '/:id');
  return `${path}?${[...url.searchParams.keys()].sort().join('&')}`;
}

/**
 * Every page a person can reach by following links from `starts` (the dashboard's and the buyer's
 * pages: /dashboard, /pay/, /a/), at most `perKind` of each kind and `limit` in all, so a page
 * added later is read without being listed here. Pages that are not HTML (CSV exports) are skipped.
 */
export async function crawl(
  client: DashboardClient,
  starts: string[],
  options: { limit?: number; perKind?: number } = {},
): Promise<Map<string, Page>> {
  const { limit = 200, perKind = 2 } = options;
  const pages = new Map<string, Page>();
  const kinds = new Map<string, number>();
  const queue = [...starts];
  while (queue.length > 0 && pages.size < limit) {
    const href = queue.shift() as string;
    const url = new URL(href, 'http://pages.test');
    const key = url.pathname + url.search;
    const kind = kindOf(url);
    if (pages.has(key) || (kinds.get(kind) ?? 0) >= perKind) continue;
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
    const page = await client.get(key);
    if (!String(page.headers['content-type']).startsWith('text/html')) continue;
    pages.set(key, page);
    for (const m of page.text.matchAll(/<a\b[^>]*\shref="(\/[^"#]*)/g)) {
      const link = (m[1] as string).replace(/&amp;/g, '&');
      if (/^\/(dashboard|pay|a)\//.test(link) || link === '/dashboard') queue.push(link);
    }
  }
  return pages;
}
