import { ConfirmAccountClaimBody } from '../claims/schema.js';
import type { App } from '../http/types.js';
import { checkId, type Form, viewOf } from './common.js';
import { formError } from './errors.js';
import { checkBody, rupeesToPaise } from './forms.js';
import { seeOther, sendPage } from './http.js';
import { type AccountClaimItem, accountClaimConfirmation } from './pages/account-claims.js';
import { renderConfirm } from './pages/confirm.js';
import type { View } from './pages/view.js';

type ClaimRoute = { Params: { id: string; claimId: string }; Body: Form };

/**
 * A buyer's account claims decided from the dashboard (PRODUCT parts 18 and 20): each decision is
 * a link to a second step that says what will happen (confirm: with the amount received, the
 * buyer's by default), and only that step's form changes anything. Another buyer's or business's
 * claim: 404; a claim decided already: 409 on the step, nothing changed.
 */
export async function accountClaimRoutes(app: App) {
  const { claims, contacts, transactions } = app.deps.services;

  const itemOf = async (v: View, id: string, claimId: string): Promise<AccountClaimItem> => {
    const claim = await claims.getAccountClaim(v.business, id, claimId);
    const { contact } = await contacts.get(v.business, id, transactions.today(v.business));
    return {
      id: claim.id,
      contact_id: id,
      contact_name: contact.name,
      amount: Number(claim.amount_paise),
      reference: claim.reference,
      created_at: claim.created_at,
    };
  };

  for (const decision of ['confirm', 'reject'] as const) {
    const path = `/contacts/:id/claims/:claimId/${decision}`;

    app.get<ClaimRoute>(path, { schema: { hide: true } }, async (request, reply) => {
      const v = viewOf(request);
      const item = await itemOf(v, checkId(request.params.id), checkId(request.params.claimId));
      return sendPage(reply, 200, renderConfirm(v, accountClaimConfirmation(v, item, decision)));
    });

    app.post<ClaimRoute>(path, { schema: { hide: true } }, async (request, reply) => {
      const v = viewOf(request);
      const id = checkId(request.params.id);
      const claimId = checkId(request.params.claimId);
      const item = await itemOf(v, id, claimId);
      const amount = request.body.amount ?? '';
      try {
        if (decision === 'confirm') {
          // An emptied field is the buyer's amount, as the API's default.
          const body = checkBody<{ amount_paise?: number }>(
            ConfirmAccountClaimBody,
            amount.trim() === '' ? {} : { amount_paise: rupeesToPaise(amount, 'amount') },
          );
          await claims.confirmAccount(v.business, id, claimId, body);
        } else {
          await claims.reject(v.business, { contactId: id }, claimId);
        }
      } catch (error) {
        const { status, flash } = formError(error, v.t);
        return sendPage(reply, status, renderConfirm(v, accountClaimConfirmation(v, item, decision, amount), flash));
      }
      return seeOther(reply, `/dashboard/contacts/${id}?ok=${decision === 'confirm' ? 'confirmed' : 'rejected'}`);
    });
  }
}
