import { describe, expect, it } from 'vitest';
import { toAppError } from './error-handler.js';
import { statusOf } from './error-status.js';

/**
 * Errors a store raises when writes collide become a clear 409 that says nothing was changed, never
 * a 500: the black-box concurrency tests (contact-merge.test.ts) meet them only now and then.
 */
describe('toAppError for store errors', () => {
  it.each([
    ['40P01', 'a deadlock'],
    ['40001', 'a serialization failure'],
  ])('%s (%s) is a 409 asking to retry', (code) => {
    const error = Object.assign(new Error('deadlock detected'), { code, severity: 'ERROR' });
    const mapped = toAppError(error);
    expect(statusOf(mapped)).toBe(409);
    expect(mapped.message).toContain('nothing was changed; retry');
  });

  it('a foreign-key violation is a 409 too; an unknown error stays a 500', () => {
    expect(statusOf(toAppError(Object.assign(new Error('fk'), { code: '23503' })))).toBe(409);
    expect(statusOf(toAppError(new Error('boom')))).toBe(500);
  });
});
