/**
 * What a person reads on a server-rendered page, for the language tests: the text, the <title>
 * and the attributes that are shown or read aloud. Scripts, styles and drawings are not read;
 * <code> holds technical text shown as such (a key, a CSV column name); a <textarea> holds what the
 * person typed.
 */
const SHOWN_ATTRIBUTES = /\s(?:aria-label|title|placeholder|alt|data-done)="([^"]*)"/g;
const ENTITIES: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'" };

export function shownText(html: string): string {
  const attributes = [...html.matchAll(SHOWN_ATTRIBUTES)].map((m) => m[1]);
  const buttons = [...html.matchAll(/<input[^>]*type="submit"[^>]*value="([^"]*)"/g)].map((m) => m[1]);
  const text = html.replace(/<(script|style|code|svg|textarea)\b[\s\S]*?<\/\1>/g, ' ').replace(/<[^>]+>/g, ' ');
  return [text, ...attributes, ...buttons]
    .join(' ')
    .replace(/&(amp|lt|gt|quot|#39);/g, (e) => ENTITIES[e] as string)
    .replace(/\s+/g, ' ');
}

/** Words that are the same in every language: names of things, not English. */
const SAME_IN_EVERY_LANGUAGE = new Set(['UPI', 'ID', 'QR', 'WhatsApp', 'CSV', 'API', 'HTTPS', 'URL', 'UTR']);

/**
 * The English words left on a page that should be in another script: every run of Latin letters
 * that is not a name of a thing, a value the page was given (`data`), a link, an address or an
 * identifier with digits. Each is returned with the text around it.
 */
export function leftoverEnglish(html: string, data: readonly string[] = []): string[] {
  let text = shownText(html)
    .replace(/\b[a-z][a-z0-9+.-]*:\/\/\S*|\bupi:\S+/gi, ' ')
    .replace(/\S+@\S+/g, ' ');
  for (const value of data) text = text.split(value).join(' ');
  text = text.replace(/\S*\d\S*/g, ' ');
  const found: string[] = [];
  for (const m of text.matchAll(/[A-Za-z]+/g)) {
    if (SAME_IN_EVERY_LANGUAGE.has(m[0])) continue;
    found.push(`${m[0]}  «${text.slice(Math.max(0, m.index - 30), m.index + m[0].length + 30).trim()}»`);
  }
  return found;
}
