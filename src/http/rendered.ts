import type { FastifyReply } from 'fastify';
import type { Counter } from 'prom-client';
import { type CacheNamespace, cacheKey } from '../cache/cache.js';

/**
 * Responses that dashboards and integrations ask for again and again (a page of dues), served
 * rendered while the business's data stands still: the `pages` namespace of the service layer's
 * cache (cache/cache.ts says how its versions are kept; RESPONSE_CACHE_MB sizes it). Only worth
 * it where reading and rendering cost well more than reading the version: a page of 50 dues, a
 * contact with its balances and score (~150 us read and rendered: bench/README.md), not the
 * summary (measured: no gain) or one due.
 */
export class RenderedResponses {
  readonly #pages: CacheNamespace<string> | undefined;
  readonly #outcomes: Counter<'route' | 'outcome'>;

  constructor(pages: CacheNamespace<string> | undefined, outcomes: Counter<'route' | 'outcome'>) {
    this.#pages = pages;
    this.#outcomes = outcomes;
  }

  /**
   * Answers with the body kept for `keyParts` while `version()` is what it was kept with;
   * otherwise renders `payload()` through the route's own response serializer (as Fastify
   * would), keeps it and answers with it. `keyParts` must hold everything besides the business's
   * data that the body depends on: the business, the validated query (whole, so that a parameter
   * added later is part of the key), the local date.
   */
  async send<T>(
    reply: FastifyReply,
    route: string,
    keyParts: unknown[],
    version: () => Promise<number>,
    payload: () => Promise<T>,
  ): Promise<T> {
    const pages = this.#pages;
    if (!pages) return payload();
    const key = cacheKey(route, ...keyParts);
    const stands = await version();
    let body = pages.get(key, stands);
    this.#outcomes.inc({ route, outcome: body === undefined ? 'miss' : 'hit' });
    if (body === undefined) {
      body = reply.serialize(await payload()) as string;
      pages.set(key, stands, body);
    }
    // The reply, sent: what a handler returns after reply.send (typed as the payload it stands for).
    return reply.type('application/json; charset=utf-8').send(body) as T;
  }
}
