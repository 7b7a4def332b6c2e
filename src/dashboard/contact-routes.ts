import { ChannelError } from '../channels/channel.js';
import { accountUrl } from '../contacts/presenter.js';
import { AppError, errors } from '../errors.js';
import type { App } from '../http/types.js';
import { isUuid, randomToken } from '../lib/ids.js';
import { html } from '../paypage/html.js';
import { RecordReceiptBody, type RecordReceiptInput, ReverseBody } from '../receipts/schema.js';
import { defaultFrom, statementCsv } from '../statements/statement.js';
import { CreateTransactionBody, type CreateTransactionInput } from '../transactions/schema.js';
import { isScoped } from '../users/permissions.js';
import { auditEntriesForPage } from './audit-entries.js';
import { checkId, type Form, PAGE_SIZE, pageNumber, viewOf } from './common.js';
import { formError } from './errors.js';
import { checkBody, formOnce, optional, rupeesToPaise, searchText } from './forms.js';
import { outcomeFlash, seeOther, sendPage } from './http.js';
import { HISTORY_SHOWN } from './pages/audit.js';
import { renderConfirm } from './pages/confirm.js';
import {
  CONTACT_SORTS,
  type ContactSortChoice,
  overdueDays,
  REPLIES_SHOWN,
  renderContactList,
} from './pages/contacts.js';
import { CLAIMS_SHOWN, LEDGER_ENTRIES, type LedgerForm, renderLedger } from './pages/ledger.js';
import { renderStatement } from './pages/statement.js';
import type { View } from './pages/view.js';

type Query = Record<string, string | undefined>;
type IdRoute = { Params: { id: string }; Body: Form };

/** A buyer's contact language as the edit form sends it: empty is the business's. */
function buyerLanguage(value: string | undefined): 'en' | 'hi' | null {
  const text = (value ?? '').trim();
  if (text === '') return null;
  if (text === 'en' || text === 'hi') return text;
  throw errors.invalid('language', 'language must be en, hi or empty');
}

