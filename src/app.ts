import { randomUUID } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, LogController } from 'fastify';
import { accountPageRoutes } from './account-page/routes.js';
import { adjustmentRoutes, adjustmentSchemas } from './adjustments/routes.js';
import { actAs, requestContextHooks } from './audit/context.js';
import { auditRoutes, auditSchemas } from './audit/routes.js';
import { bankRoutes, bankSchemas } from './bank/routes.js';
import { bulkRoutes } from './bulk/routes.js';
import { businessRoutes } from './businesses/routes.js';
import { Business } from './businesses/schema.js';
import { whatsappWebhookRoutes } from './channels/whatsapp-webhook.js';
import { claimRoutes, claimSchemas } from './claims/routes.js';
import { contactRoutes, contactSchemas } from './contacts/routes.js';
import { dashboardRoutes } from './dashboard/routes.js';
import { errors } from './errors.js';
import { eventRoutes, eventSchemas } from './events/routes.js';
import { homeRoutes } from './home/routes.js';
import { authenticationHook } from './http/auth.js';
import { errorHandler, notFoundHandler } from './http/error-handler.js';
import { registerOpenApi } from './http/openapi.js';
import { RenderedResponses } from './http/rendered.js';
import { ErrorBody } from './http/schemas.js';
import type { App, AppDeps } from './http/types.js';
import { validatorCompiler } from './http/validation.js';
import { legacyErrorHandler } from './legacy/errors.js';
import { legacyApi } from './legacy/plugin.js';
import { legacySchemas } from './legacy/schema.js';
import { legacyWebhookSchemas } from './legacy/webhooks.js';
import { jsonTooDeep, MAX_JSON_DEPTH } from './lib/json-text.js';
import { messagingRoutes } from './messaging/routes.js';
import { Usage as MessagingUsage } from './messaging/schema.js';
import { opsRoutes } from './ops/routes.js';
import { unappliedPaymentRoutes, unappliedPaymentSchemas } from './payments-gateway/routes.js';
import { razorpayWebhookRoutes } from './payments-gateway/webhook-routes.js';
import { payPageErrorHandler, payPageRoutes } from './paypage/routes.js';
import { accountClaimRoutes, accountClaimSchemas } from './receipts/account-claim-routes.js';
import { receiptRoutes, receiptSchemas } from './receipts/routes.js';
import { reminderRoutes } from './reminders/routes.js';
import { statementRoutes, statementSchemas } from './statements/routes.js';
import { summaryRoutes } from './summary/routes.js';
import { Aging, Summary } from './summary/schema.js';
import { transactionRoutes, transactionSchemas } from './transactions/routes.js';
import { userRoutes } from './users/routes.js';
import { userSchemas } from './users/schema.js';
import { webhookRoutes, webhookSchemas } from './webhooks/routes.js';

const REQUEST_ID_RE = /^[A-Za-z0-9._:-]{1,128}$/;

/** TRUST_PROXY as Fastify takes it: a hop count is "the nearest n proxies" (proxy-addr's own rule). */
function trustProxyOption(trust: App['deps']['config']['trustProxy']) {
  if (typeof trust === 'number') return (_address: string, hop: number) => hop < trust;
  return trust === false ? false : [...trust];
}

