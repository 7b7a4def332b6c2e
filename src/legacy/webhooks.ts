import { Type } from 'typebox';
import { AppError } from '../errors.js';
import { ref } from '../http/schemas.js';
import type { App } from '../http/types.js';
import { EVENT_TYPES } from '../outbox/events.js';
import { CreateWebhookBody } from '../webhooks/schema.js';
import type { EndpointView } from '../webhooks/service.js';
import { legacyId } from './query.js';
import { LEGACY_TAG, LegacyIdParams, legacyErrorResponses } from './schema.js';

/** SPEC part 9: the earlier catalogue, which has no contact.created. */
export const LEGACY_EVENT_TYPES = EVENT_TYPES.filter((e) => e !== 'contact.created');

const LegacyEventName = Type.String({ enum: [...EVENT_TYPES] });

export const LegacyWebhook = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    url: Type.String(),
    events: Type.Array(LegacyEventName),
    active: Type.Boolean(),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'LegacyWebhook' },
);

export const LegacyCreatedWebhook = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    url: Type.String(),
    events: Type.Array(LegacyEventName),
    secret: Type.String({ description: 'signing secret (64 hex characters), shown once' }),
    active: Type.Boolean(),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'LegacyCreatedWebhook' },
);

export const legacyWebhookSchemas = [LegacyWebhook, LegacyCreatedWebhook];

function present(e: EndpointView) {
  return { id: e.row.id, url: e.row.url, events: e.events, active: e.row.active === 1, createdAt: e.row.created_at };
}

/**
 * Webhook create, list and delete of the earlier shape: thin routes over the same webhook service
 * as /v1 (same endpoints, same deliveries), presented flat and camelCase.
 */
export async function legacyWebhookRoutes(app: App) {
  const { webhooks } = app.deps.services;

  app.get(
    '/webhooks',
    {
      schema: {
        operationId: 'legacyListWebhooks',
        tags: [LEGACY_TAG],
        summary: 'List webhook endpoints (earlier shape)',
        response: { 200: Type.Object({ data: Type.Array(ref(LegacyWebhook)) }), ...legacyErrorResponses() },
      },
    },
    async (request) => ({ data: (await webhooks.list(request.auth.business)).map(present) }),
  );

  app.post(
    '/webhooks',
    {
      schema: {
        operationId: 'legacyCreateWebhook',
        tags: [LEGACY_TAG],
        summary: 'Create a webhook endpoint (earlier shape)',
        description: `url: https:// URL; events: one or more of ${LEGACY_EVENT_TYPES.join(', ')}. A bad body, or a business that already has 20 endpoints: 400.`,
        body: CreateWebhookBody,
        response: { 201: ref(LegacyCreatedWebhook), ...legacyErrorResponses(400) },
      },
    },
    async (request, reply) => {
      try {
        const created = await webhooks.create(request.auth.business, request.body, LEGACY_EVENT_TYPES);
        const { id, url, events, active, createdAt } = present(created);
        return reply.code(201).send({ id, url, events, secret: created.secret, active, createdAt });
      } catch (error) {
        // This shape has no 422: the endpoint limit is reported as the bad create it is.
        if (error instanceof AppError && error.code === 'unprocessable') {
          throw new AppError('invalid_request', error.message);
        }
        throw error;
      }
    },
  );

  app.delete(
    '/webhooks/:id',
    {
      schema: {
        operationId: 'legacyDeleteWebhook',
        tags: [LEGACY_TAG],
        summary: 'Delete a webhook endpoint; it receives nothing more (earlier shape)',
        params: LegacyIdParams,
        response: {
          200: Type.Object({ success: Type.Boolean(), message: Type.String() }),
          ...legacyErrorResponses(404),
        },
      },
    },
    async (request) => {
      await webhooks.remove(request.auth.business, legacyId(request.params.id, 'webhook endpoint'));
      return { success: true, message: 'Webhook endpoint deleted; it will receive no more events.' };
    },
  );
}
