import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { coalesceWrites } from './write-coalescing.js';

describe('coalesceWrites', () => {
  it('holds the responses of one turn until its end, then runs beforeWrite once and sends them all', async () => {
    const events: string[] = [];
    const app = Fastify();
    coalesceWrites(app, {
      beforeWrite: () => events.push('beforeWrite'),
      onWrite: (request) => events.push(`write ${(request.params as { n: string }).n}`),
    });
    app.get('/:n', async (request) => {
      const { n } = request.params as { n: string };
      events.push(`handled ${n}`);
      return { n };
    });
    await app.ready();
    const responses = await Promise.all(
      ['1', '2', '3'].map((n) =>
        app.inject({ method: 'GET', url: `/${n}` }).then((res) => {
          events.push(`received ${n}`);
          return res;
        }),
      ),
    );
    expect(responses.map((r) => [r.statusCode, r.json()])).toEqual([
      [200, { n: '1' }],
      [200, { n: '2' }],
      [200, { n: '3' }],
    ]);
    expect(events.slice(0, 7)).toEqual([
      'handled 1',
      'handled 2',
      'handled 3',
      'beforeWrite',
      'write 1',
      'write 2',
      'write 3',
    ]);
    expect(events.slice(7).sort()).toEqual(['received 1', 'received 2', 'received 3']);
    await app.close();
  });

  it('sends error responses too, and a later turn gets its own beforeWrite', async () => {
    let calls = 0;
    const written: number[] = [];
    const app = Fastify();
    coalesceWrites(app, { beforeWrite: () => calls++, onWrite: (_request, reply) => written.push(reply.statusCode) });
    app.get('/boom', async () => {
      throw Object.assign(new Error('no'), { statusCode: 409 });
    });
    await app.ready();
    expect((await app.inject({ method: 'GET', url: '/boom' })).statusCode).toBe(409);
    expect((await app.inject({ method: 'GET', url: '/missing' })).statusCode).toBe(404);
    expect(calls).toBe(2);
    expect(written).toEqual([409, 404]);
    await app.close();
  });
});
