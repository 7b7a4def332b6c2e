import { Type } from 'typebox';
import { errorResponses, ref } from '../http/schemas.js';
import type { App } from '../http/types.js';
import type { UserRow } from './repository.js';
import { User, type UserResponse } from './schema.js';

export function presentUser(row: UserRow): UserResponse {
  return { id: row.id, name: row.name, phone: row.phone, role: row.role, created_at: row.created_at };
}

export async function userRoutes(app: App) {
  const { users } = app.deps.services;
  app.get(
    '/users',
    {
      schema: {
        operationId: 'listUsers',
        tags: ['Users'],
        summary: "List the business's users (the owner and staff)",
        description:
          'Each signs in to the dashboard with a code sent to their own phone. Staff are added and removed by the owner (dashboard, or the admin CLI).',
        response: { 200: Type.Object({ data: Type.Array(ref(User)) }), ...errorResponses() },
      },
    },
    async (request) => ({ data: (await users.list(request.auth.business.id)).map(presentUser) }),
  );
}
