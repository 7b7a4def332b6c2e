import { errors } from '../errors.js';
import { errorResponses } from '../http/schemas.js';
import type { App } from '../http/types.js';
import { listAuditEntries } from './read.js';
import { AuditEntrySchema, AuditPage, ListAuditQuery } from './schema.js';

export async function auditRoutes(app: App) {
  const { db } = app.deps.store;
  app.get(
    '/audit-log',
    {
      schema: {
        operationId: 'listAuditLog',
        tags: ['Audit log'],
        summary: "The business's audit log, newest first",
        description:
          'One entry per change to money or to who may act, written with the change. entity (and entity_id): one kind of entity (one entity); since: entries at or after this time; starting_after: the id of the last entry of the previous page.',
        querystring: ListAuditQuery,
        response: { 200: AuditPage, ...errorResponses() },
      },
    },
    async (request) => {
      const { entity, entity_id, since, starting_after } = request.query;
      const limit = request.query.limit ?? 50;
      if (entity_id !== undefined && entity === undefined) throw errors.invalid('entity_id', 'entity_id needs entity');
      const rows = await listAuditEntries(db, request.auth.business.id, {
        entity,
        entityId: entity_id,
        since,
        startingAfter: starting_after,
        limit: limit + 1,
      });
      return { data: rows.slice(0, limit), limit, hasMore: rows.length > limit };
    },
  );
}

export const auditSchemas = [AuditEntrySchema];
