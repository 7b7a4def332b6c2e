import { Type } from 'typebox';
import { absentBodyIsEmptyObject } from '../http/body.js';
import { Data, errorResponses, IdParams, Page, ref } from '../http/schemas.js';
import type { App } from '../http/types.js';
import { EVENT_TYPES } from '../outbox/events.js';
import { presentCreatedEndpoint, presentDelivery, presentEndpoint } from './presenter.js';
import {
  CreatedWebhookEndpoint,
  CreateWebhookBody,
  DeliveriesQuery,
  DeliveryParams,
  EventName,
  ReplayBody,
  ReplayResult,
  RotatedSecret,
  RotateSecretBody,
  TestResult,
  UpdateWebhookBody,
  WebhookDelivery,
  WebhookEndpoint,
} from './schema.js';

export async function webhookRoutes(app: App) {
  const { webhooks } = app.deps.services;
  const tags = ['Webhooks'];

  app.get(
    '/webhooks',
    {
      schema: {
        operationId: 'listWebhooks',
        tags,
        summary: 'List webhook endpoints and the event catalogue',
        response: {
          200: Type.Object({ data: Type.Array(ref(WebhookEndpoint)), events: Type.Array(EventName) }),
          ...errorResponses(),
        },
      },
    },
    async (request) => ({
      data: (await webhooks.list(request.auth.business)).map(presentEndpoint),
      events: [...EVENT_TYPES],
    }),
  );

  app.post(
    '/webhooks',
    {
      schema: {
        operationId: 'createWebhook',
        tags,
        summary: 'Create a webhook endpoint',
        description:
          'url: absolute https:// URL (at most 2048 characters); events: one or more names from the catalogue. The signing secret is returned only in this response. At most 20 endpoints per business (then 422).',
        body: CreateWebhookBody,
        response: { 201: Data(ref(CreatedWebhookEndpoint)), ...errorResponses(422) },
      },
    },
    async (request, reply) => {
      const created = await webhooks.create(request.auth.business, request.body);
      return reply.code(201).send({ data: presentCreatedEndpoint(created) });
    },
  );

  app.post(
    '/webhooks/:id/test',
    {
      preValidation: absentBodyIsEmptyObject,
      schema: {
        operationId: 'testWebhook',
        tags,
        summary: 'Send a signed sample event now',
        description:
          "Sends a sample of the endpoint's first subscribed event synchronously and logs it as a delivery (one attempt, no retries).",
        params: IdParams,
        body: Type.Object({}, { additionalProperties: false }),
        response: {
          200: Data(TestResult),
          ...errorResponses(404),
        },
      },
    },
    async (request) => {
      const result = await webhooks.test(request.auth.business, request.params.id);
      return {
        data: {
          delivered: result.delivered,
          event: result.event,
          ...(result.status !== null && { status: result.status }),
          ...(result.error !== null && { error: result.error }),
        },
      };
    },
  );

  app.patch(
    '/webhooks/:id',
    {
      schema: {
        operationId: 'updateWebhook',
        tags,
        summary: 'Turn an endpoint back on (or off), or change its url and events',
        description:
          'active: true turns on an endpoint that was disabled after 3 days of failed deliveries (its failure count starts afresh; events meanwhile can be sent again with replay); false turns it off and cancels what was queued for it. url and events as on create.',
        params: IdParams,
        body: UpdateWebhookBody,
        response: { 200: Data(ref(WebhookEndpoint)), ...errorResponses(404) },
      },
    },
    async (request) => ({
      data: presentEndpoint(await webhooks.update(request.auth.business, request.params.id, request.body)),
    }),
  );

  app.post(
    '/webhooks/:id/rotate-secret',
    {
      preValidation: absentBodyIsEmptyObject,
      schema: {
        operationId: 'rotateWebhookSecret',
        tags,
        summary: "Replace the endpoint's signing secret, keeping the previous one in force for a while",
        description:
          "Answers the new secret, once. Until the previous secret expires (expire_previous_in_hours, 0-72, default 24), webhook-signature carries a signature by each secret and X-Service-Signature keeps the previous secret's; then only the new one signs.",
        params: IdParams,
        body: RotateSecretBody,
        response: { 200: Data(ref(RotatedSecret)), ...errorResponses(404) },
      },
    },
    async (request) => {
      const rotated = await webhooks.rotateSecret(
        request.auth.business,
        request.params.id,
        request.body.expire_previous_in_hours ?? 24,
      );
      return {
        data: { id: rotated.id, secret: rotated.secret, previous_secret_expires_at: rotated.previousExpiresAt },
      };
    },
  );

  app.post(
    '/webhooks/:id/replay',
    {
      schema: {
        operationId: 'replayWebhookEvents',
        tags,
        summary: "Queue the endpoint's events of a time window again",
        description:
          "Queues again, oldest first, the endpoint's subscribed events created in [since, until) (only `types` if given), within the 30 days events are kept: at most 10,000 (truncated: true when the window held more). Each goes out as a new attempt under its original webhook-id, so receivers de-duplicate as usual. A disabled endpoint: 409.",
        params: IdParams,
        body: ReplayBody,
        response: { 200: Data(ReplayResult), ...errorResponses(404, 409) },
      },
    },
    async (request) => ({ data: await webhooks.replay(request.auth.business, request.params.id, request.body) }),
  );

  app.get(
    '/webhooks/:id/deliveries',
    {
      schema: {
        operationId: 'listWebhookDeliveries',
        tags,
        summary: "The endpoint's delivery log, newest first",
        params: IdParams,
        querystring: DeliveriesQuery,
        response: { 200: Page(ref(WebhookDelivery)), ...errorResponses(404) },
      },
    },
    async (request) => {
      const limit = request.query.limit ?? 50;
      const offset = request.query.offset ?? 0;
      const page = await webhooks.deliveries(request.auth.business, request.params.id, { limit, offset });
      return {
        data: page.items.map(presentDelivery),
        total: page.total,
        limit,
        offset,
        hasMore: offset + page.items.length < page.total,
      };
    },
  );

  app.post(
    '/webhooks/:id/deliveries/:deliveryId/redeliver',
    {
      preValidation: absentBodyIsEmptyObject,
      schema: {
        operationId: 'redeliverWebhookDelivery',
        tags,
        summary: 'Queue one immediate new attempt of a logged delivery',
        params: DeliveryParams,
        body: Type.Object({}, { additionalProperties: false }),
        response: { 200: Data(Type.Object({ requeued: Type.Boolean() })), ...errorResponses(404, 409) },
      },
    },
    async (request) => {
      await webhooks.redeliver(request.auth.business, request.params.id, request.params.deliveryId);
      return { data: { requeued: true } };
    },
  );

  app.delete(
    '/webhooks/:id',
    {
      schema: {
        operationId: 'deleteWebhook',
        tags,
        summary: 'Delete a webhook endpoint; it receives nothing more',
        params: IdParams,
        response: { 200: Type.Object({ deleted: Type.Boolean() }), ...errorResponses(404) },
      },
    },
    async (request) => {
      await webhooks.remove(request.auth.business, request.params.id);
      return { deleted: true };
    },
  );
}

export const webhookSchemas = [WebhookEndpoint, CreatedWebhookEndpoint, WebhookDelivery, RotatedSecret];
