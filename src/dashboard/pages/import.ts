import { refusalText } from '../../i18n/refusal.js';
import { html, htmlWith } from '../../paypage/html.js';
import { csrfField, layout, type PageChrome } from '../layout.js';
import type { View } from './view.js';

export interface ImportPage {
  csv: string;
  once: string;
  preview?: { created: number; contacts_created: number };
  rows?: Array<{ row: number; field?: string; message: string }>;
}

/** The file's columns, named as the file must name them. */
const COLUMNS = html`<code>contact_name</code>, <code>contact_phone</code>, <code>amount</code> / <code>amount_paise</code>, <code>due_date</code>, <code>invoice_number</code>, <code>notes</code>`;

export function renderImport(v: View, d: ImportPage, flash?: PageChrome['flash']): string {
  const { t } = v;
  const body = html`<h1>${t('import.title')}</h1>
<section class="card" aria-labelledby="export-h"><h2 id="export-h">${t('import.export_title')}</h2>
<div class="actions"><a class="button secondary" href="/dashboard/export">${t('import.export')}</a><a class="button secondary" href="/dashboard/export?status=outstanding">${t('import.export_outstanding')}</a></div></section>
<section class="card" aria-labelledby="import-h"><h2 id="import-h">${t('import.import_title')}</h2>
<p class="muted">${htmlWith(t('import.columns'), { columns: COLUMNS })} ${t('import.help')}</p>
${
  d.rows && d.rows.length > 0
    ? html`<ul class="list" aria-label="${t('import.row_errors')}">${d.rows.map(
        (r) =>
          html`<li><span>${t('import.row', { row: r.row })}${r.field ? html` · <code>${r.field}</code>` : ''}</span><span>${refusalText(t, r)}</span></li>`,
      )}</ul>`
    : ''
}
${d.preview ? html`<p class="notice" role="status">${t('import.preview', { created: d.preview.created, contacts: d.preview.contacts_created })}</p>` : ''}
<form method="post" action="/dashboard/import">${csrfField(v.csrfToken)}<input type="hidden" name="once" value="${d.once}">
<div class="file" hidden><label for="file">${t('import.file')}</label><input id="file" type="file" accept=".csv,text/csv" data-into="csv"></div>
<label for="csv">${t('import.csv')}</label><textarea id="csv" name="csv" rows="8" required>${d.csv}</textarea>
<div class="actions"><button type="submit" name="action" value="preview"${d.preview ? html` class="secondary"` : ''}>${t('import.check')}</button>${
    d.preview
      ? html`<button type="submit" name="action" value="import">${t('import.import', { created: d.preview.created })}</button>`
      : ''
  }</div>
</form></section>`;
  return layout(v.chrome(t('import.title'), 'import', flash), body);
}
