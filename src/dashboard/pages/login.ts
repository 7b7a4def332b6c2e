import { acceptedLanguage } from '../../i18n/index.js';
import { html } from '../../paypage/html.js';
import { type Translate, translator } from '../i18n.js';
import { layout, type PageChrome } from '../layout.js';

/**
 * The sign-in pages know no business yet, so they speak English unless the browser asks for
 * Hindi first.
 */
export function loginTranslator(acceptLanguage: string | undefined): { t: Translate; language: string } {
  const language = acceptedLanguage(acceptLanguage);
  return { t: translator(language), language };
}

export function renderLogin(
  lang: { t: Translate; language: string },
  d: { csrf: string; phone?: string; codeSent?: boolean },
  flash?: PageChrome['flash'],
): string {
  const { t } = lang;
  const body = html`<h1>${t('login.title')}</h1>
<form class="card" method="post" action="/dashboard/login">
<input type="hidden" name="_csrf" value="${d.csrf}">
<label for="phone">${t('login.phone')}</label><input id="phone" name="phone" type="tel" autocomplete="tel" required maxlength="40" value="${d.phone ?? ''}">
${
  d.codeSent
    ? html`<label for="code">${t('login.code')}</label><input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6" required>
<div class="actions"><button type="submit" name="action" value="verify">${t('login.sign_in')}</button><button type="submit" class="secondary" name="action" value="send" formnovalidate>${t('login.send_code')}</button></div>`
    : html`<div class="actions"><button type="submit" name="action" value="send">${t('login.send_code')}</button></div>`
}
</form>`;
  return layout({ t, language: lang.language, title: t('login.title'), flash }, body);
}

export function renderMessage(
  lang: { t: Translate; language: string },
  title: string,
  text: string,
  link?: { href: string; label: string },
): string {
  return layout(
    { t: lang.t, language: lang.language, title },
    html`<h1>${title}</h1><section class="card"><p>${text}</p>${link ? html`<p><a href="${link.href}">${link.label}</a></p>` : ''}</section>`,
  );
}
