import type { BusinessRow } from '../../businesses/repository.js';
import { formatDate, formatInstant, formatMoney } from '../../i18n/format.js';
import { type Language, languageOf } from '../../i18n/index.js';
import { html, type Markup } from '../../paypage/html.js';
import { type Action, may } from '../../users/permissions.js';
import type { SessionUser } from '../auth.js';
import { type Translate, translator } from '../i18n.js';
import type { PageChrome, Section } from '../layout.js';

/** What a role must be allowed to open each section of the navigation. */
const SECTION_ACTIONS: ReadonlyArray<[Section, Action]> = [
  ['home', 'summary.read'],
  ['dues', 'summary.read'],
  ['contacts', 'contacts.read'],
  ['bank', 'bank.read'],
  ['import', 'import'],
  ['settings', 'settings.read'],
  ['developers', 'developers.read'],
  ['users', 'users.read'],
  ['audit', 'audit.read'],
];

/** What every signed-in page is rendered with: the business's words, money and time zone. */
export interface View {
  business: BusinessRow;
  /** who is signed in: what they may do decides which forms a page shows (users/permissions.ts) */
  user: SessionUser;
  /** the business's language: every word, date and number of the page */
  lang: Language;
  t: Translate;
  csrfToken: string;
  /** whether the signed-in user's role may take this action (a form it may not use is not shown) */
  may(action: Action): boolean;
  money(paise: number | string): string;
  date(isoDate: string): string;
  instant(iso: string): string;
  chrome(title: string, current: Section, flash?: PageChrome['flash']): PageChrome;
}

export function viewFor(business: BusinessRow, csrfToken: string, user: SessionUser): View {
  const lang = languageOf(business.language);
  const t = translator(lang);
  return {
    business,
    user,
    lang,
    t,
    csrfToken,
    may: (action) => may(user.role, action),
    money: (paise) => formatMoney(lang, Number(paise), business.currency),
    date: (isoDate) => formatDate(lang, isoDate),
    instant: (iso) => formatInstant(lang, iso, business.timezone),
    chrome: (title, current, flash) => ({
      t,
      language: business.language,
      title,
      // Staff see whose session it is; the owner's name is the business's own.
      nav: {
        businessName: business.name,
        userName: user.role === 'owner' ? '' : user.name,
        current,
        csrfToken,
        sections: SECTION_ACTIONS.filter(([, action]) => may(user.role, action)).map(([section]) => section),
      },
      flash,
    }),
  };
}

export function statusBadge(v: View, status: string): Markup {
  const key = `status.${status}` as Parameters<Translate>[0];
  return html`<span class="status status-${status}">${v.t(key)}</span>`;
}

/** Previous/next links that keep the list's filters. */
export function pager(
  v: View,
  base: string,
  params: Record<string, string | undefined>,
  page: number,
  pages: number,
): Markup {
  const link = (p: number) => {
    const q = new URLSearchParams();
    for (const [k, value] of Object.entries(params)) if (value) q.set(k, value);
    q.set('page', String(p));
    return `${base}?${q.toString()}`;
  };
  return html`<div class="pager">${
    page > 1
      ? html`<a class="button secondary" href="${link(page - 1)}">${v.t('dues.previous')}</a>`
      : html`<span></span>`
  }<span class="muted">${v.t('dues.page', { page, pages })}</span>${
    page < pages
      ? html`<a class="button secondary" href="${link(page + 1)}">${v.t('dues.next')}</a>`
      : html`<span></span>`
  }</div>`;
}
