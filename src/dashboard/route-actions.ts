import type { FastifyRequest, RouteOptions } from 'fastify';
import { contactNameKey } from '../contacts/name-key.js';
import { findContactsByNameKeys } from '../contacts/repository.js';
import type { Executor } from '../db/schema.js';
import { errors } from '../errors.js';
import { isUuid } from '../lib/ids.js';
import { type Action, isScoped, may } from '../users/permissions.js';
import { assigneeOfContact, assigneeOfDue } from '../users/scope.js';
import type { DashboardSession } from './auth.js';

/**
 * Which buyer a route acts on, for the roles that act on their own buyers only (collectors):
 * the due of `:id`, the contact of `:id`, the contact of `?contact=` (required), or the contact
 * a new due's form names (which must exist). Another buyer's page answers 404, as another
 * business's does.
 */
export type Scope = 'due' | 'contact' | 'contact-query' | 'contact-name';

export interface RouteRule {
  /** the permission (users/permissions.ts); 'signed-in': any user (signing out) */
  action: Action | 'signed-in';
  scope?: Scope;
  /** a GET the role may not see sends it here instead of a 403 (a collector's home: their buyers) */
  fallback?: string;
}

/** Every signed-in route of the dashboard and what it takes. A route missing here fails at start-up. */
export const ROUTE_ACTIONS: Record<string, RouteRule> = {
  'POST /dashboard/logout': { action: 'signed-in' },
  'GET /dashboard': { action: 'summary.read', fallback: '/dashboard/contacts' },
  'GET /dashboard/dues': { action: 'dues.read', scope: 'contact-query', fallback: '/dashboard/contacts' },
  'GET /dashboard/dues/new': { action: 'dues.create' },
  'POST /dashboard/dues': { action: 'dues.create', scope: 'contact-name' },
  'GET /dashboard/dues/:id': { action: 'dues.read', scope: 'due' },
  'POST /dashboard/dues/:id/edit': { action: 'dues.edit', scope: 'due' },
  'POST /dashboard/dues/:id/payments': { action: 'payments.record', scope: 'due' },
  'POST /dashboard/dues/:id/mark-paid': { action: 'payments.record', scope: 'due' },
  'POST /dashboard/dues/:id/remind': { action: 'reminders.send', scope: 'due' },
  'POST /dashboard/dues/:id/claims/:claimId/confirm': { action: 'claims.decide', scope: 'due' },
  'POST /dashboard/dues/:id/claims/:claimId/reject': { action: 'claims.decide', scope: 'due' },
  'GET /dashboard/dues/:id/mark-paid': { action: 'payments.record', scope: 'due' },
  'GET /dashboard/dues/:id/delete': { action: 'dues.delete', scope: 'due' },
  'POST /dashboard/dues/:id/delete': { action: 'dues.delete', scope: 'due' },
  'GET /dashboard/contacts': { action: 'contacts.read' },
  'GET /dashboard/contacts/:id': { action: 'contacts.read', scope: 'contact' },
  'POST /dashboard/contacts/:id/reminders': { action: 'contacts.edit', scope: 'contact' },
  'POST /dashboard/contacts/:id/edit': { action: 'contacts.edit', scope: 'contact' },
  'POST /dashboard/contacts/:id/assign': { action: 'contacts.assign', scope: 'contact' },
  'POST /dashboard/contacts/:id/payments': { action: 'payments.record', scope: 'contact' },
  'POST /dashboard/contacts/:id/dues': { action: 'dues.create', scope: 'contact' },
  'POST /dashboard/contacts/:id/remind': { action: 'reminders.send', scope: 'contact' },
  'GET /dashboard/contacts/:id/merge': { action: 'contacts.merge' },
  'POST /dashboard/contacts/:id/merge': { action: 'contacts.merge' },
  'GET /dashboard/contacts/:id/statement': { action: 'contacts.read', scope: 'contact' },
  'GET /dashboard/contacts/:id/statement.csv': { action: 'contacts.read', scope: 'contact' },
  'GET /dashboard/contacts/:id/payments/:receiptId/reverse': { action: 'payments.reverse', scope: 'contact' },
  'POST /dashboard/contacts/:id/payments/:receiptId/reverse': { action: 'payments.reverse', scope: 'contact' },
  'GET /dashboard/contacts/:id/claims/:claimId/confirm': { action: 'claims.decide', scope: 'contact' },
  'POST /dashboard/contacts/:id/claims/:claimId/confirm': { action: 'claims.decide', scope: 'contact' },
  'GET /dashboard/contacts/:id/claims/:claimId/reject': { action: 'claims.decide', scope: 'contact' },
  'POST /dashboard/contacts/:id/claims/:claimId/reject': { action: 'claims.decide', scope: 'contact' },
  'GET /dashboard/bank': { action: 'bank.read' },
  'POST /dashboard/bank': { action: 'bank.manage' },
  'GET /dashboard/bank/credits/:id': { action: 'bank.read' },
  'POST /dashboard/bank/credits/:id/apply': { action: 'bank.manage' },
  'POST /dashboard/bank/credits/:id/ignore': { action: 'bank.manage' },
  'GET /dashboard/import': { action: 'import' },
  'POST /dashboard/import': { action: 'import' },
  'GET /dashboard/export': { action: 'export' },
  'GET /dashboard/settings': { action: 'settings.read' },
  'POST /dashboard/settings': { action: 'settings.edit' },
  'GET /dashboard/developers': { action: 'developers.read' },
  'POST /dashboard/developers/keys': { action: 'keys.manage' },
  'POST /dashboard/developers/keys/:id/revoke': { action: 'keys.manage' },
  'POST /dashboard/developers/webhooks': { action: 'webhooks.manage' },
  'POST /dashboard/developers/webhooks/:id/test': { action: 'webhooks.manage' },
  'POST /dashboard/developers/webhooks/:id/delete': { action: 'webhooks.manage' },
  'POST /dashboard/developers/webhooks/:id/rotate': { action: 'webhooks.manage' },
  'POST /dashboard/developers/webhooks/:id/replay': { action: 'webhooks.manage' },
  'POST /dashboard/developers/webhooks/:id/enable': { action: 'webhooks.manage' },
  'POST /dashboard/developers/webhooks/:id/deliveries/:deliveryId/redeliver': { action: 'webhooks.manage' },
  'GET /dashboard/users': { action: 'users.read' },
  'POST /dashboard/users': { action: 'users.manage' },
  'POST /dashboard/users/role': { action: 'users.manage' },
  'POST /dashboard/users/:id/remove': { action: 'users.manage' },
  'GET /dashboard/audit': { action: 'audit.read' },
};

