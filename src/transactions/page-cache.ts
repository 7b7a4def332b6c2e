/**
 * Rendered pages (response bodies), each kept with the data version of its business when it was
 * read and served only while that version stands (summary/aggregates.ts readDataVersion): any
 * change to the business's dues or contacts, made by any process, moves the version in the same
 * transaction, so a page is never served after a change to what it shows. Other businesses'
 * changes do not touch it. The least recently used pages go first once the bodies pass
 * `maxBytes`.
 *
 * Read the version before reading the page it is stored with: a page read later can only be
 * newer than the version, never older, and a newer version already marks it stale.
 */
export class PageCache {
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
