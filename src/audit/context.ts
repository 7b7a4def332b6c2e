import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import type { AuditActorType } from '../db/schema.js';

/** Who made a change, as an audit entry names them. */
export interface AuditActor {
  type: AuditActorType;
  id: string | null;
  name: string | null;
}

/** What an audit entry takes from the request (or job) it was written in. */
export interface AuditContext {
  actor: AuditActor;
  requestId: string | null;
}

/** Work done outside any request or chat command: the CLI, the workers, the gateway, the bank auto-match. */
export const SYSTEM_ACTOR: AuditActor = Object.freeze({ type: 'system', id: null, name: null });

/**
 * The operator's admin CLI (cli/run.ts runs every command as it): the system, as the API documents
 * it (no id, no name), set explicitly so that no context a command inherits can name anyone else.
 */
export const CLI_ACTOR: AuditActor = SYSTEM_ACTOR;

const storage = new AsyncLocalStorage<AuditContext>();

/**
 * The one place the audit log learns who acts. The HTTP edge opens a context per request
 * (`openRequestContext`), the API key and dashboard session hooks name the actor (`actAs`), a chat
 * command runs its work `as` the user who sent it; everything else is the system.
 */
export function currentAuditContext(): AuditContext {
  return storage.getStore() ?? { actor: SYSTEM_ACTOR, requestId: null };
}

/** Runs `work` as `actor` (a chat command as its sender), keeping the request id of the context it is in. */
export function runAs<T>(actor: AuditActor, work: () => T): T {
  return storage.run({ actor, requestId: storage.getStore()?.requestId ?? null }, work);
}

/** Names the actor of the current request's context (after its authentication); outside one, nothing. */
export function actAs(actor: AuditActor): void {
  const context = storage.getStore();
  if (context) context.actor = actor;
}

const RESOURCE = Symbol('auditContext');
interface WithContext {
  [RESOURCE]?: AsyncResource;
}

/**
 * Fastify hooks (in app.ts): `onRequest` opens the request's context, `preValidation` re-enters it
 * (a body read from the socket continues in the socket's async context, not the request's; the
 * same two steps as @fastify/request-context).
 */
export const requestContextHooks = {
  onRequest(request: { id: string }, _reply: unknown, done: () => void): void {
    storage.run({ actor: SYSTEM_ACTOR, requestId: request.id }, () => {
      const resource = new AsyncResource('audit-context');
      (request as WithContext)[RESOURCE] = resource;
      resource.runInAsyncScope(done);
    });
  },
  preValidation(request: object, _reply: unknown, done: () => void): void {
    const resource = (request as WithContext)[RESOURCE];
    if (resource) resource.runInAsyncScope(done);
    else done();
  },
};
