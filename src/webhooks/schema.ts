import { Type } from 'typebox';
import { Nullable, Timestamp, Uuid } from '../http/schemas.js';
import { EVENT_TYPES } from '../outbox/events.js';

export const EventName = Type.String({ enum: [...EVENT_TYPES], description: 'the name of a webhook event' });

const endpointFields = {
  id: Uuid,
  url: Type.String({ description: 'https:// URL the events are POSTed to' }),
  events: Type.Array(EventName, { description: 'subscribed events, in catalogue order' }),
  active: Type.Boolean({ description: 'false once disabled after 3 days of failing every attempt' }),
  created_at: Timestamp,
};

export const WebhookEndpoint = Type.Object(
  {
    ...endpointFields,
    last_triggered_at: Nullable(Type.String({ format: 'date-time', description: 'time of the last attempt' })),
    failure_count: Type.Integer({ description: 'consecutive failed attempts; a success resets it' }),
    disabled_reason: Nullable(
      Type.String({
        description: 'why the endpoint is off (after 3 days of failed deliveries, or turned off); null while active',
      }),
    ),
  },
  { $id: 'WebhookEndpoint' },
);

export const CreatedWebhookEndpoint = Type.Object(
  {
    ...endpointFields,
    secret: Type.String({
      description: 'signing secret (64 hex characters), returned only in this response',
      pattern: '^[0-9a-f]{64}$',
    }),
  },
  { $id: 'CreatedWebhookEndpoint' },
);

export const CreateWebhookBody = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 4096, description: 'absolute https:// URL, at most 2048 characters' }),
    events: Type.Array(Type.String({ maxLength: 100 }), {
      minItems: 1,
      maxItems: 50,
      description: 'one or more event names',
    }),
  },
  { additionalProperties: false },
);

const DeliveryAttempt = Type.Object({
  attempt: Type.Integer({ description: '1 for the first attempt' }),
  status: Type.String({ enum: ['delivered', 'failed'] }),
  response_status: Nullable(Type.Integer()),
  error: Nullable(Type.String({ description: 'short reason of a failure' })),
  duration_ms: Type.Integer(),
  next_retry_at: Nullable(Type.String({ format: 'date-time', description: 'retry planned after this attempt' })),
  attempted_at: Timestamp,
});

export const WebhookDelivery = Type.Object(
  {
    id: Uuid,
    endpoint_id: Uuid,
    event_id: Type.String({ description: 'the X-Service-Event-Id header: the same on every retry' }),
    event: EventName,
    status: Type.String({ enum: ['pending', 'delivered', 'failed'] }),
    attempts: Type.Integer(),
    response_status: Nullable(Type.Integer({ description: "HTTP status of the receiver's last response" })),
    error: Nullable(Type.String({ description: 'short reason of the last failure' })),
    delivered_at: Nullable(Type.String({ format: 'date-time' })),
    next_retry_at: Nullable(Type.String({ format: 'date-time', description: 'when the next attempt is planned' })),
    created_at: Timestamp,
    attempt_log: Type.Array(DeliveryAttempt, { description: 'every attempt, oldest first' }),
  },
  { $id: 'WebhookDelivery' },
);

export const DeliveriesQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
    offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000_000, default: 0 })),
  },
  { additionalProperties: false },
);

export const DeliveryParams = Type.Object({ id: Uuid, deliveryId: Uuid }, { additionalProperties: false });

export const RotateSecretBody = Type.Object(
  {
    expire_previous_in_hours: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 72,
        default: 24,
        description: 'how long the replaced secret stays in force beside the new one (0: it stops at once)',
      }),
    ),
  },
  { additionalProperties: false },
);

export const RotatedSecret = Type.Object(
  {
    id: Uuid,
    secret: Type.String({
      description: 'the new signing secret (64 hex characters), returned only in this response',
      pattern: '^[0-9a-f]{64}$',
    }),
    previous_secret_expires_at: Nullable(
      Type.String({
        format: 'date-time',
        description: 'until then deliveries are signed with the previous secret too; null: not at all',
      }),
    ),
  },
  { $id: 'RotatedWebhookSecret' },
);

export const ReplayBody = Type.Object(
  {
    since: Type.String({
      format: 'date-time',
      description: 'events created at or after this time (events are kept 30 days: earlier is read as 30 days ago)',
    }),
    until: Type.Optional(Type.String({ format: 'date-time', description: 'events created before this time' })),
    types: Type.Optional(
      Type.Array(EventName, {
        minItems: 1,
        maxItems: 20,
        description: "only these events (of the endpoint's subscribed ones)",
      }),
    ),
  },
  { additionalProperties: false },
);

export const ReplayResult = Type.Object({
  queued: Type.Integer({ description: 'how many events were queued again (at most 10,000)' }),
  truncated: Type.Boolean({
    description:
      'the window held more than 10,000 events: the oldest 10,000 were queued; replay the rest from the last one',
  }),
});

export const UpdateWebhookBody = Type.Object(
  {
    active: Type.Optional(
      Type.Boolean({
        description: 'true turns a disabled endpoint back on (its failures start afresh); false turns it off',
      }),
    ),
    url: Type.Optional(
      Type.String({ minLength: 1, maxLength: 4096, description: 'absolute https:// URL, at most 2048 characters' }),
    ),
    events: Type.Optional(
      Type.Array(Type.String({ maxLength: 100 }), {
        minItems: 1,
        maxItems: 50,
        description: 'one or more event names',
      }),
    ),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const TestResult = Type.Object({
  delivered: Type.Boolean({ description: 'the receiver answered 2xx in time' }),
  event: EventName,
  status: Type.Optional(Type.Integer({ description: "the receiver's HTTP status, when it answered" })),
  error: Type.Optional(
    Type.String({ description: 'why the delivery failed (a status, a timeout, a refused address...), when it did' }),
  ),
});
