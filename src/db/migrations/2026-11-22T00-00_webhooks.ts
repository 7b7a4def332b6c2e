import type { Kysely } from 'kysely';
import { columnTypes } from '../column-types.js';

/**
 * Webhook endpoints, their deliveries (one per event and endpoint) and every attempt of each
 * delivery (PRODUCT part 5), plus a small settings table that holds the generated encryption key
 * for signing secrets when ENCRYPTION_KEY is not set on PostgreSQL (webhooks/secret-box.ts).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);

  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', t.uuid, (c) => c.primaryKey())
    .addColumn('business_id', t.uuid, (c) => c.notNull().references('businesses.id'))
    .addColumn('url', 'text', (c) => c.notNull())
    // JSON array of event names
    .addColumn('events', 'text', (c) => c.notNull())
    // AES-256-GCM sealed signing secret, never the secret itself
    .addColumn('secret_sealed', 'text', (c) => c.notNull())
    .addColumn('active', 'integer', (c) => c.notNull())
    .addColumn('failure_count', 'integer', (c) => c.notNull().defaultTo(0))
    // start of the current run of failed attempts (null after a success): auto-disable after 3 days
    .addColumn('failing_since', t.timestamp)
    .addColumn('last_triggered_at', t.timestamp)
    .addColumn('disabled_reason', 'text')
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    // deleted endpoints are kept (their delivery log stays consistent) but never shown or sent to
    .addColumn('deleted_at', t.timestamp)
    .execute();
  await db.schema
    .createIndex('webhook_endpoints_business')
    .on('webhook_endpoints')
    .columns(['business_id', 'created_at'])
    .execute();

  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', t.uuid, (c) => c.primaryKey())
    .addColumn('business_id', t.uuid, (c) => c.notNull().references('businesses.id'))
    .addColumn('endpoint_id', t.uuid, (c) => c.notNull().references('webhook_endpoints.id'))
    // the outbox event (or, for a test delivery, a sample event id): X-Service-Event-Id
    .addColumn('event_id', t.uuid, (c) => c.notNull())
    .addColumn('event', 'text', (c) => c.notNull())
    // the exact body bytes sent on every attempt, so that a retry is byte-identical
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('response_status', 'integer')
    .addColumn('error', 'text')
    // when the next attempt is due: now for a queued one, the retry time after a failure, null when none
    .addColumn('next_attempt_at', t.timestamp)
    .addColumn('delivered_at', t.timestamp)
    // set by redeliver while an attempt is in flight: queue another one once it is recorded
    .addColumn('requeue', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('lease_id', 'text')
    .addColumn('locked_until', t.timestamp)
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .execute();
  // One delivery per event and endpoint: a fan-out that runs twice cannot queue a duplicate.
  await db.schema
    .createIndex('webhook_deliveries_event_endpoint')
    .unique()
    .on('webhook_deliveries')
    .columns(['event_id', 'endpoint_id'])
    .execute();
  // The delivery log of an endpoint, newest first.
  await db.schema
    .createIndex('webhook_deliveries_endpoint_created')
    .on('webhook_deliveries')
    .columns(['endpoint_id', 'created_at desc', 'id desc'])
    .execute();
  // The worker's queue: rows with a next attempt planned.
  await db.schema
    .createIndex('webhook_deliveries_due')
    .on('webhook_deliveries')
    .column('next_attempt_at')
    .where('next_attempt_at', 'is not', null)
    .execute();

  await db.schema
    .createTable('webhook_attempts')
    .addColumn('id', t.uuid, (c) => c.primaryKey())
    .addColumn('delivery_id', t.uuid, (c) => c.notNull().references('webhook_deliveries.id'))
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('response_status', 'integer')
    .addColumn('error', 'text')
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('next_retry_at', t.timestamp)
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('webhook_attempts_delivery')
    .on('webhook_attempts')
    .columns(['delivery_id', 'attempt'])
    .execute();

  await db.schema
    .createTable('app_settings')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['webhook_attempts', 'webhook_deliveries', 'webhook_endpoints', 'app_settings']) {
    await db.schema.dropTable(table).execute();
  }
}
