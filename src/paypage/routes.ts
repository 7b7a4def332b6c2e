import type { FastifyReply, FastifyRequest } from 'fastify';
import { logFailure, toAppError } from '../http/error-handler.js';
import { statusOf } from '../http/error-status.js';
import type { App } from '../http/types.js';
import { acceptedLanguage } from '../i18n/index.js';
import { GatewayError } from '../payments-gateway/port.js';
import { CONTENT_SECURITY_POLICY, contentSecurityPolicy } from './html.js';
import { renderMessage, renderPayPage } from './pages.js';
import { type PayPage, PayPageService } from './service.js';

/**
 * The token in the URL is the only credential, so the page never lets it leak: no referrer, no
 * caching, no indexing, no framing, and a CSP under which nothing but the page's own style loads.
 */
export const SECURITY_HEADERS = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
  'x-robots-tag': 'noindex, nofollow',
  'cross-origin-opener-policy': 'same-origin',
};

/**
 * One page for a malformed and an unknown token alike: nothing tells whether a token exists. No
 * buyer is known, so it speaks the language the browser asks for.
 */
const NOT_FOUND_PAGES = {
  en: renderMessage('en', 'pay.not_found_title', 'pay.not_found'),
  hi: renderMessage('hi', 'pay.not_found_title', 'pay.not_found'),
};
const notFoundPage = (request: FastifyRequest) => NOT_FOUND_PAGES[acceptedLanguage(request.headers['accept-language'])];

/** A deleted due (PRODUCT part 8): the link is real but nothing is owed on it any more. */
const gonePage = (page: PayPage) => renderMessage(page.language, 'pay.gone_title', 'pay.gone');

export function sendHtml(reply: FastifyReply, status: number, page: string, headers = SECURITY_HEADERS) {
  return reply.code(status).headers(headers).type('text/html; charset=utf-8').send(page);
}

/** A form body as the browser sends it; repeated fields keep their first value. */
export function parseForm(body: string): Record<string, string> {
  const form: Record<string, string> = {};
  for (const [key, value] of new URLSearchParams(body)) if (!(key in form)) form[key] = value;
  return form;
}

/**
 * Errors in the pay page's scope, and the framework's errors on a /pay URL (app.ts), answer as
 * HTML pages: the same statuses as the API (the shared toAppError decides them), never the path.
 */
export function payPageErrorHandler(error: unknown, request: FastifyRequest, reply: FastifyReply) {
  const appError = toAppError(error, request);
  // A browser is told the framework's more exact 4xx (415 for a non-form body, 413 for a large one).
  const framework = (error as { statusCode?: number }).statusCode;
  const status =
    statusOf(appError) === 400 && framework && framework > 400 && framework < 500 ? framework : statusOf(appError);
  logFailure(request, appError, error);
  if (status === 404) return sendHtml(reply, 404, notFoundPage(request));
  const lang = acceptedLanguage(request.headers['accept-language']);
  if (status < 500) return sendHtml(reply, status, renderMessage(lang, 'pay.refused_title', 'pay.refused'));
  if (appError.headers) reply.headers(appError.headers);
  return sendHtml(reply, status, renderMessage(lang, 'error.title', 'error.generic'));
}

type TokenRoute = { Params: { token: string } };

/**
 * The hosted pay page (PRODUCT part 8), registered outside /v1: no API key, plain HTML that works
 * without JavaScript. Errors in this scope answer as HTML pages, not as the API's JSON envelope.
 */
export async function payPageRoutes(app: App) {
  const service = new PayPageService({
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

  app.setNotFoundHandler((request, reply) => sendHtml(reply, 404, notFoundPage(request)));
  app.setErrorHandler(payPageErrorHandler);

  const { moneyIn } = app.deps.services;
  const { publicBaseUrl } = app.deps.config;
  const online = { enabled: moneyIn.online };
  // "Pay online" posts here and is redirected to the gateway: the form may lead there.
  const pageHeaders = moneyIn.online
    ? { ...SECURITY_HEADERS, 'content-security-policy': contentSecurityPolicy(moneyIn.linkOrigins) }
    : SECURITY_HEADERS;
  const sendPayPage = (reply: FastifyReply, status: number, page: string) => sendHtml(reply, status, page, pageHeaders);

  app.get<TokenRoute>('/:token', { schema: { hide: true } }, async (request, reply) => {
    const page = await service.view(request.params.token);
    if (!page) return sendHtml(reply, 404, notFoundPage(request));
    if (page.deleted) return sendHtml(reply, 410, gonePage(page));
    return sendPayPage(reply, 200, await renderPayPage(page, request.params.token, undefined, online));
  });

  // PRODUCT part 11: a payment link for the balance (made now, or the open one of that amount).
  app.post<TokenRoute>('/:token/online', { schema: { hide: true } }, async (request, reply) => {
    const { token } = request.params;
    const page = await service.view(token);
    if (!page || !moneyIn.online) return sendHtml(reply, 404, notFoundPage(request));
    if (page.deleted) return sendHtml(reply, 410, gonePage(page));
    if (page.status === 'paid') {
      return reply.code(303).headers(SECURITY_HEADERS).header('location', `/pay/${token}`).send();
    }
    try {
      const link = await moneyIn.linkFor({
        transactionId: page.transactionId,
        businessId: page.businessId,
        businessName: page.businessName,
        balancePaise: page.balancePaise,
        currency: page.currency,
        invoiceNumber: page.invoiceNumber,
        dueDate: page.dueDate,
        payPageUrl: `${publicBaseUrl}/pay/${token}`,
      });
      for (const failure of link.cancelFailures) {
        request.log.warn({ reason: failure.message, detail: failure.detail }, 'stale payment link not cancelled');
      }
      return reply.code(303).headers(pageHeaders).header('location', link.shortUrl).send();
    } catch (error) {
      if (!(error instanceof GatewayError)) throw error;
      request.log.warn({ reason: error.message, detail: error.detail }, 'payment link not created');
      return sendPayPage(reply, 502, await renderPayPage(page, token, undefined, { enabled: true, failed: true }));
    }
  });

  app.post<TokenRoute & { Body: Record<string, string> | undefined }>(
    '/:token/claim',
    { schema: { hide: true } },
    async (request, reply) => {
      const { token } = request.params;
      const outcome = await service.claim(token, { reference: request.body?.reference });
      switch (outcome.kind) {
        case 'not_found':
          return sendHtml(reply, 404, notFoundPage(request));
        case 'deleted':
          return sendHtml(reply, 410, gonePage(outcome.page));
        case 'invalid':
          return sendPayPage(reply, 400, await renderPayPage(outcome.page, token, outcome.error, online));
        case 'rate_limited':
          reply.header('retry-after', String(outcome.retryAfterSeconds));
          return sendHtml(
            reply,
            429,
            renderMessage(outcome.language, 'pay.too_many_title', 'pay.too_many', {
              minutes: Math.ceil(outcome.retryAfterSeconds / 60),
            }),
          );
        default:
          // Recorded, or the due is paid: either way the page itself now tells the buyer (303: GET it).
          return reply.code(303).headers(SECURITY_HEADERS).header('location', `/pay/${token}`).send();
      }
    },
  );
}