/** Builds the HTTP application; it does not listen (server.ts does, tests use inject or listen). */
export async function buildApp(deps: AppDeps, logger: FastifyBaseLogger): Promise<App> {
  const { config } = deps;
  const app = Fastify({
    loggerInstance: logger,
    // Per-request access logs halve throughput (issue 2 measured it), so they are opt-in.
    logController: new LogController({ disableRequestLogging: !config.logRequests }),
    bodyLimit: config.bodyLimitBytes,
    trustProxy: trustProxyOption(config.trustProxy),
    return503OnClosing: true,
    requestIdHeader: false,
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && REQUEST_ID_RE.test(incoming) ? incoming : randomUUID();
    },
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 256 },
    // Errors the router raises before any route is chosen (bad percent-encoding, an over-long
    // path parameter) go through the error handler of the scope the URL belongs to (PRODUCT part 16).
    frameworkErrors: (error, request, reply) => {
      reply.header('x-request-id', request.id);
      const path = request.raw.url ?? '';
      if (path.startsWith('/legacy/')) return legacyErrorHandler(error, request, reply);
      if (path.startsWith('/pay/') || path.startsWith('/a/')) return payPageErrorHandler(error, request, reply);
      return errorHandler(error, request, reply);
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.decorate('deps', deps);
  app.decorate('rendered', new RenderedResponses(deps.services.pages, deps.metrics.renderedResponses));
  app.decorateRequest('auth', null as never);
  app.setValidatorCompiler(validatorCompiler);
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler(notFoundHandler);

  // An empty body is "no body" (optional-body actions take it as {}); anything else must be JSON.
  const jsonParser = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '' || (typeof body === 'string' && body.trim() === '')) return done(null, undefined);
    // Refused before it is parsed: nothing downstream walks a value of unbounded depth.
    if (jsonTooDeep(body as string)) {
      return done(errors.badRequest(`the body nests deeper than ${MAX_JSON_DEPTH} levels`), undefined);
    }
    return jsonParser(request, body as string, done);
  });

  // Who acts and in which request, for the audit entries a request writes (audit/context.ts).
  app.addHook('onRequest', requestContextHooks.onRequest);
  app.addHook('preValidation', requestContextHooks.preValidation);

  const { httpDuration } = deps.metrics;
  // One hook for what every response needs (each Fastify hook costs a request a few microseconds).
  app.addHook('onSend', (request, reply, payload, done) => {
    reply.header('x-request-id', request.id);
    // API answers are one business's data: no shared or browser cache keeps them.
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    httpDuration.observe(
      { method: request.method, route: request.routeOptions.url ?? 'unmatched', status: reply.statusCode },
      reply.elapsedTime / 1000,
    );
    done(null, payload);
  });

  for (const schema of [
    ErrorBody,
    Business,
    Summary,
    Aging,
    ...contactSchemas,
    ...transactionSchemas,
    ...webhookSchemas,
    ...eventSchemas,
    ...claimSchemas,
    ...accountClaimSchemas,
    ...receiptSchemas,
    ...bankSchemas,
    ...statementSchemas,
    ...adjustmentSchemas,
    ...userSchemas,
    ...auditSchemas,
    ...unappliedPaymentSchemas,
    ...legacySchemas,
    ...legacyWebhookSchemas,
    MessagingUsage,
  ]) {
    app.addSchema(schema);
  }
  await registerOpenApi(app, config.publicBaseUrl);
  await app.register(opsRoutes);
  // Where everything is (docs, dashboard, health), for a person who opens the server's address.
  await app.register(homeRoutes);
  // The buyer's pay page: no API key, so outside the /v1 scope.
  await app.register(payPageRoutes, { prefix: '/pay' });
  await app.register(accountPageRoutes, { prefix: '/a' });
  await app.register(whatsappWebhookRoutes);
  // The business's dashboard (PRODUCT part 14): a session cookie instead of an API key.
  await app.register(dashboardRoutes, { prefix: '/dashboard' });
  await app.register(razorpayWebhookRoutes);

  const authenticateKey = authenticationHook({
    config,
    businesses: deps.services.businesses,
    rateLimits: deps.rateLimits,
  });
  // An API key acts as itself in the audit log: its id, and its prefix (what the owner sees of it).
  const authenticate: typeof authenticateKey = async (request, reply) => {
    await authenticateKey(request, reply);
    const header = request.headers['x-api-key'];
    const prefix = typeof header === 'string' ? header.trim().slice(0, 12) : null;
    actAs({ type: 'api_key', id: request.auth.keyId, name: prefix });
  };
  await app.register(
    async (v1) => {
      v1.addHook('onRequest', authenticate);
      await v1.register(businessRoutes);
      await v1.register(summaryRoutes);
      await v1.register(contactRoutes);
      await v1.register(transactionRoutes);
      await v1.register(bulkRoutes);
      await v1.register(claimRoutes);
      await v1.register(accountClaimRoutes);
      await v1.register(receiptRoutes);
      await v1.register(bankRoutes);
      await v1.register(statementRoutes);
      await v1.register(adjustmentRoutes);
      await v1.register(unappliedPaymentRoutes);
      await v1.register(reminderRoutes);
      await v1.register(messagingRoutes);
      await v1.register(webhookRoutes);
      await v1.register(eventRoutes);
      await v1.register(userRoutes);
      await v1.register(auditRoutes);
    },
    { prefix: '/v1' },
  );
  // SPEC part 9: the earlier response shape at {legacy_base_url} = PUBLIC_BASE_URL/legacy.
  await app.register(legacyApi, { prefix: '/legacy', authenticate });

  return app;
}
