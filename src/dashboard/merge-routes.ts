import { errors } from '../errors.js';
import type { App } from '../http/types.js';
import { isUuid } from '../lib/ids.js';
import { checkId, type Form, viewOf } from './common.js';
import { formError } from './errors.js';
import { searchText } from './forms.js';
import { seeOther, sendPage } from './http.js';
import type { PageChrome } from './layout.js';
import { renderConfirm } from './pages/confirm.js';
import { mergeConfirmation, renderMergeSearch } from './pages/merge.js';
import type { View } from './pages/view.js';

/** Buyers offered as the other one of a merge, per page. */
const CANDIDATES = 20;

/** The other buyer of a merge as a form or query names it: a UUID, else 400 naming merge_id. */
function otherId(value: string | undefined): string {
  const text = (value ?? '').trim();
  if (!isUuid(text)) throw errors.invalid('merge_id', 'merge_id must be the id of one of your buyers');
  return text.toLowerCase();
}

/**
 * "Merge with another buyer" on a buyer's page (PRODUCT part 20): find the other buyer, confirm
 * on a second step that says what moves and the balance after, then everything of the other buyer
 * moves to this one (contact-merge/service.ts) and the owner lands on this buyer's ledger.
 */
export async function mergeRoutes(app: App) {
  const { contacts, contactMerge, transactions } = app.deps.services;

  const searchPage = async (v: View, id: string, q: string, flash?: PageChrome['flash']) => {
    const { contact } = await contacts.get(v.business, id);
    const found = await contacts.list(v.business, {
      ...(q.length >= 2 && { search: q }),
      sort: 'name',
      limit: CANDIDATES + 1,
      offset: 0,
    });
    const candidates = found.items
      .map((i) => i.contact)
      .filter((c) => c.id !== id)
      .slice(0, CANDIDATES);
    return renderMergeSearch(v, { contact, q, candidates, today: transactions.today(v.business) }, flash);
  };

  app.get<{ Params: { id: string }; Querystring: Record<string, string | undefined> }>(
    '/contacts/:id/merge',
    { schema: { hide: true } },
    async (request, reply) => {
      const v = viewOf(request);
      const id = checkId(request.params.id);
      const other = request.query.with;
      if (other === undefined) return sendPage(reply, 200, await searchPage(v, id, searchText(request.query.q)));
      try {
        const preview = await contactMerge.preview(v.business, id, otherId(other));
        return sendPage(reply, 200, renderConfirm(v, mergeConfirmation(v, preview)));
      } catch (error) {
        const { status, flash } = formError(error, v.t);
        return sendPage(reply, status, await searchPage(v, id, '', flash));
      }
    },
  );

  app.post<{ Params: { id: string }; Body: Form }>(
    '/contacts/:id/merge',
    { schema: { hide: true } },
    async (request, reply) => {
      const v = viewOf(request);
      const id = checkId(request.params.id);
      try {
        await contactMerge.merge(v.business, id, otherId(request.body.merge_id));
      } catch (error) {
        const { status, flash } = formError(error, v.t);
        return sendPage(reply, status, await searchPage(v, id, '', flash));
      }
      return seeOther(reply, `/dashboard/contacts/${id}?ok=merged`);
    },
  );
}
