import { randomBytes } from 'node:crypto';
import { diff, recordAudit } from '../audit/record.js';
import { type BusinessRow, lockBusiness } from '../businesses/repository.js';
import type { Db } from '../db/schema.js';
import { errors } from '../errors.js';
import { EVENT_WINDOW_MS, laterOf } from '../events/service.js';
import type { Clock } from '../lib/clock.js';
import { uuidv7 } from '../lib/ids.js';
import { EVENT_TYPES, type EventType } from '../outbox/events.js';
import { signalOutbox } from '../outbox/signal.js';
import * as deliveriesRepo from './delivery-repository.js';
import * as endpointsRepo from './endpoint-repository.js';
import { TURNED_OFF_BY_BUSINESS } from './outcomes.js';
import { deliveryBody, sampleData } from './payload.js';
import { replay } from './replay.js';
import { forgetDatabaseKey, type SecretBox } from './secret-box.js';
import type { WebhookSender } from './sender.js';
import { signAndSend } from './sign-and-send.js';

export const MAX_ENDPOINTS_PER_BUSINESS = 20;
export const MAX_URL_LENGTH = 2048;
const HOUR_MS = 60 * 60 * 1000;
/** An endpoint's fields its audit entries show before and after (never its secret). */
const AUDITED = ['url', 'events', 'active'] as const;

export interface EndpointView {
  row: endpointsRepo.EndpointRow;
  events: EventType[];
}

export interface DeliveryView {
  delivery: deliveriesRepo.DeliveryListRow;
  attempts: deliveriesRepo.AttemptRow[];
}

/** The webhook endpoint operations of SPEC part 4 (the dispatcher does the sending). */
export class WebhookService {
  constructor(
    private readonly deps: {
      db: Db;
      clock: Clock;
      sender: WebhookSender;
      secretBox: () => Promise<SecretBox>;
    },
  ) {}

  async list(business: BusinessRow): Promise<EndpointView[]> {
    return (await endpointsRepo.listEndpoints(this.deps.db, business.id)).map(view);
  }

  /** Creates an endpoint; the secret is returned here and never again. */
  async create(
    business: BusinessRow,
    input: { url: string; events: string[] },
    allowedEvents: readonly EventType[] = EVENT_TYPES,
  ): Promise<EndpointView & { secret: string }> {
    const url = checkUrl(input.url);
    const events = checkEvents(input.events, allowedEvents);
    const secret = randomBytes(32).toString('hex');
    const id = uuidv7();
    // The endpoint's id is the sealed secret's associated data: bound to this endpoint only.
    const sealed = (await this.deps.secretBox()).seal(secret, id);
    return this.deps.db.transaction().execute(async (trx) => {
      await lockBusiness(trx, business.id);
      if ((await endpointsRepo.countEndpoints(trx, business.id)) >= MAX_ENDPOINTS_PER_BUSINESS) {
        throw errors.unprocessable(
          `a business can have at most ${MAX_ENDPOINTS_PER_BUSINESS} webhook endpoints; delete one first`,
        );
      }
      const now = this.deps.clock.now().toISOString();
      const row: endpointsRepo.EndpointRow = {
        id,
        business_id: business.id,
        url,
        events: JSON.stringify(events),
        secret_sealed: sealed,
        previous_secret_sealed: null,
        previous_secret_expires_at: null,
        active: 1,
        failure_count: 0,
        failing_since: null,
        last_triggered_at: null,
        disabled_reason: null,
        disabled_notice_pending: 0,
        created_at: now,
        updated_at: now,
        deleted_at: null,
      };
      await endpointsRepo.insertEndpoint(trx, row);
      await recordAudit(trx, business.id, now, [
        { action: 'webhook.created', entity: 'webhook', entityId: id, changes: diff(null, row, AUDITED) },
      ]);
      return { row, events, secret };
    });
  }

