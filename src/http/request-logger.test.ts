import Fastify, { LogController } from 'fastify';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { LazyRequestLogger } from './request-logger.js';

function capture(level = 'info') {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { logger, lines };
}

describe('LazyRequestLogger', () => {
  it('logs what the child Fastify would have made logs: bindings, level, nested children', () => {
    const { logger, lines } = capture();
    const log = new LazyRequestLogger(logger, { reqId: 'r-1' }, {});
    expect(log.level).toBe('info');
    log.debug('not at info');
    log.info({ a: 1 }, 'hello %s', 'there');
    log.error(new Error('boom'));
    log.child({ job: 'x' }).warn('from a child');
    expect(lines.map((l) => [l.reqId, l.msg, l.level])).toEqual([
      ['r-1', 'hello there', 30],
      ['r-1', 'boom', 50],
      ['r-1', 'from a child', 40],
    ]);
    expect(lines[0]?.a).toBe(1);
    expect(lines[2]?.job).toBe('x');
  });

  it("takes the route's level from its options, and a level set on it", () => {
    const { logger, lines } = capture();
    const log = new LazyRequestLogger(logger, { reqId: 'r-2' }, { level: 'error' });
    log.warn('below the route level');
    expect(lines).toHaveLength(0);
    log.level = 'debug';
    log.debug('now shown');
    expect(lines.map((l) => l.msg)).toEqual(['now shown']);
  });

  it('is what request.log is in a Fastify app, with the request id on each line', async () => {
    const { logger, lines } = capture();
    const app = Fastify({
      loggerInstance: logger,
      logController: new LogController({ disableRequestLogging: true }),
      genReqId: () => 'req-42',
      childLoggerFactory: (parent, bindings, options) => new LazyRequestLogger(parent, bindings, options),
    });
    app.get('/quiet', async () => ({ ok: true }));
    app.get('/loud', async (request) => {
      expect(request.log).toBeInstanceOf(LazyRequestLogger);
      request.log.warn('something to say');
      return { ok: true };
    });
    expect((await app.inject('/quiet')).statusCode).toBe(200);
    expect(lines).toHaveLength(0);
    expect((await app.inject('/loud')).statusCode).toBe(200);
    expect(lines.map((l) => [l.reqId, l.msg])).toEqual([['req-42', 'something to say']]);
    await app.close();
  });
});
