import type { Static } from 'typebox';
import type { BusinessRow } from '../businesses/repository.js';
import type { Db } from '../db/schema.js';
import { errors } from '../errors.js';
import type { Clock } from '../lib/clock.js';
import * as repo from './repository.js';
import type { ListEventsQuery } from './schema.js';

/** How far back the events list (and a webhook replay) reaches. */
export const EVENT_WINDOW_MS = 30 * 24 * 60 * 60 * 1000;

export interface EventView {
  id: string;
  type: string;
  created_at: string;
  /** the exact JSON text of `data`, as the webhook deliveries splice it in */
  payload: string;
}

/** The business's events of the last 30 days, for a client that was down to catch up. */
export class EventService {
  constructor(private readonly deps: { db: Db; clock: Clock }) {}

  /** The earliest moment the list reaches now. */
  windowStart(): Date {
    return new Date(this.deps.clock.now().getTime() - EVENT_WINDOW_MS);
  }

  async list(
    business: BusinessRow,
    query: Static<typeof ListEventsQuery>,
  ): Promise<{ items: EventView[]; limit: number; hasMore: boolean }> {
    const limit = query.limit ?? 50;
    const since = laterOf(this.windowStart(), query.since);
    let after: repo.EventPosition | undefined;
    if (query.starting_after !== undefined) {
      after = await repo.findEventPosition(this.deps.db, business.id, query.starting_after);
      if (!after) throw errors.invalid('starting_after', 'starting_after is not the id of an event of this business');
    }
    const rows = await repo.listEvents(
      this.deps.db,
      business.id,
      { types: query.type === undefined ? undefined : [query.type], since, after },
      limit + 1,
    );
    return { items: rows.slice(0, limit), limit, hasMore: rows.length > limit };
  }

  /** The newest events of the last 30 days, newest first (the dashboard's developers page). */
  recent(business: BusinessRow, limit: number): Promise<EventView[]> {
    return repo.latestEvents(this.deps.db, business.id, this.windowStart().toISOString(), limit);
  }
}

/** `since` as stored text, never before `floor`. */
export function laterOf(floor: Date, since: string | undefined): string {
  const at = since === undefined ? floor : new Date(since);
  return (at.getTime() > floor.getTime() ? at : floor).toISOString();
}