  /**
   * Gives the endpoint a new secret, returned here and never again. The secret it replaces stays
   * in force for `expirePreviousInHours` (0: not at all): meanwhile deliveries carry a signature by
   * each in webhook-signature, and X-Service-Signature keeps the previous secret's, so a receiver
   * can switch at its own pace. A second rotation within that time drops the oldest secret.
   */
  async rotateSecret(
    business: BusinessRow,
    id: string,
    expirePreviousInHours: number,
  ): Promise<{ id: string; secret: string; previousExpiresAt: string | null }> {
    const secret = randomBytes(32).toString('hex');
    const sealed = (await this.deps.secretBox()).seal(secret, id);
    return this.deps.db.transaction().execute(async (trx) => {
      await endpointsRepo.lockEndpoint(trx, id);
      const row = await endpointsRepo.findEndpoint(trx, business.id, id);
      if (!row) throw errors.notFound('webhook endpoint');
      const now = this.deps.clock.now();
      const previousExpiresAt =
        expirePreviousInHours > 0 ? new Date(now.getTime() + expirePreviousInHours * HOUR_MS).toISOString() : null;
      await endpointsRepo.rotateSecret(trx, id, {
        sealed,
        previousSealed: previousExpiresAt === null ? null : row.secret_sealed,
        previousExpiresAt,
        at: now.toISOString(),
      });
      // the secrets themselves are never written to the log
      await recordAudit(trx, business.id, now, [
        {
          action: 'webhook.secret_rotated',
          entity: 'webhook',
          entityId: id,
          changes: { previous_secret_expires_at: [row.previous_secret_expires_at, previousExpiresAt] },
        },
      ]);
      return { id, secret, previousExpiresAt };
    });
  }

  /**
   * Seals again, with the current sealing key and the endpoint bound in, every secret sealed
   * before (v1) or with an older key of ENCRYPTION_KEYS (docs/security.md): after it, the old key
   * can leave the configuration, and a key an earlier version kept in the database is deleted.
   * O(endpoints), run by the operator (`secrets reseal`), never on a request.
   */
  async resealSecrets(): Promise<{ resealed: number; databaseKeyRemoved: boolean }> {
    const box = await this.deps.secretBox();
    let resealed = 0;
    let after: string | null = null;
    for (;;) {
      const page = await endpointsRepo.sealedSecretsAfter(this.deps.db, after, 500);
      for (const row of page) {
        // a rotation's previous secret, still in force for a while, is sealed again too
        const previous = row.previous_secret_sealed;
        if (previous !== null && box.needsReseal(previous)) {
          await endpointsRepo.replacePreviousSealed(
            this.deps.db,
            row.id,
            previous,
            box.seal(box.open(previous, row.id), row.id),
          );
        }
        if (!box.needsReseal(row.secret_sealed)) continue;
        const fresh = box.seal(box.open(row.secret_sealed, row.id), row.id);
        const done = await endpointsRepo.replaceSealedSecret(this.deps.db, row.id, row.secret_sealed, fresh);
        resealed += Number(done.numUpdatedRows);
      }
      if (page.length < 500) break;
      after = (page[page.length - 1] as { id: string }).id;
    }
    return { resealed, databaseKeyRemoved: await forgetDatabaseKey(this.deps.db, box) };
  }

  /** Soft-deletes the endpoint: it gets nothing more, queued deliveries are cancelled. */
  async remove(business: BusinessRow, id: string): Promise<void> {
    await this.deps.db.transaction().execute(async (trx) => {
      const now = this.deps.clock.now().toISOString();
      const before = await endpointsRepo.findEndpoint(trx, business.id, id);
      const deleted = await endpointsRepo.softDeleteEndpoint(trx, business.id, id, now);
      if (!before || Number(deleted.numUpdatedRows) === 0) throw errors.notFound('webhook endpoint');
      await recordAudit(trx, business.id, now, [
        { action: 'webhook.deleted', entity: 'webhook', entityId: id, changes: diff(before, null, AUDITED) },
      ]);
      await deliveriesRepo.cancelQueued(trx, id, 'endpoint deleted', now);
    });
  }

