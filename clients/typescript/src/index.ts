import createClient, { type Client, type ClientOptions, type Middleware } from 'openapi-fetch';
import type { components, operations, paths } from './schema.js';

export * from './webhooks.js';
export type { components, operations, paths };

/** A schema of the API by its name, e.g. `Schema<'Transaction'>`. */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name];

export type ReceivablesClient = Client<paths>;

export interface ReceivablesClientOptions extends Omit<ClientOptions, 'baseUrl'> {
  /** where the API is, e.g. https://receivables.example.com (no /v1) */
  baseUrl: string;
  /** the business's API key (rk_live_...), sent as x-api-key */
  apiKey: string;
}

/**
 * A typed client of the receivables API (openapi-fetch over the generated `paths`): every path,
 * parameter, body and answer is checked by TypeScript against the API's OpenAPI document.
 *
 *   const api = createReceivablesClient({ baseUrl, apiKey });
 *   const { data, error, response } = await api.GET('/v1/transactions/{id}', { params: { path: { id } } });
 */
export function createReceivablesClient(options: ReceivablesClientOptions): ReceivablesClient {
  const { apiKey, ...rest } = options;
  const client = createClient<paths>(rest);
  const authenticate: Middleware = {
    onRequest({ request }) {
      request.headers.set('x-api-key', apiKey);
      return request;
    },
  };
  client.use(authenticate);
  return client;
}
