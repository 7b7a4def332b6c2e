import { MAX_ACTIVE_KEYS } from '../businesses/keys.js';
import { AppError, errors } from '../errors.js';
import type { App } from '../http/types.js';
import { EVENT_TYPES } from '../outbox/events.js';
import { balanceOf } from '../transactions/domain.js';
import { CreateWebhookBody } from '../webhooks/schema.js';
import { accountClaimRoutes } from './account-claim-routes.js';
import { auditPageRoutes } from './audit-routes.js';
import { bankPageRoutes } from './bank-routes.js';
import { checkId, type Form, viewOf } from './common.js';
import { contactRoutes } from './contact-routes.js';
import { duesRoutes } from './dues-routes.js';
import { formError } from './errors.js';
import { checkBody, optional } from './forms.js';
import { outcomeFlash, seeOther, sendPage } from './http.js';
import { importRoutes } from './import-routes.js';
import { mergeRoutes } from './merge-routes.js';
import { renderHome } from './pages/home.js';
import { type DevelopersData, renderDevelopers, renderSettings } from './pages/settings.js';
import type { View } from './pages/view.js';
import { usersRoutes } from './users-routes.js';

type Query = Record<string, string | undefined>;

/** Events listed on the developers page, newest first. */
const RECENT_EVENTS = 10;
const DAY_MS = 24 * 60 * 60 * 1000;
/** The buyers who owe most, on Home. */
const TOP_BUYERS = 5;

