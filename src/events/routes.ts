import { errorResponses } from '../http/schemas.js';
import type { App } from '../http/types.js';
import type { EventType } from '../outbox/events.js';
import { Event, EventPage, ListEventsQuery } from './schema.js';

export async function eventRoutes(app: App) {
  const { events } = app.deps.services;

  app.get(
    '/events',
    {
      schema: {
        operationId: 'listEvents',
        tags: ['Events'],
        summary: "The business's events of the last 30 days, oldest first",
        description:
          'Each event as its webhook deliveries carry it: `data` is the same, and `id` is their webhook-id header. type: one event name; since: events created at or after this time (at most 30 days back); starting_after: the id of the last event of the previous page. A client that was down reads from where it stopped until hasMore is false.',
        querystring: ListEventsQuery,
        response: { 200: EventPage, ...errorResponses() },
      },
    },
    async (request) => {
      const page = await events.list(request.auth.business, request.query);
      return {
        // the stored JSON text of data, parsed once to be serialised with the page
        data: page.items.map((e) => ({
          id: e.id,
          type: e.type as EventType,
          created_at: e.created_at,
          data: JSON.parse(e.payload) as Record<string, unknown>,
        })),
        limit: page.limit,
        hasMore: page.hasMore,
      };
    },
  );
}

export const eventSchemas = [Event];
