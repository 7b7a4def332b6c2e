import { Type } from 'typebox';
import { ref, Timestamp, Uuid } from '../http/schemas.js';
import { EVENT_TYPES } from '../outbox/events.js';

/** An event name (the seven webhooks can subscribe to). */
const EventName = Type.String({ enum: [...EVENT_TYPES], description: 'an event name' });

export const Event = Type.Object(
  {
    id: { ...Uuid, description: "the event's id: the webhook-id (and X-Service-Event-Id) header of its deliveries" },
    type: EventName,
    created_at: Timestamp,
    data: Type.Object(
      {},
      { additionalProperties: true, description: "the event's data, exactly as its webhook deliveries carry it" },
    ),
  },
  { $id: 'Event' },
);

export const ListEventsQuery = Type.Object(
  {
    type: Type.Optional(EventName),
    since: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'events created at or after this time (at most 30 days ago; earlier is read as 30 days ago)',
      }),
    ),
    starting_after: Type.Optional({
      ...Uuid,
      description: 'id of the last event of the previous page: the page of events that follow it, same filters',
    }),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
  },
  { additionalProperties: false },
);

export const EventPage = Type.Object({
  data: Type.Array(ref(Event)),
  limit: Type.Integer(),
  hasMore: Type.Boolean({ description: 'more events follow: ask again with starting_after = the last id' }),
});
