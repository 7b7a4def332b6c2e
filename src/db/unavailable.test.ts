import { describe, expect, it } from 'vitest';
import { isStoreUnavailable } from './unavailable.js';

function withCode(code: string, message = 'x'): Error {
  return Object.assign(new Error(message), { code });
}

describe('isStoreUnavailable', () => {
  it.each([
    ['connection refused', withCode('ECONNREFUSED')],
    ['connection reset', withCode('ECONNRESET')],
    ['admin shutdown (pg_ctl stop -m fast)', withCode('57P01', 'terminating connection due to administrator command')],
    ['crash shutdown', withCode('57P02')],
    ['starting up', withCode('57P03', 'the database system is starting up')],
    ['connection exception class 08', withCode('08006')],
    ['too many connections', withCode('53300')],
    ['a socket that died', new Error('Connection terminated unexpectedly')],
    ['a pool connect timeout', new Error('timeout exceeded when trying to connect')],
    [
      'a client after its connection error',
      new Error('Client has encountered a connection error and is not queryable'),
    ],
    ['happy eyeballs', new AggregateError([withCode('ECONNREFUSED')], 'connect failed')],
    ['a wrapped cause', new Error('query failed', { cause: withCode('ECONNRESET') })],
  ])('%s: yes', (_name, error) => {
    expect(isStoreUnavailable(error)).toBe(true);
  });

  it.each([
    ['a unique violation', withCode('23505')],
    ['a syntax error', withCode('42601')],
    ['a lock timeout', withCode('55P03')],
    ['a plain bug', new TypeError('x is undefined')],
    ['SQLite busy', withCode('SQLITE_BUSY')],
    ['not an error', 'ECONNREFUSED'],
    ['null', null],
  ])('%s: no', (_name, error) => {
    expect(isStoreUnavailable(error)).toBe(false);
  });
});
