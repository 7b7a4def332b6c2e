import { Type } from 'typebox';
import { errors } from '../errors.js';
import { parseRawJson } from '../http/body.js';
import { errorResponses } from '../http/schemas.js';
import type { App } from '../http/types.js';
import { documentedBodyCompiler } from '../http/validation.js';
import { holdsNul } from '../lib/json-text.js';
import { paymentOfWebhook, validRazorpaySignature } from './razorpay.js';

const PATH = '/channels/razorpay/webhook';
const BODY_LIMIT = 1024 * 1024;

/**
 * Razorpay's webhook (PRODUCT part 11), outside /v1: Razorpay calls it without an API key. The
 * X-Razorpay-Signature covers the raw bytes, so this scope keeps them and parses JSON only once
 * the signature checks out; a bad or missing one is 401 with nothing changed. Everything else
 * that is signed is acknowledged (200), so Razorpay does not retry what will never change.
 */
export async function razorpayWebhookRoutes(app: App) {
  const secret = app.deps.config.razorpay.webhookSecret;
  const { moneyIn } = app.deps.services;

  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (_request, body, done) => {
    done(null, body);
  });

  app.post(
    PATH,
    {
      bodyLimit: BODY_LIMIT,
      // The signature covers the raw bytes: the handler checks it, then parses.
      validatorCompiler: documentedBodyCompiler,
      schema: {
        operationId: 'receiveRazorpayWebhook',
        tags: ['Channels'],
        summary: 'Razorpay webhook (Razorpay calls this)',
        security: [{ razorpaySignature: [] }],
        body: {
          content: {
            'application/json': {
              schema: Type.Object(
                { event: Type.Optional(Type.String()), payload: Type.Optional(Type.Object({})) },
                {
                  description:
                    "Razorpay's webhook payload (event, payload.payment_link, payload.payment), signed as sent",
                },
              ),
            },
          },
        },
        description:
          'payment_link.paid records a payment with source gateway (utr = the Razorpay payment id), once per payment id. Requires X-Razorpay-Signature, the hex HMAC-SHA256 of the raw body keyed with RAZORPAY_WEBHOOK_SECRET; 401 otherwise, with nothing changed. Other events, unknown references and money for settled or deleted dues (kept as unapplied payments) are acknowledged with 200.',
        response: { 200: Type.Object({ received: Type.Boolean() }), ...errorResponses() },
      },
    },
    async (request) => {
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const header = request.headers['x-razorpay-signature'];
      if (!secret || !validRazorpaySignature(raw, typeof header === 'string' ? header : undefined, secret)) {
        throw errors.unauthorized('missing or invalid X-Razorpay-Signature');
      }
      const body = parseRawJson(raw);
      // PostgreSQL keeps no NUL in text, and no message or payment carries one: acknowledged and
      // ignored (not retried), like any other signed payload there is nothing to do with.
      if (holdsNul(body)) {
        request.log.warn('signed webhook payload holds a NUL character: ignored');
        return { received: true };
      }
      const report = paymentOfWebhook(body);
      if (!report) {
        request.log.info({ event: (body as { event?: unknown })?.event }, 'razorpay webhook ignored');
        return { received: true };
      }
      const outcome = await moneyIn.recordPayment(report);
      const log = { gatewayPaymentId: report.paymentId, amountPaise: report.amountPaise, ...outcome };
      if (outcome.kind === 'recorded' && outcome.unappliedPaise === 0)
        request.log.info(log, 'gateway payment recorded');
      else if (outcome.kind === 'duplicate') request.log.info(log, 'gateway payment already recorded');
      else request.log.warn(log, 'gateway payment not (fully) applied to a due');
      return { received: true };
    },
  );
}