const ruleKey = (method: string, url: string) =>
  `${method} ${url.length > 10 && url.endsWith('/') ? url.slice(0, -1) : url}`;

/** Refuses to start a dashboard route nobody said the roles of (HEAD routes follow their GET). */
export function checkRouteHasRule(route: RouteOptions): void {
  for (const method of ([] as string[]).concat(route.method)) {
    if (method === 'HEAD') continue;
    const key = ruleKey(method, route.url ?? '');
    if (!ROUTE_ACTIONS[key]) {
      throw new Error(`dashboard route "${key}" has no entry in src/dashboard/route-actions.ts ROUTE_ACTIONS`);
    }
  }
}

function ruleOf(request: FastifyRequest): RouteRule {
  const method = request.method === 'HEAD' ? 'GET' : request.method;
  const rule = ROUTE_ACTIONS[ruleKey(method, request.routeOptions.url ?? '')];
  if (!rule) throw new Error(`no rule for ${method} ${request.routeOptions.url}`);
  return rule;
}

export type Verdict = { kind: 'allowed' } | { kind: 'forbidden' } | { kind: 'redirect'; location: string };

/** Before the body is read: may this role take this route's action at all? */
export function roleVerdict(request: FastifyRequest, session: DashboardSession): Verdict {
  const rule = ruleOf(request);
  if (rule.action === 'signed-in' || may(session.user.role, rule.action)) {
    // A scoped role's dues list is one buyer's: without `?contact=` it is sent to its buyers.
    const contact = (request.query as Record<string, unknown> | undefined)?.contact;
    if (rule.scope === 'contact-query' && isScoped(session.user.role) && !contact && rule.fallback) {
      return { kind: 'redirect', location: rule.fallback };
    }
    return { kind: 'allowed' };
  }
  if (request.method === 'GET' && rule.fallback) return { kind: 'redirect', location: rule.fallback };
  return { kind: 'forbidden' };
}

/** Once the body is read: for a scoped role, is the buyer this route acts on assigned to them? */
export async function scopeVerdict(db: Executor, request: FastifyRequest, session: DashboardSession): Promise<Verdict> {
  const rule = ruleOf(request);
  if (!rule.scope || !isScoped(session.user.role)) return { kind: 'allowed' };
  const businessId = session.business.id;
  const params = request.params as Record<string, string | undefined>;
  const own = (row: { assigned_to: string | null } | undefined) => row?.assigned_to === session.user.id;
  const id = (value: unknown) => {
    if (typeof value !== 'string' || !isUuid(value)) throw errors.notFound('page');
    return value.toLowerCase();
  };
  switch (rule.scope) {
    case 'due':
      if (!own(await assigneeOfDue(db, businessId, id(params.id)))) throw errors.notFound('page');
      return { kind: 'allowed' };
    case 'contact':
      if (!own(await assigneeOfContact(db, businessId, id(params.id)))) throw errors.notFound('page');
      return { kind: 'allowed' };
    case 'contact-query': {
      const contact = (request.query as Record<string, unknown>).contact;
      if (!own(await assigneeOfContact(db, businessId, id(contact)))) throw errors.notFound('page');
      return { kind: 'allowed' };
    }
    case 'contact-name': {
      const name = (request.body as Record<string, unknown> | undefined)?.contact_name;
      const key = typeof name === 'string' ? contactNameKey(name) : '';
      const [found] = key === '' ? [] : await findContactsByNameKeys(db, businessId, [key]);
      return own(found) ? { kind: 'allowed' } : { kind: 'forbidden' };
    }
  }
}
