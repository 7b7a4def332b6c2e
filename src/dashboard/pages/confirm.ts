import { html, type Markup } from '../../paypage/html.js';
import { csrfField, layout, type PageChrome, type Section } from '../layout.js';
import type { View } from './view.js';

/**
 * The second step of an action that cannot be taken back by a tap (deleting a due, marking it fully
 * paid, reversing a receipt, merging two buyers): what will happen, and one button that does it.
 * Without JavaScript the first step is a link here; nothing changes until this form is sent.
 */
export interface Confirmation {
  title: string;
  /** what will happen, in a sentence or two */
  text: string;
  action: string;
  button: string;
  danger?: boolean;
  /** the form's own fields (a reversal's reason) */
  fields?: Markup;
  back: string;
  section: Section;
}

export function renderConfirm(v: View, c: Confirmation, flash?: PageChrome['flash']): string {
  const { t } = v;
  const body = html`<h1>${c.title}</h1>
<form class="card" method="post" action="${c.action}">${csrfField(v.csrfToken)}
<p>${c.text}</p>${c.fields ?? ''}
<div class="actions"><button type="submit"${c.danger ? html` class="danger"` : ''}>${c.button}</button><a class="button secondary" href="${c.back}">${t('common.cancel')}</a></div>
</form>`;
  return layout(v.chrome(c.title, c.section, flash), body);
}