/** The buyers: their list by balance, and each buyer's page as their ledger (PRODUCT part 20). */
export async function contactRoutes(app: App) {
  const { services, config } = app.deps;
  const { transactions, contacts, receipts, statements, reminders, users } = services;

  const ledger = async (
    v: View,
    id: string,
    refused?: { open: LedgerForm; values: Record<string, string> },
    flash?: Parameters<typeof renderLedger>[2],
  ) => {
    const today = transactions.today(v.business);
    const { contact, standing } = await contacts.get(v.business, id, today);
    const [latest, replies, claims, history, people] = await Promise.all([
      statements.latest(v.business, id, LEDGER_ENTRIES),
      contacts.replies(v.business, id, REPLIES_SHOWN),
      services.claims.listPendingOfContact(v.business, id, CLAIMS_SHOWN),
      // one more than is shown: whether the whole history has more
      auditEntriesForPage(app, v, {
        entity: 'contact',
        entityId: contact.id,
        limit: HISTORY_SHOWN + 1,
      }),
      // who may be chosen in "Assigned to"; others are shown only who holds the buyer
      v.may('contacts.assign')
        ? users.list(v.business.id)
        : contact.assigned_to
          ? users.namesOf(v.business.id, [contact.assigned_to]).then((m) => [...m].map(([id, name]) => ({ id, name })))
          : [],
    ]);
    const url = accountUrl(config.publicBaseUrl, contact.account_token);
    const balance = Number(contact.balance_paise);
    const message = v.t('ledger.share_message', {
      contact: contact.name,
      business: v.business.name,
      amount: v.money(Math.max(balance, 0)),
      url: url ?? '',
    });
    return renderLedger(
      v,
      {
        contact,
        standing,
        overdueDays: overdueDays(contact.oldest_open_due, today),
        latest,
        period: { from: defaultFrom(today), to: today },
        replies,
        history,
        claims: claims.map((c) => ({
          id: c.id,
          contact_id: id,
          contact_name: contact.name,
          amount: Number(c.amount_paise),
          reference: c.reference,
          created_at: c.created_at,
        })),
        users: people.map((u) => ({ id: u.id, name: u.name })),
        accountUrl: url,
        // wa.me with the buyer's number opens their chat; without one, WhatsApp asks whom to send it to.
        whatsappUrl: url ? `https://wa.me/${contact.phone ?? ''}?text=${encodeURIComponent(message)}` : null,
        today,
        receiptOnce: randomToken(18),
        dueOnce: randomToken(18),
        ...(refused && { open: refused.open, values: refused.values }),
      },
      flash,
    );
  };

  app.get<{ Querystring: Query }>('/contacts', { schema: { hide: true } }, async (request, reply) => {
    const v = viewOf(request);
    const q = searchText(request.query.q);
    const page = pageNumber(request.query.page);
    const sort: ContactSortChoice = (CONTACT_SORTS as readonly string[]).includes(request.query.sort ?? '')
      ? (request.query.sort as ContactSortChoice)
      : 'balance_desc';
    const found = await contacts.list(
      v.business,
      { ...(q.length >= 2 && { search: q }), sort, limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE },
      // A collector's list is the buyers assigned to them.
      isScoped(v.user.role) ? { assignedTo: v.user.id } : {},
    );
    const pages = Math.max(1, Math.ceil(found.total / PAGE_SIZE));
    return sendPage(
      reply,
      200,
      renderContactList(v, {
        items: found.items,
        total: found.total,
        page,
        pages,
        q,
        sort,
        today: transactions.today(v.business),
        assignees: await users.namesOf(
          v.business.id,
          found.items.flatMap(({ contact }) => (contact.assigned_to ? [contact.assigned_to] : [])),
        ),
      }),
    );
  });

  app.get<{ Params: { id: string }; Querystring: Query }>(
    '/contacts/:id',
    { schema: { hide: true } },
    async (request, reply) => {
      const v = viewOf(request);
      const id = checkId(request.params.id);
      return sendPage(reply, 200, await ledger(v, id, undefined, outcomeFlash(v.t, request.query)));
    },
  );

  /** One form of the buyer's page: 303 back with its outcome, or the page again with the refusal and the form open. */
  const action = (path: string, open: LedgerForm, run: (v: View, id: string, form: Form) => Promise<string>) =>
    app.post<IdRoute>(`/contacts/:id/${path}`, { schema: { hide: true } }, async (request, reply) => {
      const v = viewOf(request);
      const id = checkId(request.params.id);
      try {
        return seeOther(reply, await run(v, id, request.body));
      } catch (error) {
        const { status, flash } = formError(error, v.t);
        const { _csrf, once, ...values } = request.body;
        const shown = Object.fromEntries(
          Object.entries(values).map(([k, value]) => [
            open === 'due' && k === 'amount' ? 'due_amount' : k,
            value ?? '',
          ]),
        );
        return sendPage(reply, status, await ledger(v, id, { open, values: shown }, flash));
      }
    });

  action('payments', 'receive', async (v, id, form) => {
    const input = checkBody<RecordReceiptInput>(RecordReceiptBody, {
      amount_paise: rupeesToPaise(form.amount, 'amount'),
      ...(optional(form.utr) && { utr: optional(form.utr) }),
      ...(form.payment_method && { payment_method: form.payment_method }),
      ...(optional(form.received_on) && { received_on: optional(form.received_on) }),
    });
    await receipts.record(
      v.business,
      id,
      {
        amountPaise: input.amount_paise,
        utr: input.utr,
        paymentMethod: input.payment_method,
        receivedOn: input.received_on,
        source: 'dashboard',
      },
      {
        idempotencyKey: formOnce(form, `dashboard.contacts.payments:${id}`, input),
        respond: () => ({ status: 303, body: {} }),
      },
    );
    return `/dashboard/contacts/${id}?ok=received`;
  });

  action('dues', 'due', async (v, id, form) => {
    const input = checkBody<CreateTransactionInput>(CreateTransactionBody, {
      amount_paise: rupeesToPaise(form.amount, 'amount'),
      due_date: (form.due_date ?? '').trim(),
      contact_id: id,
      ...(optional(form.invoice_number) && { invoice_number: optional(form.invoice_number) }),
      ...(optional(form.notes) && { notes: optional(form.notes) }),
    });
    try {
      await transactions.create(v.business, input, {
        idempotencyKey: formOnce(form, 'dashboard.transactions.create', input),
        respond: () => ({ status: 303, body: {} }),
      });
    } catch (error) {
      // Another business's contact, or one erased meanwhile: as any other id of another business.
      if (error instanceof AppError && error.field === 'contact_id') throw errors.notFound('contact');
      throw error;
    }
    return `/dashboard/contacts/${id}?ok=created`;
  });

  action('remind', 'remind', async (v, id) => {
    const due = await transactions.oldestOpen(v.business, id);
    if (!due) throw errors.conflict('nothing is owed: there is no open due to remind about');
    try {
      const result = await reminders.remind(v.business, due.id, {});
      return result.sent
        ? `/dashboard/contacts/${id}?ok=reminded`
        : `/dashboard/contacts/${id}?ok=held&reason=${result.reason}`;
    } catch (error) {
      if (!(error instanceof ChannelError)) throw error;
      return `/dashboard/contacts/${id}?ok=held&reason=channel_error`;
    }
  });

  action('edit', 'edit', async (v, id, form) => {
    const phone = optional(form.phone);
    await contacts.update(v.business, id, {
      name: (form.name ?? '').trim(),
      phone: phone ?? null,
      language: buyerLanguage(form.language),
    });
    return `/dashboard/contacts/${id}?ok=saved`;
  });

  action('assign', 'assign', async (v, id, form) => {
    const userId = (form.assigned_to ?? '').trim();
    if (userId !== '' && !isUuid(userId)) {
      throw errors.invalid('assigned_to', 'assigned_to is not the id of a user of this business');
    }
    await contacts.update(v.business, id, { assigned_to: userId === '' ? null : userId });
    return `/dashboard/contacts/${id}?ok=assigned`;
  });

  action('reminders', 'edit', async (v, id, form) => {
    await contacts.update(v.business, id, { reminders_paused: form.reminders_paused === 'true' });
    return `/dashboard/contacts/${id}?ok=saved`;
  });

  const statementOf = async (v: View, id: string, query: Query) =>
    statements.get(v.business, id, {
      ...(optional(query.from) && { from: optional(query.from) }),
      ...(optional(query.to) && { to: optional(query.to) }),
    });

  app.get<{ Params: { id: string }; Querystring: Query }>(
    '/contacts/:id/statement',
    { schema: { hide: true } },
    async (request, reply) => {
      const v = viewOf(request);
      const s = await statementOf(v, checkId(request.params.id), request.query);
      return sendPage(
        reply,
        200,
        renderStatement(v, { contact: s.contact, statement: { from: s.from, to: s.to, ...s.statement } }),
      );
    },
  );

  app.get<{ Params: { id: string }; Querystring: Query }>(
    '/contacts/:id/statement.csv',
    { schema: { hide: true } },
    async (request, reply) => {
      const v = viewOf(request);
      const s = await statementOf(v, checkId(request.params.id), request.query);
      return reply
        .header('cache-control', 'no-store')
        .header('x-content-type-options', 'nosniff')
        .header('content-disposition', `attachment; filename="statement-${s.from}-${s.to}.csv"`)
        .type('text/csv; charset=utf-8')
        .send(statementCsv(s.statement.entries));
    },
  );

  /** A receipt of this buyer (another buyer's or business's: 404). */
  const receiptOf = async (v: View, id: string, receiptId: string) => {
    const { receipt } = await receipts.get(v.business, receiptId);
    if (receipt.contact_id !== id) throw errors.notFound('payment');
    return receipt;
  };

  const reverseConfirm = async (v: View, id: string, receiptId: string, reason = '') => {
    const receipt = await receiptOf(v, id, receiptId);
    const { t } = v;
    return {
      title: t('reverse.title'),
      text: t('reverse.text', { amount: v.money(receipt.amount_paise), date: v.date(receipt.received_on) }),
      action: `/dashboard/contacts/${id}/payments/${receiptId}/reverse`,
      button: t('reverse.button'),
      danger: true,
      fields: html`<label for="reason">${t('reverse.reason')}</label><input id="reason" name="reason" required maxlength="200" value="${reason}">`,
      back: `/dashboard/contacts/${id}`,
      section: 'contacts' as const,
    };
  };

  app.get<{ Params: { id: string; receiptId: string } }>(
    '/contacts/:id/payments/:receiptId/reverse',
    { schema: { hide: true } },
    async (request, reply) => {
      const v = viewOf(request);
      const c = await reverseConfirm(v, checkId(request.params.id), checkId(request.params.receiptId));
      return sendPage(reply, 200, renderConfirm(v, c));
    },
  );

  app.post<{ Params: { id: string; receiptId: string }; Body: Form }>(
    '/contacts/:id/payments/:receiptId/reverse',
    { schema: { hide: true } },
    async (request, reply) => {
      const v = viewOf(request);
      const id = checkId(request.params.id);
      const receiptId = checkId(request.params.receiptId);
      const reason = (request.body.reason ?? '').trim();
      try {
        await receiptOf(v, id, receiptId);
        checkBody(ReverseBody, { reason });
        await receipts.reverse(v.business, receiptId, reason);
      } catch (error) {
        const { status, flash } = formError(error, v.t);
        return sendPage(reply, status, renderConfirm(v, await reverseConfirm(v, id, receiptId, reason), flash));
      }
      return seeOther(reply, `/dashboard/contacts/${id}?ok=reversed`);
    },
  );
}
