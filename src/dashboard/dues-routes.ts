import { ChannelError } from '../channels/channel.js';
import { AppError, errors } from '../errors.js';
import type { App } from '../http/types.js';
import { isCalendarDate } from '../lib/dates.js';
import { isUuid, randomToken } from '../lib/ids.js';
import { balanceOf, effectiveStatus, payPageUrl, promiseKept } from '../transactions/domain.js';
import type { PaymentSource } from '../transactions/payments.js';
import {
  CreateTransactionBody,
  type CreateTransactionInput,
  PatchTransactionBody,
  type PatchTransactionInput,
  RecordPaymentBody,
  type RecordPaymentInput,
} from '../transactions/schema.js';
import { auditEntriesForPage } from './audit-entries.js';
import { checkId, dueRow, type Form, PAGE_SIZE, pageNumber, viewOf } from './common.js';
import { formError } from './errors.js';
import { checkBody, formOnce, optional, rupeesToPaise, searchText } from './forms.js';
import { outcomeFlash, seeOther, sendPage } from './http.js';
import { HISTORY_SHOWN } from './pages/audit.js';
import { renderConfirm } from './pages/confirm.js';
import {
  DUE_STATUSES,
  type DueDetail,
  type DueFormValues,
  type DueStatusFilter,
  renderDue,
  renderDueList,
  renderNewDue,
} from './pages/dues.js';
import type { View } from './pages/view.js';

type Query = Record<string, string | undefined>;

/** A due-date bound of the list: empty is none; anything but a real calendar date is a 400 naming it. */
function dateFilter(value: string | undefined, field: string): string | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (!isCalendarDate(text)) throw errors.invalid(field, `${field} must be a calendar date YYYY-MM-DD`);
  return text;
}
type IdRoute = { Params: { id: string }; Body: Form };

const SOURCE: PaymentSource = 'dashboard';