export async function signedInRoutes(app: App) {
  const { services } = app.deps;
  const { transactions, contacts, businesses, webhooks } = services;

  app.get<{ Querystring: Query }>('/', { schema: { hide: true } }, async (request, reply) => {
    const v = viewOf(request);
    const { business } = v;
    const today = transactions.today(business);
    const month = services.messaging.currentMonth(business, app.deps.clock.now());
    const [totals, aging, overdue, claims, unapplied, reminders, bankWaiting, owing] = await Promise.all([
      services.summary.get(business),
      services.summary.aging(business),
      transactions.list(business, { status: 'overdue', limit: 10 }, {}, today),
      services.claims.listPending(business, { limit: 10, offset: 0 }),
      services.moneyIn.listUnapplied(business, { limit: 5, offset: 0 }),
      services.messaging.remindersReturn(business, month),
      services.bank.count(business),
      contacts.topOwing(business, TOP_BUYERS),
    ]);
    return sendPage(
      reply,
      200,
      renderHome(
        v,
        {
          totals,
          topBuyers: owing,
          today,
          cannotPayOnline: !business.upi_id && app.deps.config.paymentsGateway === 'none',
          aging,
          unapplied: {
            total: unapplied.total,
            rows: unapplied.rows.map((u) => ({
              href:
                u.transaction_id !== null
                  ? `/dashboard/dues/${u.transaction_id}`
                  : `/dashboard/contacts/${u.contact_id ?? ''}`,
              paise: Number(u.unapplied_paise),
              reason: u.unapplied_reason ?? 'over_balance',
              reference: u.gateway_payment_id,
              created_at: u.created_at,
            })),
          },
          overdue: overdue.rows.map((r) => ({
            id: r.id,
            contact_name: r.contact_name,
            due_date: r.due_date,
            balance: balanceOf(r),
          })),
          overdueTotal: overdue.total,
          reminders,
          bankWaiting,
          claims: claims.map((c) =>
            c.kind === 'due'
              ? {
                  kind: 'due' as const,
                  transaction_id: c.transactionId,
                  contact_name: c.contactName,
                  reference: c.claim.reference,
                  created_at: c.claim.created_at,
                  balance: c.balancePaise,
                }
              : {
                  kind: 'account' as const,
                  id: c.claim.id,
                  contact_id: c.contactId,
                  contact_name: c.contactName,
                  amount: c.claimedPaise,
                  reference: c.claim.reference,
                  created_at: c.claim.created_at,
                },
          ),
        },
        outcomeFlash(v.t, request.query),
      ),
    );
  });

  await app.register(duesRoutes);

  await app.register(contactRoutes);
  await app.register(accountClaimRoutes);
  await app.register(mergeRoutes);

  await app.register(importRoutes);
  await app.register(bankPageRoutes);
  await app.register(usersRoutes);
  await app.register(auditPageRoutes);

  app.get<{ Querystring: Query }>('/settings', { schema: { hide: true } }, async (request, reply) => {
    const v = viewOf(request);
    const { business } = v;
    const values = {
      name: business.name,
      language: business.language,
      upi_id: business.upi_id ?? '',
      reminder_steps: business.reminder_steps,
    };
    return sendPage(reply, 200, renderSettings(v, values, outcomeFlash(v.t, request.query)));
  });

  app.post<{ Body: Form }>('/settings', { schema: { hide: true } }, async (request, reply) => {
    const v = viewOf(request);
    const form = request.body;
    const values = {
      // A form from before these fields were added keeps the business's name and language.
      name: (form.name ?? v.business.name).trim(),
      language: (form.language ?? v.business.language).trim(),
      upi_id: optional(form.upi_id) ?? '',
      reminder_steps: (form.reminder_steps ?? '').trim(),
    };
    try {
      if (values.language !== 'en' && values.language !== 'hi' && values.language !== v.business.language) {
        throw errors.invalid('language', 'language must be en or hi');
      }
      await businesses.update(v.business.id, {
        name: values.name,
        language: values.language,
        upiId: values.upi_id === '' ? null : values.upi_id,
        remindersPaused: form.reminders_paused === 'true',
        ...(values.reminder_steps !== '' && { reminderSteps: values.reminder_steps }),
      });
    } catch (error) {
      const { status, flash } = formError(error, v.t);
      return sendPage(reply, status, renderSettings(v, values, flash));
    }
    return seeOther(reply, '/dashboard/settings?ok=settings');
  });

  const developers = async (v: View, extra: Partial<DevelopersData> = {}) => {
    const [keys, endpoints, events] = await Promise.all([
      businesses.listKeys(v.business.id),
      webhooks.list(v.business),
      services.events.recent(v.business, RECENT_EVENTS),
    ]);
    const withDeliveries = await Promise.all(
      endpoints.map(async (e) => ({
        ...e,
        deliveries: (await webhooks.deliveries(v.business, e.row.id, { limit: 5, offset: 0 })).items,
      })),
    );
    return { keys, endpoints: withDeliveries, events, ...extra };
  };

  app.get<{ Querystring: Query }>('/developers', { schema: { hide: true } }, async (request, reply) => {
    const v = viewOf(request);
    return sendPage(reply, 200, renderDevelopers(v, await developers(v), outcomeFlash(v.t, request.query)));
  });

  app.post('/developers/keys', { schema: { hide: true } }, async (request, reply) => {
    const v = viewOf(request);
    let newKey: string;
    try {
      newKey = await businesses.issueDashboardKey(v.business.id);
    } catch (error) {
      if (!(error instanceof AppError && error.code === 'conflict')) throw error;
      const text = v.t('developers.key_limit', { max: MAX_ACTIVE_KEYS });
      return sendPage(reply, 409, renderDevelopers(v, await developers(v), { kind: 'error', text }));
    }
    // Shown once, in this response only (never in a redirect's URL).
    return sendPage(reply, 200, renderDevelopers(v, await developers(v, { newKey })));
  });

  app.post<{ Params: { id: string } }>(
    '/developers/keys/:id/revoke',
    { schema: { hide: true } },
    async (request, reply) => {
      const v = viewOf(request);
      if (!(await businesses.revokeKeyById(checkId(request.params.id), v.business.id)))
        throw errors.notFound('API key');
      return seeOther(reply, '/dashboard/developers?ok=saved');
    },
  );

  app.post<{ Body: Form }>('/developers/webhooks', { schema: { hide: true } }, async (request, reply) => {
    const v = viewOf(request);
    const url = (request.body.url ?? '').trim();
    try {
      // The /v1 body's schema checks the URL's text (length, control characters) as the API would.
      const input = checkBody<{ url: string; events: string[] }>(CreateWebhookBody, { url, events: [...EVENT_TYPES] });
      const created = await webhooks.create(v.business, input);
      return sendPage(reply, 200, renderDevelopers(v, await developers(v, { newSecret: created.secret })));
    } catch (error) {
      const { status, flash } = formError(error, v.t);
      return sendPage(reply, status, renderDevelopers(v, await developers(v, { url }), flash));
    }
  });

  app.post<{ Params: { id: string } }>(
    '/developers/webhooks/:id/test',
    { schema: { hide: true } },
    async (request, reply) => {
      const v = viewOf(request);
      await webhooks.test(v.business, checkId(request.params.id));
      return seeOther(reply, '/dashboard/developers?ok=test');
    },
  );

  app.post<{ Params: { id: string } }>(
    '/developers/webhooks/:id/delete',
    { schema: { hide: true } },
    async (request, reply) => {
      const v = viewOf(request);
      await webhooks.remove(v.business, checkId(request.params.id));
      return seeOther(reply, '/dashboard/developers?ok=saved');
    },
  );

  app.post<{ Params: { id: string } }>(
    '/developers/webhooks/:id/rotate',
    { schema: { hide: true } },
    async (request, reply) => {
      const v = viewOf(request);
      const rotated = await webhooks.rotateSecret(v.business, checkId(request.params.id), 24);
      // Shown once, in this response only (never in a redirect's URL).
      return sendPage(reply, 200, renderDevelopers(v, await developers(v, { rotatedSecret: rotated.secret })));
    },
  );

  app.post<{ Params: { id: string } }>(
    '/developers/webhooks/:id/replay',
    { schema: { hide: true } },
    async (request, reply) => {
      const v = viewOf(request);
      const since = new Date(app.deps.clock.now().getTime() - DAY_MS).toISOString();
      await webhooks.replay(v.business, checkId(request.params.id), { since });
      return seeOther(reply, '/dashboard/developers?ok=replayed');
    },
  );

  app.post<{ Params: { id: string } }>(
    '/developers/webhooks/:id/enable',
    { schema: { hide: true } },
    async (request, reply) => {
      const v = viewOf(request);
      await webhooks.update(v.business, checkId(request.params.id), { active: true });
      return seeOther(reply, '/dashboard/developers?ok=enabled');
    },
  );

  app.post<{ Params: { id: string; deliveryId: string } }>(
    '/developers/webhooks/:id/deliveries/:deliveryId/redeliver',
    { schema: { hide: true } },
    async (request, reply) => {
      const v = viewOf(request);
      await webhooks.redeliver(v.business, checkId(request.params.id), checkId(request.params.deliveryId));
      return seeOther(reply, '/dashboard/developers?ok=redelivered');
    },
  );
}
