import { AUDIT_ENTITIES } from '../audit/record.js';
import { errors } from '../errors.js';
import type { App } from '../http/types.js';
import { isUuid } from '../lib/ids.js';
import { auditEntriesForPage } from './audit-entries.js';
import { viewOf } from './common.js';
import { formError } from './errors.js';
import { sendPage } from './http.js';
import { AUDIT_PAGE, renderAuditLog } from './pages/audit.js';

type Query = Record<string, string | undefined>;

/** `?entity=&id=&after=` as the page's links and filter form send them; anything else is a 400 naming it. */
function auditQuery(query: Query) {
  const entity = (query.entity ?? '').trim();
  if (entity !== '' && !(AUDIT_ENTITIES as readonly string[]).includes(entity)) {
    throw errors.invalid('entity', `entity must be one of ${AUDIT_ENTITIES.join(', ')}`);
  }
  const entityId = (query.id ?? '').trim();
  if (entityId !== '' && (entity === '' || entityId.length > 64)) {
    throw errors.invalid('id', 'id needs entity, and is at most 64 characters');
  }
  const after = (query.after ?? '').trim();
  if (after !== '' && !isUuid(after)) throw errors.invalid('after', 'after is not the id of an audit entry');
  return { entity, entityId, after: after.toLowerCase() };
}

/** The owner's activity log (PRODUCT part 23): newest first, a page at a time by cursor. */
export async function auditPageRoutes(app: App) {
  app.get<{ Querystring: Query }>('/audit', { schema: { hide: true } }, async (request, reply) => {
    const v = viewOf(request);
    try {
      const q = auditQuery(request.query);
      const rows = await auditEntriesForPage(app, v, {
        entity: q.entity || undefined,
        entityId: q.entityId || undefined,
        startingAfter: q.after || undefined,
        limit: AUDIT_PAGE + 1,
      });
      const entries = rows.slice(0, AUDIT_PAGE);
      const last = entries.at(-1);
      const next =
        rows.length > AUDIT_PAGE && last
          ? `/dashboard/audit?${new URLSearchParams({
              ...(q.entity && { entity: q.entity }),
              ...(q.entityId && { id: q.entityId }),
              after: last.id,
            }).toString()}`
          : null;
      return sendPage(reply, 200, renderAuditLog(v, { entries, entity: q.entity, entityId: q.entityId, next }));
    } catch (error) {
      const { status, flash } = formError(error, v.t);
      return sendPage(reply, status, renderAuditLog(v, { entries: [], entity: '', entityId: '', next: null }, flash));
    }
  });
}
