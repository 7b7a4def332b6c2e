import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { Config } from '../config.js';
import type { Store } from '../db/store.js';
import type { Clock } from '../lib/clock.js';
import type { RateLimitStore } from '../rate-limit/port.js';
import type { Services } from '../services.js';
import type { Metrics } from './metrics.js';
import type { RenderedResponses } from './rendered.js';

/** Everything the HTTP app needs, built once by server.ts (or a test harness) and passed in. */
export interface AppDeps {
  config: Config;
  store: Store;
  clock: Clock;
  services: Services;
  rateLimits: RateLimitStore;
  metrics: Metrics;
}

declare module 'fastify' {
  interface FastifyInstance {
    deps: AppDeps;
    rendered: RenderedResponses;
  }
}

/** The Fastify instance with TypeBox types, as route modules receive it. */
export type App = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;
