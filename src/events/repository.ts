import { exactTime } from '../db/port.js';
import type { Executor } from '../db/schema.js';

/** The events a business can read back (GET /v1/events): the outbox rows, kept after they are sent. */

/** Where a page starts: the order keys of the event given as `starting_after`. */
export interface EventPosition {
  created_at: string;
  id: string;
}

export function findEventPosition(db: Executor, businessId: string, id: string): Promise<EventPosition | undefined> {
  return db
    .selectFrom('events')
    .select([exactTime(db, 'created_at').as('created_at'), 'id'])
    .where('business_id', '=', businessId)
    .where('id', '=', id)
    .executeTakeFirst();
}

export interface EventFilter {
  /** one type or several (a replay's); absent: every type */
  types?: readonly string[] | undefined;
  /** created at or after */
  since: string;
  /** created before */
  until?: string | undefined;
  after?: EventPosition | undefined;
}

/**
 * A page of the business's events, oldest first. Driven by events_business_created, or by
 * events_business_type_created for one type: a page costs its own rows at any depth.
 */
export function listEvents(db: Executor, businessId: string, filter: EventFilter, limit: number) {
  const { types, after, until } = filter;
  return db
    .selectFrom('events')
    .select(['id', 'type', 'payload', 'created_at'])
    .where('business_id', '=', businessId)
    .$if(types !== undefined && types.length === 1, (q) => q.where('type', '=', (types as string[])[0] as string))
    .$if(types !== undefined && types.length > 1, (q) => q.where('type', 'in', types as string[]))
    .where('created_at', '>=', filter.since)
    .$if(until !== undefined, (q) => q.where('created_at', '<', until as string))
    .$if(after !== undefined, (q) =>
      q.where((eb) =>
        eb(
          eb.refTuple('created_at', 'id'),
          '>',
          eb.tuple((after as EventPosition).created_at, (after as EventPosition).id),
        ),
      ),
    )
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .execute();
}

export type EventRow = Awaited<ReturnType<typeof listEvents>>[number];

/** The business's newest events (the dashboard's list), newest first, from events_business_created. */
export function latestEvents(db: Executor, businessId: string, since: string, limit: number) {
  return db
    .selectFrom('events')
    .select(['id', 'type', 'payload', 'created_at'])
    .where('business_id', '=', businessId)
    .where('created_at', '>=', since)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}
