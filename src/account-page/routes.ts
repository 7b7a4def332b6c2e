import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../http/types.js';
import { acceptedLanguage } from '../i18n/index.js';
import { GatewayError } from '../payments-gateway/port.js';
import { contentSecurityPolicy } from '../paypage/html.js';
import { parseForm, payPageErrorHandler, SECURITY_HEADERS, sendHtml } from '../paypage/routes.js';
import { renderAccountMessage, renderAccountPage } from './pages.js';
import { AccountPageService } from './service.js';

/**
 * One page for a malformed and an unknown token alike: nothing tells whether a token exists. No
 * buyer is known, so it speaks the language the browser asks for.
 */
const NOT_FOUND = {
  en: renderAccountMessage('en', 'account.not_found_title', 'account.not_found'),
  hi: renderAccountMessage('hi', 'account.not_found_title', 'account.not_found'),
};
const notFound = (request: FastifyRequest, reply: FastifyReply) =>
  sendHtml(reply, 404, NOT_FOUND[acceptedLanguage(request.headers['accept-language'])]);

type TokenRoute = { Params: { token: string } };

/**
 * The buyer's account page (/a/<token>), like the pay page: no API key, plain HTML that works
 * without JavaScript, the token as the only credential (the pay page's security headers), errors
 * as HTML pages.
 */
export async function accountPageRoutes(app: App) {
  const service = new AccountPageService({
    db: app.deps.store.db,
    clock: app.deps.clock,
    rateLimits: app.deps.rateLimits,
  });

  // Only an HTML form is accepted here; JSON and anything else get 415.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 4096 },
    (_r, body, done) => done(null, parseForm(body as string)),
  );
  app.setNotFoundHandler(notFound);
  app.setErrorHandler(payPageErrorHandler);

  const { moneyIn } = app.deps.services;
  const { publicBaseUrl } = app.deps.config;
  const online = { enabled: moneyIn.online };
  // "Pay online" posts here and is redirected to the gateway: the form may lead there.
  const pageHeaders = moneyIn.online
    ? { ...SECURITY_HEADERS, 'content-security-policy': contentSecurityPolicy(moneyIn.linkOrigins) }
    : SECURITY_HEADERS;
  const backTo = (reply: FastifyReply, token: string) =>
    reply.code(303).headers(SECURITY_HEADERS).header('location', `/a/${token}`).send();

  app.get<TokenRoute>('/:token', { schema: { hide: true } }, async (request, reply) => {
    const page = await service.view(request.params.token);
    if (page) return sendHtml(reply, 200, await renderAccountPage(page, request.params.token, online), pageHeaders);
    // The link of a buyer merged into another: the buyer's account is the kept buyer's now.
    const moved = await service.movedTo(request.params.token);
    if (moved) return reply.code(301).headers(SECURITY_HEADERS).header('location', `/a/${moved}`).send();
    return notFound(request, reply);
  });

  // "Pay online": a payment link for the whole balance (made now, or the open one of that amount).
  app.post<TokenRoute>('/:token/online', { schema: { hide: true } }, async (request, reply) => {
    const { token } = request.params;
    const page = await service.view(token);
    if (!page || !moneyIn.online) return notFound(request, reply);
    // Nothing owed (paid meanwhile, or credit): the page says so.
    if (page.balancePaise <= 0) return backTo(reply, token);
    try {
      const link = await moneyIn.accountLinkFor({
        contactId: page.contactId,
        contactName: page.contactName,
        businessId: page.businessId,
        businessName: page.businessName,
        balancePaise: page.balancePaise,
        currency: page.currency,
        accountPageUrl: `${publicBaseUrl}/a/${token}`,
      });
      for (const failure of link.cancelFailures) {
        request.log.warn(
          { reason: failure.message, detail: failure.detail },
          'stale account payment link not cancelled',
        );
      }
      return reply.code(303).headers(pageHeaders).header('location', link.shortUrl).send();
    } catch (error) {
      if (!(error instanceof GatewayError)) throw error;
      request.log.warn({ reason: error.message, detail: error.detail }, 'account payment link not created');
      return sendHtml(reply, 502, await renderAccountPage(page, token, { enabled: true, failed: true }), pageHeaders);
    }
  });

  app.post<TokenRoute & { Body: Record<string, string> | undefined }>(
    '/:token/claim',
    { schema: { hide: true } },
    async (request, reply) => {
      const { token } = request.params;
      const outcome = await service.claim(token, { amount: request.body?.amount, reference: request.body?.reference });
      switch (outcome.kind) {
        case 'not_found':
          return notFound(request, reply);
        case 'invalid':
          return sendHtml(
            reply,
            400,
            await renderAccountPage(outcome.page, token, online, { error: outcome.field, ...outcome.form }),
            pageHeaders,
          );
        case 'rate_limited':
          reply.header('retry-after', String(outcome.retryAfterSeconds));
          return sendHtml(
            reply,
            429,
            renderAccountMessage(outcome.page.language, 'account.too_many_title', 'account.too_many', {
              minutes: Math.ceil(outcome.retryAfterSeconds / 60),
            }),
          );
        default:
          // Recorded: the page itself now tells the buyer (303: GET it).
          return backTo(reply, token);
      }
    },
  );
}
