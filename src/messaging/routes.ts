import { Data, errorResponses, ref } from '../http/schemas.js';
import type { App } from '../http/types.js';
import { Usage, UsageQuery } from './schema.js';

export async function messagingRoutes(app: App) {
  const { messaging } = app.deps.services;
  app.get(
    '/messaging/usage',
    {
      schema: {
        operationId: 'getMessagingUsage',
        tags: ['Messaging'],
        summary: "A month's chat messages, counted and costed by pricing category",
        description:
          "Messages sent for the business in the month (business time zone), by the pricing category WhatsApp's status webhooks reported (utility, marketing, authentication, service), each priced from the price table (WHATSAPP_PRICES). Messages not yet priced are counted in unpriced. A month not written YYYY-MM: 400 naming month.",
        querystring: UsageQuery,
        response: { 200: Data(ref(Usage)), ...errorResponses() },
      },
    },
    async (request) => {
      const { business } = request.auth;
      const month = request.query.month ?? messaging.currentMonth(business, app.deps.clock.now());
      return { data: await messaging.usage(business, month) };
    },
  );
}
