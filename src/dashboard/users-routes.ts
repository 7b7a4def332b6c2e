import type { App } from '../http/types.js';
import { checkId, type Form, viewOf } from './common.js';
import { formError } from './errors.js';
import { outcomeFlash, seeOther, sendPage } from './http.js';
import { renderUsers } from './pages/users.js';

type Query = Record<string, string | undefined>;
const EMPTY = { name: '', phone: '', role: 'collector' };

/** The owner adds staff, changes their roles and removes them; a removed user's sessions end at once (users/service.ts). */
export async function usersRoutes(app: App) {
  const { users } = app.deps.services;

  app.get<{ Querystring: Query }>('/users', { schema: { hide: true } }, async (request, reply) => {
    const v = viewOf(request);
    return sendPage(
      reply,
      200,
      renderUsers(v, await users.list(v.business.id), EMPTY, outcomeFlash(v.t, request.query)),
    );
  });

  app.post<{ Body: Form }>('/users', { schema: { hide: true } }, async (request, reply) => {
    const v = viewOf(request);
    const values = {
      name: request.body.name ?? '',
      phone: request.body.phone ?? '',
      role: request.body.role ?? '',
    };
    try {
      await users.add(v.business.id, values);
    } catch (error) {
      const { status, flash } = formError(error);
      return sendPage(reply, status, renderUsers(v, await users.list(v.business.id), values, flash));
    }
    return seeOther(reply, '/dashboard/users?ok=user_added');
  });

  app.post<{ Body: Form }>('/users/role', { schema: { hide: true } }, async (request, reply) => {
    const v = viewOf(request);
    try {
      await users.changeRole(v.business.id, request.body.user_id ?? '', request.body.role ?? '');
    } catch (error) {
      const { status, flash } = formError(error);
      return sendPage(reply, status, renderUsers(v, await users.list(v.business.id), EMPTY, flash));
    }
    return seeOther(reply, '/dashboard/users?ok=user_role_changed');
  });

  app.post<{ Params: { id: string }; Body: Form }>(
    '/users/:id/remove',
    { schema: { hide: true } },
    async (request, reply) => {
      const v = viewOf(request);
      try {
        await users.remove(v.business.id, checkId(request.params.id));
      } catch (error) {
        const { status, flash } = formError(error);
        return sendPage(reply, status, renderUsers(v, await users.list(v.business.id), EMPTY, flash));
      }
      return seeOther(reply, '/dashboard/users?ok=user_removed');
    },
  );
}
