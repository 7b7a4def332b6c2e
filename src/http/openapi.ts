import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyRequest } from 'fastify';
import { describeCommonResponses, type OpenApiObject } from './openapi-document.js';
import type { App } from './types.js';

/**
 * OpenAPI 3.1 generated from the same TypeBox schemas that validate requests and serialise
 * responses; shared schemas (those with an $id) become named components.
 */
export async function registerOpenApi(app: App, publicBaseUrl: string) {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Receivables API',
        version: '1.0.0',
        description:
          'Track the money your buyers owe you (dues), your contacts and totals; send payment reminders; receive signed webhook events. Amounts are integers in paise. Errors are {"error": {"code", "message", "field"}}. Every request is limited per API key (RateLimit-* headers; 429 with Retry-After: 60).',
      },
      servers: [{ url: publicBaseUrl }],
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
          whatsappSignature: {
            type: 'apiKey',
            in: 'header',
            name: 'X-Hub-Signature-256',
            description: 'sha256= + the hex HMAC-SHA256 of the raw body, keyed with WHATSAPP_APP_SECRET (Meta signs)',
          },
          whatsappVerifyToken: {
            type: 'apiKey',
            in: 'query',
            name: 'hub.verify_token',
            description: 'WHATSAPP_VERIFY_TOKEN, sent by Meta in the subscription handshake',
          },
          razorpaySignature: {
            type: 'apiKey',
            in: 'header',
            name: 'X-Razorpay-Signature',
            description: 'the hex HMAC-SHA256 of the raw body, keyed with RAZORPAY_WEBHOOK_SECRET (Razorpay signs)',
          },
        },
      },
      security: [{ apiKey: [] }],
    },
    transformObject: (documentObject) =>
      describeCommonResponses((documentObject as { openapiObject: OpenApiObject }).openapiObject) as never,
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
    },
  });
  // Served with the origin the document was fetched from as its server, so that /docs' "Try it
  // out" calls the same host and port the page was opened on (localhost, 127.0.0.1, a LAN
  // address, a proxy's name): same-origin requests, no CORS, whatever PUBLIC_BASE_URL says.
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    staticCSP: true,
    transformSpecificationClone: false,
    transformSpecification: (doc, request) => servedFrom(doc, request),
  });
  app.get('/openapi.json', { schema: { hide: true } }, async (request) => servedFrom(app.swagger(), request));
}

function servedFrom<T extends object>(doc: T, request: FastifyRequest): T {
  return { ...doc, servers: [{ url: `${request.protocol}://${request.host}` }] };
}
