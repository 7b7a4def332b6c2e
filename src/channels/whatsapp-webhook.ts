import { createHmac, timingSafeEqual } from 'node:crypto';
import { Type } from 'typebox';
import { errors } from '../errors.js';
import { parseRawJson } from '../http/body.js';
import { errorResponses } from '../http/schemas.js';
import type { App } from '../http/types.js';
import { documentedBodyCompiler } from '../http/validation.js';
import { holdsNul } from '../lib/json-text.js';
import { parseWhatsAppPayload } from './whatsapp-payload.js';

const PATH = '/channels/whatsapp/webhook';
/** Meta batches statuses; allow more than the API's 64 KB. */
const BODY_LIMIT = 1024 * 1024;

/** Constant-time comparison of two strings (false, not an exception, when the lengths differ). */
export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** X-Hub-Signature-256 is "sha256=" + the hex HMAC-SHA256 of the exact body bytes, keyed with the app secret. */
export function validHubSignature(raw: Buffer, header: string | undefined, appSecret: string): boolean {
  if (!header) return false;
  const expected = `sha256=${createHmac('sha256', appSecret).update(raw).digest('hex')}`;
  return safeEqual(header.trim().toLowerCase(), expected);
}

const VerifyQuery = Type.Object({
  'hub.mode': Type.Optional(Type.String()),
  'hub.verify_token': Type.Optional(Type.String()),
  'hub.challenge': Type.Optional(Type.String()),
});

/**
 * The WhatsApp Cloud API webhook (PRODUCT part 6), outside /v1: Meta calls it without an API key.
 * GET is Meta's subscription handshake; POST carries inbound messages and delivery statuses and is
 * accepted only with a valid X-Hub-Signature-256 (checked before anything is parsed or changed).
 */
export async function whatsappWebhookRoutes(app: App) {
  const { appSecret, verifyToken } = app.deps.config.whatsapp;
  const { chatInbound } = app.deps.services;

  // The signature covers the raw bytes, so this scope keeps them: every content type arrives as a
  // Buffer and is parsed as JSON only once the signature checks out.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (_request, body, done) => {
    done(null, body);
  });

  app.get(
    PATH,
    {
      schema: {
        operationId: 'verifyWhatsAppWebhook',
        tags: ['Channels'],
        summary: 'WhatsApp webhook verification (Meta calls this)',
        security: [{ whatsappVerifyToken: [] }],
        description:
          'Answers hub.challenge as text/plain when hub.mode is subscribe and hub.verify_token equals WHATSAPP_VERIFY_TOKEN; 403 otherwise.',
        querystring: VerifyQuery,
        response: {
          200: {
            description: 'hub.challenge, echoed',
            content: { 'text/plain': { schema: Type.String() } },
          },
          ...errorResponses(403),
        },
      },
    },
    async (request, reply) => {
      const q = request.query;
      const token = q['hub.verify_token'];
      if (
        q['hub.mode'] !== 'subscribe' ||
        !verifyToken ||
        token === undefined ||
        !safeEqual(token, verifyToken) ||
        q['hub.challenge'] === undefined
      ) {
        throw errors.forbidden('webhook verification failed: hub.mode or hub.verify_token does not match');
      }
      return reply.type('text/plain; charset=utf-8').send(q['hub.challenge']);
    },
  );

  app.post(
    PATH,
    {
      bodyLimit: BODY_LIMIT,
      // The signature covers the raw bytes: the handler checks it, then parses.
      validatorCompiler: documentedBodyCompiler,
      schema: {
        operationId: 'receiveWhatsAppWebhook',
        tags: ['Channels'],
        summary: 'WhatsApp webhook events (Meta calls this)',
        security: [{ whatsappSignature: [] }],
        body: {
          content: {
            'application/json': {
              schema: Type.Object(
                { object: Type.Optional(Type.String()), entry: Type.Optional(Type.Array(Type.Object({}))) },
                {
                  description:
                    "Meta's webhook payload (messages and statuses under entry[].changes[].value), signed as sent",
                },
              ),
            },
          },
        },
        description:
          "Inbound messages (STOP, START, API KEY; chat commands from a business's registered phone: add, paid, dues, overdue, remind, help) and delivery statuses. Requires X-Hub-Signature-256, the HMAC-SHA256 of the raw body keyed with WHATSAPP_APP_SECRET; 401 otherwise, with nothing changed.",
        response: { 200: Type.Object({ received: Type.Boolean() }), ...errorResponses() },
      },
    },
    async (request) => {
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const header = request.headers['x-hub-signature-256'];
      if (!appSecret || !validHubSignature(raw, typeof header === 'string' ? header : undefined, appSecret)) {
        throw errors.unauthorized('missing or invalid X-Hub-Signature-256');
      }
      const payload = parseRawJson(raw);
      // PostgreSQL keeps no NUL in text, and no message or payment carries one: acknowledged and
      // ignored (not retried), like any other signed payload there is nothing to do with.
      if (holdsNul(payload)) {
        request.log.warn('signed webhook payload holds a NUL character: ignored');
        return { received: true };
      }
      const replyFailures = await chatInbound.handle(parseWhatsAppPayload(payload));
      for (const failure of replyFailures) {
        request.log.warn({ reason: failure.message, detail: failure.detail }, 'chat reply could not be sent');
      }
      return { received: true };
    },
  );
}
