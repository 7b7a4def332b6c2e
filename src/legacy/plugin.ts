import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../http/types.js';
import { legacyErrorHandler, legacyNotFoundHandler, legacyValidatorCompiler } from './errors.js';
import { legacyReadRoutes } from './routes.js';
import { legacyWebhookRoutes } from './webhooks.js';

export interface LegacyOptions {
  /** The /v1 authentication hook itself: same keys, same per-key budget, same headers. */
  authenticate: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
}

/**
 * The earlier response shape (SPEC part 9, PRODUCT part 7), registered under /legacy so that its
 * paths are {legacy_base_url}/v1/...: its own error body, 404 and query handling in this
 * encapsulated scope, over the services that /v1 uses.
 */
export async function legacyApi(app: App, options: LegacyOptions) {
  app.setErrorHandler(legacyErrorHandler);
  app.setNotFoundHandler(legacyNotFoundHandler);
  app.setValidatorCompiler(legacyValidatorCompiler);
  await app.register(
    async (v1) => {
      v1.addHook('onRequest', options.authenticate);
      await v1.register(legacyReadRoutes);
      await v1.register(legacyWebhookRoutes);
    },
    { prefix: '/v1' },
  );
}
