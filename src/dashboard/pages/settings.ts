import type { MessageKey } from '../../i18n/index.js';
import { html } from '../../paypage/html.js';
import { FAILING_SINCE, TURNED_OFF_BY_BUSINESS } from '../../webhooks/outcomes.js';
import type { DeliveryView, EndpointView } from '../../webhooks/service.js';
import { csrfField, layout, type PageChrome } from '../layout.js';
import type { View } from './view.js';

export interface SettingsValues {
  name: string;
  language: string;
  upi_id: string;
  reminder_steps: string;
}

export function renderSettings(v: View, values: SettingsValues, flash?: PageChrome['flash']): string {
  const { t, business } = v;
  const body = html`<h1>${t('settings.title')}</h1>
${
  v.may('settings.edit')
    ? html`<form class="card" method="post" action="/dashboard/settings">${csrfField(v.csrfToken)}
<label for="name">${t('settings.business_name')}</label><input id="name" name="name" required minlength="2" maxlength="120" value="${values.name}">
<label for="language">${t('settings.language')}</label><select id="language" name="language">
<option value="en"${values.language.startsWith('hi') ? '' : html` selected`}>${t('language.en')}</option>
<option value="hi"${values.language.startsWith('hi') ? html` selected` : ''}>${t('language.hi')}</option></select>
<label for="upi_id">${t('settings.upi_id')}</label><input id="upi_id" name="upi_id" maxlength="320" placeholder="shop@okbank" value="${values.upi_id}" aria-describedby="upi-help">
<p id="upi-help" class="muted">${t('settings.upi_help')}</p>
<label for="reminder_steps">${t('settings.reminder_steps')}</label><input id="reminder_steps" name="reminder_steps" maxlength="60" inputmode="numeric" placeholder="-3,0,7,30" value="${values.reminder_steps}" aria-describedby="steps-help">
<p id="steps-help" class="muted">${t('settings.reminder_steps_help')}</p>
<label class="check"><input type="checkbox" name="reminders_paused" value="true"${business.reminders_paused ? html` checked` : ''}>${t('settings.pause_all')}</label>
<div class="actions"><button type="submit">${t('settings.save')}</button></div>
</form>`
    : ''
}
<section class="card" aria-labelledby="biz-h"><h2 id="biz-h">${t('settings.business')}</h2>
<dl><dt>${t('contact.phone')}</dt><dd>${business.phone}</dd></dl>
</section>`;
  return layout(v.chrome(t('settings.title'), 'settings', flash), body);
}

export interface DevelopersData {
  keys: Array<{
    id: string;
    prefix: string;
    created_at: string;
    last_used_at: string | null;
    revoked_at: string | null;
    source: string;
  }>;
  newKey?: string | undefined;
  endpoints: Array<EndpointView & { deliveries: DeliveryView[] }>;
  newSecret?: string | undefined;
  /** a rotated endpoint's new secret, shown in this one page only */
  rotatedSecret?: string | undefined;
  url?: string | undefined;
  /** the newest events, newest first */
  events: Array<{ id: string; type: string; created_at: string }>;
}

/** Why an endpoint is off, in the business's language. */
function disabledReason(v: View, reason: string): string {
  if (reason === TURNED_OFF_BY_BUSINESS) return v.t('developers.off_by_business');
  if (reason.startsWith(FAILING_SINCE)) {
    return v.t('developers.off_failing', { since: v.instant(reason.slice(FAILING_SINCE.length)) });
  }
  return reason;
}