  /**
   * PATCH: turns the endpoint back on (its run of failures starts afresh) or off, and changes its
   * url and events. Turned off, what was queued for it is cancelled, as when it is disabled.
   */
  async update(
    business: BusinessRow,
    id: string,
    input: { active?: boolean | undefined; url?: string | undefined; events?: string[] | undefined },
    allowedEvents: readonly EventType[] = EVENT_TYPES,
  ): Promise<EndpointView> {
    const url = input.url === undefined ? undefined : checkUrl(input.url);
    const events = input.events === undefined ? undefined : checkEvents(input.events, allowedEvents);
    return this.deps.db.transaction().execute(async (trx) => {
      await endpointsRepo.lockEndpoint(trx, id);
      const now = this.deps.clock.now().toISOString();
      const before = await endpointsRepo.findEndpoint(trx, business.id, id);
      const row = await endpointsRepo.updateEndpoint(trx, business.id, id, {
        ...(input.active !== undefined && { active: input.active }),
        ...(input.active === false && { reason: TURNED_OFF_BY_BUSINESS }),
        ...(url !== undefined && { url }),
        ...(events !== undefined && { events: JSON.stringify(events) }),
        at: now,
      });
      if (!row || !before) throw errors.notFound('webhook endpoint');
      if (input.active === false) await deliveriesRepo.cancelQueued(trx, id, 'endpoint turned off', now);
      const changes = diff(before, row, AUDITED);
      if (Object.keys(changes).length > 0) {
        await recordAudit(trx, business.id, now, [
          { action: 'webhook.updated', entity: 'webhook', entityId: id, changes },
        ]);
      }
      return view(row);
    });
  }

  /**
   * Sends a signed sample of the endpoint's first subscribed event now, and logs it as a
   * delivery (one attempt, no retries). It does not count towards failure_count: a sample says
   * nothing about whether real events get through.
   */
  async test(
    business: BusinessRow,
    id: string,
  ): Promise<{
    delivered: boolean;
    event: EventType;
    deliveryId: string;
    status: number | null;
    error: string | null;
  }> {
    const endpoint = await this.#endpoint(business, id);
    const event = endpoint.events[0] as EventType;
    const now = this.deps.clock.now();
    const at = now.toISOString();
    const eventId = uuidv7();
    const deliveryId = uuidv7();
    const body = deliveryBody(event, at, JSON.stringify(sampleData(event, at, business.currency)));
    const result = await signAndSend(this.deps, {
      url: endpoint.row.url,
      endpointId: endpoint.row.id,
      secrets: async () => endpoint.row,
      body,
      event,
      eventId,
      deliveryId,
    });
    const done = this.deps.clock.now().toISOString();
    await this.deps.db.transaction().execute(async (trx) => {
      await deliveriesRepo.insertDelivery(trx, {
        id: deliveryId,
        business_id: business.id,
        endpoint_id: endpoint.row.id,
        event_id: eventId,
        event,
        body,
        status: result.ok ? 'delivered' : 'failed',
        attempts: 1,
        response_status: result.status,
        error: result.ok ? null : result.error,
        next_attempt_at: null,
        delivered_at: result.ok ? done : null,
        requeue: 0,
        lease_id: null,
        locked_until: null,
        created_at: at,
        updated_at: done,
      });
      await deliveriesRepo.insertAttempt(trx, deliveriesRepo.attemptRow(deliveryId, 1, result, null, done));
      await endpointsRepo.touchEndpoint(trx, endpoint.row.id, done);
    });
    return { delivered: result.ok, event, deliveryId, status: result.status, error: result.ok ? null : result.error };
  }

  /** The endpoint's delivery log, newest first, each with its attempts. */
  async deliveries(
    business: BusinessRow,
    id: string,
    page: { limit: number; offset: number },
  ): Promise<{ items: DeliveryView[]; total: number }> {
    const endpoint = await this.#endpoint(business, id);
    const [rows, total] = await Promise.all([
      deliveriesRepo.listDeliveries(this.deps.db, endpoint.row.id, page.limit, page.offset),
      deliveriesRepo.countDeliveries(this.deps.db, endpoint.row.id),
    ]);
    const attempts = await deliveriesRepo.attemptsOf(
      this.deps.db,
      rows.map((r) => r.id),
    );
    const byDelivery = new Map<string, deliveriesRepo.AttemptRow[]>();
    for (const a of attempts) {
      const list = byDelivery.get(a.delivery_id);
      if (list) list.push(a);
      else byDelivery.set(a.delivery_id, [a]);
    }
    return { items: rows.map((delivery) => ({ delivery, attempts: byDelivery.get(delivery.id) ?? [] })), total };
  }

