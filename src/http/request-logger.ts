import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions } from 'pino';

type Log = (...args: unknown[]) => void;

/**
 * A request's logger (`request.log`), made on first use. Fastify makes a pino child with the
 * request id for every request, and most requests log nothing (request logging is off by
 * default): the child cost a read ~1-2 us of its 100-200. The first call makes the same child
 * Fastify would have made, so what is logged (the request id included) does not change.
 */
export class LazyRequestLogger implements FastifyBaseLogger {
  #made: FastifyBaseLogger | undefined;
  readonly #parent: FastifyBaseLogger;
  readonly #bindings: Bindings;
  readonly #options: ChildLoggerOptions;

  constructor(parent: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#options = options;
  }

  /** The child logger itself (made now if it was not yet). */
  get made(): FastifyBaseLogger {
    this.#made ??= this.#parent.child(this.#bindings, this.#options);
    return this.#made;
  }

  get level(): string {
    return this.made.level;
  }

  set level(level: string) {
    this.made.level = level;
  }

  fatal(...args: unknown[]): void {
    (this.made.fatal as Log)(...args);
  }
  error(...args: unknown[]): void {
    (this.made.error as Log)(...args);
  }
  warn(...args: unknown[]): void {
    (this.made.warn as Log)(...args);
  }
  info(...args: unknown[]): void {
    (this.made.info as Log)(...args);
  }
  debug(...args: unknown[]): void {
    (this.made.debug as Log)(...args);
  }
  trace(...args: unknown[]): void {
    (this.made.trace as Log)(...args);
  }
  silent(...args: unknown[]): void {
    (this.made.silent as Log)(...args);
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.made.child(bindings, options);
  }
}