export function renderDevelopers(v: View, d: DevelopersData, flash?: PageChrome['flash']): string {
  const { t } = v;
  // Only the owner manages keys and webhooks (users/permissions.ts): others see them without buttons.
  const post = (action: string, label: string, cls = 'secondary') =>
    v.may(action.startsWith('/dashboard/developers/keys') ? 'keys.manage' : 'webhooks.manage')
      ? html`<form class="inline" method="post" action="${action}">${csrfField(v.csrfToken)}<button type="submit" class="${cls}">${label}</button></form>`
      : '';
  const body = html`<h1>${t('developers.title')}</h1>
<section class="card" aria-labelledby="keys-h"><h2 id="keys-h">${t('developers.keys')}</h2>
${d.newKey ? html`<p class="notice" role="status">${t('developers.new_key')}<code class="key">${d.newKey}</code></p>` : ''}
<ul class="list">${d.keys.map(
    (k) =>
      html`<li><span><code>${k.prefix}…</code><br><span class="muted">${t(`key_source.${k.source}` as MessageKey)} · ${v.instant(k.created_at)} · ${t('developers.last_used')} ${k.last_used_at ? v.instant(k.last_used_at) : t('developers.never')}${k.revoked_at ? html` · ${t('developers.revoked')} ${v.instant(k.revoked_at)}` : ''}</span></span>${
        k.revoked_at ? '' : post(`/dashboard/developers/keys/${k.id}/revoke`, t('developers.revoke'), 'danger')
      }</li>`,
  )}</ul>
<div class="actions">${post('/dashboard/developers/keys', t('developers.issue'), '')}</div>
</section>
<section class="card" aria-labelledby="hooks-h"><h2 id="hooks-h">${t('developers.webhooks')}</h2>
${d.newSecret ? html`<p class="notice" role="status">${t('developers.secret')}<code class="key">${d.newSecret}</code></p>` : ''}
${d.rotatedSecret ? html`<p class="notice" role="status">${t('developers.rotated')}<code class="key">${d.rotatedSecret}</code></p>` : ''}
${
  d.endpoints.length === 0
    ? html`<p class="muted">${t('developers.none')}</p>`
    : d.endpoints.map(
        (
          e,
        ) => html`<article class="card"><h3>${e.row.url}</h3><p class="muted">${e.events.map((name, i) => html`${i > 0 ? ', ' : ''}<code>${name}</code>`)}</p>
${e.row.active === 1 ? '' : html`<p class="error" role="status">${t('developers.disabled', { reason: disabledReason(v, e.row.disabled_reason ?? '') })}</p>`}
<div class="actions">${
          e.row.active === 1
            ? html`${post(`/dashboard/developers/webhooks/${e.row.id}/test`, t('developers.test'))}${post(`/dashboard/developers/webhooks/${e.row.id}/replay`, t('developers.replay_day'))}`
            : post(`/dashboard/developers/webhooks/${e.row.id}/enable`, t('developers.enable'), '')
        }${post(`/dashboard/developers/webhooks/${e.row.id}/rotate`, t('developers.rotate'))}${post(`/dashboard/developers/webhooks/${e.row.id}/delete`, t('developers.remove'), 'danger')}</div>
<h4>${t('developers.deliveries')}</h4>${
          e.deliveries.length === 0
            ? html`<p class="muted">—</p>`
            : html`<ul class="list">${e.deliveries.map(
                (dl) =>
                  html`<li><span><code>${dl.delivery.event}</code> · ${t(`delivery.${dl.delivery.status}` as MessageKey)}${dl.delivery.response_status ? html` (${dl.delivery.response_status})` : ''}<br><span class="muted">${v.instant(dl.delivery.created_at)}${dl.delivery.error ? html` · <code>${dl.delivery.error}</code>` : ''}</span></span>${post(`/dashboard/developers/webhooks/${e.row.id}/deliveries/${dl.delivery.id}/redeliver`, t('developers.redeliver'))}</li>`,
              )}</ul>`
        }</article>`,
      )
}
${
  v.may('webhooks.manage')
    ? html`<form method="post" action="/dashboard/developers/webhooks">${csrfField(v.csrfToken)}
<label for="url">${t('developers.url')}</label><input id="url" name="url" type="url" required maxlength="2048" placeholder="https://erp.example.com/hooks" value="${d.url ?? ''}">
<div class="actions"><button type="submit">${t('developers.add_webhook')}</button></div>
</form>`
    : ''
}
</section>
<section class="card" aria-labelledby="events-h"><h2 id="events-h">${t('developers.events')}</h2>
${
  d.events.length === 0
    ? html`<p class="muted">${t('developers.no_events')}</p>`
    : html`<ul class="list">${d.events.map(
        (ev) =>
          html`<li><span><code>${ev.type}</code><br><span class="muted">${v.instant(ev.created_at)} · <code>${ev.id}</code></span></span></li>`,
      )}</ul>`
}
</section>`;
  return layout(v.chrome(t('developers.title'), 'developers', flash), body);
}