  /** Queues one immediate new attempt of a logged delivery, whatever its state. */
  async redeliver(business: BusinessRow, id: string, deliveryId: string): Promise<void> {
    const endpoint = await this.#endpoint(business, id);
    if (endpoint.row.active !== 1) {
      throw errors.conflict('the endpoint is disabled after repeated failures; create a new one to receive events');
    }
    await this.deps.db.transaction().execute(async (trx) => {
      const delivery = await deliveriesRepo.findDelivery(trx, endpoint.row.id, deliveryId);
      if (!delivery) throw errors.notFound('delivery');
      await deliveriesRepo.requeueDelivery(trx, delivery.id, this.deps.clock.now().toISOString());
      await signalOutbox(trx);
    });
  }

  /**
   * Queues the endpoint's subscribed events of [since, until) again (optionally only `types`),
   * within the 30 days events are kept, at most MAX_REPLAY of them, oldest first.
   */
  async replay(
    business: BusinessRow,
    id: string,
    input: { since: string; until?: string | undefined; types?: string[] | undefined },
  ): Promise<{ queued: number; truncated: boolean }> {
    const now = this.deps.clock.now();
    const since = laterOf(new Date(now.getTime() - EVENT_WINDOW_MS), input.since);
    const until = input.until === undefined ? undefined : new Date(input.until).toISOString();
    if (until !== undefined && Date.parse(until) <= Date.parse(input.since)) {
      throw errors.invalid('until', 'until must be after since');
    }
    const row = await endpointsRepo.findEndpoint(this.deps.db, business.id, id);
    if (!row) throw errors.notFound('webhook endpoint');
    if (row.active !== 1) throw errors.conflict('the endpoint is disabled; turn it back on (PATCH active: true) first');
    const subscribed = view(row).events;
    const types = input.types === undefined ? subscribed : subscribed.filter((t) => input.types?.includes(t));
    return replay(this.deps.db, row, { since, until, types }, now.toISOString());
  }

  async #endpoint(business: BusinessRow, id: string): Promise<EndpointView> {
    const row = await endpointsRepo.findEndpoint(this.deps.db, business.id, id);
    if (!row) throw errors.notFound('webhook endpoint');
    return view(row);
  }
}

function view(row: endpointsRepo.EndpointRow): EndpointView {
  return { row, events: JSON.parse(row.events) as EventType[] };
}

/** PRODUCT part 5: an absolute https:// URL of at most 2048 characters. */
export function checkUrl(raw: string): string {
  const url = raw.trim();
  if (url.length > MAX_URL_LENGTH) throw errors.invalid('url', `url must be at most ${MAX_URL_LENGTH} characters`);
  if (!/^https:\/\//i.test(url)) throw errors.invalid('url', 'url must be an absolute https:// URL');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw errors.invalid('url', 'url is not a valid URL');
  }
  if (parsed.protocol !== 'https:' || parsed.hostname === '') {
    throw errors.invalid('url', 'url must be an absolute https:// URL');
  }
  return url;
}

/** Known event names, at least one; duplicates are folded and the catalogue order kept. */
export function checkEvents(raw: string[], allowed: readonly EventType[] = EVENT_TYPES): EventType[] {
  if (raw.length === 0) throw errors.invalid('events', 'events must list at least one event');
  const known = new Set<string>(allowed);
  for (const name of raw) {
    if (!known.has(name)) {
      throw errors.invalid('events', `events contains "${name}", which is not one of: ${allowed.join(', ')}`);
    }
  }
  const wanted = new Set(raw);
  return allowed.filter((e) => wanted.has(e));
}