/** Dues: list with search, filters and pages; add; and each due's page with its actions. */
export async function duesRoutes(app: App) {
  const { services, config } = app.deps;
  const { transactions, reminders, contacts } = services;

  const detail = async (v: View, id: string): Promise<DueDetail> => {
    const { due: row, reminders: steps } = await transactions.getWithReminders(v.business, id);
    const [payments, claims, history] = await Promise.all([
      transactions.listPayments(v.business, id),
      services.claims.list(v.business, { transactionId: id }),
      // one more than is shown: whether the whole history has more
      auditEntriesForPage(app, v, {
        entity: 'transaction',
        entityId: row.id,
        limit: HISTORY_SHOWN + 1,
      }),
    ]);
    const today = transactions.today(v.business);
    const payUrl = payPageUrl(config.publicBaseUrl, row.pay_token);
    const balance = balanceOf(row);
    const message = v.t('due.share_message', {
      contact: row.contact_name,
      amount: v.money(balance),
      business: v.business.name,
      date: v.date(row.due_date),
      url: payUrl,
    });
    return {
      id: row.id,
      contact_id: row.contact_id,
      contact_name: row.contact_name,
      contact_phone: row.contact_phone,
      status: effectiveStatus(row, today),
      amount: Number(row.amount_paise),
      paid: Number(row.amount_paid_paise),
      balance,
      due_date: row.due_date,
      invoice_number: row.invoice_number,
      notes: row.notes,
      created_at: row.created_at,
      paid_at: row.paid_at,
      reminders_paused: row.reminders_paused === 1,
      payUrl,
      paymentOnce: randomToken(18),
      // wa.me with the buyer's number opens their chat; without one, WhatsApp asks whom to send it to.
      whatsappUrl: `https://wa.me/${row.contact_phone ?? ''}?text=${encodeURIComponent(message)}`,
      steps,
      history,
      promiseDate: row.promise_date,
      promiseKept: promiseKept(row, v.business.timezone, today),
      claims: claims.map((c) => ({
        id: c.id,
        reference: c.reference,
        status: c.status,
        created_at: c.created_at,
        decided_at: c.decided_at,
      })),
      payments: payments.map((p) => ({
        amount: Number(p.amount_paise),
        payment_method: p.payment_method,
        utr: p.utr,
        source: p.source,
        created_at: p.created_at,
      })),
    };
  };

  app.get<{ Querystring: Query }>('/dues', { schema: { hide: true } }, async (request, reply) => {
    const v = viewOf(request);
    const q = searchText(request.query.q);
    const status: DueStatusFilter = (DUE_STATUSES as readonly string[]).includes(request.query.status ?? '')
      ? (request.query.status as DueStatusFilter)
      : 'outstanding';
    const contact = request.query.contact ? checkId(request.query.contact) : undefined;
    const page = pageNumber(request.query.page);
    const from = dateFilter(request.query.from, 'from');
    const to = dateFilter(request.query.to, 'to');
    const today = transactions.today(v.business);
    const found = await transactions.list(
      v.business,
      {
        ...(status !== 'all' && { status }),
        ...(contact && { contact_id: contact }),
        limit: PAGE_SIZE,
        offset: (page - 1) * PAGE_SIZE,
      },
      {
        ...(q.length > 0 && { fuzzyContactName: q }),
        ...(from && { dueFrom: from }),
        ...(to && { dueTo: to }),
      },
      today,
    );
    const pages = Math.max(1, Math.ceil(found.total / PAGE_SIZE));
    return sendPage(
      reply,
      200,
      renderDueList(
        v,
        {
          rows: found.rows.map((r) => dueRow(r, today)),
          total: found.total,
          page,
          pages,
          q,
          status,
          from: from ?? '',
          to: to ?? '',
        },
        outcomeFlash(v.t, request.query),
      ),
    );
  });

  app.get('/dues/new', { schema: { hide: true } }, async (request, reply) => {
    const v = viewOf(request);
    return sendPage(reply, 200, renderNewDue(v, { due_date: transactions.today(v.business), once: randomToken(18) }));
  });

  app.post<{ Body: Form }>('/dues', { schema: { hide: true } }, async (request, reply) => {
    const v = viewOf(request);
    const form = request.body;
    const values: DueFormValues = {
      contact_name: form.contact_name ?? '',
      contact_phone: form.contact_phone ?? '',
      amount: form.amount ?? '',
      due_date: form.due_date ?? '',
      invoice_number: form.invoice_number ?? '',
      notes: form.notes ?? '',
      once: form.once ?? randomToken(18),
    };
    try {
      const picked = optional(form.contact_id);
      if (picked !== undefined && !isUuid(picked)) throw errors.invalid('contact_id', 'contact_id must be a buyer id');
      const name = (form.contact_name ?? '').trim();
      const input = checkBody<CreateTransactionInput>(CreateTransactionBody, {
        amount_paise: rupeesToPaise(form.amount, 'amount'),
        due_date: (form.due_date ?? '').trim(),
        ...(picked === undefined ? { contact_name: name } : { contact_id: picked.toLowerCase() }),
        ...(optional(form.contact_phone) && { contact_phone: optional(form.contact_phone) }),
        ...(optional(form.invoice_number) && { invoice_number: optional(form.invoice_number) }),
        ...(optional(form.notes) && { notes: optional(form.notes) }),
      });
      // PRODUCT part 20: a name close to a buyer's asks first; the same name (any case) is that buyer.
      if (picked === undefined && form.new_contact !== '1') {
        const near = await contacts.similar(v.business, name);
        if (!near.exact && near.contacts.length > 0) {
          const ask = { typed: name, contacts: near.contacts.map((c) => ({ id: c.id, name: c.name })) };
          return sendPage(reply, 200, renderNewDue(v, values, undefined, ask));
        }
      }
      const answer = await transactions.create(v.business, input, {
        idempotencyKey: formOnce(form, 'dashboard.transactions.create', input),
        respond: ({ transaction }) => ({ status: 303, body: { id: transaction.id } }),
      });
      return seeOther(reply, `/dashboard/dues/${(answer.body as { id: string }).id}?ok=created`);
    } catch (error) {
      // A picked buyer of another business (or erased meanwhile) is answered as any other business's id.
      if (error instanceof AppError && error.field === 'contact_id' && error.code === 'unprocessable')
        throw errors.notFound('contact');
      const { status, flash } = formError(error, v.t);
      return sendPage(reply, status, renderNewDue(v, values, flash));
    }
  });

  app.get<{ Params: { id: string }; Querystring: Query }>(
    '/dues/:id',
    { schema: { hide: true } },
    async (request, reply) => {
      const v = viewOf(request);
      const d = await detail(v, checkId(request.params.id));
      return sendPage(reply, 200, renderDue(v, d, outcomeFlash(v.t, request.query)));
    },
  );

  /** Runs one action of a due's page: 303 back with its outcome, or the page again with the refusal. */
  const action = (path: string, run: (v: View, id: string, form: Form) => Promise<string>, editValues = false) =>
    app.post<IdRoute>(`/dues/:id/${path}`, { schema: { hide: true } }, async (request, reply) => {
      const v = viewOf(request);
      const id = checkId(request.params.id);
      try {
        return seeOther(reply, await run(v, id, request.body));
      } catch (error) {
        const { status, flash } = formError(error, v.t);
        const edit: DueFormValues | undefined = editValues
          ? {
              amount: request.body.amount ?? '',
              due_date: request.body.due_date ?? '',
              invoice_number: request.body.invoice_number ?? '',
              notes: request.body.notes ?? '',
              reminders_paused: request.body.reminders_paused === 'true',
            }
          : undefined;
        return sendPage(reply, status, renderDue(v, await detail(v, id), flash, edit));
      }
    });

  action(
    'edit',
    async (v, id, form) => {
      const input = checkBody<PatchTransactionInput>(PatchTransactionBody, {
        amount_paise: rupeesToPaise(form.amount, 'amount'),
        due_date: (form.due_date ?? '').trim(),
        invoice_number: optional(form.invoice_number) ?? null,
        notes: optional(form.notes) ?? null,
        reminders_paused: form.reminders_paused === 'true',
      });
      await transactions.update(v.business, id, input);
      return `/dashboard/dues/${id}?ok=saved`;
    },
    true,
  );

  action('payments', async (v, id, form) => {
    const input = checkBody<RecordPaymentInput>(RecordPaymentBody, {
      amount_paise: rupeesToPaise(form.amount, 'amount'),
      ...(optional(form.utr) && { utr: optional(form.utr) }),
      ...(form.payment_method && { payment_method: form.payment_method }),
    });
    await transactions.recordPayment(
      v.business,
      id,
      { amountPaise: input.amount_paise, utr: input.utr, paymentMethod: input.payment_method, source: SOURCE },
      {
        idempotencyKey: formOnce(form, `dashboard.payments.create:${id}`, input),
        respond: () => ({ status: 303, body: {} }),
      },
    );
    return `/dashboard/dues/${id}?ok=payment`;
  });

  // PRODUCT part 20: marking fully paid and deleting are asked again on a page of their own.
  const confirmations = {
    'mark-paid': {
      title: 'confirm.mark_paid_title',
      text: 'confirm.mark_paid_text',
      button: 'due.mark_paid',
      danger: false,
    },
    delete: { title: 'confirm.delete_title', text: 'confirm.delete_text', button: 'due.delete_confirm', danger: true },
  } as const;
  for (const [path, c] of Object.entries(confirmations)) {
    app.get<{ Params: { id: string } }>(`/dues/:id/${path}`, { schema: { hide: true } }, async (request, reply) => {
      const v = viewOf(request);
      const due = await transactions.get(v.business, checkId(request.params.id));
      const { t } = v;
      const params = { contact: due.contact_name, amount: v.money(balanceOf(due)), date: v.date(due.due_date) };
      return sendPage(
        reply,
        200,
        renderConfirm(v, {
          title: t(c.title),
          text: t(c.text, params),
          action: `/dashboard/dues/${due.id}/${path}`,
          button: t(c.button),
          danger: c.danger,
          back: `/dashboard/dues/${due.id}`,
          section: 'dues',
        }),
      );
    });
  }

  action('mark-paid', async (v, id) => {
    await transactions.markPaid(v.business, id, {}, SOURCE);
    return `/dashboard/dues/${id}?ok=paid`;
  });

  action('remind', async (v, id) => {
    try {
      const result = await reminders.remind(v.business, id, {});
      return result.sent
        ? `/dashboard/dues/${id}?ok=reminded`
        : `/dashboard/dues/${id}?ok=held&reason=${result.reason}`;
    } catch (error) {
      if (!(error instanceof ChannelError)) throw error;
      return `/dashboard/dues/${id}?ok=held&reason=channel_error`;
    }
  });

  // PRODUCT part 11: a buyer's "I have paid", confirmed (a payment of the balance, source claim) or rejected.
  for (const decision of ['confirm', 'reject'] as const) {
    app.post<{ Params: { id: string; claimId: string }; Body: Form }>(
      `/dues/:id/claims/:claimId/${decision}`,
      { schema: { hide: true } },
      async (request, reply) => {
        const v = viewOf(request);
        const id = checkId(request.params.id);
        const claimId = checkId(request.params.claimId);
        try {
          if (decision === 'confirm') await services.claims.confirm(v.business, id, claimId, {});
          else await services.claims.reject(v.business, { transactionId: id }, claimId);
        } catch (error) {
          const { status, flash } = formError(error, v.t);
          return sendPage(reply, status, renderDue(v, await detail(v, id), flash));
        }
        return seeOther(reply, `/dashboard/dues/${id}?ok=${decision === 'confirm' ? 'confirmed' : 'rejected'}`);
      },
    );
  }

  action('delete', async (v, id) => {
    await transactions.remove(v.business, id);
    return '/dashboard/dues?ok=deleted';
  });
}
