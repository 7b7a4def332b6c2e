import type { AuditEntry } from '../../audit/read.js';
import { AUDIT_ENTITIES } from '../../audit/record.js';
import { html, type Markup } from '../../paypage/html.js';
import { isMessageKey } from '../i18n.js';
import { layout, type PageChrome } from '../layout.js';
import type { View } from './view.js';

/** Entries per page of the activity log; the History of a due or a buyer shows the newest few. */
export const AUDIT_PAGE = 50;
export const HISTORY_SHOWN = 10;

/** The page a entry's entity has on the dashboard, if it has one. */
function entityHref(e: AuditEntry): string | null {
  if (e.entity === 'transaction') return `/dashboard/dues/${e.entity_id}`;
  if (e.entity === 'contact') return `/dashboard/contacts/${e.entity_id}`;
  return null;
}

/** What was done, in words: "Due created", "उधार बनाया गया"; an action the catalogue lacks says "changed". */
function actionText(v: View, e: AuditEntry): string {
  const entity = `audit.entity.${e.entity}`;
  const verb = `audit.verb.${e.action.slice(e.action.indexOf('.') + 1)}`;
  return v.t('audit.what', {
    entity: isMessageKey(entity) ? v.t(entity) : e.entity,
    verb: v.t(isMessageKey(verb) ? verb : 'audit.verb.changed'),
  });
}

function actorText(v: View, e: AuditEntry): Markup | string {
  const { type, name } = e.actor;
  if (type === 'system' || !name) return v.t('audit.actor.system');
  if (type !== 'api_key') return v.t(`audit.actor.${type}`, { name });
  // a key is named by its prefix: an identifier, shown as one
  const [before = '', after = ''] = v.t('audit.actor.api_key', { name: '\u0000' }).split('\u0000');
  return html`${before}<code>${name}</code>${after}`;
}

/** Fields whose values are words of the catalogue: the value's key is `prefix.value`. */
const VALUE_WORDS: Record<string, string> = {
  status: 'status',
  payment_method: 'method',
  role: 'audit.role',
  source: 'audit.source',
};

/** Fields the store keeps as 0 or 1: shown as no or yes. */
const FLAG_FIELDS = new Set(['reminders_paused', 'active']);

/** A value as the owner reads it: money in rupees, dates and times in the page's language, yes/no. */
function valueText(v: View, field: string, value: unknown): Markup | string {
  if (value === null || value === undefined || value === '') return '—';
  if (typeof value === 'boolean') return v.t(value ? 'audit.yes' : 'audit.no');
  if (FLAG_FIELDS.has(field) && (value === 0 || value === 1)) return v.t(value === 1 ? 'audit.yes' : 'audit.no');
  if (field.endsWith('_paise') && (typeof value === 'number' || /^-?\d+$/.test(String(value)))) {
    return v.money(Number(value));
  }
  const text = String(value);
  // a list (a webhook's events) is written as JSON: shown as its items
  if (text.startsWith('[') && text.endsWith(']')) {
    try {
      const items: unknown = JSON.parse(text);
      if (Array.isArray(items)) return items.length === 0 ? '—' : html`<code>${items.map(String).join(', ')}</code>`;
    } catch {}
  }
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) return v.date(text);
  if (/^\d{4}-\d{2}-\d{2}T[\d:.]+Z$/.test(text)) return v.instant(text);
  // a due's status, how money came, a user's role and where a key was made are words of the catalogue
  const word = Object.hasOwn(VALUE_WORDS, field) ? `${VALUE_WORDS[field]}.${text}` : '';
  if (word && isMessageKey(word)) return v.t(word);
  // an identifier (an event's name, a key's prefix) is shown as one
  if (/^[a-z][\w.-]*[._][\w.-]*$/i.test(text) && !text.includes('://')) return html`<code>${text}</code>`;
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}

/** A field's name in the page's language; one the catalogue lacks is shown as the identifier it is. */
function fieldName(v: View, field: string): Markup | string {
  const key = `audit.field.${field}`;
  return isMessageKey(key) ? v.t(key) : html`<code>${field}</code>`;
}

function changesList(v: View, e: AuditEntry): Markup | string {
  const fields = Object.entries(e.changes);
  if (fields.length === 0) return '';
  return html`<ul class="changes">${fields.map(
    ([field, [before, after]]) =>
      html`<li>${fieldName(v, field)}: ${valueText(v, field, before)} → ${valueText(v, field, after)}</li>`,
  )}</ul>`;
}

/** One entry: what was done (a link to the due or buyer it was done to), who and when, each field before → after. */
export function auditItem(v: View, e: AuditEntry, linked: boolean): Markup {
  const what = actionText(v, e);
  const href = linked ? entityHref(e) : null;
  return html`<li><span>${href ? html`<a href="${href}">${what}</a>` : what}<br><span class="muted">${actorText(v, e)} · ${v.instant(e.at)}</span>${changesList(v, e)}</span></li>`;
}

/** The History section of a due's or a buyer's page: its newest entries, and (for who may) the whole log of it. */
export function historySection(v: View, entries: AuditEntry[], more: string | null): Markup {
  const { t } = v;
  return html`<section class="card" aria-labelledby="history-h"><h2 id="history-h">${t('audit.history')}</h2>${
    entries.length === 0
      ? html`<p class="muted">${t('audit.none')}</p>`
      : html`<ul class="list">${entries.slice(0, HISTORY_SHOWN).map((e) => auditItem(v, e, false))}</ul>`
  }${more && entries.length > HISTORY_SHOWN ? html`<p><a href="${more}">${t('audit.all_history')}</a></p>` : ''}</section>`;
}

export interface AuditLogData {
  entries: AuditEntry[];
  /** the filter: one kind of entity, and one of them */
  entity: string;
  entityId: string;
  /** the next (older) page, when there is one */
  next: string | null;
}

/** The owner's activity log: every change, newest first, filtered by what changed, a page at a time. */
export function renderAuditLog(v: View, d: AuditLogData, flash?: PageChrome['flash']): string {
  const { t } = v;
  const body = html`<h1>${t('audit.title')}</h1>
<form class="card filters" method="get" action="/dashboard/audit">
<div><label for="entity">${t('audit.filter')}</label><select id="entity" name="entity">
<option value=""${d.entity === '' ? html` selected` : ''}>${t('audit.everything')}</option>${AUDIT_ENTITIES.map(
    (entity) =>
      html`<option value="${entity}"${d.entity === entity ? html` selected` : ''}>${t(`audit.entity.${entity}`)}</option>`,
  )}</select></div>${d.entityId ? html`<input type="hidden" name="id" value="${d.entityId}">` : ''}
<div><button type="submit">${t('dues.filter')}</button></div>
</form>
<section class="card" aria-label="${t('audit.title')}"><p class="muted">${t('audit.intro')}</p>${
    d.entries.length === 0
      ? html`<p>${t('audit.none')}</p>`
      : html`<ul class="list">${d.entries.map((e) => auditItem(v, e, true))}</ul>`
  }${d.next ? html`<div class="pager"><span></span><a class="button secondary" href="${d.next}">${t('audit.more')}</a></div>` : ''}</section>`;
  return layout(v.chrome(t('audit.title'), 'audit', flash), body);
}
