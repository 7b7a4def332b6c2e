import type { FastifyReply } from 'fastify';
import type { Counter } from 'prom-client';

/**
 * Rendered responses (bodies), each kept with the data version of its business when it was read
 * and served only while that version stands (businesses/repository.ts readDataVersion): any
 * change to the business's dues or contacts, made by any process, moves the version in the same
 * transaction, so a body is never served after a change to what it shows. Other businesses'
 * changes do not touch it. The least recently used bodies go first once they pass `maxBytes`.
 *
 * Read the version before reading what is stored with it: data read later can only be newer than
 * the version, never older, and a newer version already marks it stale.
 */
export class RenderedCache {
  readonly #pages = new Map<string, { version: number; body: string }>();
  readonly #maxBytes: number;
  #bytes = 0;
  readonly stats = { hits: 0, misses: 0 };

  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  get size(): number {
    return this.#pages.size;
  }

  get bytes(): number {
    return this.#bytes;
  }

  get(key: string, version: number): string | undefined {
    const page = this.#pages.get(key);
    if (page === undefined || page.version !== version) {
      if (page !== undefined) this.#drop(key, page.body);
      this.stats.misses++;
      return undefined;
    }
    // most recently used last
    this.#pages.delete(key);
    this.#pages.set(key, page);
    this.stats.hits++;
    return page.body;
  }

  set(key: string, version: number, body: string): void {
    const old = this.#pages.get(key);
    if (old !== undefined) this.#drop(key, old.body);
    const size = key.length + body.length;
    if (size > this.#maxBytes) return;
    while (this.#bytes + size > this.#maxBytes) {
      const [oldestKey, oldest] = this.#pages.entries().next().value as [string, { body: string }];
      this.#drop(oldestKey, oldest.body);
    }
    this.#pages.set(key, { version, body });
    this.#bytes += size;
  }

  #drop(key: string, body: string): void {
    this.#pages.delete(key);
    this.#bytes -= key.length + body.length;
  }
}

/**
 * Responses that dashboards and integrations ask for again and again (a page of dues), served
 * rendered while the business's data stands still (RESPONSE_CACHE_MB). Only worth it where
 * reading and rendering cost well more than reading the version: a page of 50 dues, not the
 * summary (measured: no gain) or one due.
 */
export class RenderedResponses {
  readonly #cache: RenderedCache | undefined;
  readonly #outcomes: Counter<'route' | 'outcome'>;

  constructor(maxBytes: number, outcomes: Counter<'route' | 'outcome'>) {
    this.#cache = maxBytes > 0 ? new RenderedCache(maxBytes) : undefined;
    this.#outcomes = outcomes;
  }

  /**
   * Answers with the body kept for `key` while `version()` is what it was kept with; otherwise
   * renders `payload()` through the route's own response serializer (as Fastify would), keeps
   * it and answers with it. `key` must hold everything besides the business's data that the body
   * depends on (the business, the query, the local date).
   */
  async send<T>(
    reply: FastifyReply,
    route: string,
    key: string,
    version: () => Promise<number>,
    payload: () => Promise<T>,
  ): Promise<T> {
    const cache = this.#cache;
    if (!cache) return payload();
    const stands = await version();
    let body = cache.get(key, stands);
    this.#outcomes.inc({ route, outcome: body === undefined ? 'miss' : 'hit' });
    if (body === undefined) {
      body = reply.serialize(await payload()) as string;
      cache.set(key, stands, body);
    }
    // The reply, sent: what a handler returns after reply.send (typed as the payload it stands for).
    return reply.type('application/json; charset=utf-8').send(body) as T;
  }
}
