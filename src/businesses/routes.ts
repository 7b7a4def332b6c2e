import { Data, errorResponses, ref } from '../http/schemas.js';
import type { App } from '../http/types.js';
import { presentBusiness } from './presenter.js';
import { Business } from './schema.js';

export async function businessRoutes(app: App) {
  app.get(
    '/me',
    {
      schema: {
        operationId: 'getMe',
        tags: ['Business'],
        summary: 'The business that owns the API key',
        response: { 200: Data(ref(Business)), ...errorResponses() },
      },
    },
    async (request) => ({ data: presentBusiness(request.auth.business) }),
  );
}
