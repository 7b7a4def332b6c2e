import type { FastifyReply, FastifyRequest } from 'fastify';
import type { DashboardSession } from './auth.js';
import { isMessageKey, type MessageKey } from './i18n.js';
import type { PageChrome } from './layout.js';
import { CONTENT_SECURITY_POLICY } from './layout.js';

export const SESSION_COOKIE = 'dashboard_session';
export const LOGIN_CSRF_COOKIE = 'dashboard_login_csrf';

const SECURITY_HEADERS = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'referrer-policy': 'same-origin',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
  'x-robots-tag': 'noindex, nofollow',
  'cross-origin-opener-policy': 'same-origin',
};

export function sendPage(reply: FastifyReply, status: number, page: string) {
  return reply.code(status).headers(SECURITY_HEADERS).type('text/html; charset=utf-8').send(page);
}

/** Post/redirect/get: a successful form answers 303 to a page that says what happened. */
export function seeOther(reply: FastifyReply, location: string) {
  return reply.code(303).headers(SECURITY_HEADERS).header('location', location).send();
}

declare module 'fastify' {
  interface FastifyRequest {
    dashboardSession: DashboardSession | null;
  }
}

export function sessionOf(request: FastifyRequest): DashboardSession {
  const session = request.dashboardSession;
  if (!session) throw new Error('dashboard route reached without a session');
  return session;
}

/** The one-word outcomes a redirect may carry (`?ok=saved`), each a sentence in every language. */
const OUTCOMES: Record<string, MessageKey> = {
  created: 'due.created_ok',
  saved: 'due.saved',
  payment: 'due.payment_recorded',
  paid: 'due.marked_paid',
  deleted: 'due.deleted',
  reminded: 'due.reminder_sent',
  confirmed: 'due.claim_confirmed',
  imported: 'due.imported',
  rejected: 'due.claim_rejected',
  settings: 'settings.saved',
  received: 'ledger.received',
  reversed: 'ledger.reversed_ok',
  merged: 'merge.done',
  test: 'developers.test_sent',
  redelivered: 'developers.redelivered',
  replayed: 'developers.replayed',
  enabled: 'developers.enabled',
  user_added: 'users.added',
  user_removed: 'users.removed',
  user_role_changed: 'users.role_changed',
  assigned: 'ledger.assigned',
};

/** Every outcome a redirect may name (the language test shows each one). */
export const OUTCOME_NAMES = Object.keys(OUTCOMES);

export function outcomeFlash(
  t: (key: MessageKey, params?: Record<string, string>) => string,
  query: { ok?: string | undefined; reason?: string | undefined },
): PageChrome['flash'] {
  const reason = `step_reason.${query.reason}`;
  if (query.ok === 'held' && isMessageKey(reason)) {
    return { kind: 'error', text: t('due.reminder_held', { reason: t(reason) }) };
  }
  const key = query.ok === undefined ? undefined : OUTCOMES[query.ok];
  return key ? { kind: 'notice', text: t(key) } : undefined;
}
