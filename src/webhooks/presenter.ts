import type { Static } from 'typebox';
import type { CreatedWebhookEndpoint, WebhookDelivery, WebhookEndpoint } from './schema.js';
import type { DeliveryView, EndpointView } from './service.js';

export function presentEndpoint(e: EndpointView): Static<typeof WebhookEndpoint> {
  return {
    id: e.row.id,
    url: e.row.url,
    events: e.events,
    active: e.row.active === 1,
    created_at: e.row.created_at,
    last_triggered_at: e.row.last_triggered_at,
    failure_count: e.row.failure_count,
    disabled_reason: e.row.disabled_reason,
  };
}

/** The create response: the endpoint without its delivery counters, with the secret (shown only here). */
export function presentCreatedEndpoint(e: EndpointView & { secret: string }): Static<typeof CreatedWebhookEndpoint> {
  const { last_triggered_at: _, failure_count: __, disabled_reason: ___, ...endpoint } = presentEndpoint(e);
  return { ...endpoint, secret: e.secret };
}

export function presentDelivery(v: DeliveryView): Static<typeof WebhookDelivery> {
  const d = v.delivery;
  return {
    id: d.id,
    endpoint_id: d.endpoint_id,
    event_id: d.event_id,
    event: d.event,
    status: d.status,
    attempts: d.attempts,
    response_status: d.response_status,
    error: d.error,
    delivered_at: d.delivered_at,
    // A failed delivery's planned retry; a queued or in-flight one has no *re*try yet.
    next_retry_at: d.status === 'failed' ? d.next_attempt_at : null,
    created_at: d.created_at,
    attempt_log: v.attempts.map((a) => ({
      attempt: a.attempt,
      status: a.status,
      response_status: a.response_status,
      error: a.error,
      duration_ms: a.duration_ms,
      next_retry_at: a.next_retry_at,
      attempted_at: a.created_at,
    })),
  };
}
