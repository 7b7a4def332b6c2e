import fastifyCookie from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { actAs } from '../audit/context.js';
import { AppError } from '../errors.js';
import { toAppError } from '../http/error-handler.js';
import { statusOf } from '../http/error-status.js';
import type { App } from '../http/types.js';
import { refusalText } from '../i18n/refusal.js';
import { randomToken } from '../lib/ids.js';
import { DashboardAuth, type DashboardSession, SESSION_TTL_MS } from './auth.js';
import { parseForm } from './forms.js';
import { LOGIN_CSRF_COOKIE, SESSION_COOKIE, seeOther, sendPage } from './http.js';
import { translator } from './i18n.js';
import { loginTranslator, renderLogin, renderMessage } from './pages/login.js';
import { checkRouteHasRule, roleVerdict, scopeVerdict } from './route-actions.js';
import { signedInRoutes } from './signed-in.js';

type Form = Record<string, string | undefined>;

/**
 * The business's dashboard (PRODUCT part 14): server-rendered pages over the same services as /v1
 * and /legacy. Forms post urlencoded bodies and work without JavaScript; errors answer as pages.
 */
export async function dashboardRoutes(app: App) {
  const { services, config, clock, store, rateLimits } = app.deps;
  const auth = new DashboardAuth({
    db: store.db,
    clock,
    channel: services.messenger,
    rateLimits,
    publicBaseUrl: config.publicBaseUrl,
  });
  const secure = config.publicBaseUrl.startsWith('https:');

  await app.register(fastifyCookie);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    // The server's body limit (64 KB) applies, except where a route sets its own (the import).
    { parseAs: 'string' },
    (_r, body, done) => done(null, parseForm(body as string)),
  );
  app.decorateRequest('dashboardSession', null);

  /** A signed-in owner reads the business's language; before that, the browser's. */
  const lang = (request: FastifyRequest) => {
    const business = request.dashboardSession?.business;
    return business
      ? { t: translator(business.language), language: business.language }
      : loginTranslator(request.headers['accept-language']);
  };
  app.setNotFoundHandler(async (request, reply) => {
    // A signed-in owner who mistypes an address is answered in the business's language.
    request.dashboardSession ??= await auth.session(request.cookies[SESSION_COOKIE]);
    const l = lang(request);
    return sendPage(reply, 404, renderMessage(l, l.t('error.title'), l.t('error.not_found')));
  });
  // The API's one translation of whatever was thrown (a store outage is 503 with Retry-After),
  // answered as a page instead of the JSON envelope.
  app.setErrorHandler((error, request, reply) => {
    const l = lang(request);
    const appError = toAppError(error);
    const status = statusOf(appError);
    if (appError.headers) reply.headers(appError.headers);
    if (status === 500) request.log.error({ err: error }, 'dashboard page failed');
    // The services' messages name the field; the framework's (JSON-minded) ones would mislead here.
    const text =
      appError.code === 'not_found'
        ? l.t('error.not_found')
        : error instanceof AppError && status < 500
          ? refusalText(l.t, appError)
          : l.t('error.generic');
    return sendPage(reply, status, renderMessage(l, l.t('error.title'), text));
  });

  const startSession = (reply: FastifyReply, token: string) => {
    reply.setCookie(SESSION_COOKIE, token, {
      path: '/dashboard',
      httpOnly: true,
      sameSite: 'lax',
      secure,
      maxAge: SESSION_TTL_MS / 1000,
    });
    reply.clearCookie(LOGIN_CSRF_COOKIE, { path: '/dashboard/login' });
    return seeOther(reply, '/dashboard');
  };

  /** Before a session there is no server-side token to hold: the form's token must match a cookie. */
  const loginCsrf = (request: FastifyRequest, reply: FastifyReply): string => {
    const existing = request.cookies[LOGIN_CSRF_COOKIE];
    if (existing && /^[A-Za-z0-9_-]{24}$/.test(existing)) return existing;
    const token = randomToken(18);
    reply.setCookie(LOGIN_CSRF_COOKIE, token, { path: '/dashboard/login', httpOnly: true, sameSite: 'lax', secure });
    return token;
  };

  app.get('/login', { schema: { hide: true } }, async (request, reply) => {
    if (await auth.session(request.cookies[SESSION_COOKIE])) return seeOther(reply, '/dashboard');
    return sendPage(reply, 200, renderLogin(lang(request), { csrf: loginCsrf(request, reply) }));
  });

  app.post<{ Body: Form | undefined }>('/login', { schema: { hide: true } }, async (request, reply) => {
    const l = lang(request);
    const form = request.body ?? {};
    const cookie = request.cookies[LOGIN_CSRF_COOKIE];
    if (!cookie || form._csrf !== cookie) {
      return sendPage(
        reply,
        403,
        renderMessage(l, l.t('error.title'), l.t('error.csrf'), {
          href: '/dashboard/login',
          label: l.t('login.title'),
        }),
      );
    }
    const phone = (form.phone ?? '').slice(0, 40);
    const page = (status: number, codeSent: boolean, flash?: { kind: 'notice' | 'error'; text: string }) =>
      sendPage(reply, status, renderLogin(l, { csrf: cookie, phone, codeSent }, flash));
    if (form.action === 'verify') {
      const outcome = await auth.verifyCode(phone, form.code ?? '');
      if (outcome.kind === 'signed_in') return startSession(reply, outcome.token);
      return page(400, true, { kind: 'error', text: l.t('login.invalid_code') });
    }
    let outcome: Awaited<ReturnType<DashboardAuth['requestCode']>>;
    try {
      outcome = await auth.requestCode(phone, request.ip);
    } catch (error) {
      if (error instanceof AppError) throw error;
      request.log.warn({ err: error }, 'dashboard sign-in code not sent');
      return page(503, false, { kind: 'error', text: l.t('login.send_failed') });
    }
    switch (outcome.kind) {
      case 'invalid_phone':
        return page(400, false, { kind: 'error', text: l.t('login.invalid_phone') });
      case 'rate_limited':
        reply.header('retry-after', String(outcome.retryAfterSeconds));
        return page(429, false, {
          kind: 'error',
          text: l.t('login.rate_limited', { minutes: Math.ceil(outcome.retryAfterSeconds / 60) }),
        });
      default:
        return page(200, true, { kind: 'notice', text: l.t('login.code_sent') });
    }
  });

  app.get<{ Params: { token: string } }>('/login/:token', { schema: { hide: true } }, async (request, reply) => {
    const outcome = await auth.useLink(request.params.token);
    if (outcome.kind === 'signed_in') return startSession(reply, outcome.token);
    const l = lang(request);
    return sendPage(
      reply,
      404,
      renderMessage(l, l.t('login.title'), l.t('login.link_invalid'), {
        href: '/dashboard/login',
        label: l.t('login.title'),
      }),
    );
  });

  await app.register(async (signedIn) => {
    // Every route says what it takes (route-actions.ts): one without an entry stops the start.
    signedIn.addHook('onRoute', checkRouteHasRule);
    const forbidden = (request: FastifyRequest, reply: FastifyReply) => {
      const l = lang(request);
      return sendPage(reply, 403, renderMessage(l, l.t('error.title'), l.t('error.forbidden')));
    };
    // Before the body is read: a request without a session is sent to sign in, and one its role
    // may not make is refused, their bodies (up to the import's size) never parsed. The CSRF token
    // is in the body, so it is checked once parsed, before the buyer a collector acts on.
    signedIn.addHook('onRequest', async (request, reply) => {
      const session = await auth.session(request.cookies[SESSION_COOKIE]);
      if (!session) return seeOther(reply, '/dashboard/login');
      request.dashboardSession = session;
      actAs({ type: 'user', id: session.user.id, name: session.user.name });
      const verdict = roleVerdict(request, session);
      if (verdict.kind === 'forbidden') return forbidden(request, reply);
      if (verdict.kind === 'redirect') return seeOther(reply, verdict.location);
    });
    signedIn.addHook('preHandler', async (request, reply) => {
      const session = request.dashboardSession as DashboardSession;
      if (request.method === 'POST' && !auth.checkCsrf(session, (request.body as Form | undefined)?._csrf)) {
        const l = lang(request);
        return sendPage(reply, 403, renderMessage(l, l.t('error.title'), l.t('error.csrf')));
      }
      if ((await scopeVerdict(store.db, request, session)).kind === 'forbidden') return forbidden(request, reply);
    });

    signedIn.post('/logout', { schema: { hide: true } }, async (request, reply) => {
      await auth.signOut(request.cookies[SESSION_COOKIE]);
      reply.clearCookie(SESSION_COOKIE, { path: '/dashboard' });
      return seeOther(reply, '/dashboard/login');
    });

    await signedIn.register(signedInRoutes);
  });
}
